"""Latency figures: percentiles of the generator's own sample, and of the workers'
`genial_request_seconds` histograms (read from their /metrics)."""

from __future__ import annotations

from dataclasses import dataclass

from prometheus_client.parser import text_string_to_metric_families

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


def add_buckets(metrics: str, buckets: Buckets) -> None:
    """Add one worker's latency histograms (its /metrics text) to `buckets`."""
    for family in text_string_to_metric_families(metrics):
        if family.name != "genial_request_seconds":
            continue
        for sample in family.samples:
            if sample.name.endswith("_bucket"):
                key = (sample.labels["transport"], sample.labels["method"])
                le = float(sample.labels["le"])
                per_key = buckets.setdefault(key, {})
                per_key[le] = per_key.get(le, 0.0) + sample.value


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
