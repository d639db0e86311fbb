"""A `genial serve` worker with the benchmark's empty calls beside the API, through the same
invoke path as every RPC (credential, rate limit, latency), so that the benchmark measures
what this server costs a call that does nothing: `genial.bench.v1.Bench/Empty` over gRPC
and `POST /bench/empty` over HTTP. Production workers never serve them.

    python -m loadtest.bench_worker [the flags of genial serve]
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

import grpc
from google.protobuf import empty_pb2
from google.protobuf.message import Message
from litestar import Request
from litestar.handlers import HTTPRouteHandler

from genial.service import grpc_server, http
from genial.service.app import GameApp
from genial.service.credentials import Principal
from genial.service.invoke import Endpoint
from genial.service.server import Extensions, run
from genial.service.settings import Settings

SERVICE = "genial.bench.v1.Bench"
GRPC_METHOD = f"/{SERVICE}/Empty"
HTTP_PATH = "/bench/empty"


async def empty(_request: Message, _caller: Principal) -> Message:
    return empty_pb2.Empty()


async def read_body(request: Request[Any, Any, Any]) -> Message:
    await request.body()
    return empty_pb2.Empty()


def extensions(app: GameApp) -> Extensions:
    grpc_handler = grpc_server.rpc_handler(
        Endpoint("grpc", "Empty", app.gate, unary=empty), empty_pb2.Empty
    )
    route = HTTPRouteHandler(HTTP_PATH, http_method="POST", name="Empty", status_code=200)
    return Extensions(
        grpc=[grpc.method_handlers_generic_handler(SERVICE, {"Empty": grpc_handler})],
        http=[
            route(http.unary_handler(Endpoint("http", "Empty", app.gate, unary=empty), read_body))
        ],
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m loadtest.bench_worker", description=__doc__)
    Settings.add_arguments(parser)
    run(Settings.load(parser.parse_args(argv)), extensions)
    return 0


if __name__ == "__main__":
    sys.exit(main())
