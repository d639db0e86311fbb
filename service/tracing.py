"""Traces, by OpenTelemetry, exported over OTLP/gRPC when `otlp_endpoint` is set.

A request gets a server span on its transport (a gRPC interceptor; an ASGI wrapper around
the gateway), continuing the caller's trace when it sends a W3C `traceparent` header or
metadata; the Redis commands the request's use case sends (the move path's connection:
reads, the write script, the log; and redis-py's single commands: the lobby, the schedule)
are client spans within it. Redis commands outside a
request (the turn loop, the health sampler) are not traced: they would be a trace each.

Off by default, and then nothing of this is imported or installed: the servers get no
interceptor, the gateway no wrapper, the store's commands no wrapper, and a move costs what
it did. Spans leave in batches from a background thread (the SDK's BatchSpanProcessor; its
OTEL_BSP_* variables apply), and whatever is left is flushed when the worker stops.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, cast

import grpc
from litestar.enums import ScopeType
from litestar.types import ASGIApp, Message, Receive, Scope, Send
from opentelemetry import propagate, trace
from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from opentelemetry.trace import SpanKind, Status, StatusCode, Tracer

from .store.redis_commands import Commands, Wait
from .store.redis_link import Command

SCOPE = "genial.service"


class Tracing:
    """The tracer of one worker and the wrappers that put it to work."""

    def __init__(self, endpoint: str, service_name: str = "genial") -> None:
        self.provider = TracerProvider(resource=Resource.create({"service.name": service_name}))
        exporter = OTLPSpanExporter(endpoint=endpoint, insecure=endpoint.startswith("http://"))
        self.provider.add_span_processor(BatchSpanProcessor(exporter))
        self.tracer: Tracer = self.provider.get_tracer(SCOPE)

    def grpc_interceptors(self) -> list[grpc.aio.ServerInterceptor]:
        return [_GrpcServerSpans(self.tracer)]

    def asgi(self, app: ASGIApp) -> ASGIApp:
        return _http_server_spans(app, self.tracer)

    def redis(self, commands: Commands) -> Commands:
        return TracedCommands(commands, self.tracer)

    def redis_client(self, client: Any) -> None:
        """redis-py's own commands (the lobby, the schedule, players' keys): a client span
        each inside a request, as the move path's. Its pipelines are not traced."""
        execute = client.execute_command
        tracer = self.tracer

        async def traced(*args: Any, **options: Any) -> Any:
            span = _redis_span(tracer, _name(args[0]), 1)
            if span is None:
                return await execute(*args, **options)
            with trace.use_span(span, end_on_exit=True):
                return await execute(*args, **options)

        client.execute_command = traced

    def shutdown(self) -> None:
        """Export what is left, then stop."""
        self.provider.shutdown()


class _GrpcServerSpans(grpc.aio.ServerInterceptor):
    def __init__(self, tracer: Tracer) -> None:
        self.tracer = tracer

    async def intercept_service(
        self,
        continuation: Callable[
            [grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler[Any, Any] | None]
        ],
        details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[Any, Any] | None:
        handler = await continuation(details)
        if handler is None:
            return None
        # The API's own are served as streams of requests (`grpc_server.bounded_read`).
        kinds = (
            (handler.unary_unary, grpc.unary_unary_rpc_method_handler),
            (handler.unary_stream, grpc.unary_stream_rpc_method_handler),
            (handler.stream_unary, grpc.stream_unary_rpc_method_handler),
            (handler.stream_stream, grpc.stream_stream_rpc_method_handler),
        )
        behavior, factory = next((b, f) for b, f in kinds if b is not None)
        if not inspect.iscoroutinefunction(behavior):
            return handler
        call = cast(Callable[[Any, grpc.aio.ServicerContext[Any, Any]], Awaitable[Any]], behavior)
        service, _, method = details.method.lstrip("/").rpartition("/")
        carrier = {
            key: value for key, value in details.invocation_metadata or () if isinstance(value, str)
        }
        tracer = self.tracer

        async def traced(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
            with tracer.start_as_current_span(
                f"{service}/{method}",
                context=propagate.extract(carrier),
                kind=SpanKind.SERVER,
                attributes={"rpc.system": "grpc", "rpc.service": service, "rpc.method": method},
                record_exception=False,
                set_status_on_exception=False,
            ) as span:
                try:
                    return await call(request, context)
                finally:
                    code = context.code() or grpc.StatusCode.OK
                    if isinstance(code, grpc.StatusCode):
                        span.set_attribute("rpc.grpc.status_code", code.value[0])
                        if code in SERVER_FAULTS:
                            span.set_status(Status(StatusCode.ERROR, code.name))

        return factory(
            traced,
            request_deserializer=handler.request_deserializer,
            response_serializer=handler.response_serializer,
        )


SERVER_FAULTS = {
    grpc.StatusCode.INTERNAL,
    grpc.StatusCode.UNAVAILABLE,
    grpc.StatusCode.UNKNOWN,
    grpc.StatusCode.DATA_LOSS,
    grpc.StatusCode.DEADLINE_EXCEEDED,
}
"""Codes that mark a server span failed (OpenTelemetry's rule for gRPC servers)."""


def _http_server_spans(app: ASGIApp, tracer: Tracer) -> ASGIApp:
    """`app` (Litestar's, which names the route it picks in the scope) with a server span
    per HTTP request."""

    async def traced(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != ScopeType.HTTP:
            await app(scope, receive, send)
            return
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        method = scope["method"]
        with tracer.start_as_current_span(
            method,
            context=propagate.extract(headers),
            kind=SpanKind.SERVER,
            attributes={"http.request.method": method, "url.path": scope["path"]},
        ) as span:

            async def sending(message: Message) -> None:
                if message["type"] == "http.response.start":
                    status = int(message["status"])
                    span.set_attribute("http.response.status_code", status)
                    if status >= 500:
                        span.set_status(Status(StatusCode.ERROR))
                await send(message)

            try:
                await app(scope, receive, sending)
            finally:
                handler = scope.get("route_handler")
                if handler is not None and handler.paths:
                    route = min(handler.paths).replace(":str}", "}")
                    span.set_attribute("http.route", route)
                    span.update_name(f"{method} {route}")

    return traced


class TracedCommands:
    """The move path's Redis commands, each call a client span when a request is traced."""

    def __init__(self, commands: Commands, tracer: Tracer) -> None:
        self._commands = commands
        self._tracer = tracer

    async def call(self, *command: str | bytes | int | float) -> Any:
        span = _redis_span(self._tracer, _name(command[0]), 1)
        if span is None:
            return await self._commands.call(*command)
        with trace.use_span(span, end_on_exit=True):
            return await self._commands.call(*command)

    @property
    def generation(self) -> int:
        return self._commands.generation

    async def pipeline(self, commands: Sequence[Command], *, wait: Wait | None = None) -> list[Any]:
        names = sorted({_name(command[0]) for command in commands})
        name = names[0] if len(names) == 1 else "PIPELINE"
        span = _redis_span(self._tracer, name, len(commands))
        if span is None:
            return list(await self._commands.pipeline(commands, wait=wait))
        with trace.use_span(span, end_on_exit=True):
            replies = list(await self._commands.pipeline(commands, wait=wait))
            if any(isinstance(reply, Exception) for reply in replies):
                span.set_status(Status(StatusCode.ERROR))
            span.set_attribute("db.operation.names", names)
            return replies

    async def close(self) -> None:
        await self._commands.close()


def _redis_span(tracer: Tracer, name: str, count: int) -> trace.Span | None:
    """A client span for a Redis round trip, if a request is traced."""
    if not trace.get_current_span().get_span_context().is_valid:
        return None  # outside a request: no trace of its own
    return tracer.start_span(
        name,
        kind=SpanKind.CLIENT,
        attributes={
            "db.system": "redis",
            "db.operation.name": name,
            "db.operation.batch.size": count,
        },
    )


def _name(word: str | bytes | int | float) -> str:
    return (word.decode() if isinstance(word, bytes) else str(word)).upper()
