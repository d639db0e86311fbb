"""Servers for the service suite: real worker processes on free ports, one per store."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from loadtest import processes
from loadtest.processes import Worker, stop_worker
from tests.service.clients import ApiClient, GrpcClient, RestClient

__all__ = ["MakeClient", "Worker", "start_worker", "stop_worker"]

MakeClient = Callable[[], ApiClient]
"""Makes a client of the test's worker over the test's transport (closed after the test)."""

TEST_SETTINGS = {
    "GENIAL_LOG_LEVEL": "WARNING",
    # Short timers and leases, so that timeouts and crashed workers show within seconds.
    "GENIAL_MIN_TURN_SECONDS": "1",
    "GENIAL_TURN_LEASE_SECONDS": "2",
    # Every test client calls from 127.0.0.1; the limits have tests of their own.
    "GENIAL_RATE_LIMIT_TOKEN": "0",
    "GENIAL_RATE_LIMIT_ADDRESS": "0",
    "GENIAL_GAMES_PER_MINUTE": "0",
    "GENIAL_WAITING_GAMES": "0",
    # Matchmaking in seconds, not minutes; a leaderboard lists a player after one game.
    "GENIAL_MATCH_FILL_SECONDS": "0.5",
    "GENIAL_MATCH_BOTS_SECONDS": "1",
    "GENIAL_LEADERBOARD_MIN_GAMES": "1",
}


def start_worker(
    redis_url: str = "",
    *flags: str,
    log: Path | None = None,
    ports: tuple[int, int, int] | None = None,
) -> Worker:
    """A `genial serve` worker with the suites' settings, on `redis_url` (the in-process
    store when empty) with `flags`; its output in `log`, or the test session's; on free
    ports, or on `ports` (gRPC, HTTP, admin): a restarted worker takes its predecessor's."""
    return processes.start_worker(
        *flags, redis_url=redis_url, env=TEST_SETTINGS, log=log, ports=ports
    )


@pytest.fixture(scope="session")
def memory_worker() -> Iterator[Worker]:
    worker = start_worker()
    yield worker
    stop_worker(worker)


@pytest.fixture(scope="session")
def redis_worker(redis_url: str) -> Iterator[Worker]:
    worker = start_worker(redis_url)
    yield worker
    stop_worker(worker)


@pytest.fixture(params=["memory", "redis"])
def worker(request: pytest.FixtureRequest) -> Worker:
    return request.getfixturevalue(f"{request.param}_worker")  # type: ignore[no-any-return]


@pytest.fixture(params=["grpc", "rest"])
def client(request: pytest.FixtureRequest, worker: Worker) -> Iterator[ApiClient]:
    c: ApiClient
    c = GrpcClient(worker.grpc_port) if request.param == "grpc" else RestClient(worker.http_port)
    yield c
    c.close()


@pytest.fixture(params=["grpc", "rest"])
def make_client(request: pytest.FixtureRequest, worker: Worker) -> Iterator[MakeClient]:
    """Clients of `worker` over gRPC, then over REST, as many as the test makes."""
    made: list[ApiClient] = []

    def make() -> ApiClient:
        c: ApiClient = (
            GrpcClient(worker.grpc_port)
            if request.param == "grpc"
            else RestClient(worker.http_port)
        )
        made.append(c)
        return c

    yield make
    for c in made:
        c.close()
