"""A minimal HTTP/1.1 keep-alive client for the benchmark's load generator.

General clients (httpx, aiohttp) spend more CPU per request than the server's empty route,
and the generator shares the machine with the server: this one writes prebuilt request
bytes and reads back the status and a Content-Length body, and nothing else.
"""

from __future__ import annotations

import asyncio
from typing import cast

HEADER_END = b"\r\n\r\n"


class HttpError(Exception):
    pass


class Connection(asyncio.Protocol):
    """One connection, one request at a time (no pipelining, as browsers and proxies do)."""

    def __init__(self) -> None:
        self._transport: asyncio.Transport | None = None
        self._buffer = bytearray()
        self._waiter: asyncio.Future[tuple[int, bytes]] | None = None
        self._lost: Exception | None = None

    @classmethod
    async def open(cls, host: str, port: int) -> Connection:
        loop = asyncio.get_running_loop()
        _, protocol = await loop.create_connection(cls, host, port)
        return protocol

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's transports are not subclasses of asyncio.Transport, only alike.
        self._transport = cast(asyncio.Transport, transport)

    def connection_lost(self, exc: Exception | None) -> None:
        self._lost = exc or HttpError("connection closed")
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_exception(self._lost)

    def data_received(self, data: bytes) -> None:
        self._buffer += data
        if self._waiter is None or self._waiter.done():
            return
        end = self._buffer.find(HEADER_END)
        if end < 0:
            return
        head = bytes(self._buffer[:end])
        length = _content_length(head)
        total = end + len(HEADER_END) + length
        if len(self._buffer) < total:
            return
        body = bytes(self._buffer[end + len(HEADER_END) : total])
        del self._buffer[:total]
        # "HTTP/1.1 200 OK": the status is the three digits after the first space.
        self._waiter.set_result((int(head[9:12]), body))

    async def request(self, data: bytes) -> tuple[int, bytes]:
        """Send a whole request; the status and body of the answer."""
        if self._lost is not None or self._transport is None:
            raise HttpError("connection closed")
        self._waiter = asyncio.get_running_loop().create_future()
        self._transport.write(data)
        return await self._waiter

    def close(self) -> None:
        if self._transport is not None:
            self._transport.close()


def _content_length(head: bytes) -> int:
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return int(value)
    raise HttpError("an answer without Content-Length")


def request_bytes(
    method: str, path: str, body: bytes = b"", headers: dict[str, str] | None = None
) -> bytes:
    lines = [f"{method} {path} HTTP/1.1", "host: 127.0.0.1"]
    lines += [f"{name}: {value}" for name, value in (headers or {}).items()]
    if body or method != "GET":
        lines += ["content-type: application/json", f"content-length: {len(body)}"]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


async def get(host: str, port: int, path: str) -> bytes:
    """One GET on a connection of its own (for /metrics between measurements)."""
    conn = await Connection.open(host, port)
    try:
        status, body = await conn.request(request_bytes("GET", path))
    finally:
        conn.close()
    if status != 200:
        raise HttpError(f"GET {path}: {status}")
    return body
