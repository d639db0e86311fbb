"""Many clients in several processes move in the same games at once, through two workers."""

from __future__ import annotations

import multiprocessing
import random
import threading
from collections import defaultdict
from collections.abc import Iterator

import pytest

from genial.service import convert
from genial.v1 import game_service_pb2 as api
from genial.v1 import types_pb2 as types
from tests.service.clients import ApiClient, CallError, GrpcClient, RestClient, whole_history
from tests.service.conftest import Worker, start_worker, stop_worker
from tests.service.scenarios import Table, open_table, play_to_the_end, replay_history

PROCESSES = 4
ATTEMPTS = 60
HERD = 40
"""Watches opened at once on a fresh worker."""


@pytest.fixture(scope="module")
def second_worker(redis_url: str) -> Iterator[Worker]:
    worker = start_worker(redis_url)
    yield worker
    stop_worker(worker)


def race(args: tuple[int, list[int], list[Table]]) -> list[tuple[str, int, str]]:
    """One client process: random moves in random games; the moves it saw accepted."""
    seed, ports, tables = args
    rnd = random.Random(seed)
    clients = [GrpcClient(port) for port in ports]
    accepted: list[tuple[str, int, str]] = []
    for attempt in range(ATTEMPTS):
        client = rnd.choice(clients)
        table = rnd.choice(tables)
        view = client.call("GetGame", api.GetGameRequest(game_id=table.game_id)).view
        if view.status == types.GAME_STATUS_FINISHED:
            continue
        token = table.tokens[view.to_move]
        legal = client.call(
            "ListLegalMoves", api.ListLegalMovesRequest(game_id=table.game_id), token
        )
        if not legal.moves:
            continue  # somebody moved in between
        request = api.MakeMoveRequest(
            game_id=table.game_id, move=rnd.choice(legal.moves), request_id=f"{seed}-{attempt}"
        )
        if rnd.random() < 0.5:
            request.expected_version = legal.version
        for _ in range(rnd.choice((1, 1, 2))):  # sometimes a retry of the same request
            try:
                made = client.call("MakeMove", request, token)
            except CallError as err:
                if err.code not in ("ABORTED", "FAILED_PRECONDITION"):
                    raise
                break
            accepted.append((table.game_id, made.version, request.request_id))
    for client in clients:
        client.close()
    return accepted


def test_racing_clients_lose_no_move_and_apply_none_twice(
    redis_worker: Worker, second_worker: Worker
) -> None:
    ports = [redis_worker.grpc_port, second_worker.grpc_port]
    client = GrpcClient(ports[0])
    tables = [
        open_table(client, "cards", 4),
        open_table(client, "dice", 3),
        open_table(client, "tiles", 2),
    ]
    with multiprocessing.get_context("spawn").Pool(PROCESSES) as pool:
        results = pool.map(race, [(seed, ports, tables) for seed in range(PROCESSES)])
    by_game: dict[str, dict[str, set[int]]] = defaultdict(lambda: defaultdict(set))
    for game_id, version, request_id in (row for rows in results for row in rows):
        by_game[game_id][request_id].add(version)
    total = 0
    for table in tables:
        requests = by_game[table.game_id]
        # A retried request id always got the same version back.
        assert all(len(versions) == 1 for versions in requests.values())
        versions = sorted(v for vs in requests.values() for v in vs)
        history = whole_history(client, table.game_id)
        assert [e.version for e in history.entries] == list(range(1, len(history.entries) + 1))
        # Every accepted move is in the history once, and nothing else is.
        assert versions == list(range(1, len(history.entries) + 1))
        total += len(versions)
        final = play_to_the_end(client, table, random.Random(1))
        replayed = replay_history(client, table)
        for seat in range(table.seats):
            view = client.call(
                "GetGame", api.GetGameRequest(game_id=table.game_id), table.tokens[seat]
            ).view
            expected = types.GameView()
            convert.table_to_proto(table.kind, replayed.view(seat)["table"], expected)
            assert getattr(view, table.kind) == getattr(expected, table.kind)
        assert final.status == types.GAME_STATUS_FINISHED
    assert total > PROCESSES * ATTEMPTS // 4, "the race made progress"
    client.close()


def test_a_worker_whose_kept_record_is_old_decides_on_the_game_as_it_is(
    redis_worker: Worker, second_worker: Worker
) -> None:
    """Worker A keeps the record it wrote; worker B moves the game on. Every move sent to A
    after that is judged on the game as it is, never on A's old record: the right seat
    moves, the version it expects is the current one, and a retried request id is known."""
    first, second = GrpcClient(redis_worker.grpc_port), GrpcClient(second_worker.grpc_port)
    table = open_table(first, "dice", 2)
    roll = convert.proto_move("dice", {"type": "roll"})
    score = convert.proto_move("dice", {"type": "score", "jokers": []})

    def move(client: GrpcClient, seat: int, made: api.MakeMoveRequest) -> int:
        made.game_id = table.game_id
        return int(client.call("MakeMove", made, table.tokens[seat]).version)

    view = first.call("GetGame", api.GetGameRequest(game_id=table.game_id)).view
    mover = view.to_move
    assert move(first, mover, api.MakeMoveRequest(move=roll, request_id="a1")) == 1  # A keeps v1
    assert move(second, mover, api.MakeMoveRequest(move=score, request_id="b2")) == 2  # via B
    other = 1 - mover
    # On A's record (v1) it is still the first seat's turn, at version 1: A must look again.
    assert move(first, other, api.MakeMoveRequest(move=roll, expected_version=2)) == 3
    assert move(second, other, api.MakeMoveRequest(move=score)) == 4
    # On A's record (v3) this seat may not roll; on the game (v4) it may, without a version.
    assert move(first, mover, api.MakeMoveRequest(move=roll)) == 5
    # A request id B applied is recognised through A: the same answer, nothing applied.
    assert move(first, mover, api.MakeMoveRequest(move=score, request_id="b2")) == 2
    # And a move that is illegal now is refused with today's reason.
    with pytest.raises(CallError) as refused:
        move(second, other, api.MakeMoveRequest(move=roll))
    assert (refused.value.code, refused.value.reason) == ("FAILED_PRECONDITION", "NOT_YOUR_TURN")
    history = whole_history(first, table.game_id)
    assert [e.version for e in history.entries] == [1, 2, 3, 4, 5]
    first.close()
    second.close()


def test_a_fresh_workers_first_watches_at_once_each_hear_their_game(
    redis_url: str, redis_worker: Worker
) -> None:
    """Clients back after a deploy: watches of 40 games opened at once, over gRPC and SSE, on a
    worker that has watched nothing yet, each answer at once and hear their game's next move
    (a worker's first subscriptions sent at once left some games' watches silent for ever)."""
    mover = GrpcClient(redis_worker.grpc_port)
    tables = [open_table(mover, "dice", 2) for _ in range(HERD)]
    fresh = start_worker(redis_url)
    opened, heard = threading.Semaphore(0), threading.Semaphore(0)
    start = threading.Barrier(HERD)
    failures: list[str] = []

    def watch(number: int, table: Table) -> None:
        client: ApiClient = (GrpcClient if number % 2 else RestClient)(
            fresh.grpc_port if number % 2 else fresh.http_port
        )
        start.wait()
        try:
            for answer in client.watch(api.WatchGameRequest(game_id=table.game_id), None, 30):
                if answer.version == 0 and not answer.keep_alive and answer.events:
                    opened.release()  # its joins: followed
                if answer.version >= 1:
                    heard.release()
                    return
        except Exception as exc:
            failures.append(f"{table.game_id}: {exc!r}")
        finally:
            client.close()

    threads = [threading.Thread(target=watch, args=(n, t)) for n, t in enumerate(tables)]
    try:
        for thread in threads:
            thread.start()
        assert all(opened.acquire(timeout=15) for _ in tables), "every watch answers"
        for table in tables:
            view = mover.call("GetGame", api.GetGameRequest(game_id=table.game_id)).view
            token = table.tokens[view.to_move]
            legal = mover.call(
                "ListLegalMoves", api.ListLegalMovesRequest(game_id=table.game_id), token
            )
            mover.call(
                "MakeMove", api.MakeMoveRequest(game_id=table.game_id, move=legal.moves[0]), token
            )
        assert all(heard.acquire(timeout=15) for _ in tables), "every watch hears its move"
        assert not failures, failures
    finally:
        for thread in threads:
            thread.join(30)
        stop_worker(fresh)
        mover.close()
