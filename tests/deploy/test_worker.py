"""The worker Deployment and the chart's Redis: selectors, probes, settings, Secrets,
shutdown, security, scaling, and that a chart release that leaves the pods alone does not
restart them."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import helm_python as helm
import yaml

from tests.deploy.conftest import (
    Rendered,
    container_ports,
    pod_specs,
    render,
    secret_refs,
    selects,
    worker,
    worker_environ,
)
from tests.deploy.paths import CHART, CHART_META
from tests.deploy.profiles import profiles
from tests.deploy.settings_contract import (
    SETTINGS,
    as_env,
    field_name,
    read_settings,
)

GAME_SERVICE = "genial.v1.GameService"


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
        each.one("Service", "admin")["spec"]["selector"],
        *(p["spec"]["selector"]["matchLabels"] for p in each.all("PodDisruptionBudget")),
        *(
            c["labelSelector"]["matchLabels"]
            for c in deployment["spec"]["template"]["spec"].get("topologySpreadConstraints", [])
        ),
    ]
    for selector in worker_selectors:
        assert selects(selector, worker_labels)
        assert not any(selects(selector, labels) for labels in redis_labels)


def test_probes_ask_the_admin_port(each: Rendered) -> None:
    container = worker(each)
    ports = container_ports(container)
    for probe in ("startupProbe", "livenessProbe"):
        # The process answers at all; Redis does not affect it, so an outage restarts nothing.
        assert container[probe]["httpGet"] == {"path": "/healthz", "port": "admin"}
    readiness = container["readinessProbe"]
    if each.values["probes"]["readiness"]["check"] == "grpc":
        assert readiness["grpc"] == {"port": ports["grpc"], "service": GAME_SERVICE}
    else:
        assert readiness["httpGet"] == {"path": "/readyz", "port": "admin"}


def test_termination_waits_for_the_drain(each: Rendered) -> None:
    spec = each.one("Deployment")["spec"]["template"]["spec"]
    settings = read_settings(worker_environ(each, "redis://redis:6379/0"))
    pre_stop = each.values["shutdown"]["preStopSeconds"]
    lifecycle = worker(each).get("lifecycle")
    if pre_stop:
        assert lifecycle == {"preStop": {"exec": {"command": ["sleep", str(pre_stop)]}}}
    else:
        assert lifecycle is None
    assert spec["terminationGracePeriodSeconds"] > pre_stop + settings["drain_seconds"]


def test_worker_settings_parse_as_the_service_reads_them(each: Rendered) -> None:
    environ = worker_environ(each, "redis://redis.example:6379/0", secret="s3cret")
    for name in environ:
        if name.startswith("GENIAL_"):
            setting = name[len("GENIAL_") :].lower()
            assert setting in SETTINGS, f"{name} is no setting"
    settings = read_settings(environ)
    ports = container_ports(worker(each))
    assert (
        settings["host"],
        settings["grpc_port"],
        settings["http_port"],
        settings["admin_port"],
    ) == (
        "0.0.0.0",
        ports["grpc"],
        ports["http"],
        ports["admin"],
    )
    for name, value in each.values["settings"].items():
        assert settings[field_name(name)] == as_env(value), name
    for var in each.values["extraEnv"]:
        assert {"name": var["name"], "value": var["value"]} in worker(each)["env"]


def test_redis_topology_reaches_the_worker(each: Rendered) -> None:
    redis = each.values["redis"]
    environ = worker_environ(each, "rediss://redis.example:6380/0", secret="s3cret")
    settings = read_settings(environ)
    assert settings["redis_cluster"] == (redis["mode"] == "cluster")
    if redis["mode"] == "sentinel":
        assert settings["redis_sentinels"].split(",") == redis["sentinel"]["addresses"]
        assert settings["redis_sentinel_master"] == redis["sentinel"]["masterName"]
    else:
        assert settings["redis_sentinels"] == ""
    # Every password comes from its Secret key, never from the values themselves.
    refs = secret_refs(each)
    for setting in ("redis_password", "redis_sentinel_password"):
        variable = f"GENIAL_{setting.upper()}"
        assert settings[setting] == ("s3cret" if variable in refs else "")
    if redis["enabled"]:
        assert "GENIAL_REDIS_URL" not in refs
    elif redis["existingSecret"]:
        assert settings["redis_url"] == "rediss://redis.example:6380/0"
    else:
        assert redis["mode"] == "sentinel"
        assert settings["redis_url"] == ""


def test_passwords_come_from_secrets_only(each: Rendered) -> None:
    env = worker(each)["env"]
    assert {var["name"] for var in env if "valueFrom" in var} == set(secret_refs(each))
    for var in env:
        if var["name"] in (
            "GENIAL_REDIS_PASSWORD",
            "GENIAL_REDIS_SENTINEL_PASSWORD",
            "GENIAL_SESSION_KEYS",
        ):
            assert "value" not in var, var


def test_workers_reach_the_charts_redis(rendered: dict[str, Rendered]) -> None:
    dev = rendered["development"]
    service = dev.one("Service", "redis")
    (port,) = service["spec"]["ports"]
    url = read_settings(worker_environ(dev, "unused"))["redis_url"]
    assert url == f"redis://{service['metadata']['name']}:{port['port']}/0"
    statefulset = dev.one("StatefulSet")
    assert statefulset["spec"]["serviceName"] == service["metadata"]["name"]
    assert selects(
        service["spec"]["selector"], statefulset["spec"]["template"]["metadata"]["labels"]
    )
    (redis,) = statefulset["spec"]["template"]["spec"]["containers"]
    args = redis["args"]
    assert args[args.index("--appendonly") + 1] == "yes"
    assert args[args.index("--maxmemory-policy") + 1] == "noeviction"
    # The password the workers send is the one Redis requires, both from the same Secret key.
    assert args[args.index("--requirepass") + 1] == "$(REDIS_PASSWORD)"
    env = {var["name"]: var for var in redis["env"]}
    assert env["REDIS_PASSWORD"]["valueFrom"]["secretKeyRef"] == {
        "name": dev.values["redis"]["auth"]["existingSecret"],
        "key": dev.values["redis"]["auth"]["existingSecretKey"],
    }
    assert env["REDISCLI_AUTH"]["value"] == "$(REDIS_PASSWORD)"
    (claim,) = statefulset["spec"]["volumeClaimTemplates"]
    assert claim["spec"]["resources"]["requests"]["storage"] == "1Gi"
    for profile in ("default", "production", "cluster", "sentinel"):
        assert not rendered[profile].all("StatefulSet")


def test_pods_are_locked_down(each: Rendered) -> None:
    for name, spec in pod_specs(each):
        assert spec["automountServiceAccountToken"] is False, name
        assert spec["securityContext"]["runAsNonRoot"] is True, name
        assert spec["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}, name
        for container in spec["containers"] + spec.get("initContainers", []):
            context = container["securityContext"]
            assert context["allowPrivilegeEscalation"] is False, name
            assert context["readOnlyRootFilesystem"] is True, name
            assert context["capabilities"] == {"drop": ["ALL"]}, name
            assert context.get("privileged", False) is False, name


def test_extra_volumes_and_containers_reach_the_pod(each: Rendered) -> None:
    spec = each.one("Deployment")["spec"]["template"]["spec"]
    values = each.values
    volumes = [v for v in spec.get("volumes", []) if v["name"] != "tls"]
    mounts = [m for m in worker(each).get("volumeMounts", []) if m["name"] != "tls"]
    assert volumes == values["extraVolumes"]
    assert mounts == values["extraVolumeMounts"]
    assert {m["name"] for m in mounts} <= {v["name"] for v in spec.get("volumes", [])}
    assert spec["containers"][1:] == values["extraContainers"]
    assert spec.get("initContainers", []) == values["initContainers"]


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


def pod_templates(r: Rendered) -> list[dict[str, Any]]:
    return [o["spec"]["template"] for o in r.objects if o["kind"] in ("Deployment", "StatefulSet")]


def test_a_new_chart_version_leaves_the_pods_alone(tmp_path: Path) -> None:
    # The same chart under another version: every object's labels change, the pod templates
    # must not (a changed template is a rollout of every worker, and a Redis restart).
    copy = tmp_path / "genial"
    shutil.copytree(CHART, copy)
    meta = dict(CHART_META, version="9.9.9")
    (copy / "Chart.yaml").write_text(yaml.safe_dump(meta))
    for name in ("development", "sentinel"):
        values = profiles()[name]
        with helm.Chart.load(CHART) as current, helm.Chart.load(copy) as bumped:
            before, after = render(current, values), render(bumped, values)
        assert (
            before.one("Deployment")["metadata"]["labels"]
            != after.one("Deployment")["metadata"]["labels"]
        )
        assert pod_templates(before) == pod_templates(after)
        assert len(pod_templates(before)) == (2 if name == "development" else 1)


def test_image_reference(rendered: dict[str, Rendered]) -> None:
    assert worker(rendered["default"])["image"] == f"genial:{CHART_META['appVersion']}"
    digest = rendered["cluster"].values["image"]["digest"]
    assert worker(rendered["cluster"])["image"].endswith(f":0.1.0@{digest}")
