"""The benchmark's reading of the workers' latency histograms."""

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.parser import text_string_to_metric_families

from genial.service.metrics import LATENCY_BUCKETS
from loadtest.latency import Buckets, add_buckets


def exposition(moves: int, empties: int) -> str:
    """A worker's /metrics text: the request histogram beside other families."""
    registry = CollectorRegistry()
    requests = Histogram(
        "genial_request_seconds",
        "Request latency",
        ["transport", "method"],
        buckets=LATENCY_BUCKETS,
        registry=registry,
    )
    redis = Histogram("genial_redis_seconds", "Redis", ["command"], registry=registry)
    Counter("genial_moves", "Moves", ["kind"], registry=registry).labels("dice").inc(moves)
    for n in range(moves):
        requests.labels("grpc", "MakeMove").observe(n / 1000)
        redis.labels("EVALSHA").observe(n / 10_000)
    for _ in range(empties):
        requests.labels("rest", "Empty").observe(0.0004)
    return generate_latest(registry).decode()


def parsed(texts: list[str]) -> Buckets:
    """The same buckets read by prometheus_client's own parser."""
    found: Buckets = {}
    for text in texts:
        for family in text_string_to_metric_families(text):
            if family.name != "genial_request_seconds":
                continue
            for sample in family.samples:
                if sample.name.endswith("_bucket"):
                    key = (sample.labels["transport"], sample.labels["method"])
                    le = float(sample.labels["le"])
                    found.setdefault(key, {})[le] = found.get(key, {}).get(le, 0.0) + sample.value
    return found


def test_the_buckets_of_every_worker_are_summed_as_prometheus_reads_them() -> None:
    texts = [exposition(40, 3), exposition(7, 11)]
    buckets: Buckets = {}
    for text in texts:
        add_buckets(text, buckets)
    assert buckets == parsed(texts)
    assert set(buckets) == {("grpc", "MakeMove"), ("rest", "Empty")}
    assert buckets["grpc", "MakeMove"][float("inf")] == 47
    assert buckets["rest", "Empty"][0.0005] == 14
