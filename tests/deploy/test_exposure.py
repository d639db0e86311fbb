"""What reaches the workers, and how: the API Service and the admin Service, the Ingress,
the GRPCRoute, TLS, the NetworkPolicies, scraping and the `helm test` pod. The admin port
(health, readiness, metrics) never leaves the cluster."""

from __future__ import annotations

from typing import Any

from tests.deploy.conftest import Manifest, Rendered, container_ports, selects, worker
from tests.deploy.paths import CHART

API_PORTS = {"grpc", "http"}


def service_ports(service: Manifest) -> dict[str, dict[str, Any]]:
    return {p["name"]: p for p in service["spec"]["ports"]}


def test_api_service_carries_the_api_and_the_admin_service_the_rest(each: Rendered) -> None:
    assert set(container_ports(worker(each))) == API_PORTS | {"admin"}
    api = service_ports(each.one("Service", "worker"))
    assert {name: p["targetPort"] for name, p in api.items()} == {"grpc": "grpc", "http": "http"}
    tls = each.values["tls"]["enabled"]
    expected = (
        {"grpc": "https", "http": "https"} if tls else {"grpc": "kubernetes.io/h2c", "http": "http"}
    )
    assert {name: p["appProtocol"] for name, p in api.items()} == expected
    admin = each.one("Service", "admin")
    assert admin["spec"]["type"] == "ClusterIP"
    assert {name: p["targetPort"] for name, p in service_ports(admin).items()} == {"admin": "admin"}


def test_the_admin_port_is_routed_nowhere(each: Rendered) -> None:
    api_service = each.one("Service", "worker")["metadata"]["name"]
    for ingress in each.all("Ingress"):
        for rule in ingress["spec"]["rules"]:
            for path in rule["http"]["paths"]:
                assert path["backend"]["service"] == {"name": api_service, "port": {"name": "http"}}
    grpc_port = service_ports(each.one("Service", "worker"))["grpc"]["port"]
    for route in each.all("GRPCRoute"):
        for rule in route["spec"]["rules"]:
            assert rule["backendRefs"] == [{"name": api_service, "port": grpc_port}]
    for service in each.all("Service"):
        if service["spec"].get("type", "ClusterIP") != "ClusterIP":
            assert "admin" not in service_ports(service)


def test_ingress_routes_the_http_port(each: Rendered) -> None:
    ingresses = each.all("Ingress")
    if not each.values["ingress"]["enabled"]:
        assert not ingresses
        return
    (ingress,) = ingresses
    for rule in ingress["spec"]["rules"]:
        assert [p["path"] for p in rule["http"]["paths"]] == each.values["ingress"]["paths"]
        assert f"://{rule['host']}/v1/games" in each.notes


def test_grpc_route_sends_the_game_service_to_the_grpc_port(each: Rendered) -> None:
    values = each.values["grpcRoute"]
    routes = each.all("GRPCRoute")
    assert len(routes) == int(values["enabled"])
    for route in routes:
        assert route["spec"]["parentRefs"] == values["parentRefs"]
        assert route["spec"].get("hostnames", []) == values["hostnames"]
        assert route["metadata"].get("annotations", {}) == values["annotations"]
        (rule,) = route["spec"]["rules"]
        assert rule["matches"] == [
            {"method": {"type": "Exact", "service": "genial.v1.GameService"}}
        ]
        for hostname in values["hostnames"]:
            assert f"{hostname}:443" in each.notes


def test_tls_mounts_the_secret_as_a_folder(each: Rendered) -> None:
    spec = each.one("Deployment")["spec"]["template"]["spec"]
    env = {var["name"]: var.get("value") for var in worker(each)["env"]}
    mounts = [m for m in worker(each).get("volumeMounts", []) if m["name"] == "tls"]
    volumes = [v for v in spec.get("volumes", []) if v["name"] == "tls"]
    if not each.values["tls"]["enabled"]:
        assert not mounts
        assert not volumes
        assert "GENIAL_TLS_CERT_FILE" not in env
        assert "GENIAL_TLS_KEY_FILE" not in env
        return
    (volume,) = volumes
    assert volume["secret"] == {"secretName": each.values["tls"]["existingSecret"]}
    (mount,) = mounts
    # No subPath: a file mounted by subPath is never updated, so a renewal would not arrive.
    assert set(mount) == {"name", "mountPath", "readOnly"}
    assert mount["readOnly"] is True
    assert env["GENIAL_TLS_CERT_FILE"] == mount["mountPath"] + "/tls.crt"
    assert env["GENIAL_TLS_KEY_FILE"] == mount["mountPath"] + "/tls.key"


def policy_rules(policy: Manifest) -> list[tuple[set[str], list[dict[str, Any]] | None]]:
    """(port names, peers or None for anyone) of each ingress rule."""
    return [
        ({p["port"] for p in rule["ports"]}, rule.get("from")) for rule in policy["spec"]["ingress"]
    ]


def test_workers_admit_the_api_from_the_values_and_the_admin_port_from_monitoring(
    each: Rendered,
) -> None:
    policies = [
        p
        for p in each.all("NetworkPolicy")
        if p["metadata"]["labels"]["app.kubernetes.io/component"] == "worker"
    ]
    if not each.values["networkPolicy"]["enabled"]:
        assert not policies
        return
    (policy,) = policies
    worker_labels = each.one("Deployment")["spec"]["template"]["metadata"]["labels"]
    assert selects(policy["spec"]["podSelector"]["matchLabels"], worker_labels)
    assert policy["spec"]["policyTypes"] == ["Ingress"]
    api, admin = policy_rules(policy)
    values = each.values["networkPolicy"]
    assert api == (API_PORTS, values["api"]["from"] or None)
    ports, peers = admin
    assert ports == {"admin"}
    assert peers is not None
    test_pod, *others = peers
    assert selects(test_pod["podSelector"]["matchLabels"], each.one("Pod")["metadata"]["labels"])
    assert not selects(test_pod["podSelector"]["matchLabels"], worker_labels)
    assert others == values["admin"]["from"]
    # The admin port is in no rule that admits anyone.
    assert all(peers is not None for ports, peers in policy_rules(policy) if "admin" in ports)


def test_only_workers_reach_redis(rendered: dict[str, Rendered]) -> None:
    def redis_policies(r: Rendered) -> list[Manifest]:
        return [
            p
            for p in r.all("NetworkPolicy")
            if p["metadata"]["labels"]["app.kubernetes.io/component"] == "redis"
        ]

    for profile in ("default", "production", "sentinel"):  # an external Redis outside the cluster
        assert not redis_policies(rendered[profile])
    for profile, redis_labels in (
        (
            "development",
            rendered["development"].one("StatefulSet")["spec"]["template"]["metadata"]["labels"],
        ),
        ("cluster", {"app": "redis-cluster"}),
    ):
        r = rendered[profile]
        (policy,) = redis_policies(r)
        worker_labels = r.one("Deployment")["spec"]["template"]["metadata"]["labels"]
        assert selects(policy["spec"]["podSelector"]["matchLabels"], redis_labels)
        assert policy["spec"]["policyTypes"] == ["Ingress"]
        peers = [peer for rule in policy["spec"]["ingress"] for peer in rule["from"]]
        sources = [peer["podSelector"]["matchLabels"] for peer in peers]
        assert any(selects(s, worker_labels) for s in sources)
        # Nothing else: no namespaceSelector or ipBlock, no source that also matches the test pod.
        test_pod = r.one("Pod")["metadata"]["labels"]
        assert not any(selects(s, test_pod) for s in sources)
        assert all(set(peer) == {"podSelector"} for peer in peers)


def test_prometheus_finds_the_metrics_on_the_admin_port(each: Rendered) -> None:
    annotations = each.one("Deployment")["spec"]["template"]["metadata"].get("annotations", {})
    if each.values["metrics"]["podAnnotations"]:
        assert annotations["prometheus.io/scrape"] == "true"
        assert int(annotations["prometheus.io/port"]) == container_ports(worker(each))["admin"]
        assert annotations["prometheus.io/path"] == "/metrics"
    else:
        assert not any(key.startswith("prometheus.io/") for key in annotations)
    monitors = each.all("ServiceMonitor")
    assert len(monitors) == int(each.values["metrics"]["serviceMonitor"]["enabled"])
    for monitor in monitors:
        assert monitor["spec"]["endpoints"][0]["port"] == "admin"


def test_helm_test_checks_the_services(each: Rendered) -> None:
    pod = each.one("Pod")
    assert pod["metadata"]["annotations"]["helm.sh/hook"] == "test"
    api = each.one("Service", "worker")
    admin = each.one("Service", "admin")
    ports = {name: p["port"] for name, p in (service_ports(api) | service_ports(admin)).items()}
    (container,) = pod["spec"]["containers"]
    assert container["image"] == worker(each)["image"]
    assert container["command"] == [
        "python",
        "-c",
        (CHART / "files" / "health_check.py").read_text(),
    ]
    env = {var["name"]: var["value"] for var in container["env"]}
    name = api["metadata"]["name"]
    tls = each.values["tls"]["enabled"]
    assert env == {
        "CHECK_GRPC_TARGET": f"{name}:{ports['grpc']}",
        "CHECK_HTTP_URL": f"{'https' if tls else 'http'}://{name}:{ports['http']}",
        "CHECK_ADMIN_URL": f"http://{admin['metadata']['name']}:{ports['admin']}",
        "CHECK_TLS": str(tls).lower(),
    }
    assert f"helm test {pod['metadata']['labels']['app.kubernetes.io/instance']}" in each.notes
