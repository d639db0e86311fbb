"""Faults under load: a worker killed with SIGKILL, Redis killed with SIGKILL and started again
on its append-only file, Redis frozen (SIGSTOP) and Redis unreachable."""

from __future__ import annotations

import threading
import time

import httpx
import pytest

from genial.v1 import game_service_pb2 as api
from genial.v1 import types_pb2 as types
from tests.conftest import free_port
from tests.reliability.conftest import Spawn
from tests.reliability.harness import (
    RedisServer,
    StoreAccess,
    assert_no_internal_errors,
    assert_no_secret_in_logs,
    count,
    kill_worker,
    ready,
    wait_until,
)
from tests.reliability.race import check_games, endpoints, run_race
from tests.reliability.test_lost_updates import open_race_tables
from tests.service.clients import ApiClient, CallError, GrpcClient, RestClient
from tests.service.scenarios import Table, open_table

REDIS_TIMEOUT = 1.0
"""The workers' --redis-timeout under load."""
FROZEN_TIMEOUT = 0.5
"""Their --redis-timeout where Redis does not answer at all."""
BOUND = 3 * FROZEN_TIMEOUT + 1.0
"""The longest a request may take to fail while Redis does not answer."""
KEEPALIVE = 2.0


def test_killed_workers_lose_no_acknowledged_move(redis_url: str, spawn: Spawn) -> None:
    workers = spawn(redis_url, 3)
    client = GrpcClient(workers[2].grpc_port)
    tables = open_race_tables(client)
    killed: list[float] = []

    def kill_two_workers() -> None:
        for worker in workers[:2]:
            time.sleep(5)
            kill_worker(worker)
            killed.append(time.monotonic())

    result = run_race(
        endpoints(workers),
        tables,
        processes=3,
        clients_per_process=8,
        seconds=16,
        retry_seconds=30,
        during=kill_two_workers,
    )
    assert len(killed) == 2
    assert not result.errors, "\n".join(result.errors[:10])
    assert result.failovers > 0, "clients lost their worker and went on elsewhere"
    totals = check_games(StoreAccess(redis_url), client, tables, result.acks)
    assert totals["raced"] > 100
    assert workers[2].proc.poll() is None
    assert_no_internal_errors(workers[2:])
    client.close()
    count(
        worker_kills=len(killed),
        worker_kill_moves_acknowledged=totals["raced"],
        worker_kill_failovers=result.failovers,
        worker_kill_moves_lost=0,
    )


def test_redis_killed_and_restarted_loses_no_acknowledged_move(
    own_redis: RedisServer, spawn: Spawn
) -> None:
    workers = spawn(own_redis.url, 2, "--redis-timeout", str(REDIS_TIMEOUT))
    client = GrpcClient(workers[0].grpc_port)
    tables = open_race_tables(client)
    outages: list[tuple[float, float]] = []
    not_ready_while_down: list[bool] = []

    def kill_redis_twice() -> None:
        for _ in range(2):
            time.sleep(4)
            own_redis.kill()
            # Readiness goes false on every worker, within the Redis timeout and a probe.
            down = max(wait_until(lambda w=w: not ready(w), 3 * REDIS_TIMEOUT + 2) for w in workers)
            time.sleep(2)
            not_ready_while_down.extend(not ready(w) for w in workers)
            own_redis.start()
            # The same worker processes reconnect by themselves.
            up = max(wait_until(lambda w=w: ready(w), 15) for w in workers)
            outages.append((down, up))

    result = run_race(
        endpoints(workers),
        tables,
        processes=2,
        clients_per_process=8,
        seconds=18,
        retry_seconds=40,
        during=kill_redis_twice,
    )
    assert len(outages) == 2
    assert all(not_ready_while_down)
    assert not result.errors, "\n".join(result.errors[:10])
    assert result.failovers > 0, "clients saw Redis go away"
    assert all(w.proc.poll() is None for w in workers), "no worker died with Redis"
    totals = check_games(StoreAccess(own_redis.url), client, tables, result.acks)
    assert totals["raced"] > 100
    client.close()
    count(
        redis_kills=len(outages),
        redis_kill_moves_acknowledged=totals["raced"],
        redis_kill_retries=result.failovers,
        redis_kill_moves_lost=0,
    )
    count(
        redis_kill_slowest_not_ready_ms=int(1000 * max(d for d, _ in outages)),
        redis_kill_slowest_ready_again_ms=int(1000 * max(u for _, u in outages)),
    )


# ---- Redis that does not answer -----------------------------------------------------------


def every_call(table: Table, move: types.Move) -> list[tuple[str, object, str | None]]:
    """One request of each unary RPC, each of which needs the store."""
    gid = table.game_id
    return [
        ("CreateGame", api.CreateGameRequest(kind=types.GAME_KIND_DICE, seats=2), None),
        ("JoinGame", api.JoinGameRequest(game_id=gid, display_name="late"), None),
        ("GetGame", api.GetGameRequest(game_id=gid), table.tokens[0]),
        ("ListLegalMoves", api.ListLegalMovesRequest(game_id=gid), table.tokens[0]),
        (
            "MakeMove",
            api.MakeMoveRequest(game_id=gid, move=move, request_id="frozen-1"),
            table.tokens[0],
        ),
        ("GetHistory", api.GetHistoryRequest(game_id=gid), None),
        ("ListGames", api.ListGamesRequest(), None),
        ("WatchGame", api.WatchGameRequest(game_id=gid), None),
    ]


def refused_in_time(client: ApiClient, method: str, request: object, token: str | None) -> float:
    """Seconds until the call failed with UNAVAILABLE / STORE_UNAVAILABLE."""

    def call() -> object:
        if method == "WatchGame":
            return next(iter(client.watch(request, token, timeout=30)))  # type: ignore[arg-type]
        return client.call(method, request, token)

    start = time.monotonic()
    with pytest.raises(CallError) as err:
        call()
    took = time.monotonic() - start
    assert (err.value.code, err.value.reason) == ("UNAVAILABLE", "STORE_UNAVAILABLE"), err.value
    assert took < BOUND, f"{method} took {took:.1f} s to fail"
    return took


def test_a_frozen_redis_fails_every_request_in_bounded_time(
    own_redis: RedisServer, spawn: Spawn
) -> None:
    (worker,) = spawn(
        own_redis.url,
        1,
        "--redis-timeout",
        str(FROZEN_TIMEOUT),
        "--watch-keepalive",
        str(KEEPALIVE),
    )
    clients: list[ApiClient] = [GrpcClient(worker.grpc_port), RestClient(worker.http_port)]
    table = open_table(clients[0], "cards", 2)
    legal = clients[0].call(
        "ListLegalMoves", api.ListLegalMovesRequest(game_id=table.game_id), table.tokens[0]
    )
    # Watches open before Redis freezes end too, with an error, rather than hang.
    watch_ends: list[tuple[str, str, float]] = []

    def watch(client: ApiClient) -> None:
        start = time.monotonic()
        try:
            for _ in client.watch(api.WatchGameRequest(game_id=table.game_id), timeout=60):
                pass
            watch_ends.append(("ended", "", time.monotonic() - start))
        except CallError as err:
            watch_ends.append((err.code, err.reason, time.monotonic() - start))

    watchers = [threading.Thread(target=watch, args=(c,)) for c in clients]
    for thread in watchers:
        thread.start()
    time.sleep(0.5)
    slowest = 0.0
    own_redis.pause()
    frozen = time.monotonic()
    try:
        for client in clients:
            for method, request, token in every_call(table, legal.moves[0]):
                slowest = max(slowest, refused_in_time(client, method, request, token))
        assert not ready(worker, timeout=BOUND + 2)
        assert httpx.get(f"{worker.admin_url}/healthz", timeout=5).status_code == 200
        for thread in watchers:
            thread.join(max(0.0, frozen + KEEPALIVE + BOUND + 2 - time.monotonic()))
        assert [(code, reason) for code, reason, _ in watch_ends] == [
            ("UNAVAILABLE", "STORE_UNAVAILABLE")
        ] * 2, watch_ends
    finally:
        own_redis.resume()
    # Redis answers again: so does the worker, without a restart.
    wait_until(lambda: ready(worker), 10)
    made = clients[1].call(
        "MakeMove",
        api.MakeMoveRequest(game_id=table.game_id, move=legal.moves[0], request_id="after"),
        table.tokens[0],
    )
    assert made.version == 1
    assert worker.proc.poll() is None
    assert "store unavailable" in worker.log_text(), "the outage was logged"
    assert_no_secret_in_logs([worker], table.tokens)
    for client in clients:
        client.close()
    count(
        redis_freezes=1,
        frozen_requests_refused=2 * len(every_call(table, legal.moves[0])),
        frozen_slowest_refusal_ms=int(1000 * slowest),
    )


def test_an_unreachable_redis_fails_every_request_at_once(spawn: Spawn) -> None:
    closed = free_port()  # nothing listens there
    (worker,) = spawn(f"redis://127.0.0.1:{closed}/0", 1, "--redis-timeout", str(FROZEN_TIMEOUT))
    table = Table("AAAAAAAAAAAAAAAA", "cards", 2, ["x", "y"])
    move = types.Move()
    move.cards.swap.SetInParent()
    slowest = 0.0
    clients: list[ApiClient] = [GrpcClient(worker.grpc_port), RestClient(worker.http_port)]
    for client in clients:
        for method, request, token in every_call(table, move):
            slowest = max(slowest, refused_in_time(client, method, request, token))
        client.close()
    assert not ready(worker)
    assert httpx.get(f"{worker.admin_url}/healthz", timeout=5).status_code == 200
    assert worker.proc.poll() is None
    count(
        unreachable_requests_refused=2 * len(every_call(table, move)),
        unreachable_slowest_refusal_ms=int(1000 * slowest),
    )
