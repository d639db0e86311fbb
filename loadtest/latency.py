"""Latency figures: percentiles of the generator's own sample, and of the workers'
`genial_request_seconds` histograms (read from their /metrics)."""

from __future__ import annotations

import re
from dataclasses import dataclass

Buckets = dict[tuple[str, str], dict[float, float]]
"""(transport, method) -> upper bound -> cumulative count of `genial_request_seconds`."""


@dataclass
class Percentiles:
    p50: float
    p95: float
    p99: float
    """Milliseconds."""

    @classmethod
    def of(cls, seconds: list[float]) -> Percentiles:
        """Nearest-rank percentiles of a sample."""
        if not seconds:
            return cls(float("nan"), float("nan"), float("nan"))
        ranked = sorted(seconds)

        def at(q: float) -> float:
            return ranked[min(len(ranked) - 1, int(q * len(ranked)))] * 1000

        return cls(at(0.50), at(0.95), at(0.99))

    @classmethod
    def of_histogram(cls, cumulative: dict[float, float]) -> Percentiles:
        """The percentiles of one histogram's cumulative buckets, interpolated."""
        return cls(*(histogram_quantile(q, cumulative) for q in (0.5, 0.95, 0.99)))


BUCKET_LINE = re.compile(r"^genial_request_seconds_bucket\{([^}]*)\} (\S+)$", re.MULTILINE)
LABEL = re.compile(r'(\w+)="([^"]*)"')


def add_buckets(metrics: str, buckets: Buckets) -> None:
    """Add one worker's latency histograms (its /metrics text) to `buckets`.

    Only the bucket lines are read, by one pattern: prometheus_client's parser took 30 ms
    over a worker's 80 KB, with the generator's loop stopped at the start of each measured
    window, where it delayed the calls it was timing (a p99 of 34 ms at half the peak)."""
    for match in BUCKET_LINE.finditer(metrics):
        labels = dict(LABEL.findall(match[1]))
        key = (labels["transport"], labels["method"])
        per_key = buckets.setdefault(key, {})
        le = float(labels["le"])
        per_key[le] = per_key.get(le, 0.0) + float(match[2])


def histogram_quantile(q: float, cumulative: dict[float, float]) -> float:
    """Prometheus' `histogram_quantile`: linear within the bucket the rank falls in (ms)."""
    bounds = sorted(cumulative)
    total = cumulative[float("inf")]
    rank = q * total
    lower, below = 0.0, 0.0
    for upper in bounds:
        count = cumulative[upper]
        if count >= rank:
            if upper == float("inf"):
                return lower * 1000
            share = (rank - below) / (count - below) if count > below else 0.0
            return (lower + (upper - lower) * share) * 1000
        lower, below = upper, count
    return lower * 1000
