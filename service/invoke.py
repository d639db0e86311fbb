"""The one path every call takes, whatever its transport: the caller's credential, the rate
limit, the request, the use case, its latency, and anything raised mapped to an `ApiError`.

A transport turns its request into (authorization, client address, a way to decode the
message), calls its RPC's `Endpoint`, and writes the answer or the `ApiError` its own way.
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable

from google.protobuf.descriptor import Descriptor
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass
from redis.exceptions import RedisError

from genial.v1 import game_service_pb2 as api

from . import convert
from .app import StreamCase, UseCase
from .credentials import principal
from .errors import ApiError, Reason
from .limits import RateLimiter
from .metrics import METRICS

log = logging.getLogger("genial.invoke")

SERVICE = api.DESCRIPTOR.services_by_name["GameService"]
SERVICE_NAME = SERVICE.full_name

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
    if isinstance(exc, (RedisError, OSError, TimeoutError)):
        log.warning("store unavailable: %s", type(exc).__name__)
        return ApiError(Reason.STORE_UNAVAILABLE, "storage is unavailable; retry")
    log.exception("unexpected error")
    return ApiError(Reason.INTERNAL, "internal error")


def refused(transport: str, exc: BaseException) -> ApiError:
    """`exc` as the error the client gets, counted."""
    err = as_api_error(exc)
    METRICS.errors.labels(transport, err.code.name, err.reason).inc()
    return err


class Endpoint:
    """One RPC as a transport calls it."""

    def __init__(
        self,
        transport: str,
        method: str,
        limiter: RateLimiter,
        unary: UseCase | None = None,
        stream: StreamCase | None = None,
    ) -> None:
        self.transport = transport
        self.method = method
        self.limiter = limiter
        self._unary = unary
        self._stream = stream
        self.streams = stream is not None
        """Whether the RPC is server-streaming."""
        self._latency = METRICS.latency.labels(transport, method)  # looked up once

    def refused(self, exc: BaseException) -> ApiError:
        return refused(self.transport, exc)

    async def unary(
        self, authorization: str | None, address: str | None, decode: Decode
    ) -> Message:
        """The answer, or the `ApiError` to send instead."""
        assert self._unary is not None
        start = time.perf_counter()
        try:
            caller = principal(authorization)
            self.limiter.admit(caller.rate_key, address)
            return await self._unary(await decode(), caller)
        except Exception as exc:
            raise self.refused(exc) from None
        finally:
            self._latency.observe(time.perf_counter() - start)

    async def stream(
        self, authorization: str | None, address: str | None, decode: Decode
    ) -> AsyncIterator[Message]:
        """The answers, then the end of the stream or the `ApiError` that ends it."""
        assert self._stream is not None
        try:
            caller = principal(authorization)
            self.limiter.admit(caller.rate_key, address)
            async for answer in self._stream(await decode(), caller):
                yield answer
        except Exception as exc:
            raise self.refused(exc) from None


def endpoints(
    transport: str,
    limiter: RateLimiter,
    unary: dict[str, UseCase],
    streams: dict[str, StreamCase],
) -> dict[str, Endpoint]:
    """An endpoint for every RPC of the service, by name; an RPC without a use case is a
    bug caught at start."""
    found: dict[str, Endpoint] = {}
    for method in SERVICE.methods:
        if method.server_streaming:
            found[method.name] = Endpoint(
                transport, method.name, limiter, stream=streams[method.name]
            )
        else:
            found[method.name] = Endpoint(transport, method.name, limiter, unary=unary[method.name])
    return found
