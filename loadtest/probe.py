"""What is read around a measurement window: the workers' latency histograms, the CPU time
of every process, and Redis's command and read-event counters."""

from __future__ import annotations

import asyncio
import os
import re
import time
from dataclasses import dataclass

import redis.asyncio as aioredis

from . import httpclient
from .cluster import Cluster
from .latency import Buckets, Percentiles, add_buckets

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> tuple[float, float]:
    """User and system (kernel) CPU time of a process, all its threads, so far."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as f:
        # The command name may hold spaces: fields are counted after its closing parenthesis.
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) / CLOCK_TICKS, int(fields[12]) / CLOCK_TICKS


def rss_bytes(pid: int) -> int:
    """A process's resident memory."""
    with open(f"/proc/{pid}/status", encoding="ascii") as f:
        found = re.search(r"^VmRSS:\s+(\d+) kB", f.read(), re.MULTILINE)
    if found is None:
        raise RuntimeError(f"no VmRSS for process {pid}")
    return int(found.group(1)) * 1024


@dataclass
class Snapshot:
    at: float
    buckets: Buckets
    """Summed over the workers."""
    cpu: dict[str, float]
    redis: dict[str, float]


class Probe:
    """Reads the deployment's counters; `window_figures` turns two snapshots into a window's
    figures."""

    def __init__(self, deployment: Cluster, redis_client: aioredis.Redis | None) -> None:
        self.deployment = deployment
        self.redis = redis_client

    async def snapshot(self) -> Snapshot:
        buckets: Buckets = {}
        # All at once: each worker's loop stops while it writes its /metrics out (10-15 ms),
        # and one after the other they would hold up the calls being timed twice as long.
        texts = await asyncio.gather(
            *(
                httpclient.get("127.0.0.1", worker.admin_port, "/metrics")
                for worker in self.deployment.workers
            )
        )
        for text in texts:
            add_buckets(text.decode(), buckets)
        worker_user = worker_sys = 0.0
        for worker in self.deployment.workers:
            user, kernel = cpu_seconds(worker.proc.pid)
            worker_user, worker_sys = worker_user + user, worker_sys + kernel
        redis = self.deployment.redis
        cpu = {
            "workers": worker_user + worker_sys,
            "workers_kernel": worker_sys,
            "redis": sum(cpu_seconds(redis.pid)) if redis else 0.0,
            "generator": sum(cpu_seconds(os.getpid())),
        }
        counters: dict[str, float] = {}
        if self.redis is not None:
            stats = await self.redis.info("stats")
            counters["reads"] = float(stats["total_reads_processed"])
            for name, value in (await self.redis.info("commandstats")).items():
                counters["cmd:" + name.removeprefix("cmdstat_")] = float(value["calls"])
        return Snapshot(time.perf_counter(), buckets, cpu, counters)


def window_figures(
    before: Snapshot, after: Snapshot, key: tuple[str, str], calls: int
) -> tuple[Percentiles | None, int, dict[str, float], dict[str, float]]:
    """Server percentiles and call count, cores used, and Redis work per call."""
    server = None
    server_calls = 0
    if key in after.buckets:
        start = before.buckets.get(key, {})
        delta = {le: n - start.get(le, 0.0) for le, n in after.buckets[key].items()}
        server_calls = int(delta[float("inf")])
        if server_calls:
            server = Percentiles.of_histogram(delta)
    elapsed = after.at - before.at
    cpu = {name: (after.cpu[name] - before.cpu[name]) / elapsed for name in after.cpu}
    per_call = {}
    for name, value in after.redis.items():
        # INFO itself, from this probe, is not the service's work.
        if name in ("cmd:info",) or not calls:
            continue
        grown = value - before.redis.get(name, 0.0)
        if grown:
            per_call[name] = grown / calls
    return server, server_calls, cpu, per_call
