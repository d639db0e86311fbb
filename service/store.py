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
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster

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
    meta: bytes | None = None
    """New metadata, or None to keep it."""
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
        """Compare-and-set the record and append one log entry, atomically. One round trip."""
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
        if game is None or game.record.rev != write.expected_rev:
            return WriteResult(False, game.record.rev if game else -1)
        if write.request_id is not None and write.request_id in game.requests:
            return WriteResult(False, game.record.rev, game.requests[write.request_id])
        if write.request_id is not None:
            game.requests[write.request_id] = write.version
        rev = game.record.rev + 1
        game.record = Record(
            write.state,
            write.meta if write.meta is not None else game.record.meta,
            write.version,
            rev,
        )
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

# KEYS: game hash, log stream, request key (same slot through the {id} hash tag).
# ARGV: expected rev, version, state, meta ('' keeps it), entry id, entry, request id
# ('' for none), ttl in ms (0: none), request ttl in ms.
_WRITE = """
local rev = tonumber(redis.call('HGET', KEYS[1], 'rev'))
if rev == nil then return {0, -1} end
if rev ~= tonumber(ARGV[1]) then return {0, rev} end
if ARGV[7] ~= '' then
  local done = redis.call('GET', KEYS[3])
  if done then return {0, rev, tonumber(done)} end
  redis.call('SET', KEYS[3], ARGV[2], 'PX', ARGV[9])
end
rev = rev + 1
redis.call('HSET', KEYS[1], 'rev', rev, 'version', ARGV[2], 'state', ARGV[3])
if ARGV[4] ~= '' then redis.call('HSET', KEYS[1], 'meta', ARGV[4]) end
redis.call('XADD', KEYS[2], ARGV[5], 'd', ARGV[6])
local ttl = tonumber(ARGV[8])
if ttl > 0 then
  redis.call('PEXPIRE', KEYS[1], ttl)
  redis.call('PEXPIRE', KEYS[2], ttl)
else
  redis.call('PERSIST', KEYS[1])
  redis.call('PERSIST', KEYS[2])
end
return {1, rev}
"""

# KEYS: game hash, log stream. ARGV: state, meta, ttl in ms, entry id ('' for none), entry.
_CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'rev', 0, 'version', 0, 'state', ARGV[1], 'meta', ARGV[2])
if ARGV[4] ~= '' then redis.call('XADD', KEYS[2], ARGV[4], 'd', ARGV[5]) end
if tonumber(ARGV[3]) > 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  if ARGV[4] ~= '' then redis.call('PEXPIRE', KEYS[2], ARGV[3]) end
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

REQUEST_TTL_MS = 3_600_000
"""How long a request id is remembered for retries."""


def _keys(game_id: str) -> tuple[str, str]:
    # The hash tag puts every key of a game in one slot, so scripts work on Redis Cluster.
    return f"genial:{{{game_id}}}:game", f"genial:{{{game_id}}}:log"


def _request_key(game_id: str, request_id: str) -> str:
    return f"genial:{{{game_id}}}:req:{request_id}"


def _stream_id(entry_id: EntryId) -> str:
    return f"{entry_id[0]}-{entry_id[1]}"


def _entry_id(raw: bytes) -> EntryId:
    version, seq = raw.split(b"-")
    return int(version), int(seq)


class RedisStore:
    """Games in Redis (standalone or Cluster): a hash and a stream per game, Lua for the CAS."""

    name = "redis"

    def __init__(
        self, client: aioredis.Redis | RedisCluster, blocking: aioredis.Redis | RedisCluster
    ) -> None:
        self._redis = client
        # Blocking reads (XREAD BLOCK) get their own connections so they never starve moves.
        self._blocking = blocking
        self._write = client.register_script(_WRITE)
        self._create = client.register_script(_CREATE)
        self._reschedule = client.register_script(_RESCHEDULE)

    @classmethod
    def from_url(cls, url: str, *, cluster: bool = False, timeout: float = 2.0) -> RedisStore:
        options = {
            "socket_timeout": timeout,
            "socket_connect_timeout": timeout,
            "health_check_interval": 15,
        }
        if cluster:
            return cls(
                RedisCluster.from_url(url, **options),  # type: ignore[arg-type]
                RedisCluster.from_url(url, socket_connect_timeout=timeout),
            )
        return cls(
            aioredis.from_url(url, **options),  # type: ignore[arg-type]
            aioredis.from_url(url, socket_connect_timeout=timeout, max_connections=1024),
        )

    async def create(self, game_id: str, record: Record, entry: Entry | None, ttl: float) -> bool:
        created = await self._create(
            keys=list(_keys(game_id)),
            args=[
                record.state,
                record.meta,
                int(ttl * 1000),
                _stream_id(entry.id) if entry else "",
                entry.data if entry else b"",
            ],
        )
        return bool(created)

    async def read(
        self, game_id: str, request_id: str | None = None
    ) -> tuple[Record | None, int | None]:
        game_key, _ = _keys(game_id)
        if request_id is None:
            raw = await self._redis.hgetall(game_key)
            done = None
        else:
            async with self._redis.pipeline(transaction=False) as pipe:
                pipe.hgetall(game_key)
                pipe.get(_request_key(game_id, request_id))
                raw, done = await pipe.execute()
        if not raw:
            return None, None
        record = Record(raw[b"state"], raw[b"meta"], int(raw[b"version"]), int(raw[b"rev"]))
        return record, int(done) if done is not None else None

    async def write(self, game_id: str, write: Write) -> WriteResult:
        game_key, log_key = _keys(game_id)
        request_key = _request_key(game_id, write.request_id or "")
        result = await self._write(
            keys=[game_key, log_key, request_key],
            args=[
                write.expected_rev,
                write.version,
                write.state,
                write.meta if write.meta is not None else b"",
                _stream_id(write.entry_id),
                write.entry,
                write.request_id or "",
                int(write.ttl * 1000),
                REQUEST_TTL_MS,
            ],
        )
        ok, rev, *duplicate = result
        return WriteResult(bool(ok), int(rev), int(duplicate[0]) if duplicate else None)

    async def entries(self, game_id: str, after: EntryId, block_ms: int = 0) -> list[Entry]:
        _, log_key = _keys(game_id)
        if block_ms:
            reply = await self._blocking.xread({log_key: _stream_id(after)}, block=block_ms)
            rows = reply[0][1] if reply else []
        else:
            rows = await self._redis.xrange(log_key, min=f"({_stream_id(after)}")
        return [Entry(_entry_id(rid), fields[b"d"]) for rid, fields in rows]

    async def entry(self, game_id: str, version: int) -> Entry | None:
        _, log_key = _keys(game_id)
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
        async with self._redis.pipeline(transaction=False) as pipe:
            for key, delta in deltas.items():
                pipe.incrby(f"genial:count:{key}", delta)
                pipe.pexpire(f"genial:count:{key}", int(ttl * 1000), nx=True)
            replies = await pipe.execute()
        return {key: int(total) for key, total in zip(deltas, replies[::2], strict=True)}

    async def ping(self) -> bool:
        try:
            return bool(await self._redis.ping())
        except (aioredis.RedisError, OSError):
            return False

    async def close(self) -> None:
        await self._redis.aclose()
        await self._blocking.aclose()
