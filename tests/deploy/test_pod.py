"""The worker as the chart runs it, started here from the rendered Deployment.

The kubelet's part is played by hand: each probe of the pod spec is asked the way the
kubelet asks it, the `helm test` pod's command is run against the worker, and the stop is
a SIGTERM that must be done with inside the grace period the chart gives.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
import urllib.request
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from tests.conftest import free_port
from tests.deploy.conftest import (
    LocalPod,
    Rendered,
    sandbox,
    start_pod,
    stop_pod,
    worker,
    worker_sandbox,
)

PROBES = ("startupProbe", "livenessProbe", "readinessProbe")
ADDRESS = re.compile(r"(?P<scheme>https?://)?(?P<host>[a-z0-9.-]+):(?P<port>\d+)")


def ask(pod: LocalPod, spec: dict[str, Any]) -> bool:
    """One try of a probe: gRPC health SERVING, or HTTP 200-399, within its timeout."""
    timeout = spec.get("timeoutSeconds", 1)
    if "grpc" in spec:
        with grpc.insecure_channel(f"127.0.0.1:{pod.port(spec['grpc']['port'])}") as channel:
            request = health_pb2.HealthCheckRequest(service=spec["grpc"].get("service", ""))
            try:
                reply = health_pb2_grpc.HealthStub(channel).Check(request, timeout=timeout)
            except grpc.RpcError:
                return False
            return reply.status == health_pb2.HealthCheckResponse.SERVING
    get = spec["httpGet"]
    url = f"http://127.0.0.1:{pod.port(get['port'])}{get['path']}"
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return 200 <= response.status < 400
    except OSError:
        return False


def probe(pod: LocalPod, spec: dict[str, Any]) -> bool:
    """A probe as the kubelet runs it: it fails only after failureThreshold tries in a row
    (the period between them shortened: the worker is up or not)."""
    for _ in range(spec.get("failureThreshold", 3)):
        if ask(pod, spec):
            return True
        time.sleep(0.05)
    return False


@pytest.mark.parametrize("profile", ["production", "cluster"])
@pytest.mark.parametrize("kind", PROBES)
def test_probes_pass_on_a_running_worker(
    pod: LocalPod, rendered: dict[str, Rendered], profile: str, kind: str
) -> None:
    # The cluster profile's readiness asks gRPC health of genial.v1.GameService instead of
    # /readyz; its other probes are the same, asked of the same worker.
    assert probe(pod, worker(rendered[profile])[kind])


def test_probes_fail_without_a_worker(pod: LocalPod, rendered: dict[str, Rendered]) -> None:
    # Ports nothing listens on: the probes of a pod whose worker is gone.
    down = LocalPod(pod.proc, pod.pid, {number: free_port() for number in pod.ports}, pod.names)
    for kind in PROBES:
        assert not probe(down, worker(rendered["production"])[kind])


def service_ports(r: Rendered) -> dict[int, str | int]:
    """Each port of the release's Services (API and admin), by number: its target port."""
    return {
        p["port"]: p["targetPort"]
        for component in ("worker", "admin")
        for p in r.one("Service", component)["spec"]["ports"]
    }


def run_helm_test(r: Rendered, host_ports: dict[int, int]) -> int:
    """The test hook's command, run as its pod would, the Services' names and ports pointed
    at this machine."""
    pod = r.one("Pod")
    (container,) = pod["spec"]["containers"]
    python, flag, script = container["command"]
    assert (python, flag) == ("python", "-c")
    names = {r.one("Service", c)["metadata"]["name"] for c in ("admin", "worker")}
    env = {}
    for var in container["env"]:
        value = var["value"]
        if address := ADDRESS.fullmatch(value):
            assert address["host"] in names, value
            value = f"{address['scheme'] or ''}127.0.0.1:{host_ports[int(address['port'])]}"
        env[var["name"]] = value
    command = [*sandbox(pod["spec"], container), sys.executable, "-c", script]
    done = subprocess.run(command, env=env, check=False, timeout=30)
    return done.returncode


def test_helm_test_passes_against_the_worker(pod: LocalPod, rendered: dict[str, Rendered]) -> None:
    r = rendered["production"]
    host_ports = {port: pod.port(target) for port, target in service_ports(r).items()}
    assert run_helm_test(r, host_ports) == 0


def test_helm_test_fails_without_a_worker(rendered: dict[str, Rendered]) -> None:
    r = rendered["production"]
    assert run_helm_test(r, {port: free_port() for port in service_ports(r)}) != 0


def test_worker_stops_within_its_grace_period(
    rendered: dict[str, Rendered], redis_url: str
) -> None:
    r = rendered["production"]
    spec = r.one("Deployment")["spec"]["template"]["spec"]
    # The kubelet sends SIGTERM once preStop is over and kills at the end of the period.
    budget = spec["terminationGracePeriodSeconds"] - r.values["shutdown"]["preStopSeconds"]
    pod = start_pod(r, redis_url)
    readiness = worker(rendered["cluster"])["readinessProbe"]
    assert probe(pod, readiness)
    start = time.monotonic()
    assert stop_pod(pod, budget) == 0
    assert time.monotonic() - start < budget


def test_the_sandbox_is_the_pods_user_on_a_read_only_root(rendered: dict[str, Rendered]) -> None:
    # What the tests above ran in: the pod's user, and no writable path, /tmp included
    # (the chart mounts no volume into the worker).
    write = "import os; print(os.getuid(), os.getgid()); open('/tmp/genial-probe', 'w')"
    r = rendered["production"]
    done = subprocess.run(
        [*worker_sandbox(r), sys.executable, "-c", write],
        capture_output=True,
        text=True,
        check=False,
    )
    context = r.one("Deployment")["spec"]["template"]["spec"]["securityContext"]
    assert done.stdout.split() == [str(context["runAsUser"]), str(context["runAsGroup"])]
    assert "Read-only file system" in done.stderr
    assert "volumes" not in r.one("Deployment")["spec"]["template"]["spec"]
