"""The HTTP/JSON transport (the REST gateway): every RPC of the API's services at the route
its `google.api.http` annotation gives (`routes`), calling the `GameApp` use case of the
same name, with the same error mapping as gRPC; WatchGame and WatchPlayer as Server-Sent
Events.

Like the gRPC transport it only decodes, calls and encodes. Beside the API it serves the
OpenAPI document (/openapi.json) and what `web` serves (the web client, /docs), each of
those two unless a setting turns it off. Health, readiness and metrics are on the admin
port (`admin`), never here.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Sequence
from functools import partial
from typing import Any, cast
from urllib.parse import quote, unquote

import msgspec
from google.protobuf import json_format
from google.protobuf.message import Message
from litestar import Litestar, Request, Response, get
from litestar.enums import HttpMethod, ScopeType
from litestar.exceptions import HTTPException, MethodNotAllowedException, NotFoundException
from litestar.handlers import HTTPRouteHandler
from litestar.response import Stream
from litestar.types import (
    ASGIApp,
    HTTPResponseBodyEvent,
    HTTPResponseStartEvent,
    Receive,
    Scope,
    Send,
)

from genial.v1 import game_service_pb2 as api
from genial.v1 import player_service_pb2 as pb

from . import invoke, json_codec, masks, openapi, web
from .app import GameApp
from .errors import RETRY_AFTER, ApiError, Reason, error_body
from .routes import ROUTES, VARIABLE, Route

JSON = "application/json"
JSON_BYTES = JSON.encode()
MAX_JSON_DEPTH = 32
"""Nesting no request needs; deeper JSON is refused before it is parsed."""
EVENT_ID = re.compile(openapi.EVENT_ID)
STRINGS = re.compile(rb'"(?:[^"\\]|\\.)*"')
BRACKETS = re.compile(rb"[][{}]")


def create_app(
    app: GameApp,
    max_request_bytes: int,
    closing: asyncio.Event,
    extra_handlers: Sequence[HTTPRouteHandler] = (),
    wrap: Callable[[ASGIApp], ASGIApp] | None = None,
) -> ASGIApp:
    """The gateway for `app`, as an ASGI application; setting `closing` ends the streams.
    `wrap` goes around the router, which leaves the route it picked in the scope (tracing
    names its spans by it)."""
    document = openapi.render(openapi.document(openapi.load_descriptors())).encode()

    @get("/openapi.json")
    async def openapi_json() -> Response[bytes]:
        return Response(document, media_type=JSON)

    handlers: list[HTTPRouteHandler] = [openapi_json]
    # The web client at /, and /docs, unless turned off.
    handlers += web.handlers(app.settings.serve_web, app.settings.serve_docs)
    handlers += extra_handlers
    found = invoke.endpoints("http", app.gate, app.unary, app.streams)
    for route in ROUTES:
        endpoint = found[route.method.name]
        handle: Callable[[Request[Any, Any, Any]], Awaitable[Any]]
        if endpoint.streams:
            handle = _stream(route, endpoint, max_request_bytes, closing)
        else:
            handle = unary_handler(endpoint, partial(_decode, route=route, limit=max_request_bytes))
        path = VARIABLE.sub(r"{\1:str}", route.template)
        # 200 for every answer, as gRPC transcoding has it (Litestar's default for POST is 201).
        route_handler = HTTPRouteHandler(
            path, http_method=HttpMethod(route.verb), name=route.method.name, status_code=200
        )
        handlers.append(route_handler(handle))
    gateway = Litestar(
        handlers,
        exception_handlers={Exception: _on_exception},
        openapi_config=None,  # the document is ours, from the proto
        cors_config=web.cors_config(app.settings),
        logging_config=None,
    )
    return _one_segment_per_variable(wrap(gateway) if wrap else gateway)


# ---- the API ------------------------------------------------------------------------------


CALLER_HEADERS = frozenset((b"authorization", b"x-forwarded-for"))
CONTENT_LENGTH = frozenset((b"content-length",))


def _first_values(request: Request[Any, Any, Any], names: frozenset[bytes]) -> dict[bytes, str]:
    """The first value of each header of `names` the request has, as gRPC's metadata is
    read; off the ASGI scope (whose names are lower case): Litestar's headers object, a
    case-insensitive multidict built per request, costs more than this scan."""
    found: dict[bytes, str] = {}
    for name, value in request.scope["headers"]:
        if name in names and name not in found:
            found[name] = value.decode("latin-1")
    return found


def caller(request: Request[Any, Any, Any]) -> tuple[str | None, str | None, str | None]:
    """What the invoke path needs to know of a request's sender: its authorization value,
    its connection's peer address and what X-Forwarded-For claims."""
    found = _first_values(request, CALLER_HEADERS)
    client = request.scope.get("client")
    peer = client[0] if client else None
    return found.get(b"authorization"), peer, found.get(b"x-forwarded-for")


RequestDecoder = Callable[[Request[Any, Any, Any]], Awaitable[Message]]


class JsonAnswer:
    """An answer with a JSON body, as an ASGI application: Litestar passes it through as it
    is (a handler's return annotation is `ASGIApp`), where it turns a `Response` into one
    first, with a headers object and more: 5% of a REST move."""

    __slots__ = ("body", "headers", "status")

    def __init__(self, body: bytes, status: int = 200, headers: dict[str, str] | None = None):
        self.body = body
        self.status = status
        self.headers = headers or {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        raw = [(b"content-type", JSON_BYTES), (b"content-length", b"%d" % len(self.body))]
        raw += [(k.encode("latin-1"), v.encode("latin-1")) for k, v in self.headers.items()]
        start: HTTPResponseStartEvent = {
            "type": "http.response.start",
            "status": self.status,
            "headers": raw,
        }
        await send(start)
        body: HTTPResponseBodyEvent = {
            "type": "http.response.body",
            "body": self.body,
            "more_body": False,
        }
        await send(body)

    def response(self) -> Response[bytes]:
        """The same answer where Litestar wants a `Response` (streams, exception handlers)."""
        return Response(self.body, status_code=self.status, media_type=JSON, headers=self.headers)


def unary_handler(
    endpoint: invoke.Endpoint, decode: RequestDecoder
) -> Callable[[Request[Any, Any, Any]], Awaitable[ASGIApp]]:
    """A route's handler for a unary endpoint whose request `decode` reads."""

    async def handle(request: Request[Any, Any, Any]) -> ASGIApp:
        decoded: list[Message] = []

        async def read() -> Message:
            decoded.append(message := await decode(request))
            return message

        try:
            answer = await endpoint.unary(*caller(request), read)
        except ApiError as err:
            return _error(err)
        return JsonAnswer(encode(answer, masks.requested(decoded[0], type(answer))))

    return handle


Frame = Callable[[Any], bytes]
"""The SSE bytes of one answer of a stream (b"" for none)."""
KEEP_ALIVE = b": keep-alive\n\n"


def _stream(
    route: Route, endpoint: invoke.Endpoint, limit: int, closing: asyncio.Event
) -> Callable[[Request[Any, Any, Any]], Awaitable[Response[Any]]]:
    """A stream's answers as Server-Sent Events, resumable with Last-Event-ID: a game's
    watch by its version (`from_version`), a player's by its cursor (`cursor`)."""
    fields = route.method.input_type.fields_by_name
    if "from_version" not in fields and "cursor" not in fields:
        raise ValueError(f"{route.method.name}: a stream needs from_version or cursor to resume")

    async def handle(request: Request[Any, Any, Any]) -> Response[Any]:
        frame: Frame = _player_frame

        async def decode() -> Message:
            nonlocal frame
            message = await _decode(request, route=route, limit=limit)
            last_event_id = request.headers.get("last-event-id")
            if "cursor" in fields:
                if last_event_id is not None:
                    message.cursor = last_event_id.strip()  # type: ignore[attr-defined]
            else:
                frame = _game_frames(_resume(message, last_event_id), _watch_mask(message))
            return message

        answers = endpoint.stream(*caller(request), decode)
        try:
            # The use case checks the game and the token before its first answer: wait for
            # it, so that a refusal is an HTTP error rather than a stream that ends at once.
            first = await anext(answers, None)
        except ApiError as err:
            return _error(err).response()
        return Stream(
            _events(first, answers, frame, closing, endpoint),
            media_type="text/event-stream",
            headers={"cache-control": "no-cache", "x-accel-buffering": "no"},
        )

    return handle


def _resume(request: Message, last_event_id: str | None) -> int:
    """Resume after the event the client saw last: sets `from_version`, and returns how many
    joins to drop (joins all have version 0, so their ids count them)."""
    if last_event_id is None:
        return 0
    match = EVENT_ID.fullmatch(last_event_id.strip())
    if match is None:
        raise ApiError(
            Reason.BAD_REQUEST,
            "Last-Event-ID is an event's id: a version, or 0-<n> for the n-th seat taken",
        )
    joins, version = match.groups()
    request.from_version = int(version or 0)  # type: ignore[attr-defined]
    return int(joins or 0)


def _watch_mask(request: Message) -> masks.ReadMask | None:
    """The read mask of a game's watch as the client asked for it. The use case is asked
    for the version and the events too, which the events' names and ids come from."""
    mask = masks.requested(request, api.WatchGameResponse)
    if mask is not None:
        request.read_mask.paths.extend(("version", "events"))  # type: ignore[attr-defined]
    return mask


def _game_frames(skip: int, mask: masks.ReadMask | None) -> Frame:
    """A game's watch: `move` events with their version as id, `join` events with 0-<n>
    (the n-th seat taken; the first `skip` are dropped), `resign` events without an id
    (a client that resumes after the move before one may see it again); their data has
    what the client's `mask` keeps."""
    joins = 0

    def frame(answer: api.WatchGameResponse) -> bytes:
        nonlocal joins
        if answer.keep_alive:
            return KEEP_ALIVE
        data = encode(answer, mask)
        if answer.events and answer.events[0].WhichOneof("event") == "seat_resigned":
            return _frame("resign", data)
        if answer.version == 0:
            joins += 1
            return _frame("join", data, f"0-{joins}") if joins > skip else b""
        return _frame("move", data, str(answer.version))

    return frame


def _player_frame(answer: pb.WatchPlayerResponse) -> bytes:
    """A player's watch: `games` first, then `player` events, each with its cursor as id."""
    kind = answer.WhichOneof("answer")
    if kind is None:
        return KEEP_ALIVE
    return _frame("games" if kind == "games" else "player", encode(answer), answer.cursor)


async def _events(
    first: Message | None,
    answers: AsyncGenerator[Message, None],
    frame: Frame,
    closing: asyncio.Event,
    endpoint: invoke.Endpoint,
) -> AsyncIterator[bytes]:
    """The SSE frames of a watch, until it ends, the client goes away (Litestar cancels the
    stream) or the worker stops (`closing`): a stream never ends by itself, and its client
    resumes on another worker with Last-Event-ID rather than hold up the drain."""
    # Something at once, whatever follows (a resumed stream may skip all it has caught up
    # with): EventSource's `open` and a proxy's first-byte timeout see the stream live.
    yield b": keep-alive\n\n"
    answer = first
    stopping = asyncio.ensure_future(closing.wait())
    following: asyncio.Future[Message | None] | None = None
    try:
        while answer is not None:
            if data := frame(answer):
                yield data
            following = asyncio.ensure_future(anext(answers, None))
            await asyncio.wait((following, stopping), return_when=asyncio.FIRST_COMPLETED)
            if not following.done():
                return
            answer = following.result()
    except Exception as exc:
        # The status is sent already: the error becomes the stream's last event.
        yield _frame("error", error_body(endpoint.refused(exc)))
    finally:
        stopping.cancel()
        if following is not None and not following.done():
            following.cancel()  # the watch, waiting for the next entry, ends in its own task
            # It may end with an error rather than cancelled (a Redis read interrupted
            # mid-way): nobody is left to hear it, and asyncio would log it as unretrieved.
            following.add_done_callback(_discard_outcome)
        else:
            await answers.aclose()


def _discard_outcome(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()


def _frame(event: str, data: bytes, event_id: str | None = None) -> bytes:
    head = f"id: {event_id}\nevent: {event}\n" if event_id else f"event: {event}\n"
    return head.encode() + b"data: " + data + b"\n\n"


# ---- decoding and encoding ----------------------------------------------------------------


async def _decode(request: Request[Any, Any, Any], *, route: Route, limit: int) -> Message:
    """The request message from the path, the query string and the body."""
    fields: dict[str, str] = {}
    # Most requests have no query string: spare them Litestar's multidict of it.
    query = request.query_params.dict() if request.scope["query_string"] else {}
    for key, values in query.items():
        name = route.query_names.get(key)
        if name is None:
            raise ApiError(Reason.BAD_REQUEST, f"no parameter {key!r}")
        if len(values) > 1 or name in fields:
            raise ApiError(Reason.BAD_REQUEST, f"{name!r} given twice")
        fields[name] = values[0]
    # Path variables come last: they win over the body's fields of the same name.
    fields.update({f.name: unquote(request.path_params[f.name]) for f in route.path_fields})
    message = route.request_class()
    try:
        if route.body:
            body = await _read_json(request, limit)
            _read_masks(route, body, message)
            json_codec.parse(body, message)
        _read_masks(route, fields, message)
        json_codec.parse(fields, message)
    except json_format.ParseError as err:  # an unknown field too: a typo is no silent default
        raise ApiError(Reason.BAD_REQUEST, str(err)) from None
    return message


def _read_masks(route: Route, fields: dict[str, Any], message: Message) -> None:
    """Take the read masks out of `fields` (a query string's or a body's) into `message`:
    comma-separated paths, in lowerCamelCase as the JSON mapping has them or in the proto's
    snake_case (which json_format refuses), checked by the use case."""
    for field in route.mask_fields:
        for key in {field.name, field.json_name}:
            if key not in fields:
                continue
            value = fields.pop(key)
            if not isinstance(value, str):
                raise ApiError(Reason.BAD_READ_MASK, f"{key} is a string of paths")
            paths = [path.strip() for path in value.split(",") if path.strip()]
            getattr(message, field.name).paths.extend(paths)


async def _read_json(request: Request[Any, Any, Any], limit: int) -> dict[str, Any]:
    """The body as a JSON object, refused unread when it is too large or too deep."""
    declared = _first_values(request, CONTENT_LENGTH).get(b"content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise _too_large(limit)
    # Off ASGI's receive, not Litestar's `stream()`: that builds the request's headers object
    # (for content-length, read above) and calls a client that hangs up mid-body a 500.
    raw = b""
    more = True
    while more:
        event = await request.receive()
        if event["type"] != "http.request":  # http.disconnect
            raise ApiError(Reason.BAD_REQUEST, "the connection closed before the body was whole")
        raw += event.get("body", b"")
        if len(raw) > limit:
            raise _too_large(limit)
        more = event.get("more_body", False)
    if _too_deep(raw):
        raise ApiError(
            Reason.BAD_REQUEST,
            f"the body nests deeper than {MAX_JSON_DEPTH} levels",
        )
    try:
        body = msgspec.json.decode(raw)  # strict JSON (no NaN), and a fifth of json's cost
    except ValueError as err:
        raise ApiError(Reason.BAD_REQUEST, f"the body is not JSON: {err}") from None
    if not isinstance(body, dict):
        raise ApiError(Reason.BAD_REQUEST, "the body is not a JSON object")
    return body


def _too_large(limit: int) -> ApiError:
    return ApiError(Reason.REQUEST_TOO_LARGE, f"a request body is at most {limit} bytes")


def _too_deep(raw: bytes) -> bool:
    """Whether brackets outside strings nest deeper than MAX_JSON_DEPTH: a cheap scan that
    spares the parser's recursion."""
    if raw.count(b"{") + raw.count(b"[") <= MAX_JSON_DEPTH:
        return False  # too few brackets to nest that deep: no scan (most bodies)
    depth = 0
    for bracket in BRACKETS.findall(STRINGS.sub(b"", raw)):
        depth += 1 if bracket in b"[{" else -1
        if depth > MAX_JSON_DEPTH:
            return True
    return False


def encode(message: Message, mask: masks.ReadMask | None = None) -> bytes:
    """`message` as JSON; with a read mask, only the fields it keeps."""
    # msgspec writes the same compact JSON as json.dumps, ten times faster.
    if mask is None:
        return msgspec.json.encode(json_codec.to_dict(message))
    return msgspec.json.encode(json_codec.masked_dict(message, mask.tree))


# ---- errors -------------------------------------------------------------------------------


def _error(err: ApiError, headers: dict[str, str] | None = None) -> JsonAnswer:
    if RETRY_AFTER in err.metadata:
        headers = {**(headers or {}), "retry-after": err.metadata[RETRY_AFTER]}
    return JsonAnswer(error_body(err), err.code.http, headers)


def _on_exception(request: Request[Any, Any, Any], exc: Exception) -> Response[bytes]:
    """What Litestar raises itself (its router, mostly), in the API's error shape."""
    refused: BaseException = exc
    headers = None
    if isinstance(exc, NotFoundException):
        refused = ApiError(Reason.NO_ROUTE, f"no route {request.scope['path']}")
    elif isinstance(exc, MethodNotAllowedException):
        message = f"{request.method} is not allowed here"
        refused = ApiError(Reason.METHOD_NOT_ALLOWED, message)
        headers = exc.headers
    elif isinstance(exc, HTTPException) and exc.status_code < 500:
        refused = ApiError(Reason.BAD_REQUEST, exc.detail)
    return _error(invoke.refused("http", refused), headers).response()


def _one_segment_per_variable(app: ASGIApp) -> ASGIApp:
    """Route on the raw path, so that a path variable is one segment whatever it holds.

    Servers decode the path before routing: `a%2Fb` would become two segments, and a bad
    game id an unknown route. Here each raw segment is decoded alone, then "%" and "/" are
    escaped again; handlers unquote path variables once (as grpc-gateway does).
    """

    async def routed(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == ScopeType.HTTP:
            raw = scope.get("raw_path") or quote(scope["path"]).encode()
            segments = (unquote(s) for s in raw.decode("latin-1").split("/"))
            path = "/".join(s.replace("%", "%25").replace("/", "%2F") for s in segments)
            scope = cast(Scope, {**scope, "path": path})
        await app(scope, receive, send)

    return routed
