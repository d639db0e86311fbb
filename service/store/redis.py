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
import os
import time
import traceback
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any, Protocol
from urllib.parse import parse_qs, quote, unquote, urlsplit, urlunsplit

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.sentinel import Sentinel
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from ..metrics import METRICS
from .base import Entry, EntryId, Follower, Quota, Record, Write, WriteResult
from .redis_changes import SUBSCRIBER_OPTIONS, RedisLogChanges
from .redis_link import Command, RedisLink
from .redis_matches import RedisMatches
from .redis_outbox import RedisOutbox
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


def with_password(url: str, password: str) -> str:
    """`url` with `password` in place of its own (redis-py takes a URL's over an argument)."""
    parts = urlsplit(url)
    user = parts.username or ""
    host = parts.netloc.rpartition("@")[2]
    netloc = f"{user}:{quote(password, safe='')}@{host}"
    if parts.scheme == "unix":  # unix://[user:password@]/path
        return urlunsplit((parts.scheme, netloc, parts.path, parts.query, ""))
    return urlunsplit(parts._replace(netloc=netloc))


def _pooled(client: aioredis.Redis | RedisCluster) -> int:
    """Connections open in a redis-py client's pools (redis-py keeps the counts private)."""
    found: list[Any]
    if isinstance(client, RedisCluster):
        found = [c for node in client.get_nodes() for c in node._connections]
    else:
        pool = client.connection_pool
        found = [*pool._available_connections, *pool._in_use_connections]
    return sum(1 for connection in found if connection.is_connected)


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
        self._timers: dict[str, Any] = {}

    def _observe(self, operation: str, start: float) -> None:
        timer = self._timers.get(operation)
        if timer is None:
            timer = self._timers[operation] = METRICS.redis_latency.labels(operation)
        timer.observe(time.perf_counter() - start)

    async def call(self, *command: str | bytes | int | float) -> Any:
        start = time.perf_counter()
        try:
            return await self._commands.call(*command)
        finally:
            self._observe(_operation(command), start)

    @property
    def generation(self) -> int:
        return self._commands.generation

    async def pipeline(self, commands: Sequence[Command], *, wait: Wait | None = None) -> list[Any]:
        start = time.perf_counter()
        try:
            return await self._commands.pipeline(commands, wait=wait)
        finally:
            kinds = {_operation(command) for command in commands}
            self._observe(kinds.pop() if len(kinds) == 1 else "pipeline", start)

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

    def __init__(self, name: str) -> None:
        self.source = resources.files(__package__).joinpath("scripts", name).read_text()
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


class RedisStore(RedisPlayers, RedisOutbox, RedisMatches):
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
        wait: Wait | None = None,
    ) -> None:
        self._redis = client
        self._link = commands
        """The move path's connection itself, under the wrappers of `_commands`."""
        self._commands: Commands = TimedCommands(commands)
        self.changes = changes
        self._wait = wait
        """Replicas a move must reach before it is acknowledged (WAIT), if any."""
        self._write = _Script("write.lua")
        self._create = _Script("create.lua")
        self._reschedule = _Script("reschedule.lua")
        self._claim_creation = _Script("claim_creation.lua")
        self._followed_script = _Script("followed.lua")
        self._rotate = _Script("rotate_session.lua")
        self._finish = _Script("finish_game.lua")
        self._add_events = _Script("add_player_events.lua")
        self._read_events = _Script("player_events.lua")
        self._outbox_queue = _Script("outbox_queue.lua")
        self._outbox_take = _Script("outbox_take.lua")
        self._outbox_settle = _Script("outbox_settle.lua")
        self._outbox_replay = _Script("outbox_replay.lua")
        self._open_ticket = _Script("open_ticket.lua")
        self._cancel_ticket = _Script("cancel_ticket.lua")
        self._commit_matches = _Script("commit_matches.lua")
        self._save_ratings = _Script("save_ratings.lua")

    @classmethod
    def from_url(
        cls,
        url: str,
        *,
        cluster: bool = False,
        timeout: float = 2.0,
        password: str | None = None,
        sentinels: Sentinels | None = None,
        wait: Wait | None = None,
    ) -> RedisStore:
        """The store at `url`; `password` wins over the URL's. With `sentinels`, the master
        they name (the URL, which may be empty, gives only the scheme, user and database).
        `wait`: a move is acknowledged once that many replicas confirm it (not on Cluster).
        """
        if wait is not None and cluster:
            raise ValueError("waiting for replicas is not supported on Redis Cluster")
        if sentinels is not None:
            return cls._through_sentinels(url, sentinels, timeout, password, wait)
        if password:
            url = with_password(url, password)
        if cluster:
            cluster_client = RedisCluster.from_url(
                url,
                socket_timeout=timeout,
                socket_connect_timeout=timeout,
                health_check_interval=15,
            )
            return cls(
                cluster_client,
                ClientCommands(cluster_client),
                RedisLogChanges.from_url(url, timeout),
            )
        client = aioredis.from_url(
            url, socket_timeout=timeout, socket_connect_timeout=timeout, health_check_interval=15
        )
        # unix:// and URLs with options stay with redis-py, which follows them all.
        lean = RedisLink.understands(url)
        return cls(
            client,
            RedisLink.from_url(url, timeout) if lean else ClientCommands(client),
            RedisLogChanges.from_url(url, timeout),
            wait,
        )

    @property
    def client(self) -> aioredis.Redis | RedisCluster:
        """redis-py's client: what is not on the move path goes through it."""
        client: aioredis.Redis | RedisCluster = self._redis
        return client

    def wrap_commands(self, wrap: Callable[[Commands], Commands]) -> None:
        """Pass the move path's commands through `wrap` from now on (tracing does)."""
        self._commands = wrap(self._commands)

    @classmethod
    def _through_sentinels(
        cls,
        url: str,
        sentinels: Sentinels,
        timeout: float,
        password: str | None,
        wait: Wait | None,
    ) -> RedisStore:
        parts = urlsplit(url or "redis://")
        if parts.scheme not in RedisLink.SCHEMES or set(parse_qs(parts.query)) - {"db"}:
            raise ValueError("behind Sentinel the URL is redis:// or rediss:// with a database")
        query = parse_qs(parts.query)
        db = int(query["db"][0] if "db" in query else parts.path.strip("/") or 0)
        username = unquote(parts.username) if parts.username else None
        password = password or (unquote(parts.password) if parts.password else None)
        tls = parts.scheme == "rediss"
        timeouts: dict[str, Any] = {"socket_timeout": timeout, "socket_connect_timeout": timeout}
        sentinel = Sentinel(  # type: ignore[no-untyped-call]
            sentinels.addresses,
            sentinel_kwargs={"password": sentinels.password, **timeouts},
            db=db,
            username=username,
            password=password,
            ssl=tls,
        )
        client = sentinel.master_for(sentinels.master, health_check_interval=15, **timeouts)
        subscriber_options: dict[str, Any] = {
            "socket_connect_timeout": timeout,
            **SUBSCRIBER_OPTIONS,
        }
        subscriber = sentinel.master_for(sentinels.master, **subscriber_options)

        async def master() -> tuple[str, int]:
            host, port = await sentinel.discover_master(sentinels.master)
            return str(host), int(port)

        link = RedisLink(
            "",
            0,
            db=db,
            username=username,
            password=password,
            tls=tls,
            timeout=timeout,
            resolve=master,
        )
        return cls(client, link, RedisLogChanges(subscriber), wait)

    @property
    def generation(self) -> int:
        """Changes whenever the move path's connection was lost: a record this worker kept
        from before may be one that a failover lost (and its rev reached again by other
        moves), so it is read anew."""
        return self._link.generation

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
        elif self._wait is not None:
            (reply,) = await run_in_order(
                self._commands, [], [(self._write, keys, args)], self._wait
            )
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
        if not isinstance(self._link, RedisLink):
            await self._commands.call(*intent)
            (reply,) = await run_in_order(
                self._commands, [], [(self._write, keys, args)], self._wait
            )
            return reply
        (reply,) = await run_in_order(
            self._commands, [intent], [(self._write, keys, args)], self._wait
        )
        return reply

    async def entries(
        self, game_id: str, after: EntryId, until: EntryId | None = None
    ) -> list[Entry]:
        _, log_key, _, _ = _keys(game_id)
        last = "+" if until is None else _stream_id(until)
        rows = await self._commands.call("XRANGE", log_key, f"({_stream_id(after)}", last)
        # Each row is [id, [field, value]]: the one field "d" (redis-py's client, on Cluster
        # and Unix sockets, makes the fields a dict).
        return [
            Entry(_entry_id(rid), fields[b"d"] if isinstance(fields, dict) else fields[1])
            for rid, fields in rows
        ]

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

    async def count_games(
        self, deltas: dict[str, dict[int, int]], since: dict[str, int]
    ) -> dict[str, int]:
        # One hash a status (the Census's few hundred buckets at most), off the move path.
        async with self._redis.pipeline(transaction=False) as pipe:
            for status in since:
                for bucket, delta in deltas.get(status, {}).items():
                    pipe.hincrby(f"genial:games:{status}", str(bucket), delta)
                pipe.hgetall(f"genial:games:{status}")
            replies: list[Any] = await pipe.execute()
        totals, stale = {}, {}
        at = 0
        for status, first in since.items():
            at += len(deltas.get(status, {}))
            buckets = {int(b): int(n) for b, n in replies[at].items()}
            at += 1
            totals[status] = sum(n for b, n in buckets.items() if b >= first)
            stale[status] = [str(b) for b in buckets if b < first]
        if any(stale.values()):
            async with self._redis.pipeline(transaction=False) as pipe:
                for status, fields in stale.items():
                    if fields:
                        pipe.hdel(f"genial:games:{status}", *fields)
                await pipe.execute()
        return totals

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

    def connections(self) -> int:
        """The move path's link, and the connections of redis-py's pools (the lobby's and
        the subscriber's; on Cluster one pool a node)."""
        link = int(self._link.connected) if isinstance(self._link, RedisLink) else 0
        return link + _pooled(self._redis) + _pooled(self.changes.client)

    async def close(self) -> None:
        await self.changes.close()
        await self._commands.close()
        await self._redis.aclose()
