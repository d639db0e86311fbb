"""What operators see: the metrics the service exports, the Grafana dashboard and the
alerts of the chart, checked against each other and by Prometheus's own promtool.

Every metric name in a dashboard query or an alert must be one the service exports: the
names come from the prometheus_client registry once `genial.service.metrics` is imported,
not from a list kept here. promtool (Debian's prometheus package; `make promtool` installs
it) checks the alert rules and the dashboard's queries, and runs the alerts against series
in alert_cases.yaml: each fires when its condition holds and stays quiet on a healthy
release.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from prometheus_client import REGISTRY

import genial.service.metrics  # noqa: F401  (registers the worker's metrics)
from tests.deploy.conftest import Rendered
from tests.deploy.paths import CHART, DEPLOY_DOC

DASHBOARD = json.loads((CHART / "files" / "dashboard.json").read_text())
ALERT_CASES = Path(__file__).with_name("alert_cases.yaml")
SAMPLE_SUFFIXES = {
    "counter": ("_total", "_created"),
    "histogram": ("_bucket", "_count", "_sum", "_created"),
    "summary": ("", "_count", "_sum", "_created"),
    "info": ("_info",),
}
PROMQL_WORDS = {"and", "or", "unless", "bool", "offset", "inf", "nan", "group_left", "group_right"}
LABEL_VALUES = re.compile(r"label_values\((?P<query>.+),\s*\w+\)")
GRAFANA_VARIABLES = {"$__rate_interval": "5m", "$namespace": "games", "$job": "genial-admin"}


def exported_names() -> set[str]:
    """Every series name a worker's /metrics can hold, labelled families without children
    included (they export nothing until first used, but a query may name them)."""
    names = set()
    for family in REGISTRY.collect():
        names |= {family.name + suffix for suffix in SAMPLE_SUFFIXES.get(family.type, ("",))}
        names |= {sample.name for sample in family.samples}
    return names


def metric_names(expr: str) -> set[str]:
    """The metric names a PromQL expression reads: the identifiers left once strings,
    label matchers, ranges and grouping clauses are gone, other than functions (followed
    by a parenthesis) and keywords."""
    expr = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)
    expr = re.sub(r"\{[^}]*\}|\[[^]]*\]", " ", expr)
    expr = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", expr)
    names = set()
    for match in re.finditer(r"(?<![\w.$])[A-Za-z_:][A-Za-z0-9_:]*", expr):
        if not expr[match.end() :].lstrip().startswith("(") and match[0] not in PROMQL_WORDS:
            names.add(match[0])
    return names


def panels(dashboard: dict[str, Any]) -> Iterator[dict[str, Any]]:
    for panel in dashboard["panels"]:
        yield panel
        yield from panel.get("panels", [])


def dashboard_queries() -> list[str]:
    """The PromQL of every panel and of every variable (label_values' series selector)."""
    queries = [t["expr"] for p in panels(DASHBOARD) for t in p.get("targets", [])]
    for variable in DASHBOARD["templating"]["list"]:
        if variable["type"] == "query":
            label_values = LABEL_VALUES.fullmatch(variable["definition"])
            assert label_values, variable["definition"]
            queries.append(label_values["query"])
    return queries


def promtool(*args: str) -> subprocess.CompletedProcess[str]:
    binary = shutil.which("promtool")
    if binary is None:
        pytest.fail("promtool is missing: `make promtool` installs Debian's prometheus package")
    return subprocess.run([binary, *args], capture_output=True, text=True, check=False, timeout=60)


def rule_groups(r: Rendered) -> list[dict[str, Any]]:
    groups: list[dict[str, Any]] = r.one("PrometheusRule")["spec"]["groups"]
    return groups


def alerts(r: Rendered) -> list[dict[str, Any]]:
    return [rule for group in rule_groups(r) for rule in group["rules"]]


@pytest.fixture
def observed(rendered: dict[str, Rendered]) -> Rendered:
    """The profile with the alerts and the dashboard on (default thresholds)."""
    return rendered["sentinel"]


# ---- the metrics -------------------------------------------------------------------


def test_the_query_reader_finds_the_names() -> None:
    # The helper the checks below rest on: a reader that found nothing would pass them all.
    expr = (
        'histogram_quantile(0.99, sum by (le) (rate(genial_request_seconds_bucket{method="A b"}'
        "[5m]))) / on (pod) group_left max(genial_ready) > 1e3 or absent(up offset 1h)"
    )
    assert metric_names(expr) == {"genial_request_seconds_bucket", "genial_ready", "up"}


def test_the_service_exports_what_operators_need() -> None:
    names = exported_names()
    for name in (
        "genial_watch_streams",
        "genial_watch_streams_limit",
        "genial_redis_connections",
        "genial_games",
        "genial_redis_errors_total",
        "genial_redis_seconds_bucket",
        "genial_redis_memory_used_bytes",
        "genial_redis_memory_max_bytes",
        "genial_notifications_pending",
        "genial_notifications_oldest_seconds",
        "genial_webhook_deliveries_total",
        "genial_webhook_delivery_seconds_bucket",
        "genial_webhook_endpoints_disabled",
        "genial_ready",
        "process_cpu_seconds_total",
        "process_resident_memory_bytes",
    ):
        assert name in names, name


# ---- the dashboard -----------------------------------------------------------------


def test_dashboard_queries_name_exported_metrics() -> None:
    exported = exported_names()
    read = set()
    for query in dashboard_queries():
        names = metric_names(query)
        assert names, query
        assert names <= exported, (query, names - exported)
        read |= names
    # Requests and latency by RPC, moves, errors, watch streams, Redis latency and errors,
    # worker CPU and memory.
    assert {
        "genial_request_seconds_count",
        "genial_request_seconds_bucket",
        "genial_moves_total",
        "genial_errors_total",
        "genial_watch_streams",
        "genial_redis_seconds_bucket",
        "genial_redis_errors_total",
        "process_cpu_seconds_total",
        "process_resident_memory_bytes",
    } <= read


def test_dashboard_queries_parse(tmp_path: Path) -> None:
    # promtool parses the queries as recording rules, Grafana's variables filled in.
    rules = []
    for number, query in enumerate(dashboard_queries()):
        expr = query
        for variable, value in GRAFANA_VARIABLES.items():
            expr = expr.replace(variable, value)
        rules.append({"record": f"dashboard:query_{number}", "expr": expr})
    path = tmp_path / "dashboard.rules.yaml"
    path.write_text(yaml.safe_dump({"groups": [{"name": "dashboard", "rules": rules}]}))
    done = promtool("check", "rules", str(path))
    assert done.returncode == 0, done.stdout + done.stderr


def test_dashboard_is_well_formed() -> None:
    ids = [p["id"] for p in panels(DASHBOARD)]
    assert len(ids) == len(set(ids))
    for panel in panels(DASHBOARD):
        grid = panel["gridPos"]
        assert grid["x"] + grid["w"] <= 24, panel["title"]
        for target in panel.get("targets", []):
            assert target["datasource"]["uid"] == "${datasource}", panel["title"]
    variables = {v["name"] for v in DASHBOARD["templating"]["list"]}
    for query in dashboard_queries():
        assert set(re.findall(r"\$(\w+)", query)) - {"__rate_interval"} <= variables, query


def test_dashboard_ships_as_a_configmap_for_the_grafana_sidecar(
    observed: Rendered, rendered: dict[str, Rendered]
) -> None:
    (config_map,) = [
        c for c in observed.all("ConfigMap") if "grafana_dashboard" in c["metadata"]["labels"]
    ]
    assert config_map["metadata"]["labels"]["grafana_dashboard"] == "1"
    assert config_map["metadata"]["labels"]["team"] == "games"
    (document,) = config_map["data"].values()
    assert json.loads(document) == DASHBOARD
    assert not rendered["default"].all("ConfigMap")


# ---- the alerts --------------------------------------------------------------------


def rule_file(r: Rendered, path: Path, annotations: bool = True) -> Path:
    groups = rule_groups(r)
    if not annotations:
        groups = [
            dict(
                group,
                rules=[
                    {k: v for k, v in rule.items() if k != "annotations"} for rule in group["rules"]
                ],
            )
            for group in groups
        ]
    path.write_text(yaml.safe_dump({"groups": groups}, sort_keys=False))
    return path


def test_promtool_accepts_the_rules(observed: Rendered, tmp_path: Path) -> None:
    done = promtool("check", "rules", str(rule_file(observed, tmp_path / "rules.yaml")))
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"SUCCESS: {len(alerts(observed))} rules found" in done.stdout


def test_alerts_fire_when_they_should_and_only_then(observed: Rendered, tmp_path: Path) -> None:
    # promtool compares annotations too; their templates are checked by `check rules` above.
    rule_file(observed, tmp_path / "rules.yaml", annotations=False)
    shutil.copy(ALERT_CASES, tmp_path / "cases.yaml")
    done = promtool("test", "rules", str(tmp_path / "cases.yaml"))
    assert done.returncode == 0, done.stdout + done.stderr
    tested = {
        case["alertname"]
        for test in yaml.safe_load(ALERT_CASES.read_text())["tests"]
        for case in test["alert_rule_test"]
        if case["exp_alerts"]
    }
    assert tested == {alert["alert"] for alert in alerts(observed)}


def test_alert_expressions_name_exported_metrics(observed: Rendered) -> None:
    exported = exported_names()
    for alert in alerts(observed):
        names = metric_names(alert["expr"])
        assert names, alert["alert"]
        assert names <= exported, (alert["alert"], names - exported)


def test_every_alert_has_a_runbook_in_the_docs(observed: Rendered) -> None:
    headings = re.findall(r"^#+ (.+)$", DEPLOY_DOC.read_text(), flags=re.MULTILINE)
    # GitHub's anchors: lower case, punctuation dropped, spaces to hyphens.
    anchors = {re.sub(r"[^\w\- ]", "", h).strip().lower().replace(" ", "-") for h in headings}
    runbooks = observed.values["metrics"]["prometheusRule"]["runbookUrl"]
    for alert in alerts(observed):
        url = alert["annotations"]["runbook_url"]
        assert url == f"{runbooks}#runbook-{alert['alert'].lower()}"
        assert url.split("#", 1)[1] in anchors, (
            f"docs/deploy.md has no runbook for {alert['alert']}"
        )
