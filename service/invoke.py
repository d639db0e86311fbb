"""The one path every call takes, whatever its transport and service: the caller's
credential, the rate limit, the request, the use case, its latency, and anything raised
mapped to an `ApiError`.

A transport turns its request into (authorization, client address, a way to decode the
message), calls its RPC's `Endpoint`, and writes the answer or the `ApiError` its own way.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from google.protobuf.descriptor import Descriptor, MethodDescriptor, ServiceDescriptor
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from genial.v1 import (
    game_service_pb2,
    match_service_pb2,
    player_service_pb2,
    webhook_service_pb2,
)

from . import convert
from .addresses import ClientAddresses
from .credentials import Credentials, Principal
from .errors import ApiError, Reason
from .limits import RateLimiter
from .metrics import METRICS

log = logging.getLogger("genial.invoke")

SERVICES: tuple[ServiceDescriptor, ...] = tuple(
    service
    for module in (game_service_pb2, player_service_pb2, webhook_service_pb2, match_service_pb2)
    for service in module.DESCRIPTOR.services_by_name.values()
)
"""Every service of the API, in the order the documents list them."""
SERVICE = game_service_pb2.DESCRIPTOR.services_by_name["GameService"]
SERVICE_NAME = SERVICE.full_name
"""The game service, the one health checks and deployments name."""


def methods() -> list[MethodDescriptor]:
    """Every RPC of the API; names are unique across its services (the use case table and
    the metrics know an RPC by its name alone)."""
    found = [method for service in SERVICES for method in service.methods]
    names = [method.name for method in found]
    if len(set(names)) != len(names):
        raise ValueError(f"two services have an RPC of the same name: {sorted(names)}")
    return found


UseCase = Callable[[Any, Principal], Awaitable[Message]]
"""An RPC's use case: the request message and the caller in, the response out."""
StreamCase = Callable[[Any, Principal], AsyncIterator[Message]]
"""A server-streaming RPC's use case."""
Decode = Callable[[], Awaitable[Message]]
"""Reads the request message (after the caller is admitted), or raises an `ApiError`."""


def message_class(descriptor: Descriptor) -> type[Message]:
    return GetMessageClass(descriptor)


def as_api_error(exc: BaseException) -> ApiError:
    """Anything a call raised, as the error the client gets. Never a stack trace."""
    if isinstance(exc, ApiError):
        return exc
    if isinstance(exc, convert.BadMessage):
        return ApiError(Reason.BAD_REQUEST, str(exc))
    if isinstance(exc, ResponseError) and str(exc).startswith("OOM"):
        METRICS.redis_errors.labels("oom").inc()
        return ApiError(Reason.STORE_FULL, "storage is full; retry later")
    if isinstance(exc, (RedisError, OSError, TimeoutError)):
        kind = "timeout" if isinstance(exc, (RedisTimeoutError, TimeoutError)) else "connection"
        if not isinstance(exc, (RedisConnectionError, OSError, TimeoutError)):
            kind = "other"
        METRICS.redis_errors.labels(kind).inc()
        log.warning("store unavailable: %s", type(exc).__name__)
        return ApiError(Reason.STORE_UNAVAILABLE, "storage is unavailable; retry")
    log.exception("unexpected error")
    return ApiError(Reason.INTERNAL, "internal error")


def refused(transport: str, exc: BaseException) -> ApiError:
    """`exc` as the error the client gets, counted."""
    err = as_api_error(exc)
    METRICS.errors.labels(transport, err.code.name, err.reason).inc()
    return err


class StreamSlots:
    """The watch streams a worker serves, bounded in all and per client address."""

    def __init__(self, most: int, most_per_address: int) -> None:
        self.most = most
        self.most_per_address = most_per_address
        self.open = 0
        self._by_address: Counter[str | None] = Counter()
        METRICS.watch_streams_limit.set(most)

    def take(self, address: str | None) -> None:
        if self.open >= self.most:
            raise ApiError(Reason.TOO_MANY_STREAMS, "this worker follows all it can; retry")
        if self._by_address[address] >= self.most_per_address:
            raise ApiError(
                Reason.TOO_MANY_STREAMS,
                f"at most {self.most_per_address} watch streams a client address",
            )
        self.open += 1
        self._by_address[address] += 1

    def _give_back(self, address: str | None) -> None:
        self.open -= 1
        self._by_address[address] -= 1
        if not self._by_address[address]:
            del self._by_address[address]

    @contextmanager
    def held(self, address: str | None) -> Iterator[None]:
        """A slot for `address` while the block runs (`ApiError` TOO_MANY_STREAMS if none
        is free): every stream that may stay open for long takes one this way."""
        self.take(address)
        try:
            yield
        finally:
            self._give_back(address)


@dataclass(frozen=True, slots=True)
class Gate:
    """What a call passes through before its use case, whatever its RPC."""

    limiter: RateLimiter
    addresses: ClientAddresses
    streams: StreamSlots
    credentials: Credentials


class Endpoint:
    """One RPC as a transport calls it: with the `authorization` value, the connection's
    peer address and the X-Forwarded-For it sent (believed only from trusted proxies)."""

    def __init__(
        self,
        transport: str,
        method: str,
        gate: Gate,
        unary: UseCase | None = None,
        stream: StreamCase | None = None,
    ) -> None:
        self.transport = transport
        self.method = method
        self.gate = gate
        self._unary = unary
        self._stream = stream
        self.streams = stream is not None
        """Whether the RPC is server-streaming."""
        self._latency = METRICS.latency.labels(transport, method)  # looked up once
        self._open_streams = METRICS.watch_streams.labels(transport)

    def refused(self, exc: BaseException) -> ApiError:
        return refused(self.transport, exc)

    async def _admit(self, authorization: str | None, address: str | None) -> Principal:
        caller = await self.gate.credentials.principal(authorization, address)
        self.gate.limiter.admit(caller.rate_key, address)
        return caller

    async def unary(
        self, authorization: str | None, peer: str | None, forwarded: str | None, decode: Decode
    ) -> Message:
        """The answer, or the `ApiError` to send instead."""
        assert self._unary is not None
        start = time.perf_counter()
        try:
            caller = await self._admit(authorization, self.gate.addresses.client(peer, forwarded))
            return await self._unary(await decode(), caller)
        except Exception as exc:
            raise self.refused(exc) from None
        finally:
            self._latency.observe(time.perf_counter() - start)

    async def stream(
        self, authorization: str | None, peer: str | None, forwarded: str | None, decode: Decode
    ) -> AsyncGenerator[Message, None]:
        """The answers, then the end of the stream or the `ApiError` that ends it."""
        assert self._stream is not None
        address = self.gate.addresses.client(peer, forwarded)
        try:
            caller = await self._admit(authorization, address)
            with self.gate.streams.held(address):
                self._open_streams.inc()
                try:
                    async for answer in self._stream(await decode(), caller):
                        yield answer
                finally:
                    self._open_streams.dec()
        except Exception as exc:
            raise self.refused(exc) from None


def endpoints(
    transport: str, gate: Gate, unary: dict[str, UseCase], streams: dict[str, StreamCase]
) -> dict[str, Endpoint]:
    """An endpoint for every RPC of every service, by name; an RPC without a use case is a
    bug caught at start."""
    found: dict[str, Endpoint] = {}
    for method in methods():
        if method.server_streaming:
            found[method.name] = Endpoint(transport, method.name, gate, stream=streams[method.name])
        else:
            found[method.name] = Endpoint(transport, method.name, gate, unary=unary[method.name])
    return found
