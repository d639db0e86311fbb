"""Prometheus metrics of a worker: moves, errors by reason, conflicts, latencies."""

from __future__ import annotations

from dataclasses import dataclass, field

from prometheus_client import Counter, Histogram

LATENCY_BUCKETS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)


@dataclass(frozen=True)
class Metrics:
    games_created: Counter = field(
        default_factory=lambda: Counter("genial_games_created", "Games created", ["kind"])
    )
    moves: Counter = field(
        default_factory=lambda: Counter("genial_moves", "Moves applied", ["kind"])
    )
    illegal_moves: Counter = field(
        default_factory=lambda: Counter("genial_illegal_moves", "Moves refused", ["reason"])
    )
    errors: Counter = field(
        default_factory=lambda: Counter(
            "genial_errors", "Requests refused", ["transport", "code", "reason"]
        )
    )
    conflicts: Counter = field(
        default_factory=lambda: Counter(
            "genial_conflicts", "Compare-and-set conflicts (retried or refused)", ["operation"]
        )
    )
    retries: Histogram = field(
        default_factory=lambda: Histogram(
            "genial_move_attempts_retried", "Retries a move needed", buckets=(1, 2, 4, 8, 16)
        )
    )
    replayed_requests: Counter = field(
        default_factory=lambda: Counter(
            "genial_replayed_requests", "Retried request ids answered with their first result"
        )
    )
    latency: Histogram = field(
        default_factory=lambda: Histogram(
            "genial_request_seconds",
            "Time to answer a request",
            ["transport", "method"],
            buckets=LATENCY_BUCKETS,
        )
    )


METRICS = Metrics()
