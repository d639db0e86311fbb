"""`genial serve`: one worker process serving the API until SIGTERM, gRPC and HTTP on two
ports of one asyncio loop (over TLS when a certificate is set), and health, readiness and
metrics on a third, the admin port."""

from __future__ import annotations

import asyncio
import gc
import logging
import signal
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import grpc
import uvloop
from grpc_health.v1 import health_pb2
from litestar.handlers import HTTPRouteHandler

from .admin import create_admin_app
from .app import GameApp
from .grpc_server import start_grpc
from .http import create_app
from .http_server import start_http
from .logs import setup_logging
from .settings import Settings
from .store import GameStore, open_store
from .tls import Certificates

if TYPE_CHECKING:
    from .tracing import Tracing

log = logging.getLogger("genial.server")


@dataclass(frozen=True, slots=True)
class Extensions:
    """Handlers served beside the API's (the benchmark's empty calls, for one)."""

    grpc: Sequence[grpc.GenericRpcHandler] = ()
    http: Sequence[HTTPRouteHandler] = ()


Extend = Callable[[GameApp], Extensions]
"""Builds the extensions of a worker from its application."""


async def serve(settings: Settings, extend: Extend | None = None) -> None:
    certificates = Certificates.of(settings)  # first: a missing file stops the worker at once
    store = open_store(settings)
    tracing = start_tracing(settings, store)
    app = GameApp(store, settings)
    extensions = extend(app) if extend else Extensions()
    grpc_serving = await start_grpc(
        app,
        settings.host,
        settings.grpc_port,
        extensions.grpc,
        certificates.grpc_credentials if certificates else None,
        tracing.grpc_interceptors() if tracing else (),
    )
    stop = asyncio.Event()
    gateway = create_app(
        app, settings.max_request_bytes, stop, extensions.http, tracing.asgi if tracing else None
    )
    http_server, http_task, http_port = start_http(
        gateway,
        settings,
        settings.host,
        settings.http_port,
        certificates.context if certificates else None,
    )
    # Readiness fails as soon as the worker stops taking requests (`stop`).
    admin_server, admin_task, admin_port = start_http(
        create_admin_app(app.health, stop), settings, settings.host, settings.admin_port
    )
    background = [asyncio.create_task(app.run())]
    if certificates:
        background.append(asyncio.create_task(certificates.watch()))
    log.info(
        "serving",
        extra={
            "grpc_port": grpc_serving.port,
            "grpc_servers": len(grpc_serving.servers),
            "http_port": http_port,
            "admin_port": admin_port,
            "tls": certificates is not None,
            "store": store.name,
        },
    )
    settle_heap()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    stopping = asyncio.create_task(stop.wait())
    # A failed HTTP server stops the worker too, rather than leave it half serving.
    await asyncio.wait((stopping, http_task, admin_task), return_when=asyncio.FIRST_COMPLETED)
    stopping.cancel()
    for task in background:
        task.cancel()  # a turn in play is finished by another worker when its lease runs out
    log.info("draining", extra={"seconds": settings.drain_seconds})
    await grpc_serving.set_health(health_pb2.HealthCheckResponse.NOT_SERVING)
    # Both stop accepting at once, then finish what they have within drain_seconds; event
    # streams end at once (`stop` is set), their clients resume elsewhere.
    stop.set()
    http_server.should_exit = True
    await asyncio.gather(grpc_serving.stop(settings.drain_seconds), http_task)
    # The admin port last: the kubelet sees a draining worker alive, and not ready.
    admin_server.should_exit = True
    await admin_task
    await store.close()
    if tracing:
        tracing.shutdown()
    log.info("stopped")


def settle_heap() -> None:
    """Puts what start-up made out of the garbage collector's sight (`gc.freeze`).

    Modules, the API's descriptors and routes, the application: about 100,000 objects that
    live as long as the worker, which every full collection walked again. Under load one came
    every ten seconds or so and took 40 ms, all of it with the loop stopped: the slowest 1%
    of requests (docs/performance.md, "Round six")."""
    gc.collect()
    gc.freeze()


def start_tracing(settings: Settings, store: GameStore) -> Tracing | None:
    """Traces when an OTLP endpoint is set; without one, nothing of OpenTelemetry loads."""
    if not settings.otlp_endpoint:
        return None
    from .store.redis import RedisStore  # noqa: PLC0415
    from .tracing import Tracing  # noqa: PLC0415  (loaded only when tracing is on)

    tracing = Tracing(settings.otlp_endpoint)
    if isinstance(store, RedisStore):
        store.wrap_commands(tracing.redis)
        tracing.redis_client(store.client)
    log.info("tracing", extra={"otlp_endpoint": settings.otlp_endpoint})
    return tracing


def run(settings: Settings, extend: Extend | None = None) -> None:
    setup_logging(settings.log_level, settings.log_json)
    uvloop.run(serve(settings, extend))
