"""One `genial serve` worker (memory store) for the client suites: each SDK and `genial
play` talk to the real server over its real ports."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.service.conftest import Worker, start_worker, stop_worker


@pytest.fixture(scope="session")
def server() -> Iterator[Worker]:
    worker = start_worker()
    yield worker
    stop_worker(worker)


@pytest.fixture
def target(server: Worker) -> str:
    """The gRPC address of the worker, as `GenialClient.connect` takes it."""
    return f"127.0.0.1:{server.grpc_port}"
