"""The gauges an operator watches, read from a worker's /metrics on its admin port: watch
streams by transport, games by status (counted by the census, `service/census.py`), moves
applied."""

from __future__ import annotations

import asyncio
import random
import threading
import time
from collections.abc import Iterator

import httpx
import pytest
from prometheus_client import (
    CollectorRegistry,
    Counter,
    Enum,
    Gauge,
    Histogram,
    Info,
    Summary,
    generate_latest,
)
from prometheus_client.core import GaugeHistogramMetricFamily, Metric
from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.registry import Collector

from genial.service.census import Census
from genial.service.metrics import Exposition
from genial.service.records import GameMeta
from genial.service.settings import Settings
from genial.service.store.memory import MemoryStore
from genial.v1 import game_service_pb2 as api
from genial.v1 import types_pb2 as types
from tests.service.clients import GrpcClient, RestClient
from tests.service.conftest import Worker, start_worker, stop_worker
from tests.service.scenarios import KINDS, open_table, play_to_the_end

SAMPLE_WAIT = 15.0
"""Seconds to wait for the worker's next sample (every 5 s)."""


def samples(worker: Worker) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    text = httpx.get(f"{worker.admin_url}/metrics", timeout=10).text
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def value(worker: Worker, name: str, **labels: str) -> float:
    return samples(worker).get((name, tuple(sorted(labels.items()))), 0.0)


def wait_for(worker: Worker, name: str, expected: float, **labels: str) -> None:
    deadline = time.monotonic() + SAMPLE_WAIT
    while (found := value(worker, name, **labels)) != expected:
        assert time.monotonic() < deadline, f"{name}{labels} is {found}, not {expected}"
        time.sleep(0.2)


@pytest.fixture
def fresh_worker() -> Iterator[Worker]:
    """A worker of its own, with a store of its own: the counts are this test's."""
    worker = start_worker()
    yield worker
    stop_worker(worker)


def test_watch_streams_are_counted_by_transport(fresh_worker: Worker) -> None:
    client = GrpcClient(fresh_worker.grpc_port)
    table = open_table(client, "cards", 2)
    grpc_watch = client.stub.WatchGame(api.WatchGameRequest(game_id=table.game_id), timeout=30)
    next(grpc_watch)  # open: the first answer came
    stop = threading.Event()

    def watch_sse() -> None:
        url = f"{fresh_worker.http_url}/v1/games/{table.game_id}/events"
        with httpx.stream("GET", url, timeout=30) as reply:
            for _ in reply.iter_bytes():
                if stop.is_set():
                    return

    reader = threading.Thread(target=watch_sse, daemon=True)
    reader.start()
    wait_for(fresh_worker, "genial_watch_streams", 1, transport="grpc")
    wait_for(fresh_worker, "genial_watch_streams", 1, transport="http")
    grpc_watch.cancel()
    wait_for(fresh_worker, "genial_watch_streams", 0, transport="grpc")
    stop.set()
    client.close()


def test_games_by_status_and_moves_applied(fresh_worker: Worker) -> None:
    grpc, rest = GrpcClient(fresh_worker.grpc_port), RestClient(fresh_worker.http_port)
    rest.call("CreateGame", api.CreateGameRequest(kind=KINDS["dice"], seats=3))
    waiting = rest.call("CreateGame", api.CreateGameRequest(kind=KINDS["cards"], seats=2))
    rest.call("JoinGame", api.JoinGameRequest(game_id=waiting.game_id, display_name="one"))
    open_table(grpc, "cards", 2)  # playing
    finished = open_table(grpc, "cards", 2)
    play_to_the_end(grpc, finished, random.Random(3))
    moves = value(fresh_worker, "genial_moves_total", kind="cards")
    assert moves > 0
    # A game of bots alone plays itself to the end.
    bots = [api.SeatBot(seat=seat, strength=types.BOT_STRENGTH_RANDOM) for seat in range(2)]
    rest.call("CreateGame", api.CreateGameRequest(kind=KINDS["cards"], seats=2, bots=bots))
    wait_for(fresh_worker, "genial_games", 2, status="finished")
    wait_for(fresh_worker, "genial_games", 2, status="waiting")
    wait_for(fresh_worker, "genial_games", 1, status="playing")
    assert value(fresh_worker, "genial_moves_total", kind="cards") > moves
    grpc.close()
    rest.close()


async def test_the_census_counts_each_change_of_status_once() -> None:
    settings = Settings()
    census, store = Census(settings), MemoryStore()
    now = 1_000_000.0
    meta = GameMeta(
        kind="cards",
        seats=2,
        created=now,
        names=[None, None],
        tokens=[None, None],
        bots=[None, None],
        away=[False, False],
    )
    census.changed(None, meta, now)
    census.changed("waiting", meta, now)  # no change: waiting still
    assert await census.share(store, now) == {"waiting": 1, "playing": 0, "finished": 0}
    meta.names = ["a", "b"]
    census.changed("waiting", meta, now)
    meta.finished = True
    census.changed("playing", meta, now + 60)
    assert await census.share(store, now + 60) == {"waiting": 0, "playing": 0, "finished": 1}
    # Expired with its keys: after finished_ttl, and its bucket, no longer counted.
    later = now + 60 + settings.finished_ttl + census.width["finished"]
    assert await census.share(store, later) == {"waiting": 0, "playing": 0, "finished": 0}


def test_redis_round_trips_are_timed_by_operation(redis_worker: Worker) -> None:
    client = GrpcClient(redis_worker.grpc_port)
    before = value(redis_worker, "genial_redis_seconds_count", operation="write")
    table = open_table(client, "cards", 2)
    view = client.call("GetGame", api.GetGameRequest(game_id=table.game_id)).view
    token = table.tokens[view.to_move]
    legal = client.call("ListLegalMoves", api.ListLegalMovesRequest(game_id=table.game_id), token)
    client.call("MakeMove", api.MakeMoveRequest(game_id=table.game_id, move=legal.moves[0]), token)
    client.close()
    # The joins and the move each ran the write script once; the creation its own.
    assert value(redis_worker, "genial_redis_seconds_count", operation="write") >= before + 3
    assert value(redis_worker, "genial_redis_seconds_count", operation="create") >= 1


def busy_registry() -> CollectorRegistry:
    """Every kind of metric `generate_latest` writes, labels that need escaping, and as many
    series as a worker has."""
    registry = CollectorRegistry()
    counter = Counter("calls", "Calls\\made\nhere", ["method"], registry=registry)
    counter.labels('a "quoted"\\ value\n').inc()
    Gauge("open", "Open things", registry=registry).set(2.5)
    latency = Histogram("latency_seconds", "Latency", ["transport", "method"], registry=registry)
    for method in range(60):
        latency.labels("grpc", f"M{method}").observe(method / 1000)
    Summary("sizes", "Sizes", registry=registry).observe(7)
    Info("build", "Build", registry=registry).info({"version": "1.0"})
    Enum("phase", "Phase", states=["up", "down"], registry=registry).state("down")
    registry.register(Stamped())
    return registry


class Stamped(Collector):
    """A collector of its own kind of family and sample timestamps, as some exporters have."""

    def collect(self) -> Iterator[Metric]:
        family = Metric("stamped", "Stamped", "unknown")
        family.add_sample("stamped", {"kind": "x"}, 3.0, timestamp=1700000000.5)
        gauge_histogram = GaugeHistogramMetricFamily(
            "queue", "Queue", buckets=[("1", 1), ("+Inf", 4)], gsum_value=9
        )
        return iter([family, gauge_histogram])


async def test_the_exposition_is_prometheus_clients_own_text() -> None:
    registry = busy_registry()
    exposition = Exposition(registry)
    for _ in range(2):  # once building its escaped series, once from them
        assert await exposition.render() == generate_latest(registry)


async def test_the_exposition_gives_the_loop_turns() -> None:
    """A scrape stopped every call of the worker for the whole of it (7-15 ms under load)."""
    registry = busy_registry()
    turns = 0

    async def count_turns() -> None:
        nonlocal turns
        while True:
            await asyncio.sleep(0)
            turns += 1

    counting = asyncio.create_task(count_turns())
    await asyncio.sleep(0)
    await Exposition(registry).render()
    counting.cancel()
    samples_written = sum(len(family.samples) for family in registry.collect())
    assert turns >= samples_written // 200
    assert turns >= 8  # a turn after each family too
