"""Prometheus metrics of a worker: requests, moves, errors by reason, conflicts, latencies,
watch streams, Redis (round trips, errors, connections, memory), games by status, readiness.

Gauges sampled from the store (games, Redis memory) are the same figure on every worker:
dashboards and alerts take their max over the workers, never their sum. CPU and memory of
the worker are prometheus_client's process collector (process_cpu_seconds_total,
process_resident_memory_bytes), registered with the default registry.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from prometheus_client import Counter, Gauge, Histogram

LATENCY_BUCKETS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
REDIS_ERROR_KINDS = ("timeout", "oom", "connection", "other")
"""Values of genial_redis_errors' `kind`: the alerts tell a full Redis from an absent one."""
GAME_STATUSES = ("waiting", "playing", "finished")
"""Values of genial_games' `status`."""


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
    replayed_moves: Counter = field(
        default_factory=lambda: Counter(
            "genial_replayed_moves",
            "Logged moves applied again to rebuild a past version (watches, history, retries)",
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
    watch_streams: Gauge = field(
        default_factory=lambda: Gauge(
            "genial_watch_streams", "WatchGame streams open on this worker", ["transport"]
        )
    )
    watch_streams_limit: Gauge = field(
        default_factory=lambda: Gauge(
            "genial_watch_streams_limit", "WatchGame streams this worker accepts at most"
        )
    )
    redis_connections: Gauge = field(
        default_factory=lambda: Gauge(
            "genial_redis_connections", "Connections this worker holds open to Redis"
        )
    )
    games: Gauge = field(
        default_factory=lambda: Gauge(
            "genial_games",
            "Games in the store by status (sampled; same on every worker)",
            ["status"],
        )
    )
    redis_errors: Counter = field(
        default_factory=lambda: Counter(
            "genial_redis_errors", "Redis calls that failed, by kind of failure", ["kind"]
        )
    )
    redis_latency: Histogram = field(
        default_factory=lambda: Histogram(
            "genial_redis_seconds",
            "Time of a Redis round trip, failed ones included",
            ["operation"],
            buckets=LATENCY_BUCKETS,
        )
    )
    redis_memory_used: Gauge = field(
        default_factory=lambda: Gauge(
            "genial_redis_memory_used_bytes", "Redis used_memory (sampled from INFO memory)"
        )
    )
    redis_memory_max: Gauge = field(
        default_factory=lambda: Gauge(
            "genial_redis_memory_max_bytes", "Redis maxmemory (0: no limit; from INFO memory)"
        )
    )
    notifications_pending: Gauge = field(
        default_factory=lambda: Gauge(
            "genial_notifications_pending", "Webhook notifications waiting in the outbox"
        )
    )
    notifications_oldest: Gauge = field(
        default_factory=lambda: Gauge(
            "genial_notifications_oldest_seconds",
            "Age of the oldest webhook notification waiting in the outbox",
        )
    )
    webhook_deliveries: Counter = field(
        default_factory=lambda: Counter(
            "genial_webhook_deliveries",
            "Webhook delivery attempts by outcome: delivered, retry, gone (410: the endpoint "
            "is disabled), dead (to the dead letters), taken over (by another worker)",
            ["outcome"],
        )
    )
    webhook_delivery_seconds: Histogram = field(
        default_factory=lambda: Histogram(
            "genial_webhook_delivery_seconds",
            "Time from a notification queued to its delivery, retries included",
            buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 3600),
        )
    )
    webhook_endpoints_disabled: Gauge = field(
        default_factory=lambda: Gauge(
            "genial_webhook_endpoints_disabled",
            "Configured webhook endpoints disabled after a 410 Gone",
        )
    )
    ready: Gauge = field(
        default_factory=lambda: Gauge(
            "genial_ready", "1 if /readyz last answered ready on this worker, else 0"
        )
    )


METRICS = Metrics()
