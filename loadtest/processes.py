"""The process starters shared by the test suites and the load tools: free ports, a private
redis-server, worker processes, and stopping them.

Everything listens on 127.0.0.1. It lives here, beside the load tools, rather than under
`tests/`: the load tools run without pytest (`python -m loadtest.bench`), and the tests
import `loadtest.processes` as easily as `tests.*` (both from the repository's root), so the
dependency points from the suites to a plain module, never from a tool into the test suite.
Nothing here imports pytest: a starter that fails raises, with what the process said.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

SERVE = ("genial.service.cli", "serve")
"""What follows `python -m` for a worker as production runs it."""
START_SECONDS = 30.0
"""How long a process may take to listen: generous, since the machines are shared."""
STOP_SECONDS = 15.0
"""How long a process gets to exit on SIGTERM before it is killed."""
LOG_TAIL = 3000
"""Characters of a worker's log quoted when it fails to start."""


def free_port() -> int:
    """A TCP port nothing listens on now (the kernel's pick)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for_port(
    port: int, timeout: float = START_SECONDS, *, proc: subprocess.Popen[bytes] | None = None
) -> None:
    """Until something accepts connections on `port`; raises TimeoutError after `timeout`, or
    RuntimeError as soon as `proc` (the process meant to listen there) has exited."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"{proc.args!r} exited with {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise TimeoutError(f"nothing listens on port {port}")


def stop(proc: subprocess.Popen[bytes], timeout: float = STOP_SECONDS) -> None:
    """SIGTERM, and SIGKILL if the process has not exited within `timeout`."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def stop_all(procs: Iterable[subprocess.Popen[bytes]]) -> None:
    """Stop processes together: every one is told first, so that they drain side by side."""
    procs = list(procs)
    for proc in procs:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
    for proc in procs:
        stop(proc)


STREAM_NODE_FLAGS = ("--stream-node-max-bytes", "1024")
"""As the chart runs Redis: a game's log is a stream, and each stream node is allocated at
`stream-node-max-bytes` (4096 by default) from its first entry, so that a short game's log
took 4.7 KB; 1024 bytes hold about 70 of our move entries (docs/capacity.md)."""


def start_redis(
    directory: Path, *flags: str, port: int | None = None
) -> tuple[subprocess.Popen[bytes], int]:
    """A redis-server of our own without persistence (never the machine's shared one), with
    its files in `directory`, on `port` (a free one by default): the process and its port."""
    if shutil.which("redis-server") is None:
        raise RuntimeError("redis-server is not installed: `make redis` installs it")
    port = free_port() if port is None else port
    directory.mkdir(parents=True, exist_ok=True)
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
            str(directory),
            *STREAM_NODE_FLAGS,
            *flags,
        ],
        stdout=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port, proc=proc)
    except BaseException:
        stop(proc)
        raise
    return proc, port


@dataclass
class Worker:
    """A worker process serving gRPC, HTTP and its admin port (health, readiness, metrics) on
    ports of its own, as a pod would."""

    proc: subprocess.Popen[bytes]
    grpc_port: int
    http_port: int
    admin_port: int
    redis_url: str = ""
    """Empty for the in-process store."""

    @property
    def grpc_target(self) -> str:
        return f"127.0.0.1:{self.grpc_port}"

    @property
    def http_url(self) -> str:
        return f"http://127.0.0.1:{self.http_port}"

    @property
    def ports(self) -> tuple[int, int, int]:
        """gRPC, HTTP and admin: what a worker restarted in its place takes again."""
        return self.grpc_port, self.http_port, self.admin_port

    @property
    def admin_url(self) -> str:
        return f"http://127.0.0.1:{self.admin_port}"

    @property
    def store(self) -> str:
        return "redis" if self.redis_url else "memory"


def start_worker(
    *flags: str,
    module: Sequence[str] = SERVE,
    redis_url: str = "",
    env: Mapping[str, str] | None = None,
    log: Path | None = None,
    ports: tuple[int, int, int] | None = None,
) -> Worker:
    """`python -m <module> --host 127.0.0.1 --grpc-port P --http-port Q --admin-port R
    <flags>` on three free ports, or on `ports` (gRPC, HTTP, admin: a restarted worker takes
    its predecessor's), with `env`
    over this process's environment and `redis_url` as its store (the in-process store when
    empty), once it listens on all three. Its output goes to `log` (appended) or, without one,
    where this process's goes. A worker that does not come up is stopped, and the error
    quotes the end of its log."""
    grpc_port, http_port, admin_port = ports or (free_port(), free_port(), free_port())
    command = [
        sys.executable,
        "-m",
        *module,
        "--host",
        "127.0.0.1",
        "--grpc-port",
        str(grpc_port),
        "--http-port",
        str(http_port),
        "--admin-port",
        str(admin_port),
        *flags,
    ]
    environ = {**os.environ, **(env or {}), "GENIAL_REDIS_URL": redis_url}
    if log is None:
        proc = subprocess.Popen(command, env=environ)
    else:
        log.parent.mkdir(parents=True, exist_ok=True)
        with log.open("ab") as out:
            proc = subprocess.Popen(command, env=environ, stdout=out, stderr=subprocess.STDOUT)
    try:
        wait_for_port(grpc_port, proc=proc)
        wait_for_port(http_port, proc=proc)
        wait_for_port(admin_port, proc=proc)
    except (RuntimeError, TimeoutError) as err:
        stop(proc)
        said = f"; its log ends:\n{log.read_text(errors='replace')[-LOG_TAIL:]}" if log else ""
        raise RuntimeError(f"the worker did not start ({err}){said}") from None
    except BaseException:
        stop(proc)
        raise
    return Worker(proc, grpc_port, http_port, admin_port, redis_url)


def stop_worker(worker: Worker) -> None:
    stop(worker.proc)
