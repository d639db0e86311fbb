"""The API's one error type, the one table from reasons to gRPC and HTTP statuses, and the one
definition of the error body (which the gateway writes and the OpenAPI document describes).

A refusal is named by its reason, a stable UPPER_SNAKE_CASE word; the reason decides the
status on both transports (`REASON_CODES`), so the two can never disagree.
"""

from __future__ import annotations

from enum import Enum
from typing import Annotated, Any

import grpc
import msgspec

from genial import engine


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
    # A request not sent whole in time: refused by gRPC's handler, by HTTP's server itself.
    REQUEST_TIMEOUT = (grpc.StatusCode.DEADLINE_EXCEEDED, 408)

    @property
    def grpc(self) -> grpc.StatusCode:
        return self.value[0]

    @property
    def http(self) -> int:
        return self.value[1]


DOMAIN = "genial.games"
"""The `domain` of every google.rpc.ErrorInfo the API sends."""
RETRY_AFTER = "retry_after"
"""The ErrorInfo metadata that says in how many seconds to try again."""


class Reason:
    """Reasons of the service itself; refused moves carry the engine's reasons."""

    BAD_REQUEST = "BAD_REQUEST"
    BAD_GAME_ID = "BAD_GAME_ID"
    BAD_REQUEST_ID = "BAD_REQUEST_ID"
    BAD_DISPLAY_NAME = "BAD_DISPLAY_NAME"
    BAD_PAGE = "BAD_PAGE"
    BAD_TURN_TIMER = "BAD_TURN_TIMER"
    BAD_READ_MASK = "BAD_READ_MASK"
    REQUEST_TOO_LARGE = "REQUEST_TOO_LARGE"
    REQUEST_TIMEOUT = "REQUEST_TIMEOUT"
    NO_ROUTE = "NO_ROUTE"
    METHOD_NOT_ALLOWED = "METHOD_NOT_ALLOWED"
    GAME_NOT_FOUND = "GAME_NOT_FOUND"
    TOKEN_MISSING = "TOKEN_MISSING"
    TOKEN_MALFORMED = "TOKEN_MALFORMED"
    TOKEN_INVALID = "TOKEN_INVALID"
    TOKEN_EXPIRED = "TOKEN_EXPIRED"
    TOKEN_NOT_YET_VALID = "TOKEN_NOT_YET_VALID"
    TOKEN_BAD_SIGNATURE = "TOKEN_BAD_SIGNATURE"
    TOKEN_UNKNOWN_KEY = "TOKEN_UNKNOWN_KEY"
    TOKEN_BAD_ALGORITHM = "TOKEN_BAD_ALGORITHM"
    TOKEN_BAD_ISSUER = "TOKEN_BAD_ISSUER"
    TOKEN_BAD_AUDIENCE = "TOKEN_BAD_AUDIENCE"
    TOKEN_REVOKED = "TOKEN_REVOKED"
    API_KEY_UNKNOWN = "API_KEY_UNKNOWN"
    KEYS_UNAVAILABLE = "KEYS_UNAVAILABLE"
    BAD_DEVICE_ID = "BAD_DEVICE_ID"
    BAD_WEBHOOK = "BAD_WEBHOOK"
    WEBHOOKS_OFF = "WEBHOOKS_OFF"
    BAD_SEAT_RANGE = "BAD_SEAT_RANGE"
    BAD_PLAYER_ID = "BAD_PLAYER_ID"
    BAD_TICKET_ID = "BAD_TICKET_ID"
    TICKET_NOT_FOUND = "TICKET_NOT_FOUND"
    TOO_MANY_TICKETS = "TOO_MANY_TICKETS"
    ALREADY_SEATED = "ALREADY_SEATED"
    RESIGNED = "RESIGNED"
    GAME_NOT_OVER = "GAME_NOT_OVER"
    STALE_VERSION = "STALE_VERSION"
    CONTENTION = "CONTENTION"
    GAME_NOT_STARTED = "GAME_NOT_STARTED"
    GAME_FULL = "GAME_FULL"
    SEAT_TAKEN = "SEAT_TAKEN"
    NAME_TAKEN = "NAME_TAKEN"
    TOO_MANY_GAMES = "TOO_MANY_GAMES"
    TOO_MANY_STREAMS = "TOO_MANY_STREAMS"
    SLOW_READER = "SLOW_READER"
    STORE_FULL = "STORE_FULL"
    STORE_UNAVAILABLE = "STORE_UNAVAILABLE"
    DRAINING = "DRAINING"
    RATE_LIMITED = "RATE_LIMITED"
    INTERNAL = "INTERNAL"


_ENGINE_SETUP = (engine.Reason.BAD_OPTION, engine.Reason.BAD_SEAT, engine.Reason.UNKNOWN_GAME)
"""Engine reasons that refuse how a game is set up, not a move in it."""

REASON_CODES: dict[str, Code] = {
    **dict.fromkeys(
        (
            Reason.BAD_REQUEST,
            Reason.BAD_GAME_ID,
            Reason.BAD_REQUEST_ID,
            Reason.BAD_DISPLAY_NAME,
            Reason.BAD_PAGE,
            Reason.BAD_TURN_TIMER,
            Reason.BAD_READ_MASK,
            Reason.BAD_DEVICE_ID,
            Reason.BAD_WEBHOOK,
            Reason.BAD_SEAT_RANGE,
            Reason.BAD_PLAYER_ID,
            Reason.BAD_TICKET_ID,
            *_ENGINE_SETUP,
            # A move no game could take (the message itself is wrong), whatever the state.
            engine.Reason.MALFORMED_MOVE,
        ),
        Code.INVALID_ARGUMENT,
    ),
    **dict.fromkeys(
        (
            Reason.TOKEN_MISSING,
            Reason.TOKEN_MALFORMED,
            Reason.TOKEN_EXPIRED,
            Reason.TOKEN_NOT_YET_VALID,
            Reason.TOKEN_BAD_SIGNATURE,
            Reason.TOKEN_UNKNOWN_KEY,
            Reason.TOKEN_BAD_ALGORITHM,
            Reason.TOKEN_BAD_ISSUER,
            Reason.TOKEN_BAD_AUDIENCE,
            Reason.TOKEN_REVOKED,
            Reason.API_KEY_UNKNOWN,
        ),
        Code.UNAUTHENTICATED,
    ),
    Reason.TOKEN_INVALID: Code.PERMISSION_DENIED,
    Reason.GAME_NOT_FOUND: Code.NOT_FOUND,
    Reason.NO_ROUTE: Code.NOT_FOUND,
    Reason.TICKET_NOT_FOUND: Code.NOT_FOUND,
    Reason.STALE_VERSION: Code.ABORTED,
    Reason.CONTENTION: Code.ABORTED,
    Reason.GAME_NOT_STARTED: Code.FAILED_PRECONDITION,
    Reason.GAME_FULL: Code.FAILED_PRECONDITION,
    Reason.SEAT_TAKEN: Code.FAILED_PRECONDITION,
    Reason.NAME_TAKEN: Code.FAILED_PRECONDITION,
    Reason.ALREADY_SEATED: Code.FAILED_PRECONDITION,
    Reason.RESIGNED: Code.FAILED_PRECONDITION,
    Reason.GAME_NOT_OVER: Code.FAILED_PRECONDITION,
    Reason.WEBHOOKS_OFF: Code.FAILED_PRECONDITION,
    Reason.TOO_MANY_GAMES: Code.RESOURCE_EXHAUSTED,
    Reason.TOO_MANY_STREAMS: Code.RESOURCE_EXHAUSTED,
    Reason.TOO_MANY_TICKETS: Code.RESOURCE_EXHAUSTED,
    Reason.SLOW_READER: Code.RESOURCE_EXHAUSTED,
    Reason.RATE_LIMITED: Code.RESOURCE_EXHAUSTED,
    Reason.STORE_FULL: Code.UNAVAILABLE,
    Reason.STORE_UNAVAILABLE: Code.UNAVAILABLE,
    Reason.DRAINING: Code.UNAVAILABLE,
    Reason.KEYS_UNAVAILABLE: Code.UNAVAILABLE,
    Reason.REQUEST_TOO_LARGE: Code.REQUEST_TOO_LARGE,
    Reason.METHOD_NOT_ALLOWED: Code.METHOD_NOT_ALLOWED,
    Reason.REQUEST_TIMEOUT: Code.REQUEST_TIMEOUT,
    Reason.INTERNAL: Code.INTERNAL,
}
"""Every reason's status. Any other engine reason refuses a move the game's state does not
allow now (not your turn, no reroll left, ...): FAILED_PRECONDITION."""


def code_of(reason: str) -> Code:
    return REASON_CODES.get(reason, Code.FAILED_PRECONDITION)


class ApiError(Exception):
    """A request the API refuses: a stable reason (which decides the status), a message for
    people, and facts for programs (`metadata`, e.g. `current_version`)."""

    def __init__(self, reason: str, message: str, metadata: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.reason = reason
        self.code = code_of(reason)
        self.message = message
        self.metadata = metadata or {}

    @classmethod
    def from_engine(cls, err: engine.IllegalMove) -> ApiError:
        return cls(err.reason, err.message)

    def __repr__(self) -> str:
        return f"ApiError({self.code.name}, {self.reason}, {self.message!r})"


# ---- the error body, as the gateway writes it and the OpenAPI document describes it ------


class ErrorDetail(msgspec.Struct, forbid_unknown_fields=True):
    """Why a request was refused, as the gRPC API's google.rpc.Status and ErrorInfo say it."""

    code: Annotated[
        str,
        msgspec.Meta(
            description="The gRPC status code's name.",
            extra_json_schema={"enum": sorted({c.grpc.name for c in Code})},
        ),
    ]
    status: Annotated[int, msgspec.Meta(description="The HTTP status.")]
    message: Annotated[str, msgspec.Meta(description="What went wrong, for people.")]
    reason: Annotated[
        str, msgspec.Meta(description="Why, as a stable UPPER_SNAKE_CASE word for programs.")
    ]
    details: Annotated[
        dict[str, str],
        msgspec.Meta(description="Facts about the error, such as `current_version`."),
    ]


class Error(msgspec.Struct, forbid_unknown_fields=True):
    """What every answer that is not 2xx carries."""

    error: ErrorDetail


def error_body(err: ApiError) -> bytes:
    detail = ErrorDetail(err.code.grpc.name, err.code.http, err.message, err.reason, err.metadata)
    return msgspec.json.encode(Error(detail))


def error_schemas(ref_template: str) -> dict[str, Any]:
    """The JSON schemas of the error body (`Error` and what it holds), for OpenAPI."""
    _, components = msgspec.json.schema_components([Error], ref_template=ref_template)
    return components
