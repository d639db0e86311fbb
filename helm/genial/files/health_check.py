"""The `helm test` check, run in the genial image against the release's Service.

Asks the gRPC health service for the server ("") and for genial.v1.GameService, then GETs
/healthz and /readyz (Redis reachable) on the HTTP port. Exits non-zero on the first failure.
"""

import os
import sys
import urllib.request

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

SERVICES = ("", "genial.v1.GameService")
SERVING = health_pb2.HealthCheckResponse.SERVING


def main() -> int:
    target = os.environ["CHECK_GRPC_TARGET"]
    base_url = os.environ["CHECK_HTTP_URL"]
    with grpc.insecure_channel(target) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        for service in SERVICES:
            request = health_pb2.HealthCheckRequest(service=service)
            status = stub.Check(request, timeout=5).status
            name = health_pb2.HealthCheckResponse.ServingStatus.Name(status)
            print(f"grpc {target} health {service or '(server)'}: {name}")
            if status != SERVING:
                return 1
    for path in ("/healthz", "/readyz"):
        # urlopen raises on any status but 2xx, which fails the check with the reason.
        with urllib.request.urlopen(base_url + path, timeout=5) as response:
            print(f"http {base_url}{path}: {response.status}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
