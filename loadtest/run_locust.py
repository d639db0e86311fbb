"""`make loadtest`: Redis, N workers and Locust (headless, for a fixed time), then a clean stop.

Writes Locust's CSV files (`locust_stats.csv`, `locust_failures.csv`, ...), its HTML report
(`locust.html`) and the workers' own latency by RPC (`locust_server.md`) under
`loadtest/results/`. Exits with Locust's status: non-zero when any request failed.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import urllib.request
from pathlib import Path

from . import cluster
from .latency import Buckets, Percentiles, add_buckets

HERE = Path(__file__).parent
GRACE = 60
"""Seconds Locust may take past its run time (spawning, stopping users) before it is killed."""


def parse_seconds(text: str) -> int:
    """Locust's run time syntax, as far as needed here: 90, 90s, 2m, 1h."""
    units = {"s": 1, "m": 60, "h": 3600}
    if text[-1] in units:
        return int(text[:-1]) * units[text[-1]]
    return int(text)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=2, help="worker processes")
    parser.add_argument("--users", type=int, default=40, help="players (half gRPC, half REST)")
    parser.add_argument("--spawn-rate", type=float, default=10, help="users started a second")
    parser.add_argument("--run-time", default="60s", help="how long, e.g. 60s or 5m")
    parser.add_argument("--out", type=Path, default=HERE / "results")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with cluster.running(args.workers, log_dir=args.out) as deployment:
        command = [
            sys.executable,
            "-m",
            "locust",
            "-f",
            str(HERE / "locustfile.py"),
            "--headless",
            "--only-summary",
            "--users",
            str(args.users),
            "--spawn-rate",
            str(args.spawn_rate),
            "--run-time",
            args.run_time,
            "--stop-timeout",
            "5",
            "--host",
            deployment.workers[0].http_url,
            "--grpc-targets",
            ",".join(w.grpc_target for w in deployment.workers),
            "--rest-hosts",
            ",".join(w.http_url for w in deployment.workers),
            "--csv",
            str(args.out / "locust"),
            "--html",
            str(args.out / "locust.html"),
        ]
        locust = subprocess.Popen(command)
        try:
            status = locust.wait(parse_seconds(args.run_time) + GRACE)
        finally:
            if locust.poll() is None:
                locust.kill()
                locust.wait()
        report = server_latency(deployment)
    (args.out / "locust_server.md").write_text(report)
    print(report)
    return status


def server_latency(deployment: cluster.Cluster) -> str:
    """The workers' own latency by RPC over the run: Locust's figures include Locust's own
    time, and one Locust process is slower than the workers it drives."""
    buckets: Buckets = {}
    for worker in deployment.workers:
        with urllib.request.urlopen(f"{worker.admin_url}/metrics", timeout=10) as reply:
            add_buckets(reply.read().decode(), buckets)
    lines = [
        "| transport | RPC | requests | server p50 / p95 / p99 ms |",
        "| --- | --- | ---: | --- |",
    ]
    for (transport, method), cumulative in sorted(buckets.items()):
        count = int(cumulative[float("inf")])
        if count:
            p = Percentiles.of_histogram(cumulative)
            lines.append(
                f"| {transport} | {method} | {count} | {p.p50:.2f} / {p.p95:.2f} / {p.p99:.2f} |"
            )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
