"""The load generator: a session on a private deployment, whose measurements each run one
kind of call through a window (`windows`) from the slots (`slots`), and come out as a
`Result`, the median of a few rounds; and a py-spy profile of a worker under load."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import redis.asyncio as aioredis

from genial.service.server import settle_heap

from . import cluster, httpclient, profiling
from .cluster import Cluster
from .latency import Percentiles
from .probe import Probe, window_figures
from .slots import EMPTY_PATH, Clients, slots_for
from .windows import Measured, Window, closed_loop, open_loop

TRANSPORT_LABEL = {"grpc": "grpc", "rest": "http"}
"""The `transport` label of the servers' histograms for each way the generator calls."""
ELSEWHERE = "MakeMove, each on another worker"
"""Moves of a game sent to the workers in turn: no worker has the game's last record."""
PLAYER_MOVE = "MakeMove, a player's JWT"
"""Moves made with players' access tokens (guest sessions) instead of seat tokens."""
MASKED_MOVE = "MakeMove, read_mask=version,events"
"""Moves answered with their version and events only: no view is built or sent."""
WITHOUT_REDIS = "MakeMove, in-process store"
"""The rounds of `measure_service`'s worker on the in-process store (its results name their
store)."""


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


@dataclass
class Result:
    name: str
    transport: str
    """grpc, rest, or redis (the raw Redis baseline)."""
    call: str
    """Empty, MakeMove, or cycle."""
    store: str
    """redis, or memory: the worker's in-process store, to tell Redis's part of a move."""
    workers: int
    mode: str
    """peak: a closed loop with `concurrency` calls in flight; half: an open loop at half the
    peak rate."""
    concurrency: int
    seconds: float
    calls: int
    errors: int
    client: Percentiles
    server: Percentiles | None
    server_calls: int
    target_rate: float | None = None
    cpu: dict[str, float] = field(default_factory=dict)
    """Cores used during the window: workers (all), redis, generator."""
    redis_per_call: dict[str, float] = field(default_factory=dict)
    """Redis commands (cmd:<name>, scripts' own included) and read events, per call."""
    first_error: str = ""
    round_rates: list[float] = field(default_factory=list)
    round_p99s: list[float] = field(default_factory=list)
    round_cpu_ms: list[float] = field(default_factory=list)
    """Every round's rate, client p99 and worker CPU a call (ms): a line is the median round."""
    answer_bytes: float = 0.0
    """An answer's size (the message over gRPC, the body over HTTP), over the slots' last."""

    @property
    def rate(self) -> float:
        return self.calls / self.seconds

    @property
    def worker_cpu_ms(self) -> float:
        """Milliseconds of worker CPU (user + kernel) per call: what a call costs, whoever else
        was using the machine meanwhile."""
        return self.cpu["workers"] * self.seconds / self.calls * 1000


def result_of(
    transport: str,
    call: str,
    store: str,
    workers: int,
    mode: str,
    concurrency: int,
    measured: Measured,
    target_rate: float | None = None,
) -> Result:
    tally, before, after = measured
    name = f"{transport} {call}" + (" (in-process store)" if store == "memory" else "")
    calls = len(tally.latencies)
    if not calls:
        raise SystemExit(f"{name}: no call succeeded ({tally.first_error})")
    key = (TRANSPORT_LABEL.get(transport, transport), call)
    server, server_calls, cpu, per_call = window_figures(before, after, key, calls)
    result = Result(
        name=name,
        transport=transport,
        call=call,
        store=store,
        workers=workers,
        mode=mode,
        concurrency=concurrency,
        seconds=after.at - before.at,
        calls=calls,
        errors=tally.errors,
        client=Percentiles.of(tally.latencies),
        server=server,
        server_calls=server_calls,
        target_rate=target_rate,
        cpu=cpu,
        redis_per_call=per_call,
        first_error=tally.first_error,
    )
    log(
        f"  {name:<13} {workers} worker(s) {mode:<4} {result.rate:6.0f}/s "
        f"p50 {result.client.p50:6.2f} p99 {result.client.p99:6.2f} ms, "
        f"{result.worker_cpu_ms:.3f} worker CPU ms a call; errors {tally.errors}; cores: "
        f"workers {cpu['workers']:.2f} redis {cpu['redis']:.2f} generator {cpu['generator']:.2f}"
    )
    if tally.first_error:
        log(f"    first error: {tally.first_error}")
    return result


def median(rounds: list[Result]) -> Result:
    """The middle round (by rate at peak, by client p99 at a set rate), with every round's
    figures beside it: on a shared machine one round can catch a neighbour's burst."""
    if rounds[0].mode == "peak":
        ranked = sorted(rounds, key=lambda r: r.rate)
    else:
        ranked = sorted(rounds, key=lambda r: r.client.p99)
    middle = ranked[len(ranked) // 2]
    middle.round_rates = [r.rate for r in rounds]
    middle.round_p99s = [r.client.p99 for r in rounds]
    middle.round_cpu_ms = [r.worker_cpu_ms for r in rounds]
    return middle


@dataclass
class Options:
    workers: list[int]
    concurrency: int
    rounds: int
    window: Window
    profile: bool
    profile_seconds: float
    out: Path


async def check_bench_endpoints(deployment: Cluster) -> None:
    worker = deployment.workers[0]
    conn = await httpclient.Connection.open("127.0.0.1", worker.http_port)
    try:
        status, _ = await conn.request(httpclient.request_bytes("POST", EMPTY_PATH, b"{}"))
    finally:
        conn.close()
    if status != 200:
        raise SystemExit(
            f"POST {EMPTY_PATH} answered {status}: the workers are not loadtest.bench_worker"
        )


@dataclass
class Session:
    """One deployment under measurement, with its clients and probe."""

    deployment: Cluster
    clients: Clients
    probe: Probe
    options: Options
    store: str

    async def once(self, transport: str, call: str, rate: float | None = None) -> Result:
        """One window of one kind of call: at peak, or at `rate` when given."""
        slots = self.options.concurrency
        kinds = {
            "Empty": "empty",
            ELSEWHERE: "move elsewhere",
            PLAYER_MOVE: "move player",
            MASKED_MOVE: "move masked",
        }
        kind = f"{transport} " + kinds.get(call, "move")
        calls = await slots_for(kind, self.clients, slots)
        if rate is None:
            measured = await closed_loop(calls, self.probe, self.options.window)
        else:
            measured = await open_loop(calls, self.probe, self.options.window, rate)
        workers = len(self.deployment.workers)
        mode = "peak" if rate is None else "half"
        result = result_of(transport, call, self.store, workers, mode, slots, measured, rate)
        result.answer_bytes = sum(c.answer_bytes for c in calls) / len(calls)
        return result


async def measure_service(
    session: Session,
    profiles: dict[str, Any],
    in_process: Session | None = None,
    release: Callable[[], Awaitable[None]] | None = None,
) -> list[Result]:
    """Per transport: the empty call's peak and MakeMove's peak, in alternate rounds so that
    both see the same machine; then MakeMove at half its peak, the two transports' rounds
    alternating too, so that a slow spell of the shared machine (one took a line's three
    rounds in a row) falls on rounds of both rather than on every round of one. With
    `in_process` (a worker on the in-process store), its MakeMove's peak too, in the same
    alternate rounds: the move without Redis, which Redis's part is measured against (by
    subtraction, and the gRPC ratio); taken minutes apart, the two drifted with the
    machine. `release` then takes that deployment down, so that the lines at half the peak
    and the profile run beside nothing the other passes lack."""
    options = session.options
    rounds: dict[str, dict[str, list[Result]]] = {}
    for transport in ("grpc", "rest"):
        calls = ["Empty", "MakeMove", MASKED_MOVE, *([PLAYER_MOVE] if transport == "grpc" else [])]
        found = rounds[transport] = {call: [] for call in [*calls, WITHOUT_REDIS]}
        for _ in range(options.rounds):
            for call in calls:
                found[call].append(await session.once(transport, call))
                if call == "MakeMove" and in_process is not None:
                    found[WITHOUT_REDIS].append(await in_process.once(transport, call))
    if release is not None:
        await release()
    peaks = {transport: median(found["MakeMove"]) for transport, found in rounds.items()}
    halves: dict[str, list[Result]] = {transport: [] for transport in rounds}
    for _ in range(options.rounds):
        for transport, peak in peaks.items():
            halves[transport].append(await session.once(transport, "MakeMove", peak.rate / 2))
    results: list[Result] = []
    for transport, found in rounds.items():
        results += [median(found["Empty"]), peaks[transport], median(halves[transport])]
        results += [
            median(r) for call, r in found.items() if r and call not in ("Empty", "MakeMove")
        ]
        if transport == "grpc" and len(session.deployment.workers) > 1:
            elsewhere = [await session.once(transport, ELSEWHERE) for _ in range(options.rounds)]
            results.append(median(elsewhere))
        if options.profile and len(session.deployment.workers) == 1:
            profile = await profile_moves(session, transport)
            if profile is not None:
                profiles[transport] = profile
    return results


async def profile_moves(session: Session, transport: str) -> dict[str, Any] | None:
    """py-spy on the one worker while a closed loop of moves runs; the shares of its samples
    (None if py-spy cannot sample here: the rest of the benchmark stands without it).

    A measurement of its own: sampling slows the worker, so the rates above are taken
    without it. py-spy now and then fails to read a stack it stopped; one more try does."""
    for attempt in (1, 2):
        try:
            return await _profile_once(session, transport)
        except (RuntimeError, OSError) as err:
            log(f"  profile {transport}, try {attempt}: {err}")
    return None


async def _profile_once(session: Session, transport: str) -> dict[str, Any]:
    options = session.options
    out = options.out / f"profile-{transport}.txt"
    window = Window(options.window.warmup, options.profile_seconds)
    moves = await slots_for(f"{transport} move", session.clients, options.concurrency)
    pid = session.deployment.workers[0].proc.pid
    spy = asyncio.create_task(profiling.record(pid, window.warmup, window.seconds, out))
    tally, before, after = await closed_loop(moves, session.probe, window)
    await spy
    _, _, cpu, _ = window_figures(before, after, ("", ""), 0)
    profile = profiling.classify(out, cpu["workers_kernel"] / cpu["workers"])
    rate = len(tally.latencies) / (after.at - before.at)
    log(f"  profile {transport}: {rate:.0f} moves/s under py-spy; {profiling.describe(profile)}")
    return {"rate_under_profiler": rate, "stacks": str(out), **profile}


@contextlib.asynccontextmanager
async def session_on(
    workers: int, options: Options, *, redis: bool = True
) -> AsyncIterator[Session]:
    with cluster.running(
        workers, log_dir=options.out, bench_endpoints=True, redis=redis
    ) as deployment:
        redis_client = aioredis.from_url(deployment.redis_url) if redis else None
        clients = Clients(deployment, options.concurrency)
        try:
            await check_bench_endpoints(deployment)
            # The generator's own full collections would stop every call it times, as the
            # workers' did (`settle_heap`): its start-up objects go out of sight too.
            settle_heap()
            probe = Probe(deployment, redis_client)
            yield Session(deployment, clients, probe, options, "redis" if redis else "memory")
        finally:
            await clients.close()
            if redis_client is not None:
                await redis_client.aclose()
