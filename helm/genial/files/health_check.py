"""The `helm test` check, run in the genial image against the release's Services.

GETs /healthz and /readyz (Redis reachable) on the admin Service, lists the lobby through
the HTTP API, and asks the gRPC health service for the server ("") and for
genial.v1.GameService. With TLS on the API ports (CHECK_TLS=true) the API calls go over
TLS without checking the certificate's names (they are the public ones, not the Service's),
and the gRPC port must complete a TLS handshake that selects HTTP/2. Exits non-zero on the
first failure.
"""

import os
import socket
import ssl
import sys
import urllib.request

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

SERVICES = ("", "genial.v1.GameService")
SERVING = health_pb2.HealthCheckResponse.SERVING
TIMEOUT = 5


def unverified_tls() -> ssl.SSLContext:
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context


def get(url: str, context: ssl.SSLContext | None = None) -> None:
    # urlopen raises on any status but 2xx, which fails the check with the reason.
    with urllib.request.urlopen(url, timeout=TIMEOUT, context=context) as response:
        print(f"GET {url}: {response.status}")


def grpc_health(target: str) -> bool:
    with grpc.insecure_channel(target) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        for service in SERVICES:
            request = health_pb2.HealthCheckRequest(service=service)
            status = stub.Check(request, timeout=TIMEOUT).status
            name = health_pb2.HealthCheckResponse.ServingStatus.Name(status)
            print(f"grpc {target} health {service or '(server)'}: {name}")
            if status != SERVING:
                return False
    return True


def grpc_tls_handshake(target: str) -> bool:
    host, _, port = target.rpartition(":")
    context = unverified_tls()
    context.set_alpn_protocols(["h2"])
    with (
        socket.create_connection((host, int(port)), timeout=TIMEOUT) as raw,
        context.wrap_socket(raw, server_hostname=host) as tls,
    ):
        protocol = tls.selected_alpn_protocol()
        print(f"grpc {target}: {tls.version()}, ALPN {protocol}")
        return protocol == "h2"


def main() -> int:
    tls = os.environ["CHECK_TLS"] == "true"
    admin_url = os.environ["CHECK_ADMIN_URL"]
    for path in ("/healthz", "/readyz"):
        get(admin_url + path)
    context = unverified_tls() if tls else None
    get(os.environ["CHECK_HTTP_URL"] + "/v1/games", context)
    target = os.environ["CHECK_GRPC_TARGET"]
    ok = grpc_tls_handshake(target) if tls else grpc_health(target)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
