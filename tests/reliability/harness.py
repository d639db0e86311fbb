"""What the reliability suite drives: workers whose logs it reads, Redis servers it kills and
restarts, a three-master Redis Cluster, the store read directly, and the run's tally.

Everything runs on 127.0.0.1 on free ports; every process started here is registered in
`PROCESSES`, and the suite's session fixture kills whatever is left of them.
"""

from __future__ import annotations

import asyncio
import json
import re
import signal
import socket
import subprocess
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest
import redis

from genial import engine
from genial.service.store import Entry, Record
from genial.service.store.redis import RedisStore
from loadtest import probe, processes
from loadtest.processes import free_port, start_redis, stop, wait_for_port
from tests.service.conftest import Worker, start_worker

T = TypeVar("T")

PROCESSES: list[subprocess.Popen[bytes]] = []
"""Every process the suite started; whatever still runs at the end is killed."""

TALLY: Counter[str] = Counter()
"""The run's numbers (moves raced, faults injected, inputs tried, ...), written at the end
of the session to build/reliability-summary.json."""


# ---- workers ------------------------------------------------------------------------------


@dataclass
class LoggedWorker(Worker):
    """A worker whose output (its JSON log lines) goes to a file of its own."""

    log: Path = field(default=Path())

    def log_text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def rss_bytes(self) -> int:
        """The worker's resident memory, from /proc."""
        return probe.rss_bytes(self.proc.pid)

    def cpu_seconds(self) -> float:
        """The worker's CPU time so far (user and system), from /proc."""
        return sum(probe.cpu_seconds(self.proc.pid))

    @property
    def url(self) -> str:
        return self.http_url


def start_logged_worker(redis_url: str, log: Path, *extra: str) -> LoggedWorker:
    """`start_worker`, with the worker's output in `log`."""
    worker = start_worker(redis_url, *extra, log=log)
    PROCESSES.append(worker.proc)
    return LoggedWorker(**vars(worker), log=log)


def kill_worker(worker: Worker) -> None:
    """kill -9: no draining, no goodbye."""
    worker.proc.send_signal(signal.SIGKILL)
    worker.proc.wait(10)


def stop_all(workers: Iterable[Worker]) -> None:
    processes.stop_all(worker.proc for worker in workers)


def ready(worker: Worker, timeout: float = 5.0) -> bool:
    """The worker's /readyz: True on 200, False on 503 (anything else fails the test)."""
    reply = httpx.get(f"{worker.admin_url}/readyz", timeout=timeout)
    assert reply.status_code in (200, 503), reply.text
    return reply.status_code == 200


def wait_until(predicate: Callable[[], bool], timeout: float, step: float = 0.05) -> float:
    """Seconds until `predicate()` held; fails the test after `timeout`."""
    start = time.monotonic()
    while not predicate():
        if time.monotonic() - start > timeout:
            pytest.fail(f"not within {timeout} s: {predicate}")
        time.sleep(step)
    return time.monotonic() - start


# ---- Redis --------------------------------------------------------------------------------


@dataclass
class RedisServer:
    """A redis-server that can be killed and started again on the same port and data."""

    directory: Path
    extra: tuple[str, ...]
    port: int = 0
    proc: subprocess.Popen[bytes] | None = None
    sentinel: bool = False
    """A Sentinel (`extra` starts with its configuration file)."""

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        """On a free port the first time, on the same port (and data) again after that."""
        if self.sentinel:
            self.port = self.port or free_port()
            config, *rest = self.extra
            self.proc = subprocess.Popen(
                ["redis-server", config, "--sentinel", "--port", str(self.port), *rest],
                stdout=subprocess.DEVNULL,
            )
            wait_for_port(self.port, proc=self.proc)
        else:
            self.proc, self.port = start_redis(self.directory, *self.extra, port=self.port or None)
        PROCESSES.append(self.proc)

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def pause(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGCONT)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGCONT)  # a paused server could not exit
            stop(self.proc)


CLUSTER_BUS_OFFSET = 10_000
"""A cluster node also listens on its port + 10000 (the cluster bus)."""


def cluster_port() -> int:
    """A free port whose cluster bus port is a valid free port too."""
    while True:
        port = free_port()
        if port + CLUSTER_BUS_OFFSET > 65_535:
            continue
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port + CLUSTER_BUS_OFFSET))
            except OSError:
                continue
        return port


def start_cluster(
    directory: Path, masters: int = 3, replicas: int = 0, *flags: str
) -> list[RedisServer]:
    """A real Redis Cluster of `masters` masters with `replicas` replicas each, on loopback
    (`flags` for every node)."""
    nodes = [
        RedisServer(
            directory / f"node{n}",
            ("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf", *flags),
        )
        for n in range(masters * (1 + replicas))
    ]
    for node in nodes:
        node.port = cluster_port()
        node.start()
    subprocess.run(
        [
            "redis-cli",
            "--cluster",
            "create",
            *(f"127.0.0.1:{node.port}" for node in nodes),
            "--cluster-replicas",
            str(replicas),
            "--cluster-yes",
        ],
        check=True,
        capture_output=True,
        timeout=60,
    )

    def cluster_ok() -> bool:
        reply = subprocess.run(
            ["redis-cli", "-p", str(nodes[0].port), "cluster", "info"],
            capture_output=True,
            text=True,
            check=False,
        )
        return "cluster_state:ok" in reply.stdout

    wait_until(cluster_ok, 30, 0.2)
    return nodes


# ---- Redis with replicas and Sentinels ----------------------------------------------------


SENTINEL_MASTER = "games"


@dataclass
class Replicated:
    """A master, its replicas and the Sentinels that watch them, on loopback."""

    servers: list[RedisServer]
    sentinels: list[RedisServer]

    @property
    def sentinel_flags(self) -> tuple[str, ...]:
        """A worker's flags to find the master through the Sentinels."""
        addresses = ",".join(f"127.0.0.1:{s.port}" for s in self.sentinels)
        return ("--redis-sentinels", addresses, "--redis-sentinel-master", SENTINEL_MASTER)

    def master_port(self) -> int:
        """The master's port, as the first Sentinel that answers names it."""
        for sentinel in self.sentinels:
            try:
                with redis.Redis(port=sentinel.port, socket_timeout=1) as client:
                    _, port = client.sentinel_get_master_addr_by_name(SENTINEL_MASTER)
                    return int(port)
            except redis.RedisError:
                continue
        raise AssertionError("no Sentinel answers")

    def master(self) -> RedisServer:
        port = self.master_port()
        return next(s for s in self.servers if s.port == port)

    def in_sync(self) -> bool:
        """Whether every replica is done with its full sync and every Sentinel knows every
        replica and the other Sentinels."""
        replicas, others = len(self.servers) - 1, len(self.sentinels) - 1
        with redis.Redis(port=self.master_port()) as client:
            info = client.info("replication")
            online = [info.get(f"slave{n}", {}).get("state") for n in range(replicas)]
            if online != ["online"] * replicas:
                return False
        for sentinel in self.sentinels:
            with redis.Redis(port=sentinel.port) as client:
                state = client.sentinel_master(SENTINEL_MASTER)
                if (state["num-slaves"], state["num-other-sentinels"]) != (replicas, others):
                    return False
        return True

    def stop(self) -> None:
        for server in [*self.sentinels, *self.servers]:
            server.stop()


def start_replicated(directory: Path, replicas: int = 2, sentinels: int = 3) -> Replicated:
    """A master with `replicas` replicas and `sentinels` Sentinels (quorum: a majority), which
    call a master down after 500 ms without an answer; once every replica is in sync and
    every Sentinel knows the others."""
    # A replica's full sync starts at once (Redis waits 5 s for more replicas by default).
    sync = ("--repl-diskless-sync-delay", "0")
    master = RedisServer(directory / "master", sync)
    master.start()
    servers = [master]
    for n in range(replicas):
        servers.append(
            RedisServer(
                directory / f"replica{n}", (*sync, "--replicaof", "127.0.0.1", str(master.port))
            )
        )
        servers[-1].start()
    watching: list[RedisServer] = []
    for n in range(sentinels):
        folder = directory / f"sentinel{n}"
        folder.mkdir(parents=True)
        config = folder / "sentinel.conf"
        config.write_text(
            f"sentinel monitor {SENTINEL_MASTER} 127.0.0.1 {master.port} {sentinels // 2 + 1}\n"
            f"sentinel down-after-milliseconds {SENTINEL_MASTER} 500\n"
            f"sentinel failover-timeout {SENTINEL_MASTER} 3000\n"
        )
        sentinel = RedisServer(folder, (str(config),), sentinel=True)
        sentinel.start()
        watching.append(sentinel)
    found = Replicated(servers, watching)
    wait_until(found.in_sync, 30, 0.1)
    return found


@dataclass(frozen=True)
class StoreAccess:
    """The games as Redis holds them, read with the service's own store class."""

    url: str
    cluster: bool = False

    def run(self, use: Callable[[RedisStore], Awaitable[T]]) -> T:
        async def go() -> T:
            store = RedisStore.from_url(self.url, cluster=self.cluster)
            try:
                return await use(store)
            finally:
                await store.close()

        return asyncio.run(go())

    def record(self, game_id: str) -> Record:
        async def read(store: RedisStore) -> Record:
            record, _ = await store.read(game_id)
            assert record is not None, game_id
            return record

        return self.run(read)

    def state(self, game_id: str) -> engine.GameState:
        return engine.decode(self.record(game_id).state)

    def entries(self, game_id: str) -> list[Entry]:
        return self.run(lambda store: store.entries(game_id, (0, 0)))


# ---- the documentation, the tally and the logs ------------------------------------------


DOCS = Path(__file__).resolve().parents[2] / "docs" / "api.md"


def documented_errors() -> set[tuple[str, str]]:
    """(gRPC code, reason) pairs of the error table in docs/api.md."""
    pairs = set()
    for line in DOCS.read_text().splitlines():
        row = re.match(r"\| `([A-Z_]+)` \| [^|]+ \| (.*) \|$", line)
        if row:
            pairs |= {(row.group(1), r) for r in re.findall(r"`([A-Z_]+)`", row.group(2))}
    assert len(pairs) > 20, pairs
    return pairs


def count(**numbers: int) -> None:
    """Add to the run's tally."""
    TALLY.update(numbers)


def log_lines(workers: Iterable[LoggedWorker]) -> Iterator[str]:
    for worker in workers:
        yield from worker.log_text().splitlines()


def assert_logs_are_json(workers: Iterable[LoggedWorker]) -> int:
    """Every log line is one JSON object; returns the number of lines."""
    lines = 0
    for line in log_lines(workers):
        assert isinstance(json.loads(line), dict), line
        lines += 1
    return lines


def assert_no_secret_in_logs(workers: Iterable[LoggedWorker], secrets: Iterable[str]) -> int:
    """No log line holds any of `secrets`; returns the number of lines read."""
    wanted = {s for s in secrets if s}
    lines = 0
    for line in log_lines(workers):
        lines += 1
        leaked = [s for s in wanted if s in line]
        assert not leaked, f"a log line shows a secret: {line[:300]}"
    return lines


def assert_no_internal_errors(workers: Iterable[LoggedWorker]) -> None:
    """No worker logged an unexpected exception (what the API answers as INTERNAL)."""
    for line in log_lines(workers):
        record: dict[str, Any] = json.loads(line)
        assert record.get("msg") != "unexpected error", line[:2000]
        assert record.get("level") not in ("ERROR", "CRITICAL"), line[:2000]
