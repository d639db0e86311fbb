"""Games in Redis (standalone or Cluster), a compare-and-set in Lua for every write.

A game is four keys in one slot (the {id} hash tag, so scripts work on Redis Cluster):
the record, one string "<rev> <version> <meta length>\n" + zlib(meta + state), so that a
live game takes under 1 KiB with Redis's own overhead (a hash of four fields took
1.1-1.7 KiB); its log, a stream; the request ids of its last moves, a hash of request id
-> version; and its snapshots, a hash of version -> snapshot. The scripts are in
`scripts/`.
"""

from __future__ import annotations

import hashlib
import time
import zlib
from collections.abc import Sequence
from importlib import resources
from typing import Any, Protocol

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import NoScriptError, ResponseError

from .base import Entry, EntryId, Follower, Quota, Record, Write, WriteResult
from .redis_changes import RedisLogChanges
from .redis_link import Command, RedisLink
from .redis_matches import RedisMatches
from .redis_players import FOLLOW_UPS_KEY, RedisPlayers

# A game is three keys in one slot (the {id} hash tag, so scripts work on Redis Cluster):
# the record, one string "<rev> <version> <meta length>\n" + zlib(meta + state), so
# that a live game takes under 1 KiB with Redis's own overhead (a hash of four fields
# took 1.1-1.7 KiB); its log, a stream; and the request ids it has applied, a hash of
# request id -> version that lives as long as the game.

SCHEDULE_KEY = "genial:schedule"
"""Outside any game's slot: the schedule is its own key, written on its own."""


def _keys(game_id: str) -> tuple[str, str, str, str]:
    """The record, the log, the request ids and the snapshots of a game."""
    return tuple(f"genial:{{{game_id}}}:{part}" for part in ("game", "log", "req", "snap"))  # type: ignore[return-value]


def _quota_keys(address: str) -> list[str]:
    """An address's waiting games and its creations this minute, in one slot."""
    minute = int(time.time() // 60)
    return [f"genial:quota:{{{address}}}:waiting", f"genial:quota:{{{address}}}:{minute}"]


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
            return await commands.call(*self.by_sha(keys, args))
        except NoScriptError:
            return await commands.call("EVAL", self.source, len(keys), *keys, *args)

    def by_sha(self, keys: Sequence[str], args: Sequence[str | bytes | int]) -> Command:
        return ("EVALSHA", self.sha, len(keys), *keys, *args)


ScriptCall = tuple[_Script, Sequence[str], Sequence[str | bytes | int]]


async def run_in_order(
    commands: Commands, first: Sequence[Command], calls: Sequence[ScriptCall]
) -> list[Any]:
    """Commands, then scripts, in one round trip and in this order (on one connection Redis
    runs them so); a script Redis forgot (after a restart) is sent again in full. The
    replies of the scripts; an error reply is raised."""
    replies = await commands.pipeline([*first, *(s.by_sha(k, a) for s, k, a in calls)])
    for reply in replies[: len(first)]:
        if isinstance(reply, Exception):
            raise reply
    found = replies[len(first) :]
    for i, (reply, (script, keys, args)) in enumerate(zip(found, calls, strict=True)):
        forgot = isinstance(reply, NoScriptError) or (
            isinstance(reply, ResponseError) and str(reply).startswith("NOSCRIPT")
        )
        if forgot:
            found[i] = await script(commands, keys, args)
        elif isinstance(reply, Exception):
            raise reply
    return found


class RedisStore(RedisPlayers, RedisMatches):
    """Games in Redis (standalone or Cluster), a compare-and-set in Lua for every write.

    The move path (read, write, create) and the logs go through `commands`: a `RedisLink`
    on standalone Redis over TCP, redis-py's client on Cluster, Unix sockets and URLs with
    options the link does not follow. The lobby goes through redis-py; watchers wait on
    `changes` (one Pub/Sub connection).
    """

    name = "redis"

    def __init__(
        self,
        client: aioredis.Redis | RedisCluster,
        commands: RedisLink | ClientCommands,
        changes: RedisLogChanges,
    ) -> None:
        self._redis = client
        self._commands = commands
        self.changes = changes
        self._write = _Script("write.lua")
        self._create = _Script("create.lua")
        self._reschedule = _Script("reschedule.lua")
        self._claim_creation = _Script("claim_creation.lua")
        self._followed_script = _Script("followed.lua")
        self._rotate = _Script("rotate_session.lua")
        self._finish = _Script("finish_game.lua")
        self._add_events = _Script("add_player_events.lua")
        self._read_events = _Script("player_events.lua")
        self._open_ticket = _Script("open_ticket.lua")
        self._cancel_ticket = _Script("cancel_ticket.lua")
        self._commit_matches = _Script("commit_matches.lua")
        self._save_ratings = _Script("save_ratings.lua")

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
                cluster_client, ClientCommands(cluster_client), RedisLogChanges(url, timeout)
            )
        client = aioredis.from_url(
            url, socket_timeout=timeout, socket_connect_timeout=timeout, health_check_interval=15
        )
        # unix:// and URLs with options stay with redis-py, which follows them all.
        lean = RedisLink.understands(url)
        return cls(
            client,
            RedisLink.from_url(url, timeout) if lean else ClientCommands(client),
            RedisLogChanges(url, timeout),
        )

    async def create(self, game_id: str, record: Record, entry: Entry | None, ttl: float) -> bool:
        game_key, log_key, _, _ = _keys(game_id)
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
        game_key, _, requests_key, _ = _keys(game_id)
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
        keys = _keys(game_id)
        args: list[str | bytes | int] = [
            write.expected_rev,
            pack_record(Record(write.state, write.meta, write.version, rev)),
            _stream_id(write.entry_id) if write.entry_id is not None else "",
            write.entry,
            write.request_id or "",
            write.version,
            int(write.ttl * 1000),
            write.snapshot or b"",
        ]
        if write.follow_up:
            reply = await self._write_after_intent(game_id, write.follow_up, keys, args)
        else:
            reply = await self._write(self._commands, keys, args)
        status = int(reply[0])
        if status == 1:
            return WriteResult(True, rev)
        if status == 2:
            return WriteResult(False, -1, duplicate_version=int(reply[1]))
        if status == 3:
            current = unpack_record(reply[1])
            return WriteResult(False, current.rev, current=current)
        return WriteResult(False, -1)

    async def _write_after_intent(
        self, game_id: str, due: float, keys: Sequence[str], args: Sequence[str | bytes | int]
    ) -> Any:
        """The write, after recording the game's follow-up intent: on one connection both in
        one round trip (Redis runs them in order), else (Cluster: two slots) one after the
        other."""
        intent: Command = ("ZADD", FOLLOW_UPS_KEY, repr(due), game_id)
        if not isinstance(self._commands, RedisLink):
            await self._commands.call(*intent)
            return await self._write(self._commands, keys, args)
        (reply,) = await run_in_order(self._commands, [intent], [(self._write, keys, args)])
        return reply

    async def entries(
        self, game_id: str, after: EntryId, until: EntryId | None = None
    ) -> list[Entry]:
        _, log_key, _, _ = _keys(game_id)
        last = "+" if until is None else _stream_id(until)
        rows = await self._commands.call("XRANGE", log_key, f"({_stream_id(after)}", last)
        # Each row is [id, [field, value]]: the one field "d".
        return [Entry(_entry_id(rid), fields[1]) for rid, fields in rows]

    async def snapshot(self, game_id: str, version: int) -> bytes | None:
        _, _, _, snapshots_key = _keys(game_id)
        found: bytes | None = await self._commands.call("HGET", snapshots_key, version)
        return found

    async def follow(self, game_id: str) -> Follower:
        return await self.changes.follow(game_id)

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

    async def claim_creation(
        self, address: str, game_id: str, cost: int, expires: float, quota: Quota
    ) -> str | None:
        reply = await self._claim_creation(
            self._commands,
            _quota_keys(address),
            [
                int(time.time() * 1000),
                game_id,
                int(expires * 1000),
                cost,
                quota.per_minute,
                quota.waiting,
            ],
        )
        verdict = reply.decode() if isinstance(reply, bytes) else str(reply)
        return None if verdict == "ok" else verdict

    async def waiting_games(self, address: str) -> list[str]:
        found: list[bytes] = await self._commands.call("ZRANGE", _quota_keys(address)[0], 0, -1)
        return [game_id.decode() for game_id in found]

    async def release_waiting(self, address: str, game_ids: list[str]) -> None:
        if game_ids:
            await self._commands.call("ZREM", _quota_keys(address)[0], *game_ids)

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

    async def memory(self) -> tuple[int, int]:
        if isinstance(self._redis, RedisCluster):  # the fullest primary counts
            per_node: Any = await self._redis.info("memory", target_nodes=RedisCluster.PRIMARIES)
            return max((int(i["used_memory"]), int(i["maxmemory"])) for i in per_node.values())
        info: Any = await self._redis.info("memory")
        return int(info["used_memory"]), int(info["maxmemory"])

    async def ping(self) -> bool:
        """Whether Redis answers and takes writes: a small write, which a Redis past its
        maxmemory (or a read-only replica) refuses."""
        try:
            return bool(await self._redis.set("genial:ready", b"1", px=60_000))
        except (aioredis.RedisError, OSError):
            return False

    async def close(self) -> None:
        await self.changes.close()
        await self._commands.close()
        await self._redis.aclose()
