"""What the gRPC and the HTTP transport share: the service's descriptor, the use case each
RPC calls, the bearer token, and the one mapping from anything raised to an `ApiError`."""

from __future__ import annotations

import logging
import re
from collections.abc import AsyncGenerator, Awaitable, Callable

from google.protobuf.descriptor import Descriptor
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass
from redis.exceptions import RedisError

from genial.v1 import game_service_pb2 as api

from . import convert
from .errors import ApiError, Code, Reason

log = logging.getLogger("genial.transport")

SERVICE = api.DESCRIPTOR.services_by_name["GameService"]
SERVICE_NAME = SERVICE.full_name

Admit = Callable[[str | None, str | None], None]
"""Counts a request of a token and a client address, or refuses it (rate limits)."""
RETRY_AFTER = "retry_after"
"""The ErrorInfo metadata that says in how many seconds to try again."""

Handler = Callable[[Message, str | None], Awaitable[Message]]
StreamHandler = Callable[[Message, str | None], AsyncGenerator[Message, None]]


def snake(name: str) -> str:
    """The `GameApp` method of an RPC: MakeMove is make_move."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def message_class(descriptor: Descriptor) -> type[Message]:
    return GetMessageClass(descriptor)


def bearer_token(authorization: str | None) -> str | None:
    """The token of an `authorization: Bearer <token>` value, if any (the scheme is
    case-insensitive, as HTTP has it)."""
    scheme, _, token = (authorization or "").partition(" ")
    if scheme.lower() != "bearer":
        return None
    return token.strip() or None


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
