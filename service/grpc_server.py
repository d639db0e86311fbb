"""The gRPC transport: every RPC of the API's services through its `Endpoint`; this module
only reads the metadata, decodes and writes the status."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn, cast

import grpc
from google.protobuf.message import Message
from google.rpc import error_details_pb2, status_pb2
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_status import rpc_status

from . import reflection
from .app import GameApp
from .errors import DOMAIN, RETRY_AFTER, ApiError, Reason
from .invoke import SERVICES, Endpoint, Gate, endpoints, message_class, refused
from .settings import Settings


def metadata_value(metadata: grpc.aio.Metadata | None, name: str) -> str | None:
    """The (first) value of a text metadata key, if any."""
    for key, value in metadata or ():
        if key == name and isinstance(value, str):
            return value
    return None


def peer_address(peer: str) -> str:
    """The client's address of a gRPC peer string ("ipv4:1.2.3.4:5678", "ipv6:[::1]:5678")."""
    address = peer.split(":", 1)[-1]
    return address.rsplit(":", 1)[0].strip("[]") if ":" in address else address


class _Status(grpc.Status):
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


def _decoder(request_class: type[Message]) -> Callable[[bytes], Message | Undecodable]:
    def decode(raw: bytes) -> Message | Undecodable:
        try:
            return request_class.FromString(raw)
        except Exception as err:  # DecodeError, RecursionError: whatever the bytes cause
            return Undecodable(err)

    return decode


def _decoded(request: Message | Undecodable) -> Callable[[], Awaitable[Message]]:
    async def decode() -> Message:
        if isinstance(request, Undecodable):
            raise ApiError(Reason.BAD_REQUEST, f"undecodable request: {request.error}")
        return request

    return decode


Behavior = Callable[[Any, grpc.aio.ServicerContext[Any, Any]], Awaitable[Any]]


async def _request_in_time(context: grpc.aio.ServicerContext[Any, Any], seconds: float) -> Any:
    """The call's next request message (or `grpc.aio.EOF`), due whole within `seconds`."""
    try:
        async with asyncio.timeout(seconds):
            return await context.read()
    except TimeoutError:
        raise ApiError(
            Reason.REQUEST_TIMEOUT, f"the request did not come whole within {seconds:g} s"
        ) from None


Admit = Callable[[grpc.aio.ServicerContext[Any, Any]], None]
"""Counts a request read, or refuses it with `ApiError` (a rate limit)."""


async def _requests_in_time(
    context: grpc.aio.ServicerContext[Any, Any], seconds: float, admit: Admit | None
) -> AsyncIterator[Any]:
    """A stream's requests, each due within `seconds` of the handler asking for it."""
    while (request := await _request_in_time(context, seconds)) is not grpc.aio.EOF:
        if admit is not None:
            admit(context)
        yield request


async def _refuse(context: grpc.aio.ServicerContext[Any, Any], err: ApiError) -> NoReturn:
    await context.abort_with_status(grpc_status(refused("grpc", err)))
    raise AssertionError("abort_with_status raises")


def bounded_read(
    handler: grpc.RpcMethodHandler[Any, Any], seconds: float, admit: Admit | None = None
) -> grpc.RpcMethodHandler[Any, Any]:
    """`handler`, each request it reads due within `seconds` (DEADLINE_EXCEEDED,
    `REQUEST_TIMEOUT`, after that): a unary call's from the call's start, a stream's each
    from when the handler asks for it. grpc reads a unary request before the handler runs,
    for as long as the client takes, and a stream of requests waits as long as the client
    likes: a call whose message never came held its memory (26-29 KB) and kept its
    connection from ever being idle. So every handler is served as one that streams
    requests and reads them itself: the same bytes on the wire. With `admit`, each request
    read is counted by it first."""
    options: dict[str, Any] = {
        "request_deserializer": handler.request_deserializer,
        "response_serializer": handler.response_serializer,
    }
    if handler.stream_stream is not None and inspect.isasyncgenfunction(handler.stream_stream):
        answers = cast(Callable[..., AsyncIterator[Any]], handler.stream_stream)

        async def paced(_requests: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
            try:
                async for answer in answers(_requests_in_time(context, seconds, admit), context):
                    yield answer
            except ApiError as err:
                await _refuse(context, err)

        return grpc.stream_stream_rpc_method_handler(paced, **options)
    behavior = handler.unary_unary or handler.unary_stream
    if not inspect.iscoroutinefunction(behavior):
        raise ValueError(f"{behavior!r}: not a handler kind served here")
    call = cast(Behavior, behavior)

    async def bounded(_requests: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
        try:
            request = await _request_in_time(context, seconds)
            if admit is not None and request is not grpc.aio.EOF:
                admit(context)
        except ApiError as err:
            await _refuse(context, err)
        if request is grpc.aio.EOF:  # grpc alone waited for a status that never came
            # Also where grpc refused a request over the size limit, and answered it itself.
            ended = ApiError(
                Reason.BAD_REQUEST, "the call ended without a request (or a whole one)"
            )
            await _refuse(context, ended)
        return await call(request, context)

    if handler.unary_unary is not None:
        return grpc.stream_unary_rpc_method_handler(bounded, **options)
    return grpc.stream_stream_rpc_method_handler(bounded, **options)


def _counted(
    handler: grpc.RpcMethodHandler[Any, Any], gate: Gate
) -> grpc.RpcMethodHandler[Any, Any]:
    """`handler`'s streams (health's Watch) counted with the API's watches, per client
    address and in all (`StreamSlots`): such a stream may rightly say nothing for hours, so
    only their number bounds what they hold."""
    watch = cast(Behavior, handler.unary_stream)

    async def counted(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
        try:
            with gate.streams.held(_client_address(context, gate)):
                return await watch(request, context)
        except ApiError as err:
            await _refuse(context, err)

    return grpc.unary_stream_rpc_method_handler(
        counted,
        request_deserializer=handler.request_deserializer,
        response_serializer=handler.response_serializer,
    )


def _client_address(context: grpc.aio.ServicerContext[Any, Any], gate: Gate) -> str | None:
    forwarded = metadata_value(context.invocation_metadata(), "x-forwarded-for")
    return gate.addresses.client(peer_address(context.peer()), forwarded)


class _Guarded(grpc.GenericRpcHandler):
    """Another service's handlers (health's, reflection's), each request due in time
    (`bounded_read`) and counted by its client address's rate limit as the API's are (a
    reflection stream's every request: else one stream asked for descriptors without end),
    each stream of answers to a unary request counted (`_counted`)."""

    def __init__(self, service: grpc.GenericRpcHandler, seconds: float, gate: Gate) -> None:
        self._service = service
        self._seconds = seconds
        self._gate = gate
        self._guarded: dict[str, grpc.RpcMethodHandler[Any, Any]] = {}

    def service(
        self, handler_call_details: grpc.HandlerCallDetails
    ) -> grpc.RpcMethodHandler[Any, Any] | None:
        method = handler_call_details.method
        if method not in self._guarded:
            handler = self._service.service(handler_call_details)
            if handler is None:
                return None
            if handler.unary_stream is not None:
                handler = _counted(handler, self._gate)
            self._guarded[method] = bounded_read(handler, self._seconds, self._admit)
        return self._guarded[method]

    def _admit(self, context: grpc.aio.ServicerContext[Any, Any]) -> None:
        self._gate.limiter.admit(None, _client_address(context, self._gate))


class _Registered:
    """What a generated `add_*Servicer_to_server` registers, taken in place of a server."""

    def __init__(self) -> None:
        self.services: list[grpc.GenericRpcHandler] = []

    def add_generic_rpc_handlers(self, services: Iterable[grpc.GenericRpcHandler]) -> None:
        self.services += services

    def add_registered_method_handlers(self, *_args: Any) -> None:
        """grpc's faster lookup of the same handlers: the generic ones serve them."""


def rpc_handler(
    endpoint: Endpoint,
    request_class: type[Message],
    write_timeout: float = 30.0,
    read_timeout: float = 10.0,
) -> grpc.RpcMethodHandler[Any, Any]:
    """The gRPC handler of one endpoint (unary, or server-streaming if it streams), its
    request due within `read_timeout` seconds (`bounded_read`). A stream whose client leaves
    an answer unread for `write_timeout` seconds ends with RESOURCE_EXHAUSTED
    (`SLOW_READER`): it resumes from its last version."""
    options: dict[str, Any] = {
        "request_deserializer": _decoder(request_class),
        "response_serializer": lambda m: m.SerializeToString(),
    }

    def call(request: Message | Undecodable, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
        metadata = context.invocation_metadata()
        return (
            metadata_value(metadata, "authorization"),
            peer_address(context.peer()),
            metadata_value(metadata, "x-forwarded-for"),
            _decoded(request),
        )

    async def unary(
        request: Message | Undecodable, context: grpc.aio.ServicerContext[Any, Any]
    ) -> Message:
        try:
            return await endpoint.unary(*call(request, context))
        except ApiError as err:
            await context.abort_with_status(grpc_status(err))
            raise AssertionError("abort_with_status raises") from None

    async def stream(
        request: Message | Undecodable, context: grpc.aio.ServicerContext[Any, Any]
    ) -> None:
        answers = endpoint.stream(*call(request, context))
        try:
            async for answer in answers:
                try:
                    await asyncio.wait_for(context.write(answer), write_timeout)
                except TimeoutError:
                    raise endpoint.refused(
                        ApiError(Reason.SLOW_READER, "answers were left unread; resume")
                    ) from None
        except ApiError as err:
            await context.abort_with_status(grpc_status(err))
        finally:
            await answers.aclose()

    if endpoint.streams:
        return bounded_read(grpc.unary_stream_rpc_method_handler(stream, **options), read_timeout)
    return bounded_read(grpc.unary_unary_rpc_method_handler(unary, **options), read_timeout)


def service_handlers(app: GameApp) -> list[grpc.GenericRpcHandler]:
    """Handlers for every RPC of every service in the proto, built from the descriptors."""
    found = endpoints("grpc", app.gate, app.unary, app.streams)
    write, read = app.settings.write_stall_seconds, app.settings.request_read_seconds
    return [
        grpc.method_handlers_generic_handler(
            service.full_name,
            {
                method.name: rpc_handler(
                    found[method.name], message_class(method.input_type), write, read
                )
                for method in service.methods
            },
        )
        for service in SERVICES
    ]


def server_options(settings: Settings) -> list[tuple[str, int]]:
    """grpc's limits for a public endpoint: how big a request and its metadata, how many
    streams a connection, how long a handshake, an idle connection and any connection live,
    and keep-alive pings both ways."""
    return [
        ("grpc.max_receive_message_length", settings.max_request_bytes),
        ("grpc.max_metadata_size", settings.max_header_bytes),
        ("grpc.max_concurrent_streams", settings.max_streams_per_connection),
        # Calls that arrived and wait for the event loop to take them up: grpc cancels
        # those beyond 1,000 (3,000 at most) by default, so that a herd of watchers
        # reconnecting at once lost a third of its streams. Up to max_streams may wait.
        ("grpc.server.max_pending_requests", settings.max_streams),
        ("grpc.server.max_pending_requests_hard_limit", settings.max_streams),
        ("grpc.server_handshake_timeout_ms", int(settings.request_read_seconds * 1000)),
        # grpc looks once a period for a call since its last look: a connection closed
        # one to two periods after its last call (300 s idle meant up to 600). Half a
        # period makes the setting the most an idle connection is kept.
        ("grpc.max_connection_idle_ms", int(settings.grpc_idle_seconds * 500)),
        # grpc reads 0 as "now"; for ever is its largest value.
        ("grpc.max_connection_age_ms", int(settings.grpc_max_age_seconds * 1000) or 2**31 - 1),
        ("grpc.max_connection_age_grace_ms", int(settings.drain_seconds * 1000)),
        ("grpc.keepalive_time_ms", 30_000),
        ("grpc.keepalive_timeout_ms", 10_000),
        ("grpc.keepalive_permit_without_calls", 1),
        # Clients may ping every 10 s, even between calls (grpc-js and grpcio default to
        # none; Android's OkHttp to 30 s+), and are told off beyond that.
        ("grpc.http2.min_ping_interval_without_data_ms", 10_000),
        ("grpc.http2.max_ping_strikes", 2),
        # The port is shared only by this worker's own servers (`start_grpc`): with one,
        # a second process that binds it by mistake fails rather than takes half the calls.
        ("grpc.so_reuseport", int(settings.grpc_servers > 1)),
    ]


@dataclass(frozen=True, slots=True)
class GrpcServing:
    """The gRPC port: its servers, bound to it together, and their one health service."""

    servers: tuple[grpc.aio.Server, ...]
    port: int
    health: health.aio.HealthServicer

    async def set_health(self, status: int) -> None:
        """The status of the server as a whole ("") and of every service of the API."""
        for name in ("", *(service.full_name for service in SERVICES)):
            await self.health.set(name, status)

    async def stop(self, grace: float) -> None:
        await asyncio.gather(*(server.stop(grace) for server in self.servers))


async def start_grpc(
    app: GameApp,
    host: str,
    port: int,
    extra_handlers: Iterable[grpc.GenericRpcHandler] = (),
    credentials: Callable[[], grpc.ServerCredentials] | None = None,
    interceptors: Sequence[grpc.aio.ServerInterceptor] = (),
) -> GrpcServing:
    """Start serving, over TLS with credentials that `credentials` makes (one for each server:
    a certificate's reload reaches each through its own), through `interceptors`, with
    `grpc_servers` grpc.aio servers on the one port (`SO_REUSEPORT`: the kernel deals the
    connections out among them).

    A grpc.aio server takes up one call at a time: it asks the gRPC core for the next only
    when the last has reached the event loop, by way of the core's poller thread. Alone, it
    left the loop idle between calls while moves waited in the core, and each move's Redis
    write went out on its own; with several, calls reach the loop together
    (docs/performance.md, "Round eight")."""
    if app.settings.grpc_servers < 1:
        raise ValueError(f"grpc_servers is at least 1, not {app.settings.grpc_servers}")
    health_servicer = health.aio.HealthServicer()
    registered = _Registered()
    # Only the two registration methods are called on what stands in for the server.
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, cast(grpc.aio.Server, registered))
    names = (*(s.full_name for s in SERVICES), health.SERVICE_NAME)
    others = [*registered.services, *reflection.handlers(names)]
    read = app.settings.request_read_seconds
    handlers = (
        *service_handlers(app),
        *(_Guarded(service, read, app.gate) for service in others),
        *extra_handlers,
    )
    servers: list[grpc.aio.Server] = []
    bound = port
    for _ in range(app.settings.grpc_servers):
        server = grpc.aio.server(options=server_options(app.settings), interceptors=interceptors)
        server.add_generic_rpc_handlers(handlers)
        address = f"{host}:{bound}"  # the first binds the port asked for, the rest its own
        if credentials is None:
            bound = server.add_insecure_port(address)
        else:
            bound = server.add_secure_port(address, credentials())
        await server.start()
        servers.append(server)
    serving = GrpcServing(tuple(servers), bound, health_servicer)
    await serving.set_health(health_pb2.HealthCheckResponse.SERVING)
    return serving
