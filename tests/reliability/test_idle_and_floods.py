"""Idle time and floods, with the production defaults (15 s keep-alives, redis-py's own socket
timeouts): watches that outlive every timeout, thousands of watchers on one worker,
watchers that never read, a resume late in a long game, and a Redis near its maxmemory.

Each of these failed before (docs/reliability.md, "Abuse and idle time", has the figures):
an idle watch died after ~5 s on Redis, the 1,025th watcher of a worker was refused, a
watcher that never read held its answers in the worker's memory, a resume replayed the whole
log, and a full Redis refused every player's move while /readyz said ready.
"""

from __future__ import annotations

import asyncio
import re
import resource
import secrets
import socket
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest
import redis

from genial.v1 import game_service_pb2 as api
from genial.v1 import game_service_pb2_grpc as api_grpc
from genial.v1 import types_pb2 as types
from tests.reliability.conftest import Spawn
from tests.reliability.harness import LoggedWorker, RedisServer, count, wait_until
from tests.service.clients import CallError, GrpcClient, RestClient
from tests.service.scenarios import KINDS, open_table

pytestmark = pytest.mark.slow

IDLE_SECONDS = 60.0
KEEPALIVE = 15.0
"""The production keep-alive (the watch_keepalive default)."""


@dataclass
class Watched:
    """What one watcher saw: keep-alives, events, and the error that ended it, if any."""

    keep_alives: int = 0
    events: list[str] = field(default_factory=list)
    error: str | None = None


def watch_sse(worker: LoggedWorker, game_id: str, until: float, seen: Watched) -> None:
    url = f"{worker.url}/v1/games/{game_id}/events"
    try:
        with httpx.stream("GET", url, timeout=3 * KEEPALIVE) as reply:
            for line in reply.iter_lines():
                if line == ": keep-alive":
                    seen.keep_alives += 1
                elif line.startswith("event: "):
                    seen.events.append(line.removeprefix("event: "))
                elif line.startswith("data: ") and seen.events[-1:] == ["error"]:
                    seen.error = line.removeprefix("data: ")
                if time.monotonic() > until and "join" in seen.events:
                    return
    except httpx.HTTPError as err:
        seen.error = repr(err)


def watch_grpc(worker: LoggedWorker, game_id: str, until: float, seen: Watched) -> None:
    channel = grpc.insecure_channel(f"127.0.0.1:{worker.grpc_port}")
    try:
        for answer in api_grpc.GameServiceStub(channel).WatchGame(
            api.WatchGameRequest(game_id=game_id)
        ):
            if answer.keep_alive:
                seen.keep_alives += 1
            else:
                seen.events.append("join" if answer.version == 0 else "move")
            if time.monotonic() > until and "join" in seen.events:
                return
    except grpc.RpcError as err:
        seen.error = f"{err.code()}: {err.details()}"
    finally:
        channel.close()


def test_an_idle_watch_lives_through_a_minute_with_production_keep_alives(
    spawn: Spawn, own_redis: RedisServer, cluster: list[RedisServer]
) -> None:
    """A player waiting for an opponent, on Redis and on Redis Cluster, over SSE and gRPC."""
    standalone = spawn(own_redis.url)[0]
    clustered = spawn(f"redis://127.0.0.1:{cluster[0].port}", 1, "--redis-cluster")[0]
    until = time.monotonic() + IDLE_SECONDS
    watches = []
    for worker in (standalone, clustered):
        created = RestClient(worker.http_port).call(
            "CreateGame", api.CreateGameRequest(kind=KINDS["dice"], seats=2)
        )
        for watch in (watch_sse, watch_grpc):
            seen = Watched()
            thread = threading.Thread(target=watch, args=(worker, created.game_id, until, seen))
            thread.start()
            watches.append((worker, created.game_id, thread, seen))
    time.sleep(IDLE_SECONDS)
    for worker, game_id, _, _ in watches[::2]:  # one join each game, after the idle minute
        RestClient(worker.http_port).call(
            "JoinGame", api.JoinGameRequest(game_id=game_id, display_name="late")
        )
    for _, _, thread, seen in watches:
        thread.join(KEEPALIVE)
        assert not thread.is_alive(), seen
        assert seen.error is None, seen
        assert seen.events == ["join"], seen
        # One at once, then one every 15 s of the minute.
        assert seen.keep_alives >= IDLE_SECONDS // KEEPALIVE, seen
    count(idle_watch_seconds=int(IDLE_SECONDS), idle_watches=len(watches))


# ---- many watchers -------------------------------------------------------------------------

WATCHERS = 10_000
STREAMS_PER_CHANNEL = 100
"""grpc's max_concurrent_streams a connection (the default of max_streams_per_connection)."""


POOL_SIZE = 4
"""The worker's redis-py pool (lobby, schedules): with its link and its Pub/Sub connection,
the most Redis connections it may have, however many watch."""


def redis_clients(url: str) -> list[dict[str, str]]:
    """The server's clients, less the one asking."""
    admin = redis.Redis.from_url(url)
    try:
        me = admin.client_id()
        return [c for c in admin.client_list() if int(c["id"]) != me]
    finally:
        admin.close()


async def open_watchers(
    worker: LoggedWorker, game_id: str, n: int, *options: tuple[str, int]
) -> tuple[list, list]:
    """n gRPC watchers of one game, each past its first answer."""
    # A subchannel pool of each channel's own: else the channels share one connection, whose
    # streams beyond the 100th wait for a slot that no watcher gives back.
    own_connection = [("grpc.use_local_subchannel_pool", 1), *options]
    channels = [
        grpc.aio.insecure_channel(f"127.0.0.1:{worker.grpc_port}", options=own_connection)
        for _ in range(-(-n // STREAMS_PER_CHANNEL))
    ]

    async def watcher(channel: grpc.aio.Channel) -> Any:
        """One watch past its first answer; told to retry (UNAVAILABLE: the worker gave up
        on a Redis reply), it opens again, as the SDKs do."""
        for attempt in range(4):
            call = api_grpc.GameServiceStub(channel).WatchGame(
                api.WatchGameRequest(game_id=game_id, from_version=0)
            )
            try:
                await call.read()
                return call
            except grpc.aio.AioRpcError as err:
                if err.code() != grpc.StatusCode.UNAVAILABLE or attempt == 3:
                    raise
                count(watch_open_retries=1)
        raise AssertionError("unreachable")

    calls = await asyncio.wait_for(
        asyncio.gather(*(watcher(channels[i // STREAMS_PER_CHANNEL]) for i in range(n))), 300
    )
    return channels, list(calls)


def test_ten_thousand_watchers_cost_memory_not_connections(
    spawn: Spawn, own_redis: RedisServer
) -> None:
    worker = spawn(
        own_redis.url,
        1,
        "--max-streams-per-address",
        str(WATCHERS),
        "--redis-pool-size",
        str(POOL_SIZE),
    )[0]
    client = GrpcClient(worker.grpc_port)
    table = open_table(client, "tiles", 2)
    connections_before = redis_clients(own_redis.url)
    rss_before = worker.rss_bytes()

    async def run() -> tuple[int, list[dict[str, str]], float, float]:
        channels, calls = await open_watchers(worker, table.game_id, WATCHERS)
        rss_with = worker.rss_bytes()
        connections_with = redis_clients(own_redis.url)
        # One move: every watcher hears of it (one read of the log on the worker).
        legal = client.call(
            "ListLegalMoves", api.ListLegalMovesRequest(game_id=table.game_id), table.tokens[0]
        )
        start, cpu_before = time.monotonic(), worker.cpu_seconds()
        client.call(
            "MakeMove",
            api.MakeMoveRequest(game_id=table.game_id, move=legal.moves[0]),
            table.tokens[0],
        )

        async def next_change(i: int, call: Any) -> int:
            """The version of the move (past the joins and keep-alives); told to retry, the
            watcher resumes from the version it saw (0), as the SDKs do."""
            while True:
                try:
                    while (answer := await call.read()).keep_alive or answer.version < 1:
                        pass
                    return int(answer.version)
                except grpc.aio.AioRpcError as err:
                    if err.code() != grpc.StatusCode.UNAVAILABLE:
                        raise
                    count(watch_resumes=1)
                    stub = api_grpc.GameServiceStub(channels[i // STREAMS_PER_CHANNEL])
                    call = stub.WatchGame(
                        api.WatchGameRequest(game_id=table.game_id, from_version=0)
                    )

        versions = await asyncio.wait_for(
            asyncio.gather(*(next_change(i, c) for i, c in enumerate(calls))), 300
        )
        fan_out, cpu = time.monotonic() - start, worker.cpu_seconds() - cpu_before
        assert set(versions) == {1}
        for channel in channels:
            await channel.close()
        return rss_with, connections_with, fan_out, cpu

    rss_with, connections_with, fan_out, cpu = asyncio.run(run())
    per_watcher_kib = (rss_with - rss_before) / WATCHERS / 1024
    # All the watchers share one subscription; the rest is the link and the bounded pool
    # (which background work may have grown meanwhile), whatever the number of watchers.
    assert sum(int(c["sub"]) > 0 for c in connections_with) == 1, connections_with
    assert len(connections_with) <= 1 + 1 + POOL_SIZE, connections_with
    assert per_watcher_kib < 64, per_watcher_kib
    # The watchers are gone: the worker leaves the game's channel, and still serves.
    admin = redis.Redis.from_url(own_redis.url)
    wait_until(lambda: admin.pubsub_numsub(f"genial:{{{table.game_id}}}:game")[0][1] == 0, 30)
    admin.close()
    assert httpx.get(f"{worker.admin_url}/readyz").status_code == 200
    count(
        watchers=WATCHERS,
        watcher_kib=round(per_watcher_kib, 1),
        watcher_redis_connections=len(connections_with) - len(connections_before),
        watch_fan_out_ms=round(fan_out * 1000),
        # The worker's CPU for one move heard by every watcher (a spectator's view each,
        # serialised and written), a watcher.
        watch_event_cpu_us=round(cpu / WATCHERS * 1e6, 1),
    )
    client.close()


def test_watchers_that_never_read_are_let_go(spawn: Spawn, own_redis: RedisServer) -> None:
    """500 watchers that never read a game of many moves: the worker stops writing to them
    after write_stall_seconds and ends them (SLOW_READER); its memory does not keep them."""
    stall = 2
    worker = spawn(
        own_redis.url,
        1,
        *("--max-streams-per-address", "1000", "--write-stall-seconds", str(stall)),
    )[0]
    client = GrpcClient(worker.grpc_port)
    table = open_table(client, "dice", 4, rounds=3)
    rss_before = worker.rss_bytes()

    async def run() -> tuple[list[grpc.StatusCode], int]:
        # Flow-control windows that stay at grpc's initial 64 KiB (no bandwidth probing):
        # a few dozen answers fill them, and the worker's writes wait.
        channels, calls = await open_watchers(
            worker, table.game_id, 500, ("grpc.http2.bdp_probe", 0)
        )
        # Many moves, each a view to each watcher, that nobody reads.
        for _ in range(300):
            view = client.call("GetGame", api.GetGameRequest(game_id=table.game_id)).view
            if not view.HasField("to_move"):
                break
            seat = view.to_move
            legal = client.call(
                "ListLegalMoves",
                api.ListLegalMovesRequest(game_id=table.game_id),
                table.tokens[seat],
            )
            client.call(
                "MakeMove",
                api.MakeMoveRequest(game_id=table.game_id, move=legal.moves[0]),
                table.tokens[seat],
            )
        await asyncio.sleep(stall + 3)
        peak = worker.rss_bytes()

        async def drain(call: Any) -> grpc.StatusCode:
            """What the worker sent before it gave up, then its status; a stream still
            open (the worker kept writing to it) counts as OK."""
            try:
                while await asyncio.wait_for(call.read(), 5) is not grpc.aio.EOF:
                    pass
            except TimeoutError:
                call.cancel()
            except grpc.aio.AioRpcError as err:
                return err.code()
            return grpc.StatusCode.OK

        codes = list(await asyncio.gather(*(drain(call) for call in calls)))
        for channel in channels:
            await channel.close()
        return codes, peak

    codes, peak = asyncio.run(run())
    grown = (peak - rss_before) / 2**20
    assert grown < 100, grown
    assert codes.count(grpc.StatusCode.RESOURCE_EXHAUSTED) >= 450, set(codes)
    assert "SLOW_READER" in worker.log_text() or codes.count(grpc.StatusCode.RESOURCE_EXHAUSTED)
    count(slow_readers=len(codes), slow_reader_mib=round(grown, 1))
    client.close()


# ---- huge credentials and half-sent requests ---------------------------------------------

SLOWLORIS = 1000
READ_SECONDS = 10.0
"""The production request_read_seconds."""


def test_floods_of_huge_credentials_and_half_sent_requests_leave_a_worker_as_it_was(
    spawn: Spawn, own_redis: RedisServer
) -> None:
    """250 requests with 1 MB tokens over HTTP, 2,000 random 4,000-character tokens over
    gRPC (under the length cap: each one looked up), then 1,000 connections that send half
    a request head and nothing more; with production header caps and read deadlines."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 8192)), hard))
    worker = spawn(own_redis.url)[0]
    client = GrpcClient(worker.grpc_port)
    table = open_table(client, "dice", 2)
    rss_before = worker.rss_bytes()
    with httpx.Client(base_url=worker.url) as http:
        for _ in range(250):
            token = secrets.token_hex(500_000)
            reply = http.get(
                f"/v1/games/{table.game_id}", headers={"authorization": f"Bearer {token}"}
            )
            assert reply.status_code == 431
    refusals = set()
    for _ in range(2000):
        try:
            client.call(
                "GetGame", api.GetGameRequest(game_id=table.game_id), secrets.token_hex(2000)
            )
        except CallError as err:
            refusals.add(err.reason)
    assert refusals == {"TOKEN_INVALID"}, refusals
    tokens_mib = (worker.rss_bytes() - rss_before) / 2**20
    # Half a request head on each of a thousand connections: each is answered 408 and closed
    # after the read deadline, while the worker serves everyone else.
    sockets = [socket.create_connection(("127.0.0.1", worker.http_port)) for _ in range(SLOWLORIS)]
    start = time.monotonic()
    for sock in sockets:
        sock.sendall(b"GET /v1/games HTTP/1.1\r\nhost: x\r\n")
    assert client.call("GetGame", api.GetGameRequest(game_id=table.game_id)).view.game_id
    assert httpx.get(f"{worker.url}/v1/games/{table.game_id}").status_code == 200
    for sock in sockets:
        sock.settimeout(READ_SECONDS + 10)
        while sock.recv(4096):
            pass
        sock.close()
    closed_after = time.monotonic() - start
    assert closed_after < READ_SECONDS + 5, closed_after
    grown_mib = (worker.rss_bytes() - rss_before) / 2**20
    assert tokens_mib < 32, tokens_mib
    assert grown_mib < 32, grown_mib
    count(
        huge_token_requests=250 + 2000,
        huge_token_mib=round(tokens_mib, 1),
        slowloris_connections=SLOWLORIS,
        slowloris_closed_after_s=round(closed_after, 1),
        floods_mib=round(grown_mib, 1),
    )
    client.close()


# ---- a resume late in a long game --------------------------------------------------------------


def replayed(worker: LoggedWorker) -> float:
    metrics = httpx.get(f"{worker.admin_url}/metrics").text
    match = re.search(r"^genial_replayed_moves_total ([0-9.e+]+)$", metrics, re.MULTILINE)
    assert match, "the worker exports genial_replayed_moves_total"
    return float(match.group(1))


def test_a_resume_costs_what_it_sends(spawn: Spawn, own_redis: RedisServer) -> None:
    worker = spawn(own_redis.url)[0]
    client = GrpcClient(worker.grpc_port)
    # A long game: four bots play six rounds of dice (~2,900 moves) on their own.
    created = client.call(
        "CreateGame",
        api.CreateGameRequest(
            kind=KINDS["dice"],
            seats=4,
            options=types.GameOptions(rounds=6),
            bots=[api.SeatBot(seat=s, strength=types.BOT_STRENGTH_RANDOM) for s in range(4)],
        ),
    )
    game_id = created.game_id

    def finished() -> bool:
        return not client.call("GetGame", api.GetGameRequest(game_id=game_id)).view.HasField(
            "to_move"
        )

    wait_until(finished, 600, 0.5)
    final = client.call("GetGame", api.GetGameRequest(game_id=game_id)).view.version
    assert final > 1500, final
    # Resumed at the last move but one: one answer, from the snapshot before it.
    before = replayed(worker)
    answers = list(client.watch(api.WatchGameRequest(game_id=game_id, from_version=final - 1)))
    late_cost = replayed(worker) - before
    assert [a.version for a in answers if not a.keep_alive] == [final]
    assert late_cost <= 32, late_cost
    # A history page costs its moves, wherever it starts.
    before = replayed(worker)
    page = client.call(
        "GetHistory",
        api.GetHistoryRequest(game_id=game_id, page_size=50, page_token=str(final - 60)),
    )
    assert len(page.entries) == 50
    assert replayed(worker) - before <= 50 + 32
    count(long_game_moves=final, late_resume_replayed_moves=int(late_cost))
    client.close()


# ---- a Redis near its maxmemory -----------------------------------------------------------------


def test_a_nearly_full_redis_refuses_new_games_first(spawn: Spawn, tmp_path: Path) -> None:
    server = RedisServer(
        tmp_path / "small", ("--maxmemory", "8mb", "--maxmemory-policy", "noeviction")
    )
    server.start()
    try:
        worker = spawn(server.url)[0]
        client = RestClient(worker.http_port)
        table = open_table(client, "cards", 2)
        admin = redis.Redis.from_url(server.url)
        filler = 0
        while admin.info("memory")["used_memory"] < 0.93 * 8 * 2**20:
            admin.set(f"filler:{filler}", b"x" * 20_000)
            filler += 1
        # Within a sample (5 s): new games wait, the game in play goes on.
        wait_until(lambda: "nearly full" in httpx.get(f"{worker.admin_url}/readyz").text, 15, 0.5)
        refused = client.http.post("/v1/games", json={"kind": "GAME_KIND_DICE", "seats": 2})
        assert (refused.status_code, refused.json()["error"]["reason"]) == (503, "STORE_FULL")
        legal = client.call(
            "ListLegalMoves", api.ListLegalMovesRequest(game_id=table.game_id), table.tokens[0]
        )
        moved = client.call(
            "MakeMove",
            api.MakeMoveRequest(game_id=table.game_id, move=legal.moves[0]),
            table.tokens[0],
        )
        assert moved.version == 1
        # Full (to the last small write): Redis refuses writes, and readiness says so.
        while True:
            try:
                admin.set(f"filler:{filler}", b"x" * 100)
            except redis.exceptions.OutOfMemoryError:
                break
            filler += 1
        wait_until(lambda: httpx.get(f"{worker.admin_url}/readyz").status_code == 503, 15, 0.5)
        admin.close()
        count(full_store_moves_kept_going=1)
    finally:
        server.stop()
