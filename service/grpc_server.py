"""The gRPC transport: every RPC of `genial.v1.GameService` calls the `GameApp` method
of the same name; this module only decodes the token and maps errors."""

from __future__ import annotations

import logging
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable

import grpc
from google.protobuf.message import Message
from google.rpc import error_details_pb2, status_pb2
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection
from grpc_status import rpc_status
from redis.exceptions import RedisError

from genial.v1 import game_service_pb2 as api

from . import convert
from .app import GameApp
from .errors import DOMAIN, ApiError, Code, Reason
from .metrics import METRICS

log = logging.getLogger("genial.grpc")

SERVICE = api.DESCRIPTOR.services_by_name["GameService"]
SERVICE_NAME = SERVICE.full_name


def snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def bearer(metadata: tuple[tuple[str, str | bytes], ...] | None) -> str | None:
    """The token of an `authorization: Bearer <token>` header, if any."""
    for key, value in metadata or ():
        if key == "authorization" and isinstance(value, str) and value.startswith("Bearer "):
            return value[len("Bearer ") :].strip() or None
    return None


def as_api_error(exc: BaseException) -> ApiError:
    """Anything a handler raised, as the error the client gets. Never a stack trace."""
    if isinstance(exc, ApiError):
        return exc
    if isinstance(exc, convert.BadMessage):
        return ApiError(Code.INVALID_ARGUMENT, Reason.BAD_REQUEST, str(exc))
    if isinstance(exc, (RedisError, OSError, TimeoutError)):
        log.warning("store unavailable: %s", type(exc).__name__)
        return ApiError(Code.UNAVAILABLE, Reason.STORE_UNAVAILABLE, "storage is unavailable; retry")
    log.exception("unexpected error")
    return ApiError(Code.INTERNAL, Reason.INTERNAL, "internal error")


def grpc_status(err: ApiError) -> grpc.Status:
    info = error_details_pb2.ErrorInfo(reason=err.reason, domain=DOMAIN, metadata=err.metadata)
    status = status_pb2.Status(code=err.code.grpc.value[0], message=err.message)
    status.details.add().Pack(info)
    return rpc_status.to_status(status)


Handler = Callable[[Message, str | None], Awaitable[Message]]
StreamHandler = Callable[[Message, str | None], AsyncIterator[Message]]


def _unary(method: str, call: Handler) -> Callable[..., Awaitable[Message]]:
    async def handle(request: Message, context: grpc.aio.ServicerContext) -> Message:
        start = time.perf_counter()
        try:
            return await call(request, bearer(context.invocation_metadata()))
        except Exception as exc:
            err = as_api_error(exc)
            METRICS.errors.labels("grpc", err.code.name, err.reason).inc()
            await context.abort_with_status(grpc_status(err))
            raise AssertionError("abort_with_status raises") from None
        finally:
            METRICS.latency.labels("grpc", method).observe(time.perf_counter() - start)

    return handle


def _stream(method: str, call: StreamHandler) -> Callable[..., AsyncIterator[Message]]:
    async def handle(request: Message, context: grpc.aio.ServicerContext) -> AsyncIterator[Message]:
        try:
            async for response in call(request, bearer(context.invocation_metadata())):
                yield response
        except Exception as exc:
            err = as_api_error(exc)
            METRICS.errors.labels("grpc", err.code.name, err.reason).inc()
            await context.abort_with_status(grpc_status(err))

    return handle


def game_service_handler(app: GameApp) -> grpc.GenericRpcHandler:
    """Handlers for every RPC in the proto's service, built from its descriptor."""
    handlers: dict[str, grpc.RpcMethodHandler] = {}
    for method in SERVICE.methods:
        call = getattr(app, snake(method.name))
        request_class = _message_class(method.input_type.full_name)
        kwargs = {
            "request_deserializer": request_class.FromString,
            "response_serializer": lambda m: m.SerializeToString(),
        }
        if method.server_streaming:
            handlers[method.name] = grpc.unary_stream_rpc_method_handler(
                _stream(method.name, call), **kwargs
            )
        else:
            handlers[method.name] = grpc.unary_unary_rpc_method_handler(
                _unary(method.name, call), **kwargs
            )
    return grpc.method_handlers_generic_handler(SERVICE_NAME, handlers)


def _message_class(full_name: str) -> type[Message]:
    return getattr(api, full_name.rsplit(".", 1)[1])  # type: ignore[no-any-return]


async def start_grpc(
    app: GameApp, host: str, port: int, max_request_bytes: int
) -> tuple[grpc.aio.Server, int, health.aio.HealthServicer]:
    """Start serving; returns the server, the bound port and the health servicer."""
    server = grpc.aio.server(
        options=[
            ("grpc.max_receive_message_length", max_request_bytes),
            ("grpc.so_reuseport", 0),
            ("grpc.keepalive_time_ms", 30_000),
        ]
    )
    server.add_generic_rpc_handlers((game_service_handler(app),))
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable_server_reflection(
        (SERVICE_NAME, health.SERVICE_NAME, reflection.SERVICE_NAME), server
    )
    bound = server.add_insecure_port(f"{host}:{port}")
    await server.start()
    await health_servicer.set("", health_pb2.HealthCheckResponse.SERVING)
    await health_servicer.set(SERVICE_NAME, health_pb2.HealthCheckResponse.SERVING)
    return server, bound, health_servicer
