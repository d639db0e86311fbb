"""The service benchmark (`make bench`): the move path against its baselines, in one run.

An asyncio load generator (uvloop; raw bytes over grpc.aio; a bare HTTP/1.1 client) drives,
side by side on the same machine and the same private Redis:

- the empty call of the same server: `genial.bench.v1.Bench/Empty` over gRPC and
  `POST /bench/empty` over HTTP, which only the benchmark's own workers serve
  (`loadtest.bench_worker`);
- the raw Redis baseline: the store's own read + compare-and-set cycle (`RedisStore.read`
  and `.write`) with no service around it;
- `MakeMove` over gRPC and over REST, with 1 and 2 worker processes: the peak rate (a closed
  loop with a fixed number of calls in flight) and the latency at half that rate (an open
  loop: Poisson arrivals, latency counted from when a call was due, not when it was sent).

Moves come from dice games for two seats, which the generator can play blind: `roll` is the
only legal move at the start of a turn and `score` with no jokers is always legal after it,
so every measured call is a `MakeMove` alone, with no `ListLegalMoves` beside it. Games are
created before the timed window, with 10 rounds so that none ends during it (one that does
is replaced outside the timed call).

Each measurement reports client percentiles, the servers' own (`genial_request_seconds` from
/metrics, before and after the window), the CPU each process used, and Redis commands and
read events per call (`INFO commandstats` / `INFO stats`). With `--profile` a py-spy run on
one worker splits a move's CPU time into engine, Redis client, serialisation, transport and
the service's own code (`loadtest/profiling.py`).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import random
import secrets
import statistics
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Coroutine, Sequence
from dataclasses import asdict, dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any, Protocol

import grpc
import redis.asyncio as aioredis
import uvloop
from google.protobuf.internal import api_implementation
from prometheus_client.parser import text_string_to_metric_families

from genial import engine
from genial.service import log_entries, records
from genial.service.credentials import token_digest
from genial.service.records import GameMeta
from genial.service.routes import ROUTES
from genial.service.store import Record, Write
from genial.service.store.redis import RedisStore, unpack_record
from genial.v1 import dice_pb2, types_pb2
from genial.v1 import game_service_pb2 as api
from genial.v1 import game_service_pb2_grpc as api_grpc
from genial.v1 import player_service_pb2 as player_pb
from genial.v1 import player_service_pb2_grpc as player_grpc

from . import bench_worker, cluster, httpclient, profiling

RESULTS = Path(__file__).parent / "results"
TRANSPORT_LABEL = {"grpc": "grpc", "rest": "http"}
"""The `transport` label of the servers' histograms for each way the generator calls."""
ELSEWHERE = "MakeMove, each on another worker"
"""Moves of a game sent to the workers in turn: no worker has the game's last record."""
PLAYER_MOVE = "MakeMove, a player's JWT"
"""Moves made with players' access tokens (guest sessions) instead of seat tokens."""
MAKE_MOVE_GRPC = f"/{api.DESCRIPTOR.services_by_name['GameService'].full_name}/MakeMove"
EMPTY_GRPC = bench_worker.GRPC_METHOD
EMPTY_PATH = bench_worker.HTTP_PATH
MOVE_ROUTE = next(r for r in ROUTES if r.method.name == "MakeMove")
ROLL = types_pb2.Move(dice=dice_pb2.DiceMove(roll=dice_pb2.DiceRoll()))
SCORE = types_pb2.Move(dice=dice_pb2.DiceMove(score=dice_pb2.DiceScore()))
ROLL_JSON = b'{"move":{"dice":{"roll":{}}}}'
SCORE_JSON = b'{"move":{"dice":{"score":{}}}}'
ROUNDS = 10
"""Rounds per benchmark game: ~1350 moves, more than a game gets in one measurement."""
FINISHED = types_pb2.GAME_STATUS_FINISHED
SETUP_CONCURRENCY = 16
PHASE_GRACE = 30.0
"""Seconds a measurement may overrun its warm-up and window before it is abandoned."""
CHANNEL_OPTIONS = [
    # Each channel its own connection: the default global subchannel pool would share one.
    ("grpc.use_local_subchannel_pool", 1),
]


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# ---- what one measurement reports -------------------------------------------------------


@dataclass
class Percentiles:
    p50: float
    p95: float
    p99: float
    """Milliseconds."""

    @classmethod
    def of(cls, seconds: list[float]) -> Percentiles:
        """Nearest-rank percentiles of a sample."""
        if not seconds:
            return cls(float("nan"), float("nan"), float("nan"))
        ranked = sorted(seconds)

        def at(q: float) -> float:
            return ranked[min(len(ranked) - 1, int(q * len(ranked)))] * 1000

        return cls(at(0.50), at(0.95), at(0.99))


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

    @property
    def rate(self) -> float:
        return self.calls / self.seconds

    @property
    def worker_cpu_ms(self) -> float:
        """Milliseconds of worker CPU (user + kernel) per call: what a call costs, whoever else
        was using the machine meanwhile."""
        return self.cpu["workers"] * self.seconds / self.calls * 1000


# ---- samples around a window: servers' histograms, CPU, Redis counters --------------------


@dataclass
class Snapshot:
    at: float
    buckets: Buckets
    """Summed over the workers."""
    cpu: dict[str, float]
    redis: dict[str, float]


class Probe:
    """Reads the deployment's counters; `diff` turns two snapshots into a window's figures."""

    def __init__(self, deployment: cluster.Cluster, redis_client: aioredis.Redis | None) -> None:
        self.deployment = deployment
        self.redis = redis_client

    async def snapshot(self) -> Snapshot:
        buckets: Buckets = {}
        for worker in self.deployment.workers:
            text = await httpclient.get("127.0.0.1", worker.http_port, "/metrics")
            add_buckets(text.decode(), buckets)
        worker_user = worker_sys = 0.0
        for worker in self.deployment.workers:
            user, kernel = cluster.cpu_seconds(worker.proc.pid)
            worker_user, worker_sys = worker_user + user, worker_sys + kernel
        redis = self.deployment.redis
        cpu = {
            "workers": worker_user + worker_sys,
            "workers_kernel": worker_sys,
            "redis": sum(cluster.cpu_seconds(redis.pid)) if redis else 0.0,
            "generator": sum(cluster.cpu_seconds(os.getpid())),
        }
        counters: dict[str, float] = {}
        if self.redis is not None:
            stats = await self.redis.info("stats")
            counters["reads"] = float(stats["total_reads_processed"])
            for name, value in (await self.redis.info("commandstats")).items():
                counters["cmd:" + name.removeprefix("cmdstat_")] = float(value["calls"])
        return Snapshot(time.perf_counter(), buckets, cpu, counters)


Buckets = dict[tuple[str, str], dict[float, float]]
"""(transport, method) -> upper bound -> cumulative count of `genial_request_seconds`."""


def add_buckets(metrics: str, buckets: Buckets) -> None:
    """Add one worker's latency histograms (its /metrics text) to `buckets`."""
    for family in text_string_to_metric_families(metrics):
        if family.name != "genial_request_seconds":
            continue
        for sample in family.samples:
            if sample.name.endswith("_bucket"):
                key = (sample.labels["transport"], sample.labels["method"])
                le = float(sample.labels["le"])
                per_key = buckets.setdefault(key, {})
                per_key[le] = per_key.get(le, 0.0) + sample.value


def histogram_quantile(q: float, cumulative: dict[float, float]) -> float:
    """Prometheus' `histogram_quantile`: linear within the bucket the rank falls in (ms)."""
    bounds = sorted(cumulative)
    total = cumulative[float("inf")]
    rank = q * total
    lower, below = 0.0, 0.0
    for upper in bounds:
        count = cumulative[upper]
        if count >= rank:
            if upper == float("inf"):
                return lower * 1000
            share = (rank - below) / (count - below) if count > below else 0.0
            return (lower + (upper - lower) * share) * 1000
        lower, below = upper, count
    return lower * 1000


def window_figures(
    before: Snapshot, after: Snapshot, key: tuple[str, str], calls: int
) -> tuple[Percentiles | None, int, dict[str, float], dict[str, float]]:
    """Server percentiles and call count, cores used, and Redis work per call."""
    server = None
    server_calls = 0
    if key in after.buckets:
        start = before.buckets.get(key, {})
        delta = {le: n - start.get(le, 0.0) for le, n in after.buckets[key].items()}
        server_calls = int(delta[float("inf")])
        if server_calls:
            server = Percentiles(*(histogram_quantile(q, delta) for q in (0.5, 0.95, 0.99)))
    elapsed = after.at - before.at
    cpu = {name: (after.cpu[name] - before.cpu[name]) / elapsed for name in after.cpu}
    per_call = {}
    for name, value in after.redis.items():
        # INFO itself, from this probe, is not the service's work.
        if name in ("cmd:info",) or not calls:
            continue
        grown = value - before.redis.get(name, 0.0)
        if grown:
            per_call[name] = grown / calls
    return server, server_calls, cpu, per_call


# ---- the loads: each slot makes one kind of call, over and over ---------------------------


class Slot(Protocol):
    async def __call__(self) -> None:
        """One timed call; raises on failure."""

    async def refresh(self) -> None:
        """Untimed upkeep after a call (a finished game is replaced)."""


@dataclass
class Game:
    """A dice game for two seats, and where the generator is in it."""

    game_id: str
    tokens: list[str]
    to_move: int
    version: int = 0
    rolled: bool = False
    finished: bool = False

    def advance(self, version: int, to_move: int | None, finished: bool) -> None:
        self.version = version
        self.rolled = not self.rolled
        self.to_move = to_move if to_move is not None else self.to_move
        self.finished = finished


class Games:
    """Creates games through the first worker's gRPC port (untimed, before a window)."""

    def __init__(self, channel: grpc.aio.Channel) -> None:
        self.stub = api_grpc.GameServiceStub(channel)

    async def new(self) -> Game:
        created = await self.stub.CreateGame(
            api.CreateGameRequest(
                kind=types_pb2.GAME_KIND_DICE, seats=2, options=types_pb2.GameOptions(rounds=ROUNDS)
            )
        )
        tokens = []
        view = created.view
        for seat in range(2):
            token, view = await self.take_seat(created.game_id, seat)
            tokens.append(token)
        return Game(created.game_id, tokens, view.to_move)

    async def take_seat(self, game_id: str, seat: int) -> tuple[str, types_pb2.GameView]:
        """The token a move of the seat carries, and the view after it was taken."""
        joined = await self.stub.JoinGame(
            api.JoinGameRequest(game_id=game_id, display_name=f"bench {seat}")
        )
        return joined.player_token, joined.view

    async def many(self, count: int) -> list[Game]:
        gate = asyncio.Semaphore(SETUP_CONCURRENCY)

        async def one() -> Game:
            async with gate:
                return await self.new()

        return list(await asyncio.gather(*(one() for _ in range(count))))


class PlayerGames(Games):
    """Games whose two seats are players' (guest sessions): moves carry their JWTs."""

    def __init__(self, channel: grpc.aio.Channel) -> None:
        super().__init__(channel)
        self.players = player_grpc.PlayerServiceStub(channel)

    async def take_seat(self, game_id: str, seat: int) -> tuple[str, types_pb2.GameView]:
        signed_in = await self.players.CreateSession(
            player_pb.CreateSessionRequest(
                device_id=secrets.token_urlsafe(24), display_name=f"bench {seat}"
            )
        )
        token = signed_in.session.access_token
        joined = await self.stub.JoinGame(
            api.JoinGameRequest(game_id=game_id), metadata=bearer(token)
        )
        return token, joined.view


def bearer(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


class GrpcEmpty:
    def __init__(self, channel: grpc.aio.Channel) -> None:
        # No serializers: bytes go out and come back as they are.
        self.call: grpc.aio.UnaryUnaryMultiCallable[bytes, bytes] = channel.unary_unary(EMPTY_GRPC)
        # The same metadata a move carries, so that only the work of the call differs.
        self.metadata = bearer(secrets.token_urlsafe(32))

    async def __call__(self) -> None:
        await self.call(b"", metadata=self.metadata)

    async def refresh(self) -> None:
        pass


class GrpcMove:
    """Moves of one game, over one channel, or in turn over several (one a worker): then
    no move finds the record its worker kept, the worst case for the move path."""

    def __init__(self, channels: list[grpc.aio.Channel], game: Game, games: Games) -> None:
        self.calls: list[grpc.aio.UnaryUnaryMultiCallable[bytes, bytes]] = [
            channel.unary_unary(MAKE_MOVE_GRPC) for channel in channels
        ]
        self.game = game
        self.games = games

    async def __call__(self) -> None:
        game = self.game
        request = api.MakeMoveRequest(
            game_id=game.game_id,
            move=SCORE if game.rolled else ROLL,
            request_id=f"m{game.version + 1}",
        )
        raw = await self.calls[game.version % len(self.calls)](
            request.SerializeToString(), metadata=bearer(game.tokens[game.to_move])
        )
        answer = api.MakeMoveResponse.FromString(raw)
        view = answer.view
        game.advance(
            answer.version,
            view.to_move if view.HasField("to_move") else None,
            view.status == FINISHED,
        )

    async def refresh(self) -> None:
        if self.game.finished:
            self.game = await self.games.new()


class RestEmpty:
    def __init__(self, conn: httpclient.Connection) -> None:
        self.conn = conn
        # The same headers and body as a move, so that only the work of the call differs.
        self.request = httpclient.request_bytes(
            "POST",
            EMPTY_PATH,
            ROLL_JSON[:-1] + b',"requestId":"m1"}',
            {"authorization": f"Bearer {secrets.token_urlsafe(32)}"},
        )

    async def __call__(self) -> None:
        status, _ = await self.conn.request(self.request)
        if status != 200:
            raise httpclient.HttpError(f"POST {EMPTY_PATH}: {status}")

    async def refresh(self) -> None:
        pass


class RestMove:
    def __init__(self, conn: httpclient.Connection, game: Game, games: Games) -> None:
        self.conn = conn
        self.game = game
        self.games = games

    async def __call__(self) -> None:
        game = self.game
        body = (SCORE_JSON if game.rolled else ROLL_JSON)[:-1]
        body += f',"requestId":"m{game.version + 1}"}}'.encode()
        request = httpclient.request_bytes(
            MOVE_ROUTE.verb,
            MOVE_ROUTE.template.format(game_id=game.game_id),
            body,
            {"authorization": f"Bearer {game.tokens[game.to_move]}"},
        )
        status, raw = await self.conn.request(request)
        if not 200 <= status < 300:
            raise httpclient.HttpError(f"MakeMove: {status} {raw[:200]!r}")
        answer = json.loads(raw)
        view = answer["view"]
        game.advance(
            int(answer["version"]),
            view.get("toMove"),
            view["status"] == "GAME_STATUS_FINISHED",
        )

    async def refresh(self) -> None:
        if self.game.finished:
            self.game = await self.games.new()


class RedisCycle:
    """The store's part of a move and nothing else: read (with the request id), then the
    compare-and-set script, on a game record like the service's."""

    def __init__(self, store: RedisStore, game_id: str, entry: bytes, ttl: float) -> None:
        self.store = store
        self.game_id = game_id
        self.entry = entry
        self.ttl = ttl

    async def __call__(self) -> None:
        record, _ = await self.store.read(self.game_id, f"m{secrets.randbits(40)}")
        assert record is not None
        version = record.version + 1
        result = await self.store.write(
            self.game_id,
            Write(
                expected_rev=record.rev,
                state=record.state,
                meta=record.meta,
                version=version,
                entry_id=(version, 0),
                entry=self.entry,
                request_id=f"m{version}",
                ttl=self.ttl,
            ),
        )
        if not result.ok:
            raise RuntimeError("compare-and-set lost: slots must not share games")

    async def refresh(self) -> None:
        pass


def sample_record() -> tuple[Record, bytes]:
    """A record and a move's log entry shaped like the service's for a dice game."""
    rnd = random.Random(7)
    state = engine.new_game("dice", 2, rnd.randbytes(16), {"rounds": ROUNDS})
    move = {"type": "roll"}
    digest = token_digest("token")
    meta = GameMeta(
        kind="dice",
        seats=2,
        created=round(time.time(), 3),
        names=["bench 0", "bench 1"],
        tokens=[digest, digest],
        bots=[None, None],
        away=[False, False],
    )
    entry = log_entries.encode_move(
        "dice", log_entries.LoggedMove(0, log_entries.Cause.PLAYER, dict(move))
    )
    return Record(state.encode(), records.encode_meta(meta), 0, 0), entry


# ---- running a load -----------------------------------------------------------------------


@dataclass
class Window:
    warmup: float
    seconds: float


@dataclass
class Tally:
    latencies: list[float] = field(default_factory=list)
    errors: int = 0
    first_error: str = ""

    def failed(self, exc: BaseException) -> None:
        self.errors += 1
        if not self.first_error:
            self.first_error = f"{type(exc).__name__}: {exc}"[:300]


async def _windowed(
    probe: Probe, window: Window, run: Callable[[float, float], Coroutine[Any, Any, None]]
) -> tuple[Snapshot, Snapshot]:
    """Run a load from now to the window's end; snapshots at the window's two ends."""
    start = time.perf_counter()
    begin, end = start + window.warmup, start + window.warmup + window.seconds
    load = asyncio.create_task(run(begin, end))
    await asyncio.sleep(window.warmup)
    before = await probe.snapshot()
    await asyncio.sleep(max(0.0, end - time.perf_counter()))
    after = await probe.snapshot()
    await asyncio.wait_for(load, PHASE_GRACE)
    return before, after


async def closed_loop(
    slots: Sequence[Slot], probe: Probe, window: Window
) -> tuple[Tally, Snapshot, Snapshot]:
    """Every slot calls again as soon as its call returns: the peak rate at that concurrency."""
    tally = Tally()

    async def keep_calling(slot: Slot, begin: float, end: float) -> None:
        while (sent := time.perf_counter()) < end:
            try:
                await slot()
            except Exception as exc:
                tally.failed(exc)
            else:
                done = time.perf_counter()
                if begin <= sent and done <= end:
                    tally.latencies.append(done - sent)
            await slot.refresh()

    async def run(begin: float, end: float) -> None:
        await asyncio.gather(*(keep_calling(slot, begin, end) for slot in slots))

    before, after = await _windowed(probe, window, run)
    return tally, before, after


async def open_loop(
    slots: Sequence[Slot], probe: Probe, window: Window, rate: float, seed: int = 1
) -> tuple[Tally, Snapshot, Snapshot]:
    """Calls arrive at `rate` (Poisson), each on a free slot; latency counts from arrival, so
    that waiting for a free slot or a busy server is part of it (no coordinated omission)."""
    tally = Tally()
    free: asyncio.Queue[Slot] = asyncio.Queue()
    for slot in slots:
        free.put_nowait(slot)
    arrivals = random.Random(seed)
    calls: set[asyncio.Task[None]] = set()

    async def arrive(due: float, begin: float, end: float) -> None:
        slot = await free.get()
        try:
            await slot()
        except Exception as exc:
            tally.failed(exc)
        else:
            done = time.perf_counter()
            if begin <= due and done <= end:
                tally.latencies.append(done - due)
        await slot.refresh()
        free.put_nowait(slot)

    async def run(begin: float, end: float) -> None:
        due = time.perf_counter()
        while due < end:
            now = time.perf_counter()
            while due <= now:
                task = asyncio.create_task(arrive(due, begin, end))
                calls.add(task)
                task.add_done_callback(calls.discard)
                due += arrivals.expovariate(rate)
            await asyncio.sleep(max(0.0, due - time.perf_counter()))
        if calls:
            await asyncio.gather(*calls)

    before, after = await _windowed(probe, window, run)
    return tally, before, after


# ---- the deployment's clients -------------------------------------------------------------


class Clients:
    """Connections spread evenly over the workers: slot i uses worker i mod N.

    gRPC channels live for the whole run; HTTP connections are opened for each measurement,
    since the server closes idle keep-alive connections between them."""

    def __init__(self, deployment: cluster.Cluster, slots: int) -> None:
        workers = deployment.workers
        self.deployment = deployment
        self.channels = [
            grpc.aio.insecure_channel(
                workers[i % len(workers)].grpc_target, options=CHANNEL_OPTIONS
            )
            for i in range(max(len(workers), slots // 4))
        ]
        self.connections: list[httpclient.Connection] = []
        self.games = Games(self.channels[0])
        self.player_games = PlayerGames(self.channels[0])

    def channel(self, slot: int) -> grpc.aio.Channel:
        return self.channels[slot % len(self.channels)]

    async def reconnect(self, count: int) -> list[httpclient.Connection]:
        for conn in self.connections:
            conn.close()
        workers = self.deployment.workers
        self.connections = [
            await httpclient.Connection.open("127.0.0.1", workers[i % len(workers)].http_port)
            for i in range(count)
        ]
        return self.connections

    async def close(self) -> None:
        for channel in self.channels:
            await channel.close()
        for conn in self.connections:
            conn.close()


async def slots_for(kind: str, clients: Clients, count: int) -> list[Slot]:
    """`count` slots of a kind of call; games (for moves) are created first, untimed."""
    if kind == "grpc empty":
        return [GrpcEmpty(clients.channel(i)) for i in range(count)]
    if kind == "rest empty":
        return [RestEmpty(conn) for conn in await clients.reconnect(count)]
    if kind == "grpc move player":
        played = await clients.player_games.many(count)
        return [
            GrpcMove([clients.channel(i)], g, clients.player_games) for i, g in enumerate(played)
        ]
    games = await clients.games.many(count)
    if kind == "grpc move":
        return [GrpcMove([clients.channel(i)], g, clients.games) for i, g in enumerate(games)]
    if kind == "grpc move elsewhere":
        # channels[w] goes to worker w, for each of the workers
        elsewhere = clients.channels[: len(clients.deployment.workers)]
        return [GrpcMove(elsewhere, g, clients.games) for g in games]
    connections = await clients.reconnect(count)
    return [RestMove(conn, g, clients.games) for conn, g in zip(connections, games, strict=True)]


# ---- the benchmark ------------------------------------------------------------------------


@dataclass
class Options:
    workers: list[int]
    concurrency: int
    rounds: int
    window: Window
    profile: bool
    profile_seconds: float
    out: Path


def result_of(
    transport: str,
    call: str,
    store: str,
    workers: int,
    mode: str,
    concurrency: int,
    measured: tuple[Tally, Snapshot, Snapshot],
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


async def check_bench_endpoints(deployment: cluster.Cluster) -> None:
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

    deployment: cluster.Cluster
    clients: Clients
    probe: Probe
    options: Options
    store: str

    async def once(self, transport: str, call: str, rate: float | None = None) -> Result:
        """One window of one kind of call: at peak, or at `rate` when given."""
        slots = self.options.concurrency
        kinds = {"Empty": "empty", ELSEWHERE: "move elsewhere", PLAYER_MOVE: "move player"}
        kind = f"{transport} " + kinds.get(call, "move")
        calls = await slots_for(kind, self.clients, slots)
        if rate is None:
            measured = await closed_loop(calls, self.probe, self.options.window)
        else:
            measured = await open_loop(calls, self.probe, self.options.window, rate)
        workers = len(self.deployment.workers)
        mode = "peak" if rate is None else "half"
        return result_of(transport, call, self.store, workers, mode, slots, measured, rate)


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
class Stored:
    """The most a live game of a kind kept in Redis (MEMORY USAGE, so with Redis's overhead)."""

    kind: str
    seats: int
    moves: int = 0
    record_bytes: int = 0
    """The game's record at its largest, as MEMORY USAGE counts it."""
    value_bytes: int = 0
    state_bytes: int = 0
    meta_bytes: int = 0
    """The stored (compressed) value, and the state and metadata in it, at that time."""
    log_bytes_per_entry: float = 0.0
    request_bytes_per_entry: float = 0.0
    """The game's request ids (one a move, kept as long as the game), a move."""


async def measure_service(
    session: Session, profiles: dict[str, Any]
) -> tuple[list[Result], list[dict[str, Any]]]:
    """Per transport: the empty call's peak and MakeMove's peak, in alternate rounds so that
    both see the same machine; then MakeMove at half its peak."""
    options = session.options
    results: list[Result] = []
    for transport in ("grpc", "rest"):
        empties, peaks, players = [], [], []
        for _ in range(options.rounds):
            empties.append(await session.once(transport, "Empty"))
            peaks.append(await session.once(transport, "MakeMove"))
            if transport == "grpc":
                players.append(await session.once(transport, PLAYER_MOVE))
        peak = median(peaks)
        halves = [
            await session.once(transport, "MakeMove", peak.rate / 2) for _ in range(options.rounds)
        ]
        results += [median(empties), peak, median(halves)]
        if players:
            results.append(median(players))
        if transport == "grpc" and len(session.deployment.workers) > 1:
            elsewhere = [await session.once(transport, ELSEWHERE) for _ in range(options.rounds)]
            results.append(median(elsewhere))
        if options.profile and len(session.deployment.workers) == 1:
            profile = await profile_moves(session, transport)
            if profile is not None:
                profiles[transport] = profile
    redis_client = session.probe.redis
    assert redis_client is not None
    sizes = [
        stored_size(redis_client, session.clients.games.stub, kind, seats)
        for kind in (types_pb2.GAME_KIND_CARDS, types_pb2.GAME_KIND_DICE, types_pb2.GAME_KIND_TILES)
        for seats in (2, 4)
    ]
    return results, [asdict(s) for s in await asyncio.gather(*sizes)]


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


async def stored_size(
    redis_client: aioredis.Redis, stub: Any, kind: types_pb2.GameKind, seats: int
) -> Stored:
    """Play one game of a kind to its end with random legal moves, as a client would, and
    track what it keeps in Redis: the game hash at its largest while live, and the log."""
    rnd = random.Random(kind * 10 + seats)
    created = await stub.CreateGame(api.CreateGameRequest(kind=kind, seats=seats))
    game_id = created.game_id
    tokens = []
    for seat in range(seats):
        joined = await stub.JoinGame(api.JoinGameRequest(game_id=game_id, display_name=f"s{seat}"))
        tokens.append(joined.player_token)
    view = joined.view
    game_key, log_key, requests_key = (f"genial:{{{game_id}}}:{k}" for k in ("game", "log", "req"))
    stored = Stored(types_pb2.GameKind.Name(kind).removeprefix("GAME_KIND_").lower(), seats)
    while view.status != FINISHED:
        auth = bearer(tokens[view.to_move])
        legal = await stub.ListLegalMoves(api.ListLegalMovesRequest(game_id=game_id), metadata=auth)
        moved = await stub.MakeMove(
            api.MakeMoveRequest(
                game_id=game_id,
                move=rnd.choice(legal.moves),
                request_id=f"m{legal.version + 1}",
            ),
            metadata=auth,
        )
        view = moved.view
        stored.moves += 1
        if view.status == FINISHED:
            break  # a finished game is not live: its metadata and TTL change
        size = int(await redis_client.memory_usage(game_key, samples=0) or 0)
        if size > stored.record_bytes:
            value = await redis_client.get(game_key)
            record = unpack_record(value)
            stored.record_bytes, stored.value_bytes = size, len(value)
            stored.state_bytes, stored.meta_bytes = len(record.state), len(record.meta)
    entries = int(await redis_client.xlen(log_key))
    stored.log_bytes_per_entry = (
        int(await redis_client.memory_usage(log_key, samples=0) or 0) / entries
    )
    stored.request_bytes_per_entry = (
        int(await redis_client.memory_usage(requests_key, samples=0) or 0) / stored.moves
    )
    return stored


async def measure_redis(session: Session) -> Result:
    """The store's read + compare-and-set cycle alone, from this process, on the same Redis."""
    options = session.options
    store = RedisStore.from_url(session.deployment.redis_url)
    record, entry = sample_record()
    rounds = []
    try:
        for _ in range(options.rounds):
            slots: list[Slot] = []
            for _ in range(options.concurrency):
                game_id = secrets.token_urlsafe(12)
                await store.create(game_id, record, None, 3600)
                slots.append(RedisCycle(store, game_id, entry, 3600))
            measured = await closed_loop(slots, session.probe, options.window)
            rounds.append(
                result_of("redis", "cycle", "redis", 0, "peak", options.concurrency, measured)
            )
    finally:
        await store.close()
    return median(rounds)


async def measure_memory(session: Session) -> list[Result]:
    """MakeMove's peak with the in-process store: the move without Redis, by subtraction."""
    results = []
    for transport in ("grpc", "rest"):
        rounds = [await session.once(transport, "MakeMove") for _ in range(session.options.rounds)]
        results.append(median(rounds))
    return results


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
            probe = Probe(deployment, redis_client)
            yield Session(deployment, clients, probe, options, "redis" if redis else "memory")
        finally:
            await clients.close()
            if redis_client is not None:
                await redis_client.aclose()


async def run(options: Options) -> dict[str, Any]:
    load_before = _load_average()
    results: list[Result] = []
    profiles: dict[str, Any] = {}
    storage: list[dict[str, Any]] = []
    for workers in options.workers:
        log(f"{workers} worker(s):")
        async with session_on(workers, options) as session:
            if workers == options.workers[0]:
                results.append(await measure_redis(session))
            measured, storage = await measure_service(session, profiles)
            results += measured
    log("1 worker with the in-process store:")
    async with session_on(1, options, redis=False) as session:
        results += await measure_memory(session)
    return {
        "machine": machine(),
        "settings": {
            "concurrency": options.concurrency,
            "rounds": options.rounds,
            "warmup_seconds": options.window.warmup,
            "window_seconds": options.window.seconds,
            "load_before": load_before,
            "load_after": _load_average(),
        },
        # A call's CPU is the median of the rounds' own, not the median round's.
        "results": [
            asdict(r) | {"rate": r.rate, "worker_cpu_ms": statistics.median(r.round_cpu_ms)}
            for r in results
        ],
        "profiles": profiles,
        "storage": storage,
    }


def _load_average() -> str:
    """The machine's 1-minute load average: other work competes for the same cores."""
    return f"{os.getloadavg()[0]:.1f}"


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "absent"


def machine() -> dict[str, str]:
    cpu = "unknown"
    with contextlib.suppress(OSError), open("/proc/cpuinfo", encoding="utf-8") as f:
        cpu = next((ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")), cpu)
    memory = "unknown"
    with contextlib.suppress(OSError), open("/proc/meminfo", encoding="utf-8") as f:
        memory = f"{int(f.readline().split()[1]) / 2**20:.0f} GiB"
    redis_version = (
        subprocess.run(["redis-server", "--version"], capture_output=True, text=True, check=False)
        .stdout.split()[2]
        .removeprefix("v=")
    )
    return {
        "cpu": f"{cpu}, {os.cpu_count()} cores",
        "memory": memory,
        "os": f"{platform.system()} {platform.release()}",
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "protobuf": f"{_version('protobuf')} ({api_implementation.Type()} backend)",
        "grpcio": _version("grpcio"),
        "redis": f"redis-server {redis_version}, redis-py {_version('redis')}, "
        f"hiredis {_version('hiredis')}",
        "http": f"litestar {_version('litestar')}, uvicorn {_version('uvicorn')}, "
        f"httptools {_version('httptools')}, uvloop {_version('uvloop')}",
        "date": time.strftime("%Y-%m-%d %H:%M %Z"),
    }


def _ms(p: dict[str, float] | None) -> str:
    if p is None:
        return "-"
    return f"{p['p50']:.2f} / {p['p95']:.2f} / {p['p99']:.2f}"


def _find(
    rows: list[dict[str, Any]],
    transport: str,
    call: str,
    workers: int,
    mode: str = "peak",
    store: str = "redis",
) -> Any:
    wanted = (transport, call, workers, mode, store)
    return next(
        r
        for r in rows
        if (r["transport"], r["call"], r["workers"], r["mode"], r["store"]) == wanted
    )


def report(data: dict[str, Any]) -> str:
    rows = data["results"]
    lines = ["### Machine", ""]
    lines += [f"- {name}: {value}" for name, value in data["machine"].items()]
    s = data["settings"]
    lines += [
        f"- load: {s['concurrency']} calls in flight at peak; {s['rounds']} rounds a line, "
        f"each {s['warmup_seconds']:g} s of warm-up and {s['window_seconds']:g} s measured; "
        f"load average {s['load_before']} before the run, {s['load_after']} after",
        "",
        "### Rates and latencies",
        "",
        "Each line is the median of its rounds (the range of the rounds' rates beside it). "
        "Peak: a closed loop with the calls in flight; half: Poisson arrivals at half the peak "
        "rate, latency counted from arrival. Client latency from the generator; server latency "
        "from the workers' `genial_request_seconds` (bucket-interpolated, so coarse). Worker CPU "
        "a call: the workers' user + kernel CPU time over the calls answered (the median of the "
        "rounds'). Cores: CPU time over the window.",
        "",
        "| call | workers | load | calls/s | client p50 / p95 / p99 ms | "
        "server p50 / p95 / p99 ms | worker CPU ms a call | cores: workers / redis / generator "
        "| errors |",
        "| --- | --- | --- | ---: | --- | --- | ---: | --- | ---: |",
    ]
    for r in rows:
        load = (
            f"{r['concurrency']} in flight"
            if r["mode"] == "peak"
            else f"{r['target_rate']:.0f}/s offered"
        )
        cpu = r["cpu"]
        cost = f"{r['worker_cpu_ms']:.3f}" if r["workers"] else "-"
        rates = r["round_rates"]
        spread = f" ({min(rates):.0f}..{max(rates):.0f})" if len(rates) > 1 else ""
        lines.append(
            f"| {r['name']} | {r['workers'] or '-'} | {load} | {r['rate']:.0f}{spread} | "
            f"{_ms(r['client'])} | {_ms(r['server'])} | {cost} | "
            f"{cpu['workers']:.2f} / {cpu['redis']:.2f} / {cpu['generator']:.2f} | {r['errors']} |"
        )
    lines += [
        "",
        "### Ratios",
        "",
        "| transport | workers | MakeMove ÷ empty, by rate | MakeMove ÷ empty, by worker CPU "
        "a call | MakeMove p99 at half the peak, client / server |",
        "| --- | --- | ---: | ---: | --- |",
    ]
    for r in rows:
        moves = ("MakeMove", ELSEWHERE, PLAYER_MOVE)
        if r["call"] not in moves or r["mode"] != "peak" or r["store"] != "redis":
            continue
        empty = _find(rows, r["transport"], "Empty", r["workers"])
        latency = "-"
        if r["call"] == "MakeMove":
            half = _find(rows, r["transport"], "MakeMove", r["workers"], "half")
            server_p99 = f"{half['server']['p99']:.2f} ms" if half["server"] else "-"
            latency = f"{half['client']['p99']:.2f} ms / {server_p99}"
        notes = {ELSEWHERE: " (each move on another worker)", PLAYER_MOVE: " (a player's JWT)"}
        transport = r["transport"] + notes.get(r["call"], "")
        if r["call"] == PLAYER_MOVE:
            seat = _find(rows, r["transport"], "MakeMove", r["workers"])
            ratio = r["worker_cpu_ms"] / seat["worker_cpu_ms"]
            latency = f"worker CPU a call {ratio:.2f}x a seat token's"
        lines.append(
            f"| {transport} | {r['workers']} | {r['rate'] / empty['rate']:.2f} | "
            f"{empty['worker_cpu_ms'] / r['worker_cpu_ms']:.2f} | {latency} |"
        )
    lines += [
        "",
        "### A move's worker CPU, by subtraction (1 worker)",
        "",
        "The empty call is what any call costs; the move with the in-process store adds the "
        "move's own work (engine, service, serialisation of the larger messages); the move "
        "with Redis adds the Redis client.",
        "",
        "| transport | empty call | + the move without Redis | + Redis | = MakeMove (ms) |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    one_worker = any(r["workers"] == 1 and r["store"] == "redis" for r in rows)
    for transport in ("grpc", "rest") if one_worker else ():
        empty = _find(rows, transport, "Empty", 1)["worker_cpu_ms"]
        memory = _find(rows, transport, "MakeMove", 1, store="memory")["worker_cpu_ms"]
        move = _find(rows, transport, "MakeMove", 1)["worker_cpu_ms"]
        lines.append(
            f"| {transport} | {empty:.3f} | {memory - empty:+.3f} | {move - memory:+.3f} | "
            f"{move:.3f} |"
        )
    lines += [
        "",
        "### Redis per call",
        "",
        "Read events: how often Redis read from a client socket (`total_reads_processed`), one "
        "per round trip; commands include those the scripts run.",
        "",
        "| call | workers | read events | commands |",
        "| --- | --- | ---: | --- |",
    ]
    for r in rows:
        if r["mode"] != "peak" or r["call"] == "Empty" or r["store"] != "redis":
            continue
        per = r["redis_per_call"]
        commands = ", ".join(
            f"{name.removeprefix('cmd:')} {value:.2f}"
            for name, value in sorted(per.items())
            if name.startswith("cmd:") and value >= 0.01
        )
        lines.append(
            f"| {r['name']} | {r['workers'] or '-'} | {per.get('reads', 0):.2f} | {commands} |"
        )
    if data["storage"]:
        lines += [
            "",
            "### Stored size of a live game",
            "",
            "One game of each kind played to its end with random legal moves; the game's record "
            "at its largest while in play, as `MEMORY USAGE` counts it (with Redis's own "
            "overhead), the value stored (state and metadata, compressed), what it holds, and the "
            "log and request ids beside it, which grow by a move.",
            "",
            "| game | seats | moves | record B | value B | state B | metadata B "
            "| log B a move | request ids B a move |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
        ]
        lines += [
            f"| {st['kind']} | {st['seats']} | {st['moves']} | {st['record_bytes']} | "
            f"{st['value_bytes']} | {st['state_bytes']} | {st['meta_bytes']} | "
            f"{st['log_bytes_per_entry']:.0f} | {st['request_bytes_per_entry']:.0f} |"
            for st in data["storage"]
        ]
    for transport, prof in data["profiles"].items():
        lines += [
            "",
            f"### Where a {transport} move's worker CPU goes (py-spy, 1 worker at peak)",
            "",
            f"{prof['rate_under_profiler']:.0f} moves/s while sampled; {prof['samples']} samples, "
            f"{prof['idle']:.0%} idle. Busy samples in system calls: "
            f"{prof['in_system_calls']:.0%}; the worker's kernel share of its CPU time: "
            f"{prof['kernel_share']:.0%}.",
            "",
            "| part | share of busy samples | share of CPU time |",
            "| --- | ---: | ---: |",
        ]
        lines += [
            f"| {part} | {prof['sampled'][part]:.0%} | {prof['cpu'][part]:.0%} |"
            for part in prof["cpu"]
        ]
        lines.append(f"| (in system calls) | {prof['in_system_calls']:.0%} | (folded in) |")
        lines += ["", "Heaviest frames (the frame that decided the part):", ""]
        lines += [f"- {share:.1%} {frame}" for frame, share in prof["top"]]
    return "\n".join(lines) + "\n"


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
