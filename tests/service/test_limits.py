"""Rate limits per token and per address, on both transports."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import grpc
import httpx
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from genial.service.errors import ApiError, Reason
from genial.service.limits import SYNC_SECONDS, WINDOW_SECONDS, RateLimiter
from genial.service.store import MemoryStore
from genial.v1 import game_service_pb2 as api
from tests.service.clients import CallError, GrpcClient
from tests.service.conftest import Worker, start_worker, stop_worker
from tests.service.scenarios import open_table


@pytest.fixture(scope="module")
def limited_worker() -> Iterator[Worker]:
    worker = start_worker("", "--rate-limit-token", "30", "--rate-limit-address", "400")
    yield worker
    stop_worker(worker)


def test_a_token_over_its_limit_is_told_when_to_retry(limited_worker: Worker) -> None:
    client = GrpcClient(limited_worker.grpc_port)
    table = open_table(client, "dice", 2)
    refused: list[CallError] = []
    for _ in range(60):
        try:
            client.call("GetGame", api.GetGameRequest(game_id=table.game_id), table.tokens[0])
        except CallError as err:
            refused.append(err)
        time.sleep(0.005)
    assert refused, "the 30-per-window limit refused some of 60 calls"
    assert {(e.code, e.reason) for e in refused} == {("RESOURCE_EXHAUSTED", "RATE_LIMITED")}
    assert 1 <= int(refused[0].metadata["retry_after"]) <= 10
    # Over HTTP the same refusal is a 429 with Retry-After (a new window may have begun
    # meanwhile, so go on until the limit is reached again).
    url = f"http://127.0.0.1:{limited_worker.http_port}/v1/games/{table.game_id}"
    auth = {"authorization": f"Bearer {table.tokens[0]}"}
    answers = (httpx.get(url, headers=auth) for _ in range(60))
    answer = next((a for a in answers if a.status_code != 200), None)
    assert answer is not None, "the limit refused one of 60 calls over HTTP"
    assert answer.status_code == 429
    assert 1 <= int(answer.headers["retry-after"]) <= 10
    assert answer.json()["error"]["reason"] == "RATE_LIMITED"
    # Another token of the same game is counted on its own (within the address's limit).
    client.call("GetGame", api.GetGameRequest(game_id=table.game_id), table.tokens[1])
    client.close()


def test_health_and_reflection_count_against_the_address_limit(limited_worker: Worker) -> None:
    """Health's checks and each request on a reflection stream count with the API's calls
    (before: neither did, and one reflection stream asked for descriptors without end). A
    thousand of each cannot all fit one 10-s window's 400, wherever the windows fall."""
    with grpc.insecure_channel(f"127.0.0.1:{limited_worker.grpc_port}") as channel:
        reflection = reflection_pb2_grpc.ServerReflectionStub(channel)
        asks = (reflection_pb2.ServerReflectionRequest(list_services="") for _ in range(1000))
        answers: list[reflection_pb2.ServerReflectionResponse] = []
        stream = reflection.ServerReflectionInfo(asks, timeout=30)
        with pytest.raises(grpc.RpcError) as ended:
            answers.extend(stream)
        assert ended.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED  # type: ignore[attr-defined]
        assert 0 < len(answers) < 1000
        health = health_pb2_grpc.HealthStub(channel)
        refusal = None
        for _ in range(1000):
            try:
                health.Check(health_pb2.HealthCheckRequest(), timeout=5)
            except grpc.RpcError as err:
                refusal = err
                break
        assert refusal is not None, "a check was refused"
        assert refusal.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        trailers = dict(refusal.trailing_metadata() or ())  # type: ignore[attr-defined]
        assert 1 <= int(trailers["retry-after"]) <= 10


class FlakyCounts(MemoryStore):
    """The embedded store whose shared counters fail while `down` is set."""

    down = False

    async def add_counts(self, deltas: dict[str, int], ttl: float) -> dict[str, int]:
        if self.down:
            raise ConnectionError("store unavailable")
        return await super().add_counts(deltas, ttl)


async def test_counts_survive_a_failed_sync() -> None:
    # The whole test within one counting window.
    if time.time() % WINDOW_SECONDS > WINDOW_SECONDS - 2:
        await asyncio.sleep(2)
    store = FlakyCounts()
    limiter = RateLimiter(store, per_token=0, per_address=5)
    syncing = asyncio.create_task(limiter.run())
    try:
        store.down = True
        for _ in range(3):
            limiter.admit(None, "10.0.0.1")
        await asyncio.sleep(3 * SYNC_SECONDS)  # syncs fail meanwhile
        store.down = False
        await asyncio.sleep(3 * SYNC_SECONDS)
        # The three requests reached the shared count, where other workers see them.
        window = int(time.time() // WINDOW_SECONDS)
        totals = await store.add_counts({f"address:10.0.0.1:{window}": 0}, 20)
        assert totals == {f"address:10.0.0.1:{window}": 3}
        # And this worker still refuses the sixth request of the window.
        limiter.admit(None, "10.0.0.1")
        limiter.admit(None, "10.0.0.1")
        with pytest.raises(ApiError) as refused:
            limiter.admit(None, "10.0.0.1")
        assert refused.value.reason is Reason.RATE_LIMITED
    finally:
        syncing.cancel()
