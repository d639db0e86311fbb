"""The one error type of the API and its mapping to gRPC and HTTP, in one place."""

from __future__ import annotations

from enum import Enum

import grpc


class Code(Enum):
    """gRPC status codes the API uses, with the HTTP status each maps to. A gRPC code
    appears twice where HTTP tells two cases apart."""

    INVALID_ARGUMENT = (grpc.StatusCode.INVALID_ARGUMENT, 400)
    UNAUTHENTICATED = (grpc.StatusCode.UNAUTHENTICATED, 401)
    PERMISSION_DENIED = (grpc.StatusCode.PERMISSION_DENIED, 403)
    NOT_FOUND = (grpc.StatusCode.NOT_FOUND, 404)
    ABORTED = (grpc.StatusCode.ABORTED, 409)
    FAILED_PRECONDITION = (grpc.StatusCode.FAILED_PRECONDITION, 412)
    RESOURCE_EXHAUSTED = (grpc.StatusCode.RESOURCE_EXHAUSTED, 429)
    UNIMPLEMENTED = (grpc.StatusCode.UNIMPLEMENTED, 501)
    UNAVAILABLE = (grpc.StatusCode.UNAVAILABLE, 503)
    INTERNAL = (grpc.StatusCode.INTERNAL, 500)
    # Only the HTTP gateway raises these two: gRPC itself refuses what they stand for.
    REQUEST_TOO_LARGE = (grpc.StatusCode.RESOURCE_EXHAUSTED, 413)
    METHOD_NOT_ALLOWED = (grpc.StatusCode.UNIMPLEMENTED, 405)

    @property
    def grpc(self) -> grpc.StatusCode:
        return self.value[0]

    @property
    def http(self) -> int:
        return self.value[1]


DOMAIN = "genial.games"
"""The `domain` of every google.rpc.ErrorInfo the API sends."""


class ApiError(Exception):
    """A request the API refuses: a status code, a stable reason and a message for people."""

    def __init__(
        self, code: Code, reason: str, message: str, metadata: dict[str, str] | None = None
    ) -> None:
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.message = message
        self.metadata = metadata or {}

    def __repr__(self) -> str:
        return f"ApiError({self.code.name}, {self.reason}, {self.message!r})"


class Reason:
    """Reasons of the service itself; illegal moves carry the engine's reasons."""

    BAD_REQUEST = "BAD_REQUEST"
    BAD_GAME_ID = "BAD_GAME_ID"
    BAD_REQUEST_ID = "BAD_REQUEST_ID"
    BAD_DISPLAY_NAME = "BAD_DISPLAY_NAME"
    BAD_PAGE = "BAD_PAGE"
    REQUEST_TOO_LARGE = "REQUEST_TOO_LARGE"
    NO_ROUTE = "NO_ROUTE"
    METHOD_NOT_ALLOWED = "METHOD_NOT_ALLOWED"
    GAME_NOT_FOUND = "GAME_NOT_FOUND"
    TOKEN_MISSING = "TOKEN_MISSING"
    TOKEN_INVALID = "TOKEN_INVALID"
    STALE_VERSION = "STALE_VERSION"
    CONTENTION = "CONTENTION"
    GAME_NOT_STARTED = "GAME_NOT_STARTED"
    GAME_FULL = "GAME_FULL"
    SEAT_TAKEN = "SEAT_TAKEN"
    BAD_TURN_TIMER = "BAD_TURN_TIMER"
    STORE_UNAVAILABLE = "STORE_UNAVAILABLE"
    INTERNAL = "INTERNAL"
    RATE_LIMITED = "RATE_LIMITED"
