"""The chart rendered by the real Helm library (helm-python-sdk) for each profile
(tests/deploy/profiles.py), and the worker of a rendered Deployment run as a local process."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import helm_python as helm
import pytest
import yaml

from tests.conftest import free_port, wait_for_port
from tests.deploy.paths import CHART, NAMESPACE, RELEASE
from tests.deploy.profiles import profiles

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
    assert [c["name"] for c in containers] == [
        "genial",
        *(c["name"] for c in r.values["extraContainers"]),
    ]
    return containers[0]


def container_ports(container: dict[str, Any]) -> dict[str, int]:
    return {p["name"]: p["containerPort"] for p in container["ports"]}


def secret_refs(r: Rendered) -> dict[str, tuple[str, str]]:
    """The Secret keys the values name, by the variable that should carry each: the URL
    unless the chart runs Redis, the password in every mode, the Sentinels' in Sentinel's,
    the players' session keys, the webhook endpoints."""
    redis = r.values["redis"]
    refs = [
        ("GENIAL_REDIS_PASSWORD", redis["auth"]),
        ("GENIAL_SESSION_KEYS", r.values["players"]["sessionKeys"]),
        ("GENIAL_WEBHOOK_ENDPOINTS", r.values["webhooks"]["endpoints"]),
    ]
    if not redis["enabled"]:
        refs.append(("GENIAL_REDIS_URL", redis))
    if redis["mode"] == "sentinel":
        refs.append(("GENIAL_REDIS_SENTINEL_PASSWORD", redis["sentinel"]["auth"]))
    return {
        name: (ref["existingSecret"], ref["existingSecretKey"])
        for name, ref in refs
        if ref["existingSecret"]
    }


WEBHOOK_ENDPOINTS = (
    '[{"name": "app", "url": "https://app.example/genial", "secrets": ["whsec_c2VjcmV0"]}]'
)
"""What a webhooks Secret holds: a JSON list of endpoints."""


def worker_environ(r: Rendered, redis_url: str, secret: str = "s3cret") -> dict[str, str]:
    """The worker's environment as the kubelet builds it: the URL Secret's key holds
    `redis_url`, any other Secret key `secret`."""
    environ = {}
    refs = secret_refs(r)
    for var in worker(r)["env"]:
        if "value" in var:
            environ[var["name"]] = var["value"]
        else:
            ref = var["valueFrom"]["secretKeyRef"]
            assert (ref["name"], ref["key"]) == refs[var["name"]], var
            environ[var["name"]] = {
                "GENIAL_REDIS_URL": redis_url,
                # Session keys are "kid:secret", the secret of 32+ characters.
                "GENIAL_SESSION_KEYS": f"k1:{secret * 32}",
                "GENIAL_WEBHOOK_ENDPOINTS": WEBHOOK_ENDPOINTS,
            }.get(var["name"], secret)
    return environ


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


def start_pod(r: Rendered, redis_url: str, files: dict[str, str] | None = None) -> LocalPod:
    """The worker of `r` on `redis_url`; `files` points the variables that name files in a
    mounted volume (GENIAL_TLS_CERT_FILE, ...) at files of this machine."""
    pod_ports = container_ports(worker(r))
    ports = {number: free_port() for number in pod_ports.values()}
    environ = worker_environ(r, redis_url) | {
        "GENIAL_HOST": "127.0.0.1",
        "GENIAL_GRPC_PORT": str(ports[pod_ports["grpc"]]),
        "GENIAL_HTTP_PORT": str(ports[pod_ports["http"]]),
        "GENIAL_ADMIN_PORT": str(ports[pod_ports["admin"]]),
        # As the image sets it: no bytecode is written next to the read-only sources.
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    for name, path in (files or {}).items():
        assert name in environ, name
        environ[name] = path
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
    for port in set(ports.values()):
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
