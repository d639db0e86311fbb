"""Fixtures of the reliability suite (`make test-reliability`): worker processes with their
logs, Redis servers to kill, a Redis Cluster, and the summary of the run."""

from __future__ import annotations

import json
import platform
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.reliability.harness import (
    PROCESSES,
    TALLY,
    LoggedWorker,
    RedisServer,
    start_cluster,
    start_logged_worker,
    stop_all,
)

Spawn = Callable[..., list[LoggedWorker]]

_OUTCOMES: dict[str, dict[str, object]] = {}
_STARTED = time.time()


@pytest.fixture(scope="session", autouse=True)
def _no_leftovers() -> Iterator[None]:
    """Whatever the suite started and did not stop is killed at the end."""
    yield
    for proc in PROCESSES:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)


@pytest.fixture
def spawn(tmp_path: Path) -> Iterator[Spawn]:
    """`spawn(redis_url, n, *flags)`: n workers on one store, stopped after the test; each
    logs (JSON lines) to a file of its own under the test's tmp_path."""
    started: list[LoggedWorker] = []

    def start(redis_url: str, n: int = 1, *flags: str) -> list[LoggedWorker]:
        workers = [
            start_logged_worker(redis_url, tmp_path / f"worker{len(started) + i}.log", *flags)
            for i in range(n)
        ]
        started.extend(workers)
        return workers

    yield start
    stop_all(started)


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[RedisServer]:
    """A Redis of the test's own, with an append-only file synced on every write, so that
    it can be killed and started again without losing an acknowledged write."""
    server = RedisServer(
        tmp_path / "redis", ("--appendonly", "yes", "--appendfsync", "always", "--save", "")
    )
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[RedisServer]]:
    """A real three-master Redis Cluster."""
    nodes = start_cluster(tmp_path_factory.mktemp("cluster"))
    yield nodes
    for node in nodes:
        node.stop()


@pytest.fixture(scope="session")
def cluster_url(cluster: list[RedisServer]) -> str:
    return f"redis://127.0.0.1:{cluster[0].port}"


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if not report.nodeid.startswith("tests/reliability/"):
        return
    if report.when == "call" or report.outcome != "passed":
        entry = _OUTCOMES.setdefault(report.nodeid, {"seconds": 0.0})
        entry["outcome"] = report.outcome
        entry["seconds"] = round(float(entry["seconds"]) + report.duration, 2)  # type: ignore[arg-type]


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Why each test that was run again (`--reruns`) failed the first time: a failure that
    the rerun passed is read, not lost."""
    for report in terminalreporter.stats.get("rerun", []):
        terminalreporter.write_sep("-", f"why {report.nodeid} was run again")
        terminalreporter.write_line(report.longreprtext[-4000:])


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """The numbers of the run, for docs/reliability.md: build/reliability-summary.json."""
    if not _OUTCOMES:
        return
    summary = {
        "finished": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "seconds": round(time.time() - _STARTED, 1),
        "exit_status": int(exitstatus),
        "machine": f"{platform.machine()}, {platform.python_version()}",
        "numbers": dict(sorted(TALLY.items())),
        "tests": _OUTCOMES,
    }
    path = session.config.rootpath / "build" / "reliability-summary.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(summary, indent=2) + "\n")
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_line(f"reliability summary: {path}")
        for name, value in summary["numbers"].items():  # type: ignore[attr-defined]
            reporter.write_line(f"  {name}: {value}")
