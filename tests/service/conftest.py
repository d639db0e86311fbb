"""Servers for the service suite: real worker processes on free ports, one per store."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from tests.conftest import free_port, wait_for_port
from tests.service.clients import ApiClient, GrpcClient, RestClient


@dataclass
class Worker:
    proc: subprocess.Popen[bytes]
    grpc_port: int
    http_port: int
    store: str


def start_worker(redis_url: str = "", *extra: str, ports: tuple[int, int] | None = None) -> Worker:
    """A worker on free ports, or on `ports` (gRPC, HTTP): a restarted worker takes its
    predecessor's."""
    grpc_port, http_port = ports or (free_port(), free_port())
    env = {
        **os.environ,
        "GENIAL_REDIS_URL": redis_url,
        "GENIAL_LOG_LEVEL": "WARNING",
        # Short timers and leases, so that timeouts and crashed workers show within seconds.
        "GENIAL_MIN_TURN_SECONDS": "1",
        "GENIAL_TURN_LEASE_SECONDS": "2",
        # Every test client calls from 127.0.0.1; the limits have tests of their own.
        "GENIAL_RATE_LIMIT_TOKEN": "0",
        "GENIAL_RATE_LIMIT_ADDRESS": "0",
        "GENIAL_GAMES_PER_MINUTE": "0",
        "GENIAL_WAITING_GAMES": "0",
    }
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "genial.service.cli",
            "serve",
            "--host",
            "127.0.0.1",
            "--grpc-port",
            str(grpc_port),
            "--http-port",
            str(http_port),
            *extra,
        ],
        env=env,
    )
    try:
        wait_for_port(grpc_port, 20)
        wait_for_port(http_port, 20)
    except TimeoutError:
        # A worker that never listens must not outlive the test session.
        status = proc.poll()
        proc.kill()
        proc.wait()
        why = "never listened" if status is None else f"exited with {status}"
        raise TimeoutError(f"the worker {why}") from None
    return Worker(proc, grpc_port, http_port, "redis" if redis_url else "memory")


def stop_worker(worker: Worker) -> None:
    worker.proc.terminate()
    try:
        worker.proc.wait(15)
    except subprocess.TimeoutExpired:
        worker.proc.kill()


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
