"""The Helm chart: lint, schema, Kubernetes validity, and that its parts fit together.

Helm itself (its Go library, through helm-python-sdk) lints and renders the chart; every
rendered object is validated against the Kubernetes OpenAPI schemas of the oldest version
the chart supports and of the newest one kubernetes-validate bundles. What a schema cannot
see (a selector that matches no pod, a probe on the wrong port, a grace period shorter than
the drain) is checked below, object against object.
"""

from __future__ import annotations

import dataclasses
import json
import re
import tomllib
from typing import Any

import helm_python as helm
import kubernetes_validate
import pytest

from genial.service.settings import Settings
from tests.deploy.conftest import (
    CHART,
    CHART_META,
    DEFAULTS,
    NAMESPACE,
    ROOT,
    Manifest,
    Rendered,
    container_ports,
    load_manifests,
    production_values,
    render,
    worker,
    worker_environ,
)

# The oldest Kubernetes the chart supports, from its kubeVersion constraint (">=1.27.0-0").
MIN_KUBE = ".".join(CHART_META["kubeVersion"].lstrip(">= ").split(".")[:2])
KUBE_VERSIONS = (MIN_KUBE, kubernetes_validate.latest_version())
SETTINGS = {f.name: f for f in dataclasses.fields(Settings)}
GAME_SERVICE = "genial.v1.GameService"


# ---- helpers -----------------------------------------------------------------------


def field_name(setting: str) -> str:
    """The Settings field of a key of the chart's `settings` (logLevel -> log_level)."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", setting).lower()


def selects(selector: dict[str, str], labels: dict[str, str]) -> bool:
    return all(labels.get(key) == value for key, value in selector.items())


def pod_specs(r: Rendered) -> list[tuple[str, dict[str, Any]]]:
    """Every pod the release may start: the workloads' templates and the test hook pod."""
    specs = [
        (o["metadata"]["name"], o["spec"]["template"]["spec"])
        for o in r.objects
        if o["kind"] in ("Deployment", "StatefulSet")
    ]
    return specs + [(o["metadata"]["name"], o["spec"]) for o in r.all("Pod")]


def check_service_monitor(r: Rendered, monitor: Manifest) -> None:
    """No OpenAPI schema ships for this CRD: check what the Prometheus Operator reads."""
    assert monitor["apiVersion"] == "monitoring.coreos.com/v1"
    spec = monitor["spec"]
    assert set(spec) == {"selector", "endpoints"}
    service = r.one("Service", "worker")
    assert selects(spec["selector"]["matchLabels"], service["metadata"]["labels"])
    assert [
        s
        for s in r.all("Service")
        if selects(spec["selector"]["matchLabels"], s["metadata"]["labels"])
    ] == [service]
    (endpoint,) = spec["endpoints"]
    assert set(endpoint) <= {"port", "path", "interval"}
    assert endpoint["port"] in {p["name"] for p in service["spec"]["ports"]}
    assert endpoint["path"] == "/metrics"
    assert re.fullmatch(r"\d+(ms|s|m|h)", endpoint["interval"])


# ---- Helm --------------------------------------------------------------------------


@pytest.mark.parametrize("profile", ["default", "production"])
def test_chart_lints_clean(profile: str) -> None:
    values = {} if profile == "default" else production_values()
    report = helm.lint(
        CHART, values, strict=True, namespace=NAMESPACE, kube_version=f"v{MIN_KUBE}.0"
    )
    findings = [m for m in report["messages"] if m["severity"] >= 2]  # warnings and errors
    assert not findings, findings
    assert not report["errors"]


def test_every_template_renders_in_some_profile(rendered: dict[str, Rendered]) -> None:
    # Each profile rendered without error (the fixture); together they leave no template
    # untried: each one gives at least one object (or text) somewhere.
    on_disk = {
        f"genial/templates/{p.relative_to(CHART / 'templates')}"
        for p in (CHART / "templates").rglob("*")
        if p.is_file() and not p.name.startswith("_")
    }
    produced = {
        path for r in rendered.values() for path, text in r.templates.items() if text.strip()
    }
    assert on_disk == produced


@pytest.mark.parametrize("version", KUBE_VERSIONS)
def test_manifests_validate_against_kubernetes(each: Rendered, version: str) -> None:
    for obj in each.objects:
        if obj["kind"] == "ServiceMonitor":
            check_service_monitor(each, obj)
            continue
        try:
            kubernetes_validate.validate(obj, version, strict=True)
        except kubernetes_validate.ValidationError as err:
            path = ".".join(str(p) for p in err.path)
            pytest.fail(f"{each.profile}: {obj['kind']} {path}: {err.message} (k8s {version})")


def check_names_and_labels(r: Rendered) -> None:
    # The API server checks these formats; the OpenAPI schemas do not.
    dns_label = re.compile(r"[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?")
    dns_subdomain = re.compile(r"[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?")
    label_value = re.compile(r"([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?")
    for obj in r.objects:
        meta = obj["metadata"]
        # Pods may have longer names; a StatefulSet's revision label adds 11 characters.
        if obj["kind"] == "Pod":
            assert dns_subdomain.fullmatch(meta["name"]), meta["name"]
        else:
            assert dns_label.fullmatch(meta["name"]), meta["name"]
        if obj["kind"] == "StatefulSet":
            assert len(meta["name"]) <= 52, meta["name"]
        assert "namespace" not in meta  # helm install -n decides
        for value in meta["labels"].values():
            assert label_value.fullmatch(value), value


def test_names_and_labels_are_valid(each: Rendered) -> None:
    check_names_and_labels(each)


def test_names_fit_for_the_longest_release_name(chart: helm.Chart) -> None:
    # Helm allows release names of up to 53 characters.
    values = {"redis": {"enabled": True}}
    templates = chart.render(values, name="r" * 53, namespace=NAMESPACE, is_install=True)
    check_names_and_labels(Rendered("long name", values, templates, load_manifests(templates)))


# ---- values and schema -------------------------------------------------------------


def test_app_version_is_the_package_version() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert CHART_META["appVersion"] == pyproject["project"]["version"]


def test_chart_defaults_are_the_service_defaults() -> None:
    # Listed for operators to see; an install without overrides runs as `genial serve` would.
    for name, value in DEFAULTS["settings"].items():
        field = SETTINGS[field_name(name)]
        default = field.default_factory() if callable(field.default_factory) else field.default
        assert value == default, name
    assert DEFAULTS["ports"] == {
        "grpc": SETTINGS["grpc_port"].default,
        "http": SETTINGS["http_port"].default,
    }


def test_schema_knows_only_real_settings() -> None:
    schema = json.loads((CHART / "values.schema.json").read_text())
    for name in schema["properties"]["settings"]["properties"]:
        assert field_name(name) in SETTINGS, name


@pytest.mark.parametrize(
    ("values", "error"),
    [
        ({"replicaCount": "two"}, "replicaCount"),
        ({"replicas": 2}, "replicas"),
        ({"settings": {"logLevel": "LOUD"}}, "logLevel"),
        ({"settings": {"drainSecs": 5}}, "drainSecs"),
        ({"settings": {"drainSeconds": -1}}, "drainSeconds"),
        ({"ports": {"grpc": 70000}}, "grpc"),
        ({"redis": {"mode": "memcached"}}, "mode"),
        ({"redis": {"existingSecret": ""}}, "existingSecret"),
        ({"image": {"digest": "latest"}}, "digest"),
        ({"probes": {"readiness": {"check": "tcp"}}}, "check"),
        ({"ingress": {"enabled": True, "paths": ["v1"]}}, "paths"),
        ({"topologySpread": [{"topologyKey": "zone"}]}, "maxSkew"),
        ({"resources": {"requests": {"memory": "lots"}}}, "memory"),
    ],
)
def test_bad_values_fail_at_install(chart: helm.Chart, values: dict[str, Any], error: str) -> None:
    with pytest.raises(helm.HelmValuesError, match=error):
        render(chart, values)


@pytest.mark.parametrize(
    ("values", "error"),
    [
        ({"redis": {"mode": "sentinel"}}, "Sentinel protocol"),
        ({"redis": {"enabled": True, "mode": "cluster"}}, "redis.mode=standalone"),
    ],
)
def test_unsupported_redis_setups_fail_at_install(
    chart: helm.Chart, values: dict[str, Any], error: str
) -> None:
    with pytest.raises(helm.HelmRenderError, match=error):
        render(chart, values)


# ---- the worker --------------------------------------------------------------------


def test_selectors_match_their_pods(each: Rendered) -> None:
    deployment = each.one("Deployment")
    worker_labels = deployment["spec"]["template"]["metadata"]["labels"]
    redis = each.all("StatefulSet")
    redis_labels = [s["spec"]["template"]["metadata"]["labels"] for s in redis]
    for workload in (deployment, *redis):
        selector = workload["spec"]["selector"]["matchLabels"]
        assert selects(selector, workload["spec"]["template"]["metadata"]["labels"])
    worker_selectors = [
        each.one("Service", "worker")["spec"]["selector"],
        *(p["spec"]["selector"]["matchLabels"] for p in each.all("PodDisruptionBudget")),
        *(
            c["labelSelector"]["matchLabels"]
            for c in deployment["spec"]["template"]["spec"].get("topologySpreadConstraints", [])
        ),
    ]
    for selector in worker_selectors:
        assert selects(selector, worker_labels)
        assert not any(selects(selector, labels) for labels in redis_labels)


def test_service_exposes_both_ports(each: Rendered) -> None:
    ports = container_ports(worker(each))
    assert set(ports) == {"grpc", "http"}
    service = each.one("Service", "worker")
    assert {p["name"]: p["targetPort"] for p in service["spec"]["ports"]} == {
        "grpc": "grpc",
        "http": "http",
    }
    protocols = {p["name"]: p["appProtocol"] for p in service["spec"]["ports"]}
    assert protocols == {"grpc": "kubernetes.io/h2c", "http": "http"}


def test_probes_ask_the_right_ports(each: Rendered) -> None:
    container = worker(each)
    ports = container_ports(container)
    for probe in ("startupProbe", "livenessProbe"):
        # gRPC health of the server as a whole (service ""), which Redis does not affect.
        assert container[probe]["grpc"] == {"port": ports["grpc"]}
    readiness = container["readinessProbe"]
    if each.values["probes"]["readiness"]["check"] == "grpc":
        assert readiness["grpc"] == {"port": ports["grpc"], "service": GAME_SERVICE}
    else:
        assert readiness["httpGet"] == {"path": "/readyz", "port": "http"}


def test_termination_waits_for_the_drain(each: Rendered) -> None:
    spec = each.one("Deployment")["spec"]["template"]["spec"]
    settings = Settings.load(environ=worker_environ(each, "redis://redis:6379/0"))
    pre_stop = each.values["shutdown"]["preStopSeconds"]
    lifecycle = worker(each).get("lifecycle")
    if pre_stop:
        assert lifecycle == {"preStop": {"exec": {"command": ["sleep", str(pre_stop)]}}}
    else:
        assert lifecycle is None
    assert spec["terminationGracePeriodSeconds"] > pre_stop + settings.drain_seconds


def test_worker_settings_parse_as_the_service_reads_them(each: Rendered) -> None:
    environ = worker_environ(each, "redis://redis.example:6379/0")
    for name in environ:
        if name.startswith("GENIAL_"):
            assert name[len("GENIAL_") :].lower() in SETTINGS, f"{name} is no setting"
    settings = Settings.load(environ=environ)
    ports = container_ports(worker(each))
    assert (settings.host, settings.grpc_port, settings.http_port) == (
        "0.0.0.0",
        ports["grpc"],
        ports["http"],
    )
    assert settings.redis_cluster == (each.values["redis"]["mode"] == "cluster")
    for name, value in each.values["settings"].items():
        assert getattr(settings, field_name(name)) == value
    for var in each.values["extraEnv"]:
        assert {"name": var["name"], "value": var["value"]} in worker(each)["env"]


def test_workers_reach_the_charts_redis(rendered: dict[str, Rendered]) -> None:
    dev = rendered["development"]
    service = dev.one("Service", "redis")
    (port,) = service["spec"]["ports"]
    url = Settings.load(environ=worker_environ(dev, "unused")).redis_url
    assert url == f"redis://{service['metadata']['name']}:{port['port']}/0"
    statefulset = dev.one("StatefulSet")
    assert statefulset["spec"]["serviceName"] == service["metadata"]["name"]
    assert selects(
        service["spec"]["selector"], statefulset["spec"]["template"]["metadata"]["labels"]
    )
    args = statefulset["spec"]["template"]["spec"]["containers"][0]["args"]
    assert args[args.index("--appendonly") + 1] == "yes"
    assert args[args.index("--maxmemory-policy") + 1] == "noeviction"
    (claim,) = statefulset["spec"]["volumeClaimTemplates"]
    assert claim["spec"]["resources"]["requests"]["storage"] == "1Gi"
    for profile in ("default", "production", "cluster"):
        assert not rendered[profile].all("StatefulSet")


def test_only_workers_reach_redis(rendered: dict[str, Rendered]) -> None:
    assert not rendered["default"].all("NetworkPolicy")  # an external Redis outside the cluster
    for profile, redis_labels in (
        (
            "development",
            rendered["development"].one("StatefulSet")["spec"]["template"]["metadata"]["labels"],
        ),
        ("cluster", {"app": "redis-cluster"}),
    ):
        r = rendered[profile]
        policy = r.one("NetworkPolicy")["spec"]
        worker_labels = r.one("Deployment")["spec"]["template"]["metadata"]["labels"]
        assert selects(policy["podSelector"]["matchLabels"], redis_labels)
        assert policy["policyTypes"] == ["Ingress"]
        sources = [
            peer["podSelector"]["matchLabels"]
            for rule in policy["ingress"]
            for peer in rule["from"]
        ]
        assert any(selects(s, worker_labels) for s in sources)
        # Nothing else: no namespaceSelector or ipBlock, no source that also matches the test pod.
        test_pod = r.one("Pod")["metadata"]["labels"]
        assert not any(selects(s, test_pod) for s in sources)
        assert all(
            set(peer) == {"podSelector"} for rule in policy["ingress"] for peer in rule["from"]
        )


def test_pods_are_locked_down(each: Rendered) -> None:
    for name, spec in pod_specs(each):
        assert spec["automountServiceAccountToken"] is False, name
        assert spec["securityContext"]["runAsNonRoot"] is True, name
        assert spec["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}, name
        for container in spec["containers"]:
            context = container["securityContext"]
            assert context["allowPrivilegeEscalation"] is False, name
            assert context["readOnlyRootFilesystem"] is True, name
            assert context["capabilities"] == {"drop": ["ALL"]}, name
            assert context.get("privileged", False) is False, name


def test_replicas_belong_to_the_autoscaler_when_on(each: Rendered) -> None:
    deployment = each.one("Deployment")
    if each.values["autoscaling"]["enabled"]:
        hpa = each.one("HorizontalPodAutoscaler")["spec"]
        assert hpa["scaleTargetRef"] == {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "name": deployment["metadata"]["name"],
        }
        assert "replicas" not in deployment["spec"]
        # Utilization is a share of the request: without a CPU request the HPA cannot work.
        assert worker(each)["resources"]["requests"]["cpu"]
    else:
        assert not each.all("HorizontalPodAutoscaler")
        assert deployment["spec"]["replicas"] == each.values["replicaCount"]
    assert deployment["spec"]["strategy"]["rollingUpdate"]["maxUnavailable"] == 0


def test_prometheus_finds_the_metrics(each: Rendered) -> None:
    annotations = each.one("Deployment")["spec"]["template"]["metadata"].get("annotations", {})
    if each.values["metrics"]["podAnnotations"]:
        assert annotations["prometheus.io/scrape"] == "true"
        assert int(annotations["prometheus.io/port"]) == container_ports(worker(each))["http"]
        assert annotations["prometheus.io/path"] == "/metrics"
    else:
        assert not any(key.startswith("prometheus.io/") for key in annotations)
    assert len(each.all("ServiceMonitor")) == int(
        each.values["metrics"]["serviceMonitor"]["enabled"]
    )


def test_ingress_routes_the_api_to_the_http_port(each: Rendered) -> None:
    ingresses = each.all("Ingress")
    if not each.values["ingress"]["enabled"]:
        assert not ingresses
        return
    service = each.one("Service", "worker")
    (ingress,) = ingresses
    for rule in ingress["spec"]["rules"]:
        for path in rule["http"]["paths"]:
            assert path["path"] == "/v1"
            assert path["backend"]["service"] == {
                "name": service["metadata"]["name"],
                "port": {"name": "http"},
            }
        assert f"://{rule['host']}/v1/games" in each.notes


def test_helm_test_checks_the_service(each: Rendered) -> None:
    pod = each.one("Pod")
    assert pod["metadata"]["annotations"]["helm.sh/hook"] == "test"
    service = each.one("Service", "worker")
    ports = {p["name"]: p["port"] for p in service["spec"]["ports"]}
    (container,) = pod["spec"]["containers"]
    assert container["image"] == worker(each)["image"]
    assert container["command"] == [
        "python",
        "-c",
        (CHART / "files" / "health_check.py").read_text(),
    ]
    env = {var["name"]: var["value"] for var in container["env"]}
    name = service["metadata"]["name"]
    assert env == {
        "CHECK_GRPC_TARGET": f"{name}:{ports['grpc']}",
        "CHECK_HTTP_URL": f"http://{name}:{ports['http']}",
    }
    assert f"helm test {pod['metadata']['labels']['app.kubernetes.io/instance']}" in each.notes


def test_image_reference(rendered: dict[str, Rendered]) -> None:
    assert worker(rendered["default"])["image"] == f"genial:{CHART_META['appVersion']}"
    digest = rendered["cluster"].values["image"]["digest"]
    assert worker(rendered["cluster"])["image"].endswith(f":0.1.0@{digest}")
