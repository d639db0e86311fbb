"""`genial serve`: one worker process serving the API until SIGTERM."""

from __future__ import annotations

import asyncio
import logging
import signal

import uvloop
from grpc_health.v1 import health_pb2
from prometheus_client import start_http_server

from .app import GameApp
from .grpc_server import SERVICE_NAME, start_grpc
from .logs import setup_logging
from .settings import Settings
from .store import GameStore, MemoryStore, RedisStore

log = logging.getLogger("genial.server")


def make_store(settings: Settings) -> GameStore:
    if settings.uses_redis:
        return RedisStore.from_url(
            settings.redis_url, cluster=settings.redis_cluster, timeout=settings.redis_timeout
        )
    log.warning("using the in-process store: games live in this process only (one worker)")
    return MemoryStore()


async def serve(settings: Settings) -> None:
    store = make_store(settings)
    app = GameApp(store, settings)
    server, grpc_port, health_servicer = await start_grpc(
        app, settings.host, settings.grpc_port, settings.max_request_bytes
    )
    metrics_server, _ = start_http_server(settings.http_port, settings.host)
    log.info(
        "serving",
        extra={
            "grpc_port": grpc_port,
            "http_port": metrics_server.server_port,
            "store": store.name,
        },
    )
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    log.info("draining", extra={"seconds": settings.drain_seconds})
    for name in ("", SERVICE_NAME):
        await health_servicer.set(name, health_pb2.HealthCheckResponse.NOT_SERVING)
    await server.stop(settings.drain_seconds)
    metrics_server.shutdown()
    await store.close()
    log.info("stopped")


def run(settings: Settings) -> None:
    setup_logging(settings.log_level, settings.log_json)
    uvloop.run(serve(settings))
