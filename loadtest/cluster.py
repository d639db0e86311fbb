"""A private deployment for load: one redis-server and N `genial serve` workers sharing it.

Everything listens on 127.0.0.1 on free ports, and everything is stopped when the context
ends, however it ends. Each worker serves gRPC and HTTP on ports of its own (as pods behind a
load balancer would); load generators spread their connections over the workers.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

STOP_SECONDS = 10.0
"""How long a process gets to exit on SIGTERM before it is killed."""
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for_port(port: int, proc: subprocess.Popen[bytes], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{proc.args!r} exited with {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise TimeoutError(f"nothing listens on port {port}")


def cpu_seconds(pid: int) -> tuple[float, float]:
    """User and system (kernel) CPU time of a process, all its threads, so far."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as f:
        # The command name may hold spaces: fields are counted after its closing parenthesis.
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) / CLOCK_TICKS, int(fields[12]) / CLOCK_TICKS


@dataclass
class Worker:
    proc: subprocess.Popen[bytes]
    grpc_port: int
    http_port: int

    @property
    def grpc_target(self) -> str:
        return f"127.0.0.1:{self.grpc_port}"

    @property
    def http_url(self) -> str:
        return f"http://127.0.0.1:{self.http_port}"


@dataclass
class Cluster:
    redis: subprocess.Popen[bytes] | None
    """None when the workers use the in-process store (one worker only)."""
    redis_port: int = 0
    workers: list[Worker] = field(default_factory=list)

    @property
    def redis_url(self) -> str:
        return f"redis://127.0.0.1:{self.redis_port}/0" if self.redis else ""


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(STOP_SECONDS)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def start_worker(redis_url: str, log: Path, env: dict[str, str], module: str) -> Worker:
    """A worker of `module` (`genial.service.cli serve`, or the benchmark's worker)."""
    grpc_port, http_port = free_port(), free_port()
    with log.open("ab") as out:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                *module.split(),
                "--host",
                "127.0.0.1",
                "--grpc-port",
                str(grpc_port),
                "--http-port",
                str(http_port),
            ],
            env={**os.environ, **env, "GENIAL_REDIS_URL": redis_url},
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    worker = Worker(proc, grpc_port, http_port)
    try:
        wait_for_port(grpc_port, proc)
        wait_for_port(http_port, proc)
    except BaseException:
        _stop(proc)
        raise
    return worker


def start_redis(directory: str) -> tuple[subprocess.Popen[bytes], int]:
    """A redis-server of our own, without persistence (never the machine's shared one)."""
    if shutil.which("redis-server") is None:
        raise SystemExit("redis-server is missing: `make redis` installs it")
    port = free_port()
    proc = subprocess.Popen(
        [
            "redis-server",
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            directory,
        ],
        stdout=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port, proc)
    except BaseException:
        _stop(proc)
        raise
    return proc, port


@contextlib.contextmanager
def running(
    workers: int, *, log_dir: Path, bench_endpoints: bool = False, redis: bool = True
) -> Iterator[Cluster]:
    """Redis and `workers` workers sharing it (or one worker with the in-process store, when
    not `redis`), all stopped on the way out: workers first, then Redis."""
    if not redis and workers != 1:
        raise ValueError("the in-process store serves one worker only")
    log_dir.mkdir(parents=True, exist_ok=True)
    env = {
        "GENIAL_LOG_LEVEL": "WARNING",
        # Load ends with SIGTERM: nothing is left in flight worth waiting long for.
        "GENIAL_DRAIN_SECONDS": "1",
        # All the load comes from 127.0.0.1, as if from one client: the per-address limit
        # would refuse most of it. The per-token limit stays on.
        "GENIAL_RATE_LIMIT_ADDRESS": "0",
        "GENIAL_GAMES_PER_MINUTE": "0",
        "GENIAL_WAITING_GAMES": "0",
    }
    if bench_endpoints:
        # The benchmark's slots call at ~150/s each with one token, more than any player:
        # the per-token limit still counts every call, out of reach.
        env["GENIAL_RATE_LIMIT_TOKEN"] = "1000000000"
    # The benchmark's workers serve its empty calls beside the API.
    module = "loadtest.bench_worker" if bench_endpoints else "genial.service.cli serve"
    with tempfile.TemporaryDirectory(prefix="genial-redis-") as data:
        cluster = Cluster(*start_redis(data)) if redis else Cluster(None)
        try:
            for _ in range(workers):
                cluster.workers.append(
                    start_worker(cluster.redis_url, log_dir / "workers.log", env, module)
                )
            yield cluster
        finally:
            for worker in cluster.workers:
                worker.proc.send_signal(signal.SIGTERM)
            for worker in cluster.workers:
                _stop(worker.proc)
            if cluster.redis is not None:
                _stop(cluster.redis)
