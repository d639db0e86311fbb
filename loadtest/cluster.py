"""A private deployment for load: one redis-server and N workers sharing it.

Everything listens on 127.0.0.1 on free ports (`loadtest.processes`, the starters the test
suites use too), and everything is stopped when the context ends, however it ends. Each
worker serves gRPC and HTTP on ports of its own (as pods behind a load balancer would); load
generators spread their connections over the workers.
"""

from __future__ import annotations

import contextlib
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from .processes import SERVE, Worker, start_redis, start_worker, stop, stop_all

BENCH_WORKER = ("loadtest.bench_worker",)
"""The benchmark's workers: `genial serve` with the benchmark's empty calls beside the API."""


@dataclass
class Cluster:
    redis: subprocess.Popen[bytes] | None
    """None when the workers use the in-process store (one worker only)."""
    redis_port: int = 0
    workers: list[Worker] = field(default_factory=list)

    @property
    def redis_url(self) -> str:
        return f"redis://127.0.0.1:{self.redis_port}/0" if self.redis else ""


@contextlib.contextmanager
def running(
    workers: int,
    *,
    log_dir: Path,
    bench_endpoints: bool = False,
    redis: bool = True,
    settings: dict[str, str] | None = None,
) -> Iterator[Cluster]:
    """Redis and `workers` workers sharing it (or one worker with the in-process store, when
    not `redis`), all stopped on the way out: workers first, then Redis. `settings`: more
    GENIAL_* variables for the workers."""
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
    env.update(settings or {})
    module = BENCH_WORKER if bench_endpoints else SERVE
    with tempfile.TemporaryDirectory(prefix="genial-redis-") as data:
        cluster = Cluster(*start_redis(Path(data))) if redis else Cluster(None)
        try:
            for _ in range(workers):
                cluster.workers.append(
                    start_worker(
                        module=module,
                        redis_url=cluster.redis_url,
                        env=env,
                        log=log_dir / "workers.log",
                    )
                )
            yield cluster
        finally:
            stop_all(worker.proc for worker in cluster.workers)
            if cluster.redis is not None:
                stop(cluster.redis)
