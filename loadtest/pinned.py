"""An A/B of the move path with the worker on a core of its own.

`make bench` shares the machine's cores between the worker, Redis and the load generator,
so on two cores a line's rounds spread ±20% (docs/performance.md, "Round four"), as much
as most changes it is asked to judge. Here one worker runs pinned to the last core, with
every thread it has (the event loop and gRPC's poller), and Redis and this generator to
the others: a round's rate is then what one core of worker gives, and rounds agree within
a few percent ("Round five").

    python -m loadtest.pinned [--line grpc:MakeMove] [--rounds 3] [--repeats 2]
        [--memory] [--variant NAME:VAR=VALUE[,VAR=VALUE...]] ...

Each repeat runs every variant in turn (the worker as configured first, then one per
`--variant`, its variables set in the worker's environment), each on a fresh worker and
Redis, `--rounds` windows of 3 s at 32 calls in flight; `--memory` adds the worker on
its in-process store, the line Redis's part is measured against. Printed: each round's
rate, worker CPU a call and cores busy, then per variant the medians over all rounds.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from .cluster import Cluster
from .generator import Options, Result, session_on
from .windows import Window

CONCURRENCY = 32
WINDOW = Window(warmup=1.0, seconds=3.0)


@dataclass(frozen=True)
class Variant:
    name: str
    env: Mapping[str, str]
    redis: bool = True


def parse_variant(spec: str) -> Variant:
    name, sep, assignments = spec.partition(":")
    env = dict(pair.split("=", 1) for pair in assignments.split(",") if "=" in pair)
    if not sep or not name or not env:
        raise argparse.ArgumentTypeError(f"a variant is NAME:VAR=VALUE[,VAR=VALUE], not {spec!r}")
    return Variant(name, env)


def cores() -> tuple[set[int], set[int]]:
    """The worker's core (the last one this process may use), and the others."""
    usable = sorted(os.sched_getaffinity(0))
    if len(usable) < 2:
        raise SystemExit("pinning needs two cores at least: one for the worker")
    return {usable[-1]}, set(usable[:-1])


def pin(pid: int, cpus: set[int]) -> None:
    """Every thread of process `pid` to `cpus` (threads started later inherit it)."""
    for tid in os.listdir(f"/proc/{pid}/task"):
        os.sched_setaffinity(int(tid), cpus)


@contextmanager
def worker_env(env: Mapping[str, str]) -> Iterator[None]:
    """`env` in this process's environment, which the workers it starts inherit."""
    saved = {name: os.environ.get(name) for name in env}
    os.environ.update(env)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                del os.environ[name]
            else:
                os.environ[name] = value


async def measure(
    variant: Variant,
    line: tuple[str, str],
    rounds: int,
    out: Path,
    split: tuple[set[int], set[int]],
) -> list[Result]:
    worker_core, others = split
    options = Options([1], CONCURRENCY, rounds, WINDOW, False, 0.0, out)
    with worker_env(variant.env):
        async with session_on(1, options, redis=variant.redis) as session:
            deployment: Cluster = session.deployment
            pin(deployment.workers[0].proc.pid, worker_core)
            if deployment.redis is not None:
                pin(deployment.redis.pid, others)
            return [await session.once(*line) for _ in range(rounds)]


def summary(name: str, results: Sequence[Result]) -> str:
    rate = statistics.median(r.rate for r in results)
    cpu_ms = statistics.median(r.worker_cpu_ms for r in results)
    busy = statistics.median(r.cpu["workers"] for r in results)
    spread = (max(r.rate for r in results) - min(r.rate for r in results)) / rate
    return (
        f"{name:<16} {rate:7.0f} calls/s  {cpu_ms:.3f} worker CPU ms a call  "
        f"{busy:.2f} cores busy  rounds' spread {spread:.0%} ({len(results)} rounds)"
    )


async def run(args: argparse.Namespace) -> None:
    split = cores()
    os.sched_setaffinity(0, split[1])
    transport, _, call = args.line.partition(":")
    variants = [Variant("as built", {}), *args.variant]
    if args.memory:
        variants.append(Variant("in-process store", {}, redis=False))
    found: dict[str, list[Result]] = {v.name: [] for v in variants}
    with tempfile.TemporaryDirectory(prefix="genial-pinned-") as logs:
        for _ in range(args.repeats):
            for variant in variants:
                results = await measure(variant, (transport, call), args.rounds, Path(logs), split)
                found[variant.name].extend(results)
                rounds = ", ".join(
                    f"{r.rate:.0f}/s {r.worker_cpu_ms:.3f} ms {r.cpu['workers']:.2f}"
                    for r in results
                )
                print(f"{variant.name}: {rounds}", flush=True)
    print(f"\n{args.line}, one worker pinned to a core, {CONCURRENCY} calls in flight:")
    for name, results in found.items():
        print(summary(name, results))


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--line", default="grpc:MakeMove", help="transport:call (grpc or rest)")
    parser.add_argument("--rounds", type=int, default=3, help="windows a variant, each repeat")
    parser.add_argument("--repeats", type=int, default=2, help="passes over all variants")
    parser.add_argument("--memory", action="store_true", help="add the in-process store's line")
    parser.add_argument(
        "--variant", type=parse_variant, action="append", default=[], help="NAME:VAR=VALUE,..."
    )
    asyncio.run(run(parser.parse_args(argv)))


if __name__ == "__main__":
    main()
