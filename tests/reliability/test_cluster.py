"""Redis Cluster: a real three-master cluster; the service suite's full games and its
lost-update test, and this suite's race, pass against workers that share it."""

from __future__ import annotations

import subprocess
from collections.abc import Awaitable, Callable, Iterator

import pytest

from genial.service.store import GameStore
from genial.service.store.redis import RedisStore
from tests.reliability.conftest import Spawn
from tests.reliability.harness import (
    LoggedWorker,
    RedisServer,
    StoreAccess,
    count,
    start_logged_worker,
    stop_all,
)
from tests.reliability.test_lost_updates import lost_update_race
from tests.service import test_outbox as outbox
from tests.service import test_player_store as player_store
from tests.service.clients import ApiClient, GrpcClient, RestClient
from tests.service.test_api import (
    test_full_game_through_the_api_replays_from_the_revealed_seed as full_game,
)
from tests.service.test_concurrency import (
    test_racing_clients_lose_no_move_and_apply_none_twice as service_race,
)

FULL_GAMES = next(
    m.args[1]
    for m in full_game.pytestmark  # type: ignore[attr-defined]
    if m.name == "parametrize"
)
"""The (kind, seats) the service suite plays whole games with."""


@pytest.fixture(scope="module")
def cluster_worker(
    cluster_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LoggedWorker]:
    worker = start_logged_worker(
        cluster_url, tmp_path_factory.mktemp("cluster-worker") / "worker.log", "--redis-cluster"
    )
    yield worker
    stop_all([worker])


@pytest.fixture(params=["grpc", "rest"])
def cluster_client(
    request: pytest.FixtureRequest, cluster_worker: LoggedWorker
) -> Iterator[ApiClient]:
    client: ApiClient = (
        GrpcClient(cluster_worker.grpc_port)
        if request.param == "grpc"
        else RestClient(cluster_worker.http_port)
    )
    yield client
    client.close()


@pytest.mark.parametrize(("kind", "seats"), FULL_GAMES)
def test_the_service_suites_full_games_pass_on_a_cluster(
    cluster_client: ApiClient, kind: str, seats: int
) -> None:
    full_game(cluster_client, kind, seats)
    count(cluster_full_games=1)


def test_the_service_suites_lost_update_test_passes_on_a_cluster(
    cluster_url: str, cluster_worker: LoggedWorker, spawn: Spawn
) -> None:
    (second,) = spawn(cluster_url, 1, "--redis-cluster")
    service_race(cluster_worker, second)
    count(cluster_service_races=1)


def test_racing_clients_lose_no_update_on_a_cluster(
    cluster: list[RedisServer], cluster_url: str, spawn: Spawn
) -> None:
    workers = spawn(cluster_url, 3, "--redis-cluster")
    lost_update_race(workers, StoreAccess(cluster_url, cluster=True), "cluster_race")
    # The games are spread over the masters: every one of them holds keys.
    keys = [
        int(
            subprocess.run(
                ["redis-cli", "-p", str(node.port), "dbsize"],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
        )
        for node in cluster
    ]
    assert all(keys), keys
    count(cluster_masters=len(cluster))


@pytest.mark.parametrize(
    "outbox_test",
    [
        outbox.test_a_lane_is_delivered_in_order_and_each_id_queued_once,
        outbox.test_a_retry_waits_and_counts_its_attempts,
        outbox.test_a_dead_consumers_lane_is_taken_over,
        outbox.test_dead_letters_are_listed_and_replayed,
    ],
)
async def test_the_webhook_outbox_works_on_a_cluster(
    cluster_url: str, outbox_test: Callable[[GameStore], Awaitable[None]]
) -> None:
    """The outbox's scripts touch lanes' keys they compute (all in the slot of `{wh}`):
    the store suite's outbox tests, on the cluster."""
    store = RedisStore.from_url(cluster_url, cluster=True)
    try:
        await outbox_test(store)
    finally:
        await store.close()


async def test_a_clusters_moves_follow_up_after_the_write(cluster_url: str) -> None:
    """A game's and its players' keys are in different slots of a cluster, so no write
    carries its players' events itself (`inline_follow_ups`): it records its intent, in
    the store suite's test of that."""
    store = RedisStore.from_url(cluster_url, cluster=True)
    try:
        assert not store.inline_follow_ups
        await player_store.test_a_write_records_its_follow_up_intent_first(store)
    finally:
        await store.close()
