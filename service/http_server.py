"""The HTTP server: uvicorn with the limits a public endpoint needs.

uvicorn bounds neither the size of a request's head nor the time a client may take to
send it, nor how long a client may leave the answer unread: one client could hold a
thousand half-sent requests, or a worker's memory with answers it never reads. The
protocol here, uvicorn's httptools one with three guards, refuses a request head over
`max_header_bytes` (431), closes a connection whose request is not read whole within
`request_read_seconds` (408), and drops one whose answer has not drained for
`write_stall_seconds` (a watcher resumes with Last-Event-ID).
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
from collections.abc import Iterator
from typing import Any

import uvicorn
from litestar.types import ASGIApp
from uvicorn._types import ASGI3Application
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol, RequestResponseCycle

from .errors import ApiError, Reason, error_body
from .invoke import refused
from .settings import Settings

STATUS = {408: b"408 Request Timeout", 431: b"431 Request Header Fields Too Large"}


class GuardedHttpProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with a bound on the request head, a deadline to read a
    request, and one for an answer to drain. The limits are class attributes, set by
    `protocol_for`."""

    max_header_bytes = 16 * 1024
    request_read_seconds = 10.0
    write_stall_seconds = 30.0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._in_head = True
        self._head_bytes = 0
        self._read_timer: asyncio.TimerHandle | None = None
        self._stall_timer: asyncio.TimerHandle | None = None
        self._running: RequestResponseCycle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm_read_timer()  # a connection that never sends a request goes too

    def data_received(self, data: bytes) -> None:
        # Only a head counts towards its bound: a segment may carry a body or further
        # requests behind it, which the parser is given once the head in front has ended.
        while self._in_head and data:
            room = self.max_header_bytes - self._head_bytes
            if room <= 0:
                self._refuse(431)  # before the parser holds it
                return
            part, data = (data, b"") if len(data) <= room else (data[:room], data[room:])
            self._head_bytes += len(part)
            super().data_received(part)
            if self.transport.is_closing():
                return
        if data:
            super().data_received(data)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._arm_read_timer()

    def on_headers_complete(self) -> None:
        self._in_head, self._head_bytes = False, 0
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        self._cancel_read_timer()
        self._in_head = True
        super().on_message_complete()

    def pause_writing(self) -> None:
        super().pause_writing()
        if self._stall_timer is None:
            self._stall_timer = self.loop.call_later(self.write_stall_seconds, self._drop)

    def resume_writing(self) -> None:
        super().resume_writing()
        if self._stall_timer is not None:
            self._stall_timer.cancel()
            self._stall_timer = None

    def _start_asgi_task(self, cycle: RequestResponseCycle, app: ASGI3Application) -> None:
        self._running = cycle
        super()._start_asgi_task(cycle, app)

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_read_timer()
        if self._stall_timer is not None:
            self._stall_timer.cancel()
            self._stall_timer = None
        # uvicorn tells only the newest request's cycle that the client left; with requests
        # pipelined behind it, that is a queued one, and the running one wrote its answer to
        # the closed connection: a RuntimeError, logged at ERROR with its traceback.
        running = self._running
        if running is not None and not running.response_complete:
            running.disconnected = True
            running.message_event.set()
        super().connection_lost(exc)

    def _arm_read_timer(self) -> None:
        self._cancel_read_timer()
        self._read_timer = self.loop.call_later(self.request_read_seconds, self._refuse, 408)

    def _cancel_read_timer(self) -> None:
        if self._read_timer is not None:
            self._read_timer.cancel()
            self._read_timer = None

    def _refuse(self, status: int) -> None:
        """Answer `status` (if no answer has begun) and close the connection."""
        # A connection that never sent a byte (a browser's spare, mostly) is no refusal.
        begun = self._head_bytes > 0 or self.cycle is not None
        self._cancel_read_timer()
        self._in_head = False  # nothing more is read
        if self.transport.is_closing():
            return
        if self.cycle is None or self.cycle.response_complete or not self.cycle.response_started:
            self.transport.write(_answer(status, self.request_read_seconds, begun))
        self.transport.close()

    def _drop(self) -> None:
        """The client left the answer unread too long: let it go (its buffers with it)."""
        self._stall_timer = None
        self.transport.abort()


def _answer(status: int, read_seconds: float, begun: bool) -> bytes:
    """A refusal before any route: a late request's in the API's error shape (and counted as
    the API's are), a head too large's and a silent connection's empty."""
    body, head = b"", b""
    if status == 408 and begun:
        late = ApiError(
            Reason.REQUEST_TIMEOUT, f"the request did not come whole within {read_seconds:g} s"
        )
        body, head = error_body(refused("http", late)), b"content-type: application/json\r\n"
    return b"HTTP/1.1 %s\r\n%scontent-length: %d\r\nconnection: close\r\n\r\n%s" % (
        STATUS[status],
        head,
        len(body),
        body,
    )


def protocol_for(settings: Settings) -> type[GuardedHttpProtocol]:
    return type(
        "GuardedHttpProtocol",
        (GuardedHttpProtocol,),
        {
            "max_header_bytes": settings.max_header_bytes,
            "request_read_seconds": settings.request_read_seconds,
            "write_stall_seconds": settings.write_stall_seconds,
        },
    )


class HttpServer(uvicorn.Server):
    """uvicorn without its signal handlers: `serve` handles SIGTERM for both transports."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


def start_http(
    asgi: ASGIApp, settings: Settings, host: str, port: int, tls: ssl.SSLContext | None = None
) -> tuple[HttpServer, asyncio.Task[None], int]:
    """Start serving `asgi`, over TLS with `tls`; returns the server, its task and the
    bound port."""
    config = uvicorn.Config(
        asgi,
        host=host,
        port=port,
        http=protocol_for(settings),
        lifespan="off",
        # No route speaks WebSocket: an Upgrade request is a plain request, whose answer
        # comes through the guards above, never a handshake outside them.
        ws="none",
        log_config=None,
        access_log=False,
        # The client's address is worked out from X-Forwarded-For by the service itself,
        # and only behind the proxies it trusts (settings.trusted_proxies).
        proxy_headers=False,
        # Annotated int, but any number of seconds works (it is a wait_for timeout).
        timeout_graceful_shutdown=settings.drain_seconds,  # type: ignore[arg-type]
        # The context itself, not files: `tls.Certificates` loads a renewed pair into it.
        ssl_context_factory=None if tls is None else lambda _config, _default: tls,
    )
    sock = config.bind_socket()  # bound here, so that port 0 tells its port at once
    # Listening here too, where a failure stops the worker: uvloop's create_server swallows
    # a failed listen, and one fails when another process bound the port in the same moment
    # (uvicorn binds with SO_REUSEADDR) and listened first. The worker would then run
    # without this port while its log says it serves it.
    try:
        sock.listen(config.backlog)
    except OSError as err:
        sock.close()
        raise SystemExit(f"cannot listen on {host}:{port}: {err}") from None
    server = HttpServer(config)
    return server, asyncio.create_task(server.serve([sock])), sock.getsockname()[1]
