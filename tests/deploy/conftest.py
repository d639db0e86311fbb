"""The chart rendered by the real Helm library (helm-python-sdk), for a few sets of values.

A profile is what an operator would pass to `helm install`: no values (the defaults), the
production file as `-f helm/values-production.yaml`, a development install with the chart's
own Redis and every option on, and a Redis Cluster install with the other branches.
"""

from __future__ import annotations

import copy
import json
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import helm_python as helm
import pytest
import yaml

from tests.conftest import free_port, wait_for_port

ROOT = Path(__file__).resolve().parents[2]
CHART = ROOT / "helm" / "genial"
PRODUCTION_VALUES = ROOT / "helm" / "values-production.yaml"
CHART_META = yaml.safe_load((CHART / "Chart.yaml").read_text())
DEFAULTS = yaml.safe_load((CHART / "values.yaml").read_text())
RELEASE = "genial"
NAMESPACE = "games"

Manifest = dict[str, Any]


class _UniqueKeyLoader(yaml.SafeLoader):
    """YAML that refuses a key given twice, which the API server rejects or silently merges."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        keys = [self.construct_object(key, deep=deep) for key, _ in node.value]
        duplicates = {key for key in keys if keys.count(key) > 1}
        if duplicates:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate keys {sorted(duplicates)}", node.start_mark
            )
        return super().construct_mapping(node, deep=deep)


def load_manifests(rendered: dict[str, str]) -> list[Manifest]:
    """Every object of every rendered template (NOTES.txt is text, not a manifest)."""
    objects = []
    for path, text in sorted(rendered.items()):
        if path.endswith("NOTES.txt"):
            continue
        objects += [doc for doc in yaml.load_all(text, Loader=_UniqueKeyLoader) if doc]
    return objects


def production_values() -> dict[str, Any]:
    # Helm's own YAML reader, as `-f` uses it.
    return helm.values_from_yaml(PRODUCTION_VALUES.read_text())


def merged(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    """`base` with `override` merged in, the way Helm coalesces two values files."""
    result = copy.deepcopy(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(result.get(key), dict):
            result[key] = merged(result[key], value)
        else:
            result[key] = value
    return result


def profiles() -> dict[str, dict[str, Any]]:
    production = production_values()
    return {
        "default": {},
        "production": production,
        "development": {
            "redis": {"enabled": True},
            "replicaCount": 1,
            "ingress": {"enabled": True, "className": "traefik"},
            "metrics": {"serviceMonitor": {"enabled": True}},
            "settings": {"logLevel": "DEBUG", "logJson": False},
        },
        "cluster": merged(
            production,
            {
                "redis": {"mode": "cluster", "existingSecret": "redis-cluster"},
                "networkPolicy": {"externalRedisPodLabels": {"app": "redis-cluster"}},
                "probes": {"readiness": {"check": "grpc"}},
                "shutdown": {"preStopSeconds": 0},
                "image": {"digest": "sha256:" + "ab" * 32},
                "imagePullSecrets": [{"name": "registry"}],
                "extraEnv": [{"name": "TZ", "value": "UTC"}],
                "settings": {"maxRequestBytes": 1000000, "redisTimeout": 0.5},
                "serviceAccount": {"create": False, "name": "genial-runner"},
                "service": {"type": "LoadBalancer"},
            },
        ),
    }


@dataclass
class Rendered:
    profile: str
    values: dict[str, Any]
    """The values the release runs with: the chart's defaults coalesced with the profile's."""
    templates: dict[str, str]
    objects: list[Manifest]

    def all(self, kind: str) -> list[Manifest]:
        return [o for o in self.objects if o["kind"] == kind]

    def one(self, kind: str, component: str | None = None) -> Manifest:
        found = [
            o
            for o in self.all(kind)
            if component is None
            or o["metadata"]["labels"].get("app.kubernetes.io/component") == component
        ]
        assert len(found) == 1, f"{self.profile}: {len(found)} {kind} objects"
        return found[0]

    @property
    def notes(self) -> str:
        return next(text for path, text in self.templates.items() if path.endswith("NOTES.txt"))


def worker(r: Rendered) -> dict[str, Any]:
    containers: list[dict[str, Any]] = r.one("Deployment")["spec"]["template"]["spec"]["containers"]
    assert len(containers) == 1
    return containers[0]


def container_ports(container: dict[str, Any]) -> dict[str, int]:
    return {p["name"]: p["containerPort"] for p in container["ports"]}


def worker_environ(r: Rendered, redis_url: str) -> dict[str, str]:
    """The worker's environment as the kubelet builds it, the Secret's URL given."""
    environ = {}
    for var in worker(r)["env"]:
        if "value" in var:
            environ[var["name"]] = var["value"]
        else:
            ref = var["valueFrom"]["secretKeyRef"]
            assert (ref["name"], ref["key"]) == (
                r.values["redis"]["existingSecret"],
                r.values["redis"]["existingSecretKey"],
            )
            environ[var["name"]] = redis_url
    return environ


@pytest.fixture(scope="session")
def chart() -> Iterator[helm.Chart]:
    with helm.Chart.load(CHART) as loaded:
        yield loaded


def render(chart: helm.Chart, values: dict[str, Any], profile: str = "custom") -> Rendered:
    """What `helm install` sends: the values checked against values.schema.json (Helm does
    it in render, as in an install), then every template rendered."""
    templates = chart.render(values, name=RELEASE, namespace=NAMESPACE, is_install=True)
    return Rendered(profile, chart.merge_values(values), templates, load_manifests(templates))


@pytest.fixture(scope="session")
def rendered(chart: helm.Chart) -> dict[str, Rendered]:
    return {name: render(chart, values, name) for name, values in profiles().items()}


@pytest.fixture(params=list(profiles()))
def each(request: pytest.FixtureRequest, rendered: dict[str, Rendered]) -> Rendered:
    return rendered[request.param]


@dataclass
class LocalPod:
    """The worker container of a rendered Deployment, run here as a process.

    It runs as the pod would: as the pod's user, on a read-only root filesystem when the
    container asks for one (bubblewrap), with the container's environment alone (the
    Secret's URL resolved to a scratch Redis). Only its ports differ: free loopback ports
    instead of the pod's on 0.0.0.0; `port` maps a pod port (number or name) to its own.
    """

    proc: subprocess.Popen[bytes]
    pid: int
    """The worker's own process, inside the sandbox that `proc` is."""
    ports: dict[int, int]
    names: dict[str, int]

    def port(self, pod_port: int | str) -> int:
        return self.ports[self.names[pod_port] if isinstance(pod_port, str) else pod_port]


def sandbox(pod_spec: dict[str, Any], container: dict[str, Any]) -> list[str]:
    """bubblewrap arguments that give a process the pod's user and root filesystem."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        pytest.fail("bubblewrap (bwrap) is not installed; `make test` installs it")
    user = pod_spec["securityContext"]
    read_only = container["securityContext"]["readOnlyRootFilesystem"]
    return [
        bwrap,
        "--ro-bind" if read_only else "--bind",
        "/",
        "/",
        "--dev",
        "/dev",
        "--proc",
        "/proc",
        "--unshare-user",
        "--uid",
        str(user["runAsUser"]),
        "--gid",
        str(user["runAsGroup"]),
        "--die-with-parent",
    ]


def worker_sandbox(r: Rendered) -> list[str]:
    return sandbox(r.one("Deployment")["spec"]["template"]["spec"], worker(r))


def start_pod(r: Rendered, redis_url: str) -> LocalPod:
    pod_ports = container_ports(worker(r))
    ports = {number: free_port() for number in pod_ports.values()}
    environ = worker_environ(r, redis_url) | {
        "GENIAL_HOST": "127.0.0.1",
        "GENIAL_GRPC_PORT": str(ports[pod_ports["grpc"]]),
        "GENIAL_HTTP_PORT": str(ports[pod_ports["http"]]),
        # As the image sets it: no bytecode is written next to the read-only sources.
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    # Only the container's variables reach the service, not this shell's GENIAL_* ones.
    inherited = {k: v for k, v in os.environ.items() if not k.startswith("GENIAL_")}
    # bwrap tells the worker's pid on this fd: SIGTERM goes to the worker, as in a pod.
    info_read, info_write = os.pipe()
    command = [*worker_sandbox(r), "--info-fd", str(info_write), sys.executable, "-m"]
    proc = subprocess.Popen(
        [*command, "genial.service.cli", "serve"],
        env=inherited | environ,
        pass_fds=(info_write,),
    )
    os.close(info_write)
    with os.fdopen(info_read, "rb") as info:
        pid = json.loads(info.read())["child-pid"]
    for port in ports.values():
        wait_for_port(port, 20)
    return LocalPod(proc, pid, ports, pod_ports)


def stop_pod(pod: LocalPod, timeout: float) -> int:
    """SIGTERM to the worker, as the kubelet sends it; its exit code (killed after `timeout`)."""
    os.kill(pod.pid, signal.SIGTERM)
    try:
        return pod.proc.wait(timeout)
    except subprocess.TimeoutExpired:
        pod.proc.kill()
        pod.proc.wait()
        raise


@pytest.fixture(scope="session")
def pod(rendered: dict[str, Rendered], redis_url: str) -> Iterator[LocalPod]:
    """A worker configured by the production values."""
    running = start_pod(rendered["production"], redis_url)
    yield running
    stop_pod(running, 30)
