"""TLS on the API ports: a worker given a certificate and a key serves both ports over TLS,
and when the files are replaced (as the kubelet swaps a renewed Secret in: the folder's
`..data` link renamed at once) new connections get the new certificate, without a restart.
Real clients check it: grpc's secure channel and httpx, each trusting one certificate."""

from __future__ import annotations

import os
import ssl
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import httpx
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from genial.v1 import game_service_pb2 as api
from genial.v1 import game_service_pb2_grpc as api_grpc
from genial.v1 import types_pb2 as types
from tests.service.conftest import Worker, start_worker, stop_worker

RELOAD_SECONDS = 10.0


def make_certificate(folder: Path, name: str) -> Path:
    """A self-signed certificate for 127.0.0.1 in `folder`/`name`/{tls.crt,tls.key}."""
    target = folder / name
    target.mkdir()
    subprocess.run(
        [
            *("openssl", "req", "-x509", "-newkey", "ec"),
            *("-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1"),
            *("-subj", f"/CN={name}", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"),
            *("-keyout", str(target / "tls.key"), "-out", str(target / "tls.crt")),
        ],
        check=True,
        capture_output=True,
    )
    return target


def mount(folder: Path, version: Path) -> None:
    """Point `folder`/..data at `version`, atomically, as the kubelet updates a Secret."""
    link = folder / "..data_tmp"
    link.symlink_to(version)
    link.rename(folder / "..data")


@pytest.fixture
def tls_worker(tmp_path: Path) -> Iterator[tuple[Worker, Path]]:
    secret = tmp_path / "secret"
    secret.mkdir()
    mount(secret, make_certificate(tmp_path, "first"))
    for name in ("tls.crt", "tls.key"):
        (secret / name).symlink_to(Path("..data") / name)
    worker = start_worker(
        "",
        "--tls-cert-file",
        str(secret / "tls.crt"),
        "--tls-key-file",
        str(secret / "tls.key"),
    )
    yield worker, tmp_path
    stop_worker(worker)


def grpc_answers(worker: Worker, trusted: Path) -> bool:
    """Whether a new secure channel, trusting only `trusted`, gets an answer (on a connection
    of its own, which the kernel gives to any of the worker's gRPC servers)."""
    credentials = grpc.ssl_channel_credentials((trusted / "tls.crt").read_bytes())
    options = [("grpc.use_local_subchannel_pool", 1)]
    with grpc.secure_channel(worker.grpc_target, credentials, options) as channel:
        try:
            health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=5)
        except grpc.RpcError as err:
            failed = err
        else:
            return True
    assert failed.code() == grpc.StatusCode.UNAVAILABLE, failed  # the handshake failed
    return False


def http_answers(worker: Worker, trusted: Path) -> bool:
    """Whether a new HTTPS connection, trusting only `trusted`, gets an answer."""
    context = ssl.create_default_context(cafile=trusted / "tls.crt")
    try:
        reply = httpx.get(f"https://127.0.0.1:{worker.http_port}/openapi.json", verify=context)
    except httpx.ConnectError as err:
        failed = err
    else:
        assert reply.status_code == 200
        return True
    assert "CERTIFICATE_VERIFY_FAILED" in str(failed), failed
    return False


def test_both_ports_speak_tls_and_follow_a_renewed_certificate(
    tls_worker: tuple[Worker, Path],
) -> None:
    worker, folder = tls_worker
    first = folder / "first"
    # The API itself over TLS on both ports; the plain-text clients get nowhere.
    credentials = grpc.ssl_channel_credentials((first / "tls.crt").read_bytes())
    with grpc.secure_channel(worker.grpc_target, credentials) as channel:
        answer = api_grpc.GameServiceStub(channel).CreateGame(
            api.CreateGameRequest(kind=types.GAME_KIND_CARDS, seats=2), timeout=10
        )
    assert answer.game_id
    reply = httpx.get(
        f"https://127.0.0.1:{worker.http_port}/v1/games/{answer.game_id}",
        verify=ssl.create_default_context(cafile=first / "tls.crt"),
    )
    assert reply.status_code == 200, reply.text
    with pytest.raises(httpx.RemoteProtocolError):
        httpx.get(f"http://127.0.0.1:{worker.http_port}/openapi.json")
    # Health, readiness and metrics stay plain on the admin port.
    assert httpx.get(f"{worker.admin_url}/readyz").status_code == 200

    kept = httpx.Client(verify=ssl.create_default_context(cafile=first / "tls.crt"))
    assert kept.get(f"https://127.0.0.1:{worker.http_port}/openapi.json").status_code == 200

    second = make_certificate(folder, "second")
    assert not grpc_answers(worker, second)
    assert not http_answers(worker, second)
    mount(folder / "secret", second)
    deadline = time.monotonic() + RELOAD_SECONDS
    while not (grpc_answers(worker, second) and http_answers(worker, second)):
        assert time.monotonic() < deadline, "the renewed certificate is not served"
        time.sleep(0.2)
    # New connections get the new certificate only, from each of the worker's gRPC servers;
    # one opened before keeps its own.
    assert all(grpc_answers(worker, second) for _ in range(16))
    assert not any(grpc_answers(worker, first) for _ in range(16))
    assert not http_answers(worker, first)
    assert kept.get(f"https://127.0.0.1:{worker.http_port}/openapi.json").status_code == 200
    kept.close()
    assert worker.proc.poll() is None


def test_a_broken_pair_leaves_the_served_one(tls_worker: tuple[Worker, Path]) -> None:
    worker, folder = tls_worker
    # A key that does not fit the certificate (written first, say): ignored, logged.
    broken = make_certificate(folder, "broken")
    os.replace(make_certificate(folder, "other") / "tls.key", broken / "tls.key")
    mount(folder / "secret", broken)
    time.sleep(2.5)  # more than the check's interval
    assert grpc_answers(worker, folder / "first")
    assert http_answers(worker, folder / "first")


def test_a_certificate_without_its_key_is_refused_at_start(tmp_path: Path) -> None:
    cert = make_certificate(tmp_path, "only") / "tls.crt"
    with pytest.raises(RuntimeError, match="did not start"):
        start_worker("", "--tls-cert-file", str(cert))
