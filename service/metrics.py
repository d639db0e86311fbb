"""Prometheus metrics of a worker: requests, moves, errors by reason, conflicts, latencies,
watch streams, Redis (round trips, errors, connections, memory), games by status, readiness.

Gauges sampled from the store (games, Redis memory) are the same figure on every worker:
dashboards and alerts take their max over the workers, never their sum. CPU and memory of
the worker are prometheus_client's process collector (process_cpu_seconds_total,
process_resident_memory_bytes), registered with the default registry.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from prometheus_client import (
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    disable_created_metrics,
)
from prometheus_client.openmetrics import exposition as openmetrics
from prometheus_client.samples import Sample
from prometheus_client.utils import floatToGoString

# A `_created` series for every counter and histogram (when its labels were first seen) is
# one more series to store in Prometheus for each, and nothing here reads it.
disable_created_metrics()  # type: ignore[no-untyped-call]

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


_PROMETHEUS_TYPES = {"info": "gauge", "stateset": "gauge", "gaugehistogram": "histogram"}
_OPENMETRICS_SUFFIXES = ("_created", "_gsum", "_gcount")
"""Samples that the Prometheus text format carries as gauges of their own, after the rest."""
_SAMPLES_A_TURN = 200
"""Samples written between two turns of the loop: about half a millisecond."""
_MOST_SERIES = 10_000
"""Series whose escaped name and labels are kept; the label values are all from closed sets
(RPCs, reasons, kinds), so a worker has about 200."""


class Exposition:
    """A registry in Prometheus's text format, byte for byte as `generate_latest` writes it,
    without stopping the worker's calls for all of it: a worker's ~1,000 samples took 7-15 ms
    at once under load (the loop stopped, every call in flight waiting, at every scrape).
    The loop gets a turn after each metric family and every `_SAMPLES_A_TURN` samples (the
    longest stop is now the largest family's collection, 2-3 ms), and each series' name and
    labels are escaped once per process rather than at every scrape (a third of the cost)."""

    def __init__(self, registry: CollectorRegistry = REGISTRY) -> None:
        self._registry = registry
        self._series: dict[tuple[str, tuple[tuple[str, str], ...]], str] = {}

    async def render(self) -> bytes:
        output: list[str] = []
        for metric in self._registry.collect():
            name, kind = metric.name, metric.type
            if kind == "counter":
                name += "_total"
            elif kind == "info":
                name += "_info"
            kind = _PROMETHEUS_TYPES.get(kind, "untyped" if kind == "unknown" else kind)
            help_text = metric.documentation.replace("\\", r"\\").replace("\n", r"\n")
            output.append(self._header(name, help_text, kind))
            own: dict[str, list[str]] = {}
            for written, sample in enumerate(metric.samples, 1):
                if not written % _SAMPLES_A_TURN:
                    await asyncio.sleep(0)
                line = self._line(sample)
                suffix = sample.name[len(metric.name) :]
                if suffix in _OPENMETRICS_SUFFIXES and sample.name.startswith(metric.name):
                    own.setdefault(suffix, []).append(line)
                else:
                    output.append(line)
            for suffix, lines in sorted(own.items()):
                output.append(self._header(metric.name + suffix, help_text, "gauge"))
                output += lines
            await asyncio.sleep(0)
        return "".join(output).encode()

    @staticmethod
    def _header(name: str, help_text: str, kind: str) -> str:
        escaped = openmetrics.escape_metric_name(name, openmetrics.UNDERSCORES)
        return f"# HELP {escaped} {help_text}\n# TYPE {escaped} {kind}\n"

    def _line(self, sample: Sample) -> str:
        key = (sample.name, tuple(sorted(sample.labels.items())))
        series = self._series.get(key)
        if series is None:
            series = self._series[key] = self._escaped(*key)
            if len(self._series) > _MOST_SERIES:
                self._series.clear()
        at = "" if sample.timestamp is None else f" {int(float(sample.timestamp) * 1000):d}"
        value: str = floatToGoString(sample.value)  # type: ignore[no-untyped-call]
        return f"{series} {value}{at}\n"

    @staticmethod
    def _escaped(name: str, labels: tuple[tuple[str, str], ...]) -> str:
        pairs = ",".join(
            f'{_escaped_label(label)}="{_escaped_value(value)}"' for label, value in labels
        )
        escaped = openmetrics.escape_metric_name(name, openmetrics.UNDERSCORES)
        return f"{escaped}{{{pairs}}}" if pairs else escaped


def _escaped_label(label: str) -> str:
    return openmetrics.escape_label_name(label, openmetrics.UNDERSCORES)


def _escaped_value(value: str) -> str:
    """A label value as the text format writes it: backslash, newline and quote escaped."""
    return value.replace("\\", r"\\").replace("\n", r"\n").replace('"', r"\"")
