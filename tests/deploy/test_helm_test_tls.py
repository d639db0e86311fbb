"""The `helm test` check of a release with TLS on the API ports: it passes against the
worker of such a release, run with a self-signed certificate (the Secret's files), and
fails against stand-ins that lack what it checks: `openssl s_server` on the API ports
without HTTP/2 by ALPN for gRPC, or plain HTTP where TLS is expected."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import helm_python as helm
import pytest

from tests.conftest import free_port, wait_for_port
from tests.deploy.conftest import Rendered, render, start_pod, stop_pod
from tests.deploy.profiles import merged, production_values
from tests.deploy.test_pod import run_helm_test, service_ports


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("tls")
    subprocess.run(
        [
            *(
                "openssl",
                "req",
                "-x509",
                "-newkey",
                "ec",
                "-pkeyopt",
                "ec_paramgen_curve:prime256v1",
            ),
            *("-nodes", "-days", "1", "-subj", "/CN=genial.example.com"),
            *("-keyout", str(folder / "tls.key"), "-out", str(folder / "tls.crt")),
        ],
        check=True,
        capture_output=True,
    )
    return folder


def serve(command: list[str]) -> Iterator[int]:
    port = free_port()
    proc = subprocess.Popen(
        [arg.replace("PORT", str(port)) for arg in command],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port)
        yield port
    finally:
        proc.terminate()
        proc.wait(10)


def tls_server(certificate: Path, alpn: bool) -> Iterator[int]:
    command = ["openssl", "s_server", "-accept", "127.0.0.1:PORT", "-quiet", "-www"]
    command += ["-cert", str(certificate / "tls.crt"), "-key", str(certificate / "tls.key")]
    yield from serve(command + (["-alpn", "h2"] if alpn else []))


@pytest.fixture(scope="module")
def admin(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    folder = tmp_path_factory.mktemp("admin")
    for path in ("healthz", "readyz"):
        (folder / path).write_text('{"status":"ok"}')
    yield from serve(
        [sys.executable, "-m", "http.server", "-b", "127.0.0.1", "-d", str(folder), "PORT"]
    )


@pytest.fixture
def tls_api(certificate: Path) -> Iterator[int]:
    yield from tls_server(certificate, alpn=True)


@pytest.fixture
def tls_api_without_http2(certificate: Path) -> Iterator[int]:
    yield from tls_server(certificate, alpn=False)


def host_ports(r: Rendered, api: int, admin: int) -> dict[int, int]:
    return {port: admin if target == "admin" else api for port, target in service_ports(r).items()}


def test_helm_test_passes_against_a_worker_with_tls(
    chart: helm.Chart, certificate: Path, redis_url: str
) -> None:
    values = merged(production_values(), {"tls": {"enabled": True, "existingSecret": "t"}})
    r = render(chart, values, "production with TLS")
    files = {
        "GENIAL_TLS_CERT_FILE": str(certificate / "tls.crt"),
        "GENIAL_TLS_KEY_FILE": str(certificate / "tls.key"),
    }
    pod = start_pod(r, redis_url, files)
    try:
        ports = {port: pod.port(target) for port, target in service_ports(r).items()}
        assert run_helm_test(r, ports) == 0
    finally:
        stop_pod(pod, 30)


def test_helm_test_passes_on_tls_ports(
    rendered: dict[str, Rendered], tls_api: int, admin: int
) -> None:
    r = rendered["sentinel"]
    assert r.values["tls"]["enabled"]
    assert run_helm_test(r, host_ports(r, tls_api, admin)) == 0


def test_helm_test_fails_on_a_grpc_port_without_http2(
    rendered: dict[str, Rendered], tls_api_without_http2: int, admin: int
) -> None:
    r = rendered["sentinel"]
    assert run_helm_test(r, host_ports(r, tls_api_without_http2, admin)) != 0


def test_helm_test_fails_on_plain_ports_when_tls_is_on(
    rendered: dict[str, Rendered], admin: int
) -> None:
    # The admin server speaks plain HTTP: an API port without TLS fails the check.
    r = rendered["sentinel"]
    assert run_helm_test(r, host_ports(r, admin, admin)) != 0
