"""Games in Redis (standalone or Cluster), a compare-and-set in Lua for every write.

A game is three keys in one slot (the {id} hash tag, so scripts work on Redis Cluster):
the record, one string "<rev> <version> <meta length>\n" + zlib(meta + state), so that a
live game takes under 1 KiB with Redis's own overhead (a hash of four fields took
1.1-1.7 KiB); its log, a stream; and the request ids it has applied, a hash of
request id -> version that lives as long as the game. The scripts are in `scripts/`.
"""

from __future__ import annotations

import hashlib
import zlib
from collections.abc import Sequence
from importlib import resources
from typing import Any, Protocol

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import NoScriptError

from .base import Entry, EntryId, Record, Write, WriteResult
from .redis_link import Command, RedisLink

# A game is three keys in one slot (the {id} hash tag, so scripts work on Redis Cluster):
# the record, one string "<rev> <version> <meta length>\n" + zlib(meta + state), so
# that a live game takes under 1 KiB with Redis's own overhead (a hash of four fields
# took 1.1-1.7 KiB); its log, a stream; and the request ids it has applied, a hash of
# request id -> version that lives as long as the game.

SCHEDULE_KEY = "genial:schedule"
"""Outside any game's slot: the schedule is its own key, written on its own."""


def _keys(game_id: str) -> tuple[str, str, str]:
    """The record, the log and the request ids of a game."""
    return f"genial:{{{game_id}}}:game", f"genial:{{{game_id}}}:log", f"genial:{{{game_id}}}:req"


def _stream_id(entry_id: EntryId) -> str:
    return f"{entry_id[0]}-{entry_id[1]}"


def _entry_id(raw: bytes) -> EntryId:
    version, seq = raw.split(b"-")
    return int(version), int(seq)


def pack_record(record: Record) -> bytes:
    head = b"%d %d %d\n" % (record.rev, record.version, len(record.meta))
    # Level 1: the state's JSON halves at a few microseconds a write.
    return head + zlib.compress(record.meta + record.state, 1)


def unpack_record(raw: bytes) -> Record:
    head, _, body = raw.partition(b"\n")
    rev, version, meta_length = (int(n) for n in head.split())
    data = zlib.decompress(body)
    return Record(data[meta_length:], data[:meta_length], version, rev)


class Commands(Protocol):
    """Commands as the move path sends them: one, or several in one round trip."""

    async def call(self, *command: str | bytes | int | float) -> Any: ...

    async def pipeline(self, commands: Sequence[Command]) -> list[Any]:
        """Replies in order; error replies are returned, not raised."""
        ...


class ClientCommands:
    """`Commands` through a redis-py client (for Redis Cluster, which routes by key)."""

    def __init__(self, client: aioredis.Redis | RedisCluster) -> None:
        self._client = client

    async def call(self, *command: str | bytes | int | float) -> Any:
        return await self._client.execute_command(*command)

    async def pipeline(self, commands: Sequence[Command]) -> list[Any]:
        async with self._client.pipeline(transaction=False) as pipe:
            for command in commands:
                pipe.execute_command(*command)
            return list(await pipe.execute(raise_on_error=False))

    async def close(self) -> None:
        pass  # the client is closed with the store


class _Script:
    """A Lua script run by its SHA1, sent again after a Redis restart forgot it."""

    def __init__(self, name: str) -> None:
        self.source = resources.files(__package__).joinpath("scripts", name).read_text()
        self.sha = hashlib.sha1(self.source.encode()).hexdigest()

    async def __call__(
        self, commands: Commands, keys: Sequence[str], args: Sequence[str | bytes | int]
    ) -> Any:
        try:
            return await commands.call("EVALSHA", self.sha, len(keys), *keys, *args)
        except NoScriptError:
            return await commands.call("EVAL", self.source, len(keys), *keys, *args)


class RedisStore:
    """Games in Redis (standalone or Cluster), a compare-and-set in Lua for every write.

    The move path (read, write, create) goes through `commands`: a `RedisLink` on
    standalone Redis over TCP, redis-py's client on Cluster, Unix sockets and URLs with
    options the link does not follow. Everything else (logs,
    lobby, schedule, counters) goes through redis-py.
    """

    name = "redis"

    def __init__(
        self,
        client: aioredis.Redis | RedisCluster,
        blocking: aioredis.Redis | RedisCluster,
        commands: RedisLink | ClientCommands,
    ) -> None:
        self._redis = client
        # Blocking reads (XREAD BLOCK) get their own connections so they never starve moves.
        self._blocking = blocking
        self._commands = commands
        self._write = _Script("write.lua")
        self._create = _Script("create.lua")
        self._reschedule = _Script("reschedule.lua")

    @classmethod
    def from_url(cls, url: str, *, cluster: bool = False, timeout: float = 2.0) -> RedisStore:
        if cluster:
            cluster_client = RedisCluster.from_url(
                url,
                socket_timeout=timeout,
                socket_connect_timeout=timeout,
                health_check_interval=15,
            )
            return cls(
                cluster_client,
                RedisCluster.from_url(url, socket_connect_timeout=timeout),
                ClientCommands(cluster_client),
            )
        client = aioredis.from_url(
            url, socket_timeout=timeout, socket_connect_timeout=timeout, health_check_interval=15
        )
        # unix:// and URLs with options stay with redis-py, which follows them all.
        lean = RedisLink.understands(url)
        return cls(
            client,
            aioredis.from_url(url, socket_connect_timeout=timeout, max_connections=1024),
            RedisLink.from_url(url, timeout) if lean else ClientCommands(client),
        )

    async def create(self, game_id: str, record: Record, entry: Entry | None, ttl: float) -> bool:
        game_key, log_key, _ = _keys(game_id)
        created = await self._create(
            self._commands,
            [game_key, log_key],
            [
                pack_record(record),
                int(ttl * 1000),
                _stream_id(entry.id) if entry else "",
                entry.data if entry else b"",
            ],
        )
        return bool(created)

    async def read(
        self, game_id: str, request_id: str | None = None
    ) -> tuple[Record | None, int | None]:
        game_key, _, requests_key = _keys(game_id)
        if request_id is None:
            raw, done = await self._commands.call("GET", game_key), None
        else:
            raw, done = await self._commands.pipeline(
                [("GET", game_key), ("HGET", requests_key, request_id)]
            )
            for reply in (raw, done):
                if isinstance(reply, Exception):
                    raise reply
        if raw is None:
            return None, None
        return unpack_record(raw), int(done) if done is not None else None

    async def write(self, game_id: str, write: Write) -> WriteResult:
        rev = write.expected_rev + 1
        reply = await self._write(
            self._commands,
            _keys(game_id),
            [
                write.expected_rev,
                pack_record(Record(write.state, write.meta, write.version, rev)),
                _stream_id(write.entry_id),
                write.entry,
                write.request_id or "",
                write.version,
                int(write.ttl * 1000),
            ],
        )
        status = int(reply[0])
        if status == 1:
            return WriteResult(True, rev)
        if status == 2:
            return WriteResult(False, -1, duplicate_version=int(reply[1]))
        if status == 3:
            current = unpack_record(reply[1])
            return WriteResult(False, current.rev, current=current)
        return WriteResult(False, -1)

    async def entries(self, game_id: str, after: EntryId, block_ms: int = 0) -> list[Entry]:
        _, log_key, _ = _keys(game_id)
        # redis-py types its replies loosely: these are lists of (id, {field: value}).
        rows: Any
        if block_ms:
            reply: Any = await self._blocking.xread({log_key: _stream_id(after)}, block=block_ms)
            rows = reply[0][1] if reply else []
        else:
            rows = await self._redis.xrange(log_key, min=f"({_stream_id(after)}")
        return [Entry(_entry_id(rid), fields[b"d"]) for rid, fields in rows]

    async def entry(self, game_id: str, version: int) -> Entry | None:
        _, log_key, _ = _keys(game_id)
        sid = _stream_id((version, 0))
        rows: Any = await self._redis.xrange(log_key, min=sid, max=sid)
        return Entry((version, 0), rows[0][1][b"d"]) if rows else None

    async def lobby_add(self, kind: str, game_id: str, created: float) -> None:
        await self._redis.zadd(f"genial:lobby:{kind}", {game_id: created})

    async def lobby_remove(self, kind: str, game_id: str) -> None:
        await self._redis.zrem(f"genial:lobby:{kind}", game_id)

    async def lobby_page(self, kind: str, after: float, count: int) -> list[tuple[str, float]]:
        rows: Any = await self._redis.zrangebyscore(
            f"genial:lobby:{kind}", f"({after}", "+inf", start=0, num=count, withscores=True
        )
        return [(gid.decode(), score) for gid, score in rows]

    async def schedule(self, game_id: str, due: float) -> None:
        await self._redis.zadd(SCHEDULE_KEY, {game_id: due})

    async def due(self, now: float, count: int) -> list[tuple[str, float]]:
        rows: Any = await self._redis.zrangebyscore(
            SCHEDULE_KEY, "-inf", now, start=0, num=count, withscores=True
        )
        return [(gid.decode(), score) for gid, score in rows]

    async def lease(self, game_id: str, due: float, until: float) -> bool:
        reply = await self._reschedule(
            self._commands, [SCHEDULE_KEY], [game_id, repr(due), repr(until)]
        )
        return bool(reply)

    async def unschedule(self, game_id: str, due: float) -> bool:
        return bool(
            await self._reschedule(self._commands, [SCHEDULE_KEY], [game_id, repr(due), ""])
        )

    async def add_counts(self, deltas: dict[str, int], ttl: float) -> dict[str, int]:
        # On the move path's connection: redis-py's pipeline cost the worker more than
        # the counting itself.
        commands: list[Command] = []
        for key, delta in deltas.items():
            commands += [
                ("INCRBY", f"genial:count:{key}", delta),
                ("PEXPIRE", f"genial:count:{key}", int(ttl * 1000), "NX"),
            ]
        replies = await self._commands.pipeline(commands)
        for reply in replies:
            if isinstance(reply, Exception):
                raise reply
        return {key: int(total) for key, total in zip(deltas, replies[::2], strict=True)}

    async def ping(self) -> bool:
        try:
            return bool(await self._redis.ping())
        except (aioredis.RedisError, OSError):
            return False

    async def close(self) -> None:
        await self._commands.close()
        await self._redis.aclose()
        await self._blocking.aclose()
