"""The chart's custom resources, checked by hand: kubernetes-validate has schemas for
Kubernetes' own kinds only. Each check covers the fields its controller reads (the
Prometheus Operator's ServiceMonitor and PrometheusRule, the Gateway API's GRPCRoute) and
that they point at the release's own objects."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from tests.deploy.conftest import Manifest, Rendered, selects

DURATION = re.compile(r"(\d+(ms|s|m|h|d|w|y))+")
DNS_NAME = re.compile(r"(\*\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
GRPC_SERVICE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")


def check_service_monitor(r: Rendered, monitor: Manifest) -> None:
    spec = monitor["spec"]
    assert set(spec) == {"selector", "endpoints"}
    # Exactly the admin Service: the API Service has no metrics, and a second match would
    # scrape each worker twice.
    admin = r.one("Service", "admin")
    matched = [
        s
        for s in r.all("Service")
        if selects(spec["selector"]["matchLabels"], s["metadata"]["labels"])
    ]
    assert matched == [admin]
    (endpoint,) = spec["endpoints"]
    assert set(endpoint) <= {"port", "path", "interval"}
    assert endpoint["port"] in {p["name"] for p in admin["spec"]["ports"]}
    assert endpoint["path"] == "/metrics"
    assert DURATION.fullmatch(endpoint["interval"])


def check_prometheus_rule(r: Rendered, rule: Manifest) -> None:
    spec = rule["spec"]
    assert set(spec) == {"groups"}
    runbooks = r.values["metrics"]["prometheusRule"]["runbookUrl"]
    for group in spec["groups"]:
        assert set(group) == {"name", "rules"}
        for alert in group["rules"]:
            assert set(alert) <= {"alert", "expr", "for", "labels", "annotations"}
            assert re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", alert["alert"])
            assert isinstance(alert["expr"], str)
            assert DURATION.fullmatch(alert.get("for", "0s"))
            assert alert["labels"]["severity"] in ("warning", "critical")
            annotations = alert["annotations"]
            assert set(annotations) == {"summary", "description", "runbook_url"}
            assert all(isinstance(text, str) for text in annotations.values())
            assert annotations["runbook_url"].startswith(runbooks + "#")


def check_grpc_route(r: Rendered, route: Manifest) -> None:
    spec = route["spec"]
    assert set(spec) <= {"parentRefs", "hostnames", "rules"}
    assert spec["parentRefs"]
    for ref in spec["parentRefs"]:
        assert set(ref) <= {"group", "kind", "namespace", "name", "sectionName", "port"}
        assert ref["name"]
    for hostname in spec.get("hostnames", []):
        assert DNS_NAME.fullmatch(hostname), hostname
    service = r.one("Service", "worker")
    grpc_port = next(p["port"] for p in service["spec"]["ports"] if p["name"] == "grpc")
    for rule in spec["rules"]:
        assert set(rule) <= {"matches", "backendRefs"}
        for match in rule["matches"]:
            assert set(match) == {"method"}
            assert match["method"]["type"] == "Exact"
            assert GRPC_SERVICE.fullmatch(match["method"]["service"])
        assert rule["backendRefs"] == [{"name": service["metadata"]["name"], "port": grpc_port}]


CHECKS: dict[tuple[str, str], Callable[[Rendered, Manifest], None]] = {
    ("monitoring.coreos.com/v1", "ServiceMonitor"): check_service_monitor,
    ("monitoring.coreos.com/v1", "PrometheusRule"): check_prometheus_rule,
    ("gateway.networking.k8s.io/v1", "GRPCRoute"): check_grpc_route,
}


def check_custom_resource(r: Rendered, obj: dict[str, Any]) -> bool:
    """Checks `obj` if it is one of the chart's custom resources; False if it is not one."""
    check = CHECKS.get((obj["apiVersion"], obj["kind"]))
    if check is None:
        return False
    check(r, obj)
    return True
