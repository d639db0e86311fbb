"""Fixtures shared by the suites: a real redis-server on a free port for the session.

The process starters (free ports, a private redis-server, worker processes) live in
`loadtest/processes.py`, shared with the load tools; the suites import them from here.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from loadtest.processes import free_port, start_redis, stop, wait_for_port

__all__ = ["free_port", "redis_url", "start_redis", "stop", "wait_for_port"]


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    proc, port = start_redis(tmp_path_factory.mktemp("redis"))
    yield f"redis://127.0.0.1:{port}/0"
    stop(proc)
