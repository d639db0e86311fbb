"""Where games live: one `GameStore` protocol, an in-process and a Redis implementation.

A game is a record (state bytes, metadata bytes, `version` = moves applied, `rev` =
writes of any kind) plus an append-only log of entries, one per write, each with
an id `(version, seq)`: a move gets `(version, 0)`, a join before the start gets
`(0, seat + 1)`. Every write is a compare-and-set on `rev`, so stateless workers
can share a store without locks; a write may also record a request id so that a
retried request is recognised and never applied twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import time
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import NoScriptError

from .redis_link import Command, RedisLink

EntryId = tuple[int, int]
"""(version, seq) of a log entry."""


@dataclass(slots=True)
class Record:
    """A game as it is stored."""

    state: bytes
    meta: bytes
    version: int
    rev: int


@dataclass(slots=True)
class Entry:
    id: EntryId
    data: bytes


@dataclass(slots=True)
class Write:
    """One compare-and-set: applied only if the stored `rev` is still `expected_rev`."""

    expected_rev: int
    state: bytes
    version: int
    entry_id: EntryId
    entry: bytes
    meta: bytes
    request_id: str | None = None
    ttl: float = 0
    """Seconds the game lives after this write without another one; 0: for ever."""


@dataclass(slots=True)
class WriteResult:
    ok: bool
    rev: int
    """The stored rev after the write, or the one that beat us."""
    duplicate_version: int | None = None
    """Set when the request id was already applied: the version it produced."""
    current: Record | None = None
    """On a conflict, the record that beat us, read in the same step (None: no game)."""


class GameStore(Protocol):
    """What the application needs from storage. Both implementations pass one test suite."""

    name: str

    async def create(self, game_id: str, record: Record, entry: Entry | None, ttl: float) -> bool:
        """Store a new game; False if the id is taken."""
        ...

    async def read(
        self, game_id: str, request_id: str | None = None
    ) -> tuple[Record | None, int | None]:
        """The game (None if unknown) and, if asked, the version a request id produced.

        One round trip."""
        ...

    async def write(self, game_id: str, write: Write) -> WriteResult:
        """Compare-and-set the record and append one log entry, atomically. One round trip.

        A request id already applied wins over the compare-and-set: its retry is
        recognised even when made against an old record."""
        ...

    async def entries(self, game_id: str, after: EntryId, block_ms: int = 0) -> list[Entry]:
        """Log entries after `after`, in order; waits up to `block_ms` when there are none yet."""
        ...

    async def entry(self, game_id: str, version: int) -> Entry | None:
        """The entry of the move that produced `version`."""
        ...

    async def lobby_add(self, kind: str, game_id: str, created: float) -> None: ...

    async def lobby_remove(self, kind: str, game_id: str) -> None: ...

    async def lobby_page(self, kind: str, after: float, count: int) -> list[tuple[str, float]]:
        """Open game ids of `kind` created after `after`, oldest first. Hints only."""
        ...

    # Turns that will be due (a bot's, or a turn timer's): one schedule shared by all
    # workers. A worker leases a due game by moving its time forward, so that a game
    # whose worker died comes due again when the lease runs out.

    async def schedule(self, game_id: str, due: float) -> None:
        """Make `game_id` due at `due` (a Unix time), replacing what was scheduled."""
        ...

    async def due(self, now: float, count: int) -> list[tuple[str, float]]:
        """Up to `count` games due at `now`, with the time each is due."""
        ...

    async def lease(self, game_id: str, due: float, until: float) -> bool:
        """Move a game due at `due` to `until`; False if it is not (or no longer) due then."""
        ...

    async def unschedule(self, game_id: str, due: float) -> bool:
        """Drop a game still scheduled at `due`."""
        ...

    async def add_counts(self, deltas: dict[str, int], ttl: float) -> dict[str, int]:
        """Add to shared counters (created with `ttl` seconds to live); their new totals."""
        ...

    async def ping(self) -> bool: ...

    async def close(self) -> None: ...


# ---- in process -------------------------------------------------------------------


@dataclass
class _MemoryGame:
    record: Record
    log: list[Entry]
    expires: float
    requests: dict[str, int] = field(default_factory=dict)


class MemoryStore:
    """The embedded store: the same semantics in one process (a single worker only)."""

    name = "memory"

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._games: dict[str, _MemoryGame] = {}
        self._lobby: dict[str, dict[str, float]] = {}
        self._schedule: dict[str, float] = {}
        self._counts: dict[str, tuple[int, float]] = {}
        self._changed = asyncio.Condition()
        self._clock = clock

    def _get(self, game_id: str) -> _MemoryGame | None:
        game = self._games.get(game_id)
        if game is not None and game.expires and game.expires <= self._clock():
            del self._games[game_id]
            return None
        return game

    def _deadline(self, ttl: float) -> float:
        return self._clock() + ttl if ttl else 0.0

    async def create(self, game_id: str, record: Record, entry: Entry | None, ttl: float) -> bool:
        if self._get(game_id) is not None:
            return False
        self._games[game_id] = _MemoryGame(record, [entry] if entry else [], self._deadline(ttl))
        await self._notify()
        return True

    async def read(
        self, game_id: str, request_id: str | None = None
    ) -> tuple[Record | None, int | None]:
        game = self._get(game_id)
        if game is None:
            return None, None
        done = game.requests.get(request_id) if request_id else None
        return game.record, done

    async def write(self, game_id: str, write: Write) -> WriteResult:
        game = self._get(game_id)
        if game is None:
            return WriteResult(False, -1)
        if write.request_id is not None and write.request_id in game.requests:
            return WriteResult(False, game.record.rev, game.requests[write.request_id])
        if game.record.rev != write.expected_rev:
            return WriteResult(False, game.record.rev, current=game.record)
        if write.request_id is not None:
            game.requests[write.request_id] = write.version
        rev = game.record.rev + 1
        game.record = Record(write.state, write.meta, write.version, rev)
        game.log.append(Entry(write.entry_id, write.entry))
        game.expires = self._deadline(write.ttl)
        await self._notify()
        return WriteResult(True, rev)

    async def _notify(self) -> None:
        async with self._changed:
            self._changed.notify_all()

    async def entries(self, game_id: str, after: EntryId, block_ms: int = 0) -> list[Entry]:
        deadline = time.monotonic() + block_ms / 1000
        while True:
            game = self._get(game_id)
            found = [e for e in game.log if e.id > after] if game else []
            remaining = deadline - time.monotonic()
            if found or remaining <= 0:
                return found
            async with self._changed:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._changed.wait(), remaining)

    async def entry(self, game_id: str, version: int) -> Entry | None:
        game = self._get(game_id)
        return next((e for e in game.log if e.id == (version, 0)), None) if game else None

    async def lobby_add(self, kind: str, game_id: str, created: float) -> None:
        self._lobby.setdefault(kind, {})[game_id] = created

    async def lobby_remove(self, kind: str, game_id: str) -> None:
        self._lobby.get(kind, {}).pop(game_id, None)

    async def lobby_page(self, kind: str, after: float, count: int) -> list[tuple[str, float]]:
        open_games = sorted(
            ((gid, t) for gid, t in self._lobby.get(kind, {}).items() if t > after),
            key=lambda item: (item[1], item[0]),
        )
        return open_games[:count]

    async def schedule(self, game_id: str, due: float) -> None:
        self._schedule[game_id] = due

    async def due(self, now: float, count: int) -> list[tuple[str, float]]:
        return sorted(((g, t) for g, t in self._schedule.items() if t <= now), key=lambda x: x[1])[
            :count
        ]

    async def lease(self, game_id: str, due: float, until: float) -> bool:
        if self._schedule.get(game_id) != due:
            return False
        self._schedule[game_id] = until
        return True

    async def unschedule(self, game_id: str, due: float) -> bool:
        if self._schedule.get(game_id) != due:
            return False
        del self._schedule[game_id]
        return True

    async def add_counts(self, deltas: dict[str, int], ttl: float) -> dict[str, int]:
        now = self._clock()
        self._counts = {k: v for k, v in self._counts.items() if v[1] > now}
        for key, delta in deltas.items():
            total, expires = self._counts.get(key, (0, now + ttl))
            self._counts[key] = (total + delta, expires)
        return {key: self._counts[key][0] for key in deltas}

    async def ping(self) -> bool:
        return True

    async def close(self) -> None:
        self._games.clear()


# ---- Redis ------------------------------------------------------------------------

# A game is three keys in one slot (the {id} hash tag, so scripts work on Redis Cluster):
# the record, one string "<rev> <version> <meta length>\n" + zlib(meta + state), so
# that a live game takes under 1 KiB with Redis's own overhead (a hash of four fields
# took 1.1-1.7 KiB); its log, a stream; and the request ids it has applied, a hash of
# request id -> version that lives as long as the game.

# KEYS: record, log, requests. ARGV: expected rev, new record, entry id, entry,
# request id ('' for none), version, ttl in ms (0: none).
# Returns {1} written, {0} no game, {2, version} request id already applied,
# {3, record} another write came first.
_WRITE = """
if ARGV[5] ~= '' then
  local done = redis.call('HGET', KEYS[3], ARGV[5])
  if done then return {2, tonumber(done)} end
end
local current = redis.call('GET', KEYS[1])
if not current then return {0} end
if string.match(current, '^%d+') ~= ARGV[1] then return {3, current} end
local ttl = tonumber(ARGV[7])
if ttl > 0 then redis.call('SET', KEYS[1], ARGV[2], 'PX', ttl)
else redis.call('SET', KEYS[1], ARGV[2]) end
redis.call('XADD', KEYS[2], ARGV[3], 'd', ARGV[4])
if ARGV[5] ~= '' then redis.call('HSET', KEYS[3], ARGV[5], ARGV[6]) end
for i = 2, 3 do
  if ttl > 0 then redis.call('PEXPIRE', KEYS[i], ttl) else redis.call('PERSIST', KEYS[i]) end
end
return {1}
"""

# KEYS: record, log. ARGV: record, ttl in ms, entry id ('' for none), entry.
_CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
if tonumber(ARGV[2]) > 0 then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
else redis.call('SET', KEYS[1], ARGV[1]) end
if ARGV[3] ~= '' then
  redis.call('XADD', KEYS[2], ARGV[3], 'd', ARGV[4])
  if tonumber(ARGV[2]) > 0 then redis.call('PEXPIRE', KEYS[2], ARGV[2]) end
end
return 1
"""

# KEYS: the schedule. ARGV: game id, the time it must be due at, and its new time ('' drops it).
_RESCHEDULE = """
local due = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not due or tonumber(due) ~= tonumber(ARGV[2]) then return 0 end
if ARGV[3] == '' then redis.call('ZREM', KEYS[1], ARGV[1])
else redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1]) end
return 1
"""

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

    def __init__(self, source: str) -> None:
        self.source = source
        self.sha = hashlib.sha1(source.encode()).hexdigest()

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
        self._write = _Script(_WRITE)
        self._create = _Script(_CREATE)
        self._reschedule = client.register_script(_RESCHEDULE)

    @classmethod
    def from_url(cls, url: str, *, cluster: bool = False, timeout: float = 2.0) -> RedisStore:
        options = {
            "socket_timeout": timeout,
            "socket_connect_timeout": timeout,
            "health_check_interval": 15,
        }
        if cluster:
            client = RedisCluster.from_url(url, **options)  # type: ignore[arg-type]
            return cls(
                client,
                RedisCluster.from_url(url, socket_connect_timeout=timeout),
                ClientCommands(client),
            )
        client = aioredis.from_url(url, **options)  # type: ignore[arg-type]
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
        if block_ms:
            reply = await self._blocking.xread({log_key: _stream_id(after)}, block=block_ms)
            rows = reply[0][1] if reply else []
        else:
            rows = await self._redis.xrange(log_key, min=f"({_stream_id(after)}")
        return [Entry(_entry_id(rid), fields[b"d"]) for rid, fields in rows]

    async def entry(self, game_id: str, version: int) -> Entry | None:
        _, log_key, _ = _keys(game_id)
        sid = _stream_id((version, 0))
        rows = await self._redis.xrange(log_key, min=sid, max=sid)
        return Entry((version, 0), rows[0][1][b"d"]) if rows else None

    async def lobby_add(self, kind: str, game_id: str, created: float) -> None:
        await self._redis.zadd(f"genial:lobby:{kind}", {game_id: created})

    async def lobby_remove(self, kind: str, game_id: str) -> None:
        await self._redis.zrem(f"genial:lobby:{kind}", game_id)

    async def lobby_page(self, kind: str, after: float, count: int) -> list[tuple[str, float]]:
        rows = await self._redis.zrangebyscore(
            f"genial:lobby:{kind}", f"({after}", "+inf", start=0, num=count, withscores=True
        )
        return [(gid.decode(), score) for gid, score in rows]

    async def schedule(self, game_id: str, due: float) -> None:
        await self._redis.zadd(SCHEDULE_KEY, {game_id: due})

    async def due(self, now: float, count: int) -> list[tuple[str, float]]:
        rows = await self._redis.zrangebyscore(
            SCHEDULE_KEY, "-inf", now, start=0, num=count, withscores=True
        )
        return [(gid.decode(), score) for gid, score in rows]

    async def lease(self, game_id: str, due: float, until: float) -> bool:
        return bool(
            await self._reschedule(keys=[SCHEDULE_KEY], args=[game_id, repr(due), repr(until)])
        )

    async def unschedule(self, game_id: str, due: float) -> bool:
        return bool(await self._reschedule(keys=[SCHEDULE_KEY], args=[game_id, repr(due), ""]))

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
