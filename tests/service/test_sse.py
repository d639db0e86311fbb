"""WatchGame over HTTP as Server-Sent Events: ids, resuming with Last-Event-ID across
workers, keep-alives, errors, and a watch that ends when its client goes away."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
import redis

from genial.v1 import game_service_pb2 as api
from tests.conftest import start_redis
from tests.service.clients import RestClient, ServerSentEvent, read_events
from tests.service.conftest import Worker, start_worker, stop_worker
from tests.service.scenarios import Table, open_table


@pytest.fixture(scope="module")
def quick_worker(redis_url: str) -> Iterator[Worker]:
    """A second worker on the same Redis, with keep-alives every 0.2 s."""
    worker = start_worker(redis_url, "--watch-keepalive", "0.2")
    yield worker
    stop_worker(worker)


def events_url(worker: Worker, game_id: str) -> str:
    return f"http://127.0.0.1:{worker.http_port}/v1/games/{game_id}/events"


def read_until(
    worker: Worker, game_id: str, last: str, headers: dict[str, str] | None = None, **params: int
) -> list[ServerSentEvent]:
    """The events of a new stream up to the one with id `last`; then the client hangs up."""
    seen = []
    with httpx.stream(
        "GET", events_url(worker, game_id), headers=headers, params=params, timeout=10
    ) as reply:
        assert reply.status_code == 200
        assert reply.headers["content-type"].startswith("text/event-stream")
        for event in read_events(reply.iter_lines()):
            seen.append(event)
            if event.id == last:
                return seen
    raise AssertionError(f"the stream ended before event {last}")


def move(client: RestClient, table: Table, rnd: random.Random) -> int:
    view = client.call("GetGame", api.GetGameRequest(game_id=table.game_id)).view
    token = table.tokens[view.to_move]
    legal = client.call("ListLegalMoves", api.ListLegalMovesRequest(game_id=table.game_id), token)
    request = api.MakeMoveRequest(game_id=table.game_id, move=rnd.choice(legal.moves))
    return int(client.call("MakeMove", request, token).version)


def test_a_reconnect_to_another_worker_gets_exactly_the_missed_events(
    redis_worker: Worker, quick_worker: Worker
) -> None:
    first, second = RestClient(redis_worker.http_port), RestClient(quick_worker.http_port)
    rnd = random.Random(3)
    table = open_table(first, "cards", 2)
    for _ in range(2):
        move(first, table, rnd)
    before = read_until(redis_worker, table.game_id, "1")
    assert [(e.id, e.event) for e in before] == [("0-1", "join"), ("0-2", "join"), ("1", "move")]
    # The client is gone; moves go on through the other worker.
    versions = [move(second, table, rnd) for _ in range(4)]
    assert versions == [3, 4, 5, 6]
    missed = read_until(quick_worker, table.game_id, "6", {"last-event-id": "1"})
    assert [e.id for e in missed] == ["2", "3", "4", "5", "6"]
    # Exactly the events a watch from the start sees, and the same data.
    everything = read_until(redis_worker, table.game_id, "6")
    assert [(e.id, e.data) for e in everything[3:]] == [(e.id, e.data) for e in missed]
    # Resuming after a join replays the joins after it.
    after_join = read_until(quick_worker, table.game_id, "6", {"last-event-id": "0-1"})
    assert [e.id for e in after_join] == ["0-2", "1", "2", "3", "4", "5", "6"]
    assert after_join[0].data == everything[1].data
    # Last-Event-ID wins over from_version.
    resumed = read_until(redis_worker, table.game_id, "6", {"last-event-id": "4"}, from_version=1)
    assert [e.id for e in resumed] == ["5", "6"]
    first.close()
    second.close()


def test_an_idle_stream_gets_keep_alive_comments(quick_worker: Worker) -> None:
    client = RestClient(quick_worker.http_port)
    table = open_table(client, "dice", 2)
    lines: list[str] = []
    deadline = time.monotonic() + 1.5
    with httpx.stream("GET", events_url(quick_worker, table.game_id), timeout=10) as reply:
        for line in reply.iter_lines():
            lines.append(line)
            if time.monotonic() > deadline:
                break
    assert [line for line in lines if line.startswith("id:")] == ["id: 0-1", "id: 0-2"]
    assert lines.count(": keep-alive") >= 3
    client.close()


def test_refusals_come_before_the_stream(quick_worker: Worker) -> None:
    client = RestClient(quick_worker.http_port)
    table = open_table(client, "dice", 2)
    url = events_url(quick_worker, table.game_id)
    reply = httpx.get(url, headers={"last-event-id": "one"})
    assert (reply.status_code, reply.json()["error"]["reason"]) == (400, "BAD_REQUEST")
    reply = httpx.get(url, headers={"authorization": "Bearer forged"})
    assert (reply.status_code, reply.json()["error"]["reason"]) == (403, "TOKEN_INVALID")
    reply = httpx.get(events_url(quick_worker, "A" * 16))
    assert (reply.status_code, reply.json()["error"]["reason"]) == (404, "GAME_NOT_FOUND")
    client.close()


def subscribers(store: redis.Redis, game_id: str) -> int:
    """The connections subscribed to a game's wake-ups: a worker's, while it has watchers."""
    ((_, count),) = store.pubsub_numsub(f"genial:{{{game_id}}}:game")
    return int(count)


def wait_for(condition: Callable[[], bool], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


def test_a_watch_ends_when_its_client_goes_away(tmp_path: Path) -> None:
    proc, port = start_redis(tmp_path)
    worker = start_worker(f"redis://127.0.0.1:{port}/0")
    try:
        client = RestClient(worker.http_port)
        table = open_table(client, "dice", 2)
        store = redis.Redis(port=port)
        with httpx.stream("GET", events_url(worker, table.game_id), timeout=10) as reply:
            events = read_events(reply.iter_lines())
            assert [next(events).id for _ in range(2)] == ["0-1", "0-2"]
            # The watch now waits for the next move, for up to its 15 s keep-alive...
            assert wait_for(lambda: subscribers(store, table.game_id) == 1, 5)
        # ...but not once the client is gone: the worker leaves the game's channel.
        assert wait_for(lambda: subscribers(store, table.game_id) == 0, 5)
        store.close()
        client.close()
    finally:
        stop_worker(worker)
        proc.kill()


def test_an_error_after_the_stream_began_is_its_last_event(tmp_path: Path) -> None:
    proc, port = start_redis(tmp_path)
    worker = start_worker(f"redis://127.0.0.1:{port}/0", "--watch-keepalive", "0.2")
    try:
        client = RestClient(worker.http_port)
        table = open_table(client, "dice", 2)
        with httpx.stream("GET", events_url(worker, table.game_id), timeout=10) as reply:
            events = read_events(reply.iter_lines())
            assert [next(events).id for _ in range(2)] == ["0-1", "0-2"]
            proc.terminate()
            proc.wait(10)
            last = list(events)
        assert [e.event for e in last] == ["error"]
        assert json.loads(last[0].data[0])["error"]["reason"] == "STORE_UNAVAILABLE"
        client.close()
    finally:
        proc.kill()
        stop_worker(worker)


def test_a_stopping_worker_ends_its_streams_cleanly_and_at_once() -> None:
    worker = start_worker("", "--drain-seconds", "10")
    try:
        client = RestClient(worker.http_port)
        table = open_table(client, "dice", 2)
        with httpx.stream("GET", events_url(worker, table.game_id), timeout=10) as reply:
            events = read_events(reply.iter_lines())
            assert [next(events).id for _ in range(2)] == ["0-1", "0-2"]
            started = time.monotonic()
            worker.proc.terminate()
            assert list(events) == []  # the stream ends, the chunked body complete
        assert worker.proc.wait(5) == 0
        assert time.monotonic() - started < 5  # not the 10 s of draining
        client.close()
    finally:
        stop_worker(worker)
