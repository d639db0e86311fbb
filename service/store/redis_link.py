"""The move path's Redis connection: one socket, every coroutine's commands in flight on it.

redis-py's asyncio client takes a connection from a pool, locks it and builds each
reply through several layers; on the move path that was a third of a worker's CPU.
Redis answers the commands of a connection in order, so one connection can carry all
of a worker's commands at once: each batch is packed by hiredis and written in one
go, and its futures are resolved by the replies as hiredis parses them. Failures are
redis-py's exception classes, so callers handle both clients alike. A command that
times out while Redis is silent drops the connection (its answer can no longer be trusted
to come), failing what is in flight; the next command connects again. The timeouts are
one alarm a connection, set for the soonest deadline of the replies due, not a timer a
command: a timer made and cancelled by every command (`asyncio.timeout`) cost 5 µs of the
loop, a quarter of what Redis added to a batched write (docs/performance.md, "Round
seven").

Behind Sentinel the address is asked of the Sentinels at every connection, and a server
that is not (or no longer) the master is left: a READONLY reply drops the connection, so
the next command goes to the master promoted by a failover. Moves that must reach
replicas before they are acknowledged share one WAIT per batch (`pipeline(wait=...)`):
the replicas confirm the whole batch at once.

Only standalone Redis: Redis Cluster routes by key, which redis-py's cluster client does.
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
import time
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, cast
from urllib.parse import parse_qs, unquote, urlsplit

import hiredis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

Command = Sequence[str | bytes | int | float]
Resolve = Callable[[], Awaitable[tuple[str, int]]]
"""Where the master is now (Sentinel's answer)."""


class _Protocol(asyncio.Protocol):
    def __init__(self) -> None:
        self.reader = hiredis.Reader(replyError=ResponseError)
        self.waiting: deque[asyncio.Future[Any]] = deque()
        self.due: deque[tuple[float, float, float]] = deque()
        """For each future of `waiting`: when its command was sent (as `heard`), when its
        reply is given up on (the loop's clock), and the timeout that makes it so."""
        self.alarm: asyncio.Handle | None = None
        """While replies are due: set for their soonest deadline or earlier (the deadline of
        one answered since), or for the pass that gives up on those overdue."""
        self.alarm_at = 0.0
        """The deadline the alarm is set for."""
        self.transport: asyncio.WriteTransport | None = None
        self.lost: Exception | None = None
        self.unsent: list[bytes] = []
        """Commands packed since the loop last ran `flush`."""
        self.heard = 0.0
        """When Redis last sent something (`time.monotonic`)."""
        self.wait: tuple[Command, asyncio.Future[Any], tuple[float, float, float]] | None = None
        """The WAIT that `flush` sends after the batch, and its reply, shared by every
        command of the batch that asked for it."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's transports are not asyncio.Transport subclasses; a TCP one is writable.
        self.transport = cast(asyncio.WriteTransport, transport)

    def data_received(self, data: bytes) -> None:
        self.heard = time.monotonic()
        self.reader.feed(data)
        try:
            while (reply := self.reader.gets()) is not False:
                future = self.waiting.popleft()
                self.due.popleft()
                if not future.done():  # not given up on by a timeout
                    future.set_result(reply)
        except hiredis.ProtocolError as err:
            self.close(RedisConnectionError(f"Redis protocol error: {err}"))

    def connection_lost(self, exc: Exception | None) -> None:
        self.close(
            RedisConnectionError(f"connection to Redis lost: {exc or 'closed by the server'}")
        )

    def close(self, error: Exception) -> None:
        if self.lost is None:
            self.lost = error
        if self.alarm is not None:
            self.alarm.cancel()
            self.alarm = None
        self.due.clear()
        while self.waiting:
            future = self.waiting.popleft()
            if not future.done():
                future.set_exception(error)
        if self.transport is not None:
            self.transport.abort()

    def send(
        self, commands: Sequence[Command], timeout: float, wait: Command | None = None
    ) -> list[asyncio.Future[Any]]:
        """Futures of the commands' replies, and last the reply of `wait` if given: one
        WAIT sent after the batch, whatever the number of callers that asked for it (the
        first caller's arguments). A reply not come within `timeout` seconds fails its
        future with `RedisTimeoutError` (see `_expire`)."""
        if self.lost is not None or self.transport is None:
            raise RedisConnectionError("not connected to Redis")
        loop = asyncio.get_running_loop()
        futures = [loop.create_future() for _ in commands]
        due = (time.monotonic(), loop.time() + timeout, timeout)
        self.waiting.extend(futures)
        self.due.extend([due] * len(commands))
        if self.alarm is None or due[1] < self.alarm_at:
            self._set_alarm(due[1])
        if not self.unsent and self.wait is None:
            # Once the callbacks ready now have run: all the commands they send go out in
            # one write, and Redis reads them in one go.
            loop.call_soon(self.flush)
        # (hiredis types its argument as a one-element tuple, whatever the length.)
        self.unsent += [hiredis.pack_command(tuple(c)) for c in commands]  # type: ignore[arg-type]
        if wait is None:
            return futures
        if self.wait is None:
            self.wait = (wait, loop.create_future(), due)
        return [*futures, self.wait[1]]

    def flush(self) -> None:
        if self.wait is not None:
            command, future, due = self.wait
            self.wait = None
            self.waiting.append(future)
            self.due.append(due)
            self.unsent.append(hiredis.pack_command(tuple(command)))  # type: ignore[arg-type]
        if self.lost is None and self.transport is not None:
            self.transport.write(b"".join(self.unsent))
        self.unsent.clear()

    def _set_alarm(self, when: float) -> None:
        if self.alarm is not None:
            self.alarm.cancel()
        self.alarm_at = when
        self.alarm = asyncio.get_running_loop().call_at(when, self._ring)

    def _ring(self) -> None:
        """At the soonest deadline: while replies are due, the alarm goes on to the next one;
        past a deadline, what is overdue is given up on two passes of the loop later, so that
        a worker too busy to read its socket for a whole timeout first takes in what did
        arrive (one pass polls the socket, the next reads it)."""
        self.alarm = None
        soonest = self._soonest()
        if soonest is None:
            return
        loop = asyncio.get_running_loop()
        if soonest > loop.time():
            self._set_alarm(soonest)
            return
        self.alarm = loop.call_soon(loop.call_soon, self._expire)

    def _soonest(self) -> float | None:
        """The soonest deadline of the replies still awaited: not those given up on, whose
        answers may take long yet to come and be dropped."""
        return min(
            (
                deadline
                for future, (_, deadline, _) in zip(self.waiting, self.due, strict=True)
                if not future.done()
            ),
            default=None,
        )

    def _expire(self) -> None:
        """Give up on the replies past their deadlines. If Redis sent anything since the
        first of them was sent, the connection lives and its replies queue for a busy
        worker: only the overdue futures fail (their replies are dropped as they come; a
        WAIT's is shared by its batch), since closing would fail every call in flight.
        Else Redis is silent: the connection is dropped, failing everything in flight."""
        self.alarm = None
        now = asyncio.get_running_loop().time()
        overdue = [
            (future, sent, timeout)
            for future, (sent, deadline, timeout) in zip(self.waiting, self.due, strict=True)
            if deadline <= now and not future.done()
        ]
        if overdue:
            _, sent, timeout = overdue[0]
            error = RedisTimeoutError(f"Redis did not answer within {timeout:g} s")
            if self.heard <= sent:
                self.close(error)
                return
            for future, _, _ in overdue:
                future.set_exception(error)
                future.exception()  # retrieved: its caller may already have gone
        if (soonest := self._soonest()) is not None:
            self._set_alarm(soonest)


class RedisLink:
    """A multiplexed connection to one Redis server (`redis://` or `rediss://` URLs)."""

    SCHEMES = ("redis", "rediss")
    """URL schemes it speaks (TCP, with or without TLS)."""

    def __init__(
        self,
        host: str,
        port: int,
        *,
        db: int = 0,
        username: str | None = None,
        password: str | None = None,
        tls: bool = False,
        timeout: float = 2.0,
        resolve: Resolve | None = None,
    ) -> None:
        self.host, self.port, self.db = host, port, db
        self.username, self.password = username, password
        self.tls = tls
        self.timeout = timeout
        self.resolve = resolve
        """Asked for the master's address before each connection (Sentinel); then only a
        master is kept."""
        self.generation = 0
        """Connections made after the first: each may be to a server (a promoted replica)
        that lacks writes acknowledged on the one before."""
        self._protocol: _Protocol | None = None
        self._connecting: asyncio.Lock | None = None

    @property
    def connected(self) -> bool:
        return self._protocol is not None and self._protocol.lost is None

    @classmethod
    def understands(cls, url: str) -> bool:
        """Whether this connection can follow every part of `url` as redis-py would: TCP,
        and of the query only `db` (redis-py takes many more options there)."""
        parts = urlsplit(url)
        return parts.scheme in cls.SCHEMES and set(parse_qs(parts.query)) <= {"db"}

    @classmethod
    def from_url(cls, url: str, timeout: float) -> RedisLink:
        if not cls.understands(url):
            raise ValueError(f"the move path's connection cannot follow {url!r}")
        parts = urlsplit(url)
        query = parse_qs(parts.query)
        return cls(
            parts.hostname or "localhost",
            parts.port or 6379,
            db=int(query["db"][0] if "db" in query else parts.path.strip("/") or 0),
            username=unquote(parts.username) if parts.username else None,
            password=unquote(parts.password) if parts.password else None,
            tls=parts.scheme == "rediss",
            timeout=timeout,
        )

    async def call(self, *command: str | bytes | int | float) -> Any:
        """One command's reply; an error reply is raised."""
        protocol = await self._connected()
        (future,) = protocol.send((command,), self.timeout)
        reply = _checked(protocol, await future)
        if isinstance(reply, RedisConnectionError):
            raise reply
        if isinstance(reply, ResponseError):
            if str(reply).startswith("NOSCRIPT"):
                raise NoScriptError(str(reply))
            raise reply
        return reply

    async def pipeline(
        self, commands: Sequence[Command], *, wait: tuple[int, int] | None = None
    ) -> list[Any]:
        """The replies of several commands sent at once; error replies (a replica's READONLY as a
        connection error) are returned.

        `wait=(replicas, milliseconds)`: then a WAIT shared with the other commands of
        the batch that asked for one, whose reply (the replicas that confirmed) comes
        last; the timeout grows by its milliseconds."""
        protocol = await self._connected()
        waiting = None if wait is None else ("WAIT", *wait)
        timeout = self.timeout + (wait[1] / 1000 if wait is not None else 0)
        futures = protocol.send(commands, timeout, waiting)
        try:
            replies = [await future for future in futures]
        except BaseException:
            # The connection was lost (or the caller cancelled) with replies still due: the
            # futures after the one that raised fail too, unawaited.
            _settled(futures)
            raise
        return [_checked(protocol, reply) for reply in replies]

    async def _connected(self) -> _Protocol:
        protocol = self._protocol
        if protocol is not None and protocol.lost is None:
            return protocol
        if self._connecting is None:
            self._connecting = asyncio.Lock()
        async with self._connecting:  # one connection, however many callers wait for it
            if self._protocol is None or self._protocol.lost is not None:
                self._protocol = await self._connect()
            return self._protocol

    async def _connect(self) -> _Protocol:
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(self.timeout):
                if self.resolve is not None:
                    self.host, self.port = await self.resolve()
                _, protocol = await loop.create_connection(
                    _Protocol,
                    self.host,
                    self.port,
                    ssl=ssl.create_default_context() if self.tls else None,
                )
                setup: list[Command] = []
                if self.password is not None:
                    auth = [self.username, self.password] if self.username else [self.password]
                    setup.append(["AUTH", *auth])
                if self.db:
                    setup.append(["SELECT", self.db])
                if self.resolve is not None:
                    setup.append(["ROLE"])
                replies = [await f for f in protocol.send(setup, self.timeout)] if setup else []
                for reply in replies:
                    if isinstance(reply, ResponseError):
                        protocol.close(RedisConnectionError(str(reply)))
                        raise RedisConnectionError(f"Redis refused the connection: {reply}")
                if self.resolve is not None and replies[-1][0] != b"master":
                    # Sentinel named a server that is no master (yet): ask again next time.
                    protocol.close(RedisConnectionError("not the master"))
                    raise RedisConnectionError(f"Redis at {self.host}:{self.port} is no master")
        except TimeoutError:
            raise RedisTimeoutError(f"could not connect to Redis within {self.timeout} s") from None
        except OSError as err:
            raise RedisConnectionError(f"could not connect to Redis: {err}") from None
        if self._protocol is not None:
            self.generation += 1
        return protocol

    async def close(self) -> None:
        if self._protocol is not None:
            with contextlib.suppress(Exception):
                self._protocol.close(RedisConnectionError("closed"))
            self._protocol = None


def _checked(protocol: _Protocol, reply: Any) -> Any:
    """A reply as callers get it: a master demoted to a replica by a failover answers
    READONLY, a connection's failure (as redis-py's Sentinel connections report it), and
    the connection is left so that the next command connects to the master there is now."""
    if isinstance(reply, ResponseError) and str(reply).startswith("READONLY"):
        if protocol.lost is None:
            protocol.close(RedisConnectionError("Redis is a replica now"))
        return RedisConnectionError(str(reply))
    return reply


def _settled(futures: Sequence[asyncio.Future[Any]]) -> None:
    """Nobody will await these futures: their exceptions (now or to come) are retrieved, so
    that asyncio does not report them as never retrieved."""
    for future in futures:
        future.add_done_callback(_retrieve)


def _retrieve(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()
