"""The move path's commands to Redis: the `Commands` a store sends them through (the lean
`RedisLink`, or redis-py's client on Cluster), timed; the Lua scripts, sent by SHA and loaded
again when Redis forgot them; several writes in order in one round trip; where the Sentinels
are."""

from __future__ import annotations

import hashlib
import os
import time
import traceback
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any, Protocol

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from ..metrics import METRICS
from .redis_link import Command


@dataclass(frozen=True)
class Sentinels:
    """Where the Sentinels are, and the name of the master they watch."""

    addresses: list[tuple[str, int]]
    master: str
    password: str | None = None

    @classmethod
    def parse(cls, addresses: str, master: str, password: str = "") -> Sentinels:
        """From `host:port,[v6 address]:port,...`."""
        found = []
        for address in filter(None, (a.strip() for a in addresses.split(","))):
            host, colon, port = address.rpartition(":")
            if not colon or not port.isdigit() or not host:
                raise ValueError(f"a Sentinel's address is host:port, not {address!r}")
            found.append((host.removeprefix("[").removesuffix("]"), int(port)))
        return cls(found, master, password or None)


Wait = tuple[int, int]
"""Replicas a move must reach before it is acknowledged, and the most milliseconds to wait."""


class Commands(Protocol):
    """Commands as the move path sends them: one, or several in one round trip."""

    @property
    def generation(self) -> int:
        """Connections lost so far: a record kept from before one may have been lost with
        it."""
        ...

    async def call(self, *command: str | bytes | int | float) -> Any: ...

    async def pipeline(self, commands: Sequence[Command], *, wait: Wait | None = None) -> list[Any]:
        """Replies in order; error replies are returned, not raised. With `wait`, the
        reply of a WAIT for what the commands wrote comes last."""
        ...

    async def close(self) -> None: ...


def _closed_under_it(err: BaseException) -> bool:
    """Whether `err` is redis-py (8.1) writing on a connection that was closed under it: its
    cluster client, during a failover, sends on a node's connection that another command's
    failure just disconnected, and uvloop raises RuntimeError ("unable to perform operation
    on <TCPTransport closed=True ...>") or the connection's writer is already None
    (AttributeError). A lost connection, as any other, when it is raised from redis-py's
    connection module."""
    frames = traceback.extract_tb(err.__traceback__)
    return any(frame.filename.endswith(CONNECTION_MODULE) for frame in frames)


CONNECTION_MODULE = os.path.join("redis", "asyncio", "connection.py")


class ClientCommands:
    """`Commands` through a redis-py client (for Redis Cluster, which routes by key)."""

    def __init__(self, client: aioredis.Redis | RedisCluster) -> None:
        self._client = client
        self.generation = 0

    async def call(self, *command: str | bytes | int | float) -> Any:
        try:
            return await self._client.execute_command(*command)
        except (RedisConnectionError, RedisTimeoutError):
            self.generation += 1
            raise
        except (RuntimeError, AttributeError) as err:
            if not _closed_under_it(err):
                raise
            self.generation += 1
            raise RedisConnectionError(f"connection to Redis lost: {err}") from err

    async def pipeline(self, commands: Sequence[Command], *, wait: Wait | None = None) -> list[Any]:
        if wait is not None and isinstance(self._client, RedisCluster):
            # WAIT has no key: redis-py would send it to every primary on connections of
            # their own, where it waits for nothing.
            raise ValueError("waiting for replicas is not supported on Redis Cluster")
        try:
            async with self._client.pipeline(transaction=False) as pipe:
                for command in commands:
                    pipe.execute_command(*command)
                if wait is not None:  # one connection for the whole pipeline
                    pipe.execute_command("WAIT", *wait)
                replies = list(await pipe.execute(raise_on_error=False))
        except (RedisConnectionError, RedisTimeoutError):
            self.generation += 1
            raise
        except (RuntimeError, AttributeError) as err:
            if not _closed_under_it(err):
                raise
            self.generation += 1
            raise RedisConnectionError(f"connection to Redis lost: {err}") from err
        if any(isinstance(r, (RedisConnectionError, RedisTimeoutError)) for r in replies):
            self.generation += 1
        return replies

    async def close(self) -> None:
        pass  # the client is closed with the store


class TimedCommands:
    """`Commands` with each round trip timed into genial_redis_seconds, failed ones too,
    by operation: the script's name for a script, else the command (a pipeline of several
    kinds: "pipeline")."""

    def __init__(self, commands: Commands) -> None:
        self._commands = commands
        self._timers: dict[str | bytes | int | float, Any] = {}
        """Timers by operation, and for a single command by its script's SHA or its word,
        so that a move's call finds its timer in one lookup."""

    def _observe(
        self, key: str | bytes | int | float, operation: str | Command, start: float
    ) -> None:
        """`operation`: the label, or the command it is named from (only when its timer is
        made)."""
        timer = self._timers.get(key)
        if timer is None:
            label = operation if isinstance(operation, str) else _operation(operation)
            timer = self._timers[key] = METRICS.redis_latency.labels(label)
        timer.observe(time.perf_counter() - start)

    async def call(self, *command: str | bytes | int | float) -> Any:
        start = time.perf_counter()
        try:
            return await self._commands.call(*command)
        finally:
            self._observe(command[1] if command[0] == "EVALSHA" else command[0], command, start)

    @property
    def generation(self) -> int:
        return self._commands.generation

    async def pipeline(self, commands: Sequence[Command], *, wait: Wait | None = None) -> list[Any]:
        start = time.perf_counter()
        try:
            return await self._commands.pipeline(commands, wait=wait)
        finally:
            kinds = {_operation(command) for command in commands}
            label = kinds.pop() if len(kinds) == 1 else "pipeline"
            self._observe(label, label, start)

    async def close(self) -> None:
        await self._commands.close()


SCRIPT_NAMES: dict[str, str] = {}
"""Each script's name by its SHA1, for the operation label of EVALSHA."""


def _operation(command: Command) -> str:
    word = command[0]
    name = word.decode() if isinstance(word, bytes) else str(word)
    if name.upper() == "EVALSHA":
        sha = command[1]
        return SCRIPT_NAMES.get(sha.decode() if isinstance(sha, bytes) else str(sha), "script")
    return name.upper()


class _Script:
    """A Lua script run by its SHA1, sent again after a Redis restart forgot it."""

    def __init__(self, name: str, uses: Sequence[tuple[str, str]] = ()) -> None:
        """The script `name`, after the scripts of `uses` made its local functions, by
        (function, script) name: each is called with a KEYS and an ARGV of its own."""
        functions = [
            f"local function {function}(KEYS, ARGV)\n{_source(used)}end\n"
            for function, used in uses
        ]
        self.source = "".join(functions) + _source(name)
        self.sha = hashlib.sha1(self.source.encode()).hexdigest()
        SCRIPT_NAMES[self.sha] = name.removesuffix(".lua")

    async def __call__(
        self, commands: Commands, keys: Sequence[str], args: Sequence[str | bytes | int]
    ) -> Any:
        try:
            return await commands.call(*self.by_sha(keys, args))
        except NoScriptError:
            return await commands.call(*self.in_full(keys, args))

    def in_full(self, keys: Sequence[str], args: Sequence[str | bytes | int]) -> Command:
        return ("EVAL", self.source, len(keys), *keys, *args)

    def by_sha(self, keys: Sequence[str], args: Sequence[str | bytes | int]) -> Command:
        return ("EVALSHA", self.sha, len(keys), *keys, *args)


def ms(seconds: float) -> int:
    """A duration as Redis takes it: whole milliseconds, at least 1."""
    return max(1, int(seconds * 1000))


def _source(name: str) -> str:
    return resources.files(__package__).joinpath("scripts", name).read_text()


ScriptCall = tuple[_Script, Sequence[str], Sequence[str | bytes | int]]


def _forgot(reply: Any) -> bool:
    return isinstance(reply, NoScriptError) or (
        isinstance(reply, ResponseError) and str(reply).startswith("NOSCRIPT")
    )


async def run_in_order(
    commands: Commands,
    first: Sequence[Command],
    calls: Sequence[ScriptCall],
    wait: Wait | None = None,
) -> list[Any]:
    """Commands, then scripts, in one round trip and in this order (on one connection Redis
    runs them so); a script Redis forgot (after a restart) is sent again in full. The
    replies of the scripts; an error reply is raised.

    With `wait`, a WAIT follows them; fewer replicas than asked confirming in time is a
    `RedisTimeoutError` (the writes are made on the master, not acknowledged)."""
    sent = [*first, *(s.by_sha(k, a) for s, k, a in calls)]
    replies = await commands.pipeline(sent, wait=wait)
    replicas = replies.pop() if wait is not None else None
    for reply in replies[: len(first)]:
        if isinstance(reply, Exception):
            raise reply
    found = replies[len(first) :]
    for i, (reply, (script, keys, args)) in enumerate(zip(found, calls, strict=True)):
        if _forgot(reply) and wait is None:
            found[i] = await script(commands, keys, args)
        elif _forgot(reply):  # sent again in full, and waited for again
            found[i], replicas = await commands.pipeline([script.in_full(keys, args)], wait=wait)
        if isinstance(found[i], Exception):
            raise found[i]
    if wait is not None and (not isinstance(replicas, int) or replicas < wait[0]):
        raise RedisTimeoutError(
            f"{replicas} of {wait[0]} Redis replicas confirmed the write within {wait[1]} ms"
        )
    return found
