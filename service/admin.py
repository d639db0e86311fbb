"""The admin port: liveness (/healthz), readiness (/readyz) and Prometheus's /metrics, plain
HTTP on a port of their own (`admin_port`) that the chart never routes out of the cluster.

The API's ports carry the API; what an operator's tools ask of a worker stays here.
Readiness answers 503 once the worker drains, so that no new request is sent its way.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import msgspec
from litestar import Litestar, Request, Response, get
from litestar.exceptions import MethodNotAllowedException, NotFoundException
from litestar.types import ASGIApp
from prometheus_client import CONTENT_TYPE_LATEST

from .errors import ApiError, Reason, error_body
from .health import StoreHealth
from .metrics import Exposition

log = logging.getLogger("genial.admin")

JSON = "application/json"


def create_admin_app(health: StoreHealth, draining: asyncio.Event) -> ASGIApp:
    """The admin application; readiness fails once `draining` is set."""

    @get("/healthz")
    async def healthz() -> Response[bytes]:
        """Alive while the process serves at all: never depends on Redis."""
        return Response(b'{"status":"ok"}', media_type=JSON)

    @get("/readyz")
    async def readyz() -> Response[bytes]:
        """Ready while the store answers and takes writes, and the worker is not draining."""
        if draining.is_set():
            return _refusal(ApiError(Reason.DRAINING, "draining: the worker is stopping"))
        ready, why = await health.ready()
        if ready:
            return Response(msgspec.json.encode({"status": why}), media_type=JSON)
        return _refusal(ApiError(Reason.STORE_UNAVAILABLE, why))

    exposition = Exposition()

    @get("/metrics")
    async def metrics() -> Response[bytes]:
        return Response(await exposition.render(), media_type=CONTENT_TYPE_LATEST)

    return Litestar(
        [healthz, readyz, metrics],
        exception_handlers={Exception: _refused},
        openapi_config=None,
        logging_config=None,
    )


def _refusal(err: ApiError) -> Response[bytes]:
    return Response(error_body(err), status_code=err.code.http, media_type=JSON)


def _refused(request: Request[Any, Any, Any], exc: Exception) -> Response[bytes]:
    """What Litestar raises (an unknown path or method), in the API's error shape."""
    if isinstance(exc, MethodNotAllowedException):
        return _refusal(ApiError(Reason.METHOD_NOT_ALLOWED, f"{request.method} is not allowed"))
    if isinstance(exc, NotFoundException):
        return _refusal(ApiError(Reason.NO_ROUTE, f"no route {request.scope['path']}"))
    log.exception("admin port")
    return _refusal(ApiError(Reason.INTERNAL, "internal error"))
