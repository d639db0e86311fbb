"""The gRPC transport: every RPC of `genial.v1.GameService` calls the `GameApp` method
of the same name; this module only decodes the token and maps errors."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc
from google.protobuf import empty_pb2
from google.protobuf.message import Message
from google.rpc import error_details_pb2, status_pb2
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection
from grpc_status import rpc_status

from .app import GameApp
from .errors import DOMAIN, ApiError, Code, Reason
from .metrics import METRICS
from .transport import (
    RETRY_AFTER,
    SERVICE,
    SERVICE_NAME,
    Admit,
    Handler,
    StreamHandler,
    as_api_error,
    bearer_token,
    message_class,
    snake,
)


def bearer(metadata: tuple[tuple[str, str | bytes], ...] | None) -> str | None:
    """The token of the `authorization` metadata, if any."""
    for key, value in metadata or ():
        if key == "authorization" and isinstance(value, str):
            return bearer_token(value)
    return None


def peer_address(peer: str) -> str:
    """The client's address of a gRPC peer string ("ipv4:1.2.3.4:5678", "ipv6:[::1]:5678")."""
    address = peer.split(":", 1)[-1]
    return address.rsplit(":", 1)[0].strip("[]") if ":" in address else address


class _Status(grpc.Status):  # type: ignore[misc]
    def __init__(self, code: grpc.StatusCode, details: str, trailing_metadata: Any) -> None:
        self.code, self.details, self.trailing_metadata = code, details, trailing_metadata


def grpc_status(err: ApiError) -> grpc.Status:
    info = error_details_pb2.ErrorInfo(reason=err.reason, domain=DOMAIN, metadata=err.metadata)
    status = status_pb2.Status(code=err.code.grpc.value[0], message=err.message)
    status.details.add().Pack(info)
    packed = rpc_status.to_status(status)
    if RETRY_AFTER not in err.metadata:
        return packed
    # A refusal that says when to come back says it the way HTTP does, too.
    trailing = (*packed.trailing_metadata, ("retry-after", err.metadata[RETRY_AFTER]))
    return _Status(packed.code, packed.details, trailing)


class Undecodable:
    """A request whose bytes are no message of its type. grpc would answer UNKNOWN for a
    deserializer that raises, so the handler gets this and refuses it properly."""

    def __init__(self, error: Exception) -> None:
        self.error = error


def decoder(request_class: type[Message]) -> Callable[[bytes], Message | Undecodable]:
    def decode(raw: bytes) -> Message | Undecodable:
        try:
            return request_class.FromString(raw)
        except Exception as err:  # DecodeError, RecursionError: whatever the bytes cause
            return Undecodable(err)

    return decode


def decoded(request: Message | Undecodable) -> Message:
    if isinstance(request, Undecodable):
        raise ApiError(
            Code.INVALID_ARGUMENT, Reason.BAD_REQUEST, f"undecodable request: {request.error}"
        )
    return request


def _unary(method: str, call: Handler, admit: Admit) -> Callable[..., Awaitable[Message]]:
    latency = METRICS.latency.labels("grpc", method)  # looked up once

    async def handle(request: Message | Undecodable, context: grpc.aio.ServicerContext) -> Message:
        start = time.perf_counter()
        try:
            token = bearer(context.invocation_metadata())
            admit(token, peer_address(context.peer()))
            return await call(decoded(request), token)
        except Exception as exc:
            err = as_api_error(exc)
            METRICS.errors.labels("grpc", err.code.name, err.reason).inc()
            await context.abort_with_status(grpc_status(err))
            raise AssertionError("abort_with_status raises") from None
        finally:
            latency.observe(time.perf_counter() - start)

    return handle


def _stream(
    method: str, call: StreamHandler, admit: Admit
) -> Callable[..., AsyncIterator[Message]]:
    async def handle(
        request: Message | Undecodable, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[Message]:
        try:
            token = bearer(context.invocation_metadata())
            admit(token, peer_address(context.peer()))
            async for response in call(decoded(request), token):
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
        request_class = message_class(method.input_type)
        kwargs = {
            "request_deserializer": decoder(request_class),
            "response_serializer": lambda m: m.SerializeToString(),
        }
        if method.server_streaming:
            handlers[method.name] = grpc.unary_stream_rpc_method_handler(
                _stream(method.name, call, app.limiter.admit), **kwargs
            )
        else:
            handlers[method.name] = grpc.unary_unary_rpc_method_handler(
                _unary(method.name, call, app.limiter.admit), **kwargs
            )
    return grpc.method_handlers_generic_handler(SERVICE_NAME, handlers)


BENCH_SERVICE = "genial.bench.v1.Bench"


def bench_handler(admit: Admit) -> grpc.GenericRpcHandler:
    """`genial.bench.v1.Bench/Empty`: an RPC that does nothing, through the same wrapper as
    every RPC, so that the benchmark (`loadtest/bench.py`) measures this server's cost of a
    call. Served only with `bench_endpoints`; not part of the API."""

    async def empty(_request: Message, _token: str | None) -> Message:
        return empty_pb2.Empty()

    method = grpc.unary_unary_rpc_method_handler(
        _unary("Empty", empty, admit),
        request_deserializer=decoder(empty_pb2.Empty),
        response_serializer=lambda m: m.SerializeToString(),
    )
    return grpc.method_handlers_generic_handler(BENCH_SERVICE, {"Empty": method})


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
    if app.settings.bench_endpoints:
        server.add_generic_rpc_handlers((bench_handler(app.limiter.admit),))
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
