"""The service benchmark (`make bench`): the move path against its baselines, in one run.

An asyncio load generator (uvloop; raw bytes over grpc.aio; a bare HTTP/1.1 client) drives,
side by side on the same machine and the same private Redis:

- the empty call of the same server: `genial.bench.v1.Bench/Empty` over gRPC and
  `POST /bench/empty` over HTTP, which only the benchmark's own workers serve
  (`loadtest.bench_worker`);
- the raw Redis baseline: the store's own read + compare-and-set cycle (`RedisStore.read`
  and `.write`) with no service around it, and the same with a replica that must confirm
  each write (`WAIT`, `--redis-wait-replicas 1`): the replica wait's cost a move;
- `MakeMove` over gRPC and over REST, with 1 and 2 worker processes: the peak rate (a closed
  loop with a fixed number of calls in flight) and the latency at half that rate (an open
  loop: Poisson arrivals, latency counted from when a call was due, not when it was sent).

The parts, each a module of `loadtest`: `generator` (a session on a deployment, one
measurement, its result, the median of its rounds, the profile), `slots` (the calls, their
games and connections), `windows` (closed and open loops through a measured window), `probe`
(what is read around a window), `baselines` (the Redis cycle), `sizes`
(the stored size of a live game), `report` (the tables), `profiling` (py-spy's samples by
part), `cluster` and `processes` (the deployment, with the starters the tests use too).

Each measurement reports client percentiles, the servers' own (`genial_request_seconds` from
/metrics, before and after the window), the CPU each process used, and Redis commands and
read events per call (`INFO commandstats` / `INFO stats`). With `--profile` a py-spy run on
one worker splits a move's CPU time into engine, Redis client, serialisation, transport and
the service's own code (`loadtest/profiling.py`).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import time
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import uvloop

from .baselines import measure_redis
from .generator import Options, Result, log, measure_service, session_on
from .report import load_average, machine, report
from .sizes import stored_sizes
from .windows import Window

RESULTS = Path(__file__).parent / "results"


async def run(options: Options) -> dict[str, Any]:
    load_before = load_average()
    results: list[Result] = []
    profiles: dict[str, Any] = {}
    storage: list[dict[str, Any]] = []
    for workers in options.workers:
        first = workers == options.workers[0]
        log(f"{workers} worker(s)" + (", and 1 on the in-process store:" if first else ":"))
        async with session_on(workers, options) as session, contextlib.AsyncExitStack() as extra:
            in_process = None
            if first:
                in_process = await extra.enter_async_context(session_on(1, options, redis=False))
                results += await measure_redis(session)
            results += await measure_service(session, profiles, in_process, extra.aclose)
            if workers == options.workers[-1]:
                assert session.probe.redis is not None
                storage = await stored_sizes(session.probe.redis, session.clients.games.stub)
    return {
        "machine": machine(),
        "settings": {
            "concurrency": options.concurrency,
            "rounds": options.rounds,
            "warmup_seconds": options.window.warmup,
            "window_seconds": options.window.seconds,
            "load_before": load_before,
            "load_after": load_average(),
        },
        # A call's CPU is the median of the rounds' own, not the median round's.
        "results": [
            asdict(r) | {"rate": r.rate, "worker_cpu_ms": statistics.median(r.round_cpu_ms)}
            for r in results
        ],
        "profiles": profiles,
        "storage": storage,
    }


def parse_args(argv: Sequence[str] | None) -> Options:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="measured seconds a round")
    parser.add_argument("--rounds", type=int, default=3, help="rounds a line (the median counts)")
    parser.add_argument("--warmup", type=float, default=1.0, help="unmeasured seconds first")
    parser.add_argument("--workers", default="1,2", help="worker counts to measure, e.g. 1,2")
    parser.add_argument("--concurrency", type=int, default=32, help="calls in flight at peak")
    parser.add_argument(
        "--profile", action=argparse.BooleanOptionalAction, default=True, help="py-spy a worker"
    )
    parser.add_argument("--profile-seconds", type=float, default=5.0)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    return Options(
        workers=[int(n) for n in args.workers.split(",")],
        concurrency=args.concurrency,
        rounds=args.rounds,
        window=Window(args.warmup, args.seconds),
        profile=args.profile,
        profile_seconds=args.profile_seconds,
        out=args.out,
    )


def main(argv: Sequence[str] | None = None) -> None:
    options = parse_args(argv)
    options.out.mkdir(parents=True, exist_ok=True)
    data = uvloop.run(run(options))
    stamp = time.strftime("%Y%m%d-%H%M%S")
    (options.out / f"bench-{stamp}.json").write_text(json.dumps(data, indent=2))
    text = report(data)
    (options.out / f"bench-{stamp}.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
