"""The chart's own Redis, run here as its StatefulSet's container would run it: a real
redis-server with the rendered arguments and environment. It asks for the password the
workers send, and past maxmemory it refuses writes instead of evicting a game."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from tests.conftest import free_port, wait_for_port
from tests.deploy.conftest import Rendered, render
from tests.deploy.paths import DEFAULTS
from tests.deploy.profiles import merged, profiles

PASSWORD = "s3cret"
UNITS = {"b": 1, "kb": 1024, "mb": 1024**2, "gb": 1024**3}
QUANTITIES = {"Ki": 1024, "Mi": 1024**2, "Gi": 1024**3}


def redis_container(r: Rendered) -> dict[str, Any]:
    containers: list[dict[str, Any]] = r.one("StatefulSet")["spec"]["template"]["spec"][
        "containers"
    ]
    (container,) = containers
    return container


def container_environ(container: dict[str, Any]) -> dict[str, str]:
    """The container's variables as the kubelet sets them: Secret keys hold PASSWORD, and
    $(NAME) takes the value of a variable defined before."""
    environ: dict[str, str] = {}
    for var in container.get("env", []):
        value = var.get("value", PASSWORD)
        environ[var["name"]] = re.sub(r"\$\((\w+)\)", lambda m: environ[m[1]], value)
    return environ


@pytest.fixture
def charts_redis(chart: Any, tmp_path: Path) -> Iterator[tuple[Rendered, int]]:
    # A small maxmemory, so that filling it takes a moment.
    r = render(chart, merged(profiles()["development"], {"redis": {"maxmemory": "2mb"}}))
    container = redis_container(r)
    environ = container_environ(container)
    args = [re.sub(r"\$\((\w+)\)", lambda m: environ[m[1]], arg) for arg in container["args"]]
    assert args[0] == "redis-server"
    # Only the data folder and the address differ from the pod's.
    args[args.index("--dir") + 1] = str(tmp_path)
    port = free_port()
    proc = subprocess.Popen(
        [*args, "--port", str(port), "--bind", "127.0.0.1"], stdout=subprocess.DEVNULL
    )
    try:
        wait_for_port(port)
        yield r, port
    finally:
        proc.terminate()
        proc.wait(10)


def test_the_charts_redis_asks_for_the_workers_password(charts_redis: tuple[Rendered, int]) -> None:
    r, port = charts_redis
    with redis.Redis(port=port) as anonymous, pytest.raises(redis.AuthenticationError):
        anonymous.ping()
    with redis.Redis(port=port, password=PASSWORD) as client:
        assert client.ping()
    # The readiness probe authenticates through REDISCLI_AUTH.
    probe = redis_container(r)["readinessProbe"]["exec"]["command"]
    assert probe == ["redis-cli", "ping"]
    done = subprocess.run(
        [probe[0], "-p", str(port), *probe[1:]],
        env=container_environ(redis_container(r)),
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.strip() == "PONG"


def fill(client: redis.Redis) -> int:
    """Writes 64 KB values until Redis refuses one; how many it took."""
    for written in range(1000):  # 64 MB: far past 2 MB
        try:
            client.set(f"game:{written}", b"x" * 65536)
        except redis.exceptions.OutOfMemoryError:
            return written
    pytest.fail("Redis took 64 MB past a maxmemory of 2 MB")


def test_a_full_redis_refuses_writes_and_evicts_nothing(charts_redis: tuple[Rendered, int]) -> None:
    _, port = charts_redis
    with redis.Redis(port=port, password=PASSWORD) as client:
        assert client.config_get("maxmemory") == {"maxmemory": str(2 * 1024**2)}
        assert client.config_get("maxmemory-policy") == {"maxmemory-policy": "noeviction"}
        assert client.config_get("appendonly") == {"appendonly": "yes"}
        # Short games' logs take a node of this size, not of the 4 KiB default.
        assert client.config_get("stream-node-max-bytes") == {"stream-node-max-bytes": "1024"}
        written = fill(client)
        assert written > 0
        assert client.dbsize() == written  # every game written before is still there
        assert client.get("game:0") == b"x" * 65536


def size(text: str, units: dict[str, int]) -> int:
    found = re.fullmatch(r"(\d+)([A-Za-z]+)", text)
    assert found, text
    return int(found[1]) * units[found[2]]


def test_maxmemory_leaves_headroom_below_the_memory_limit() -> None:
    maxmemory = size(DEFAULTS["redis"]["maxmemory"], UNITS)
    limit = size(DEFAULTS["redis"]["resources"]["limits"]["memory"], QUANTITIES)
    # Room for client buffers and the copy-on-write of an AOF rewrite, yet most of it used.
    assert 0.6 <= maxmemory / limit <= 0.85
