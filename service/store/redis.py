"""Games in Redis (standalone or Cluster), a compare-and-set in Lua for every write.

A game is four keys in one slot (the {id} hash tag, so scripts work on Redis Cluster):
the record, one string "<rev> <version> <meta length>[ <codec>]\n" + the metadata and state
compressed (`record_codec`), so that a live game takes well under 1 KiB with Redis's own
overhead (a hash of four fields took 1.1-1.7 KiB); its log, a stream; the request ids of
its last moves, a hash of request id -> version; and its snapshots, a hash of version ->
snapshot. The scripts are in `scripts/`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import parse_qs, quote, unquote, urlsplit, urlunsplit

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.retry import Retry
from redis.asyncio.sentinel import Sentinel
from redis.backoff import NoBackoff

from .base import Entry, EntryId, Follower, InlineFollowUp, Record, Write, WriteResult
from .record_codec import RecordCodec, pack, unpack
from .redis_changes import SUBSCRIBER_OPTIONS, RedisLogChanges
from .redis_commands import (
    ClientCommands,
    Commands,
    Sentinels,
    TimedCommands,
    Wait,
    _Script,
    ms,
    run_in_order,
)
from .redis_link import Command, RedisLink
from .redis_matches import RedisMatches
from .redis_outbox import RedisOutbox
from .redis_players import (
    FOLLOW_UPS_KEY,
    RedisPlayers,
    followed_key,
    followed_mark,
    player_event_keys,
    wake_channel,
)
from .redis_shared import RedisShared


def _keys(game_id: str) -> tuple[str, str, str, str]:
    """The record, the log, the request ids and the snapshots of a game."""
    prefix = f"genial:{{{game_id}}}:"
    return prefix + "game", prefix + "log", prefix + "req", prefix + "snap"


def _with_follow_up(
    game_id: str,
    keys: Sequence[str],
    args: Sequence[str | bytes | int],
    inline: InlineFollowUp,
) -> tuple[Sequence[str], Sequence[str | bytes | int]]:
    """write_followed.lua's keys and arguments: the write's, then its follow-up's."""
    all_keys = [*keys, followed_key(game_id)]
    all_args: list[str | bytes | int] = [
        *args,
        inline.mark_rev,
        inline.mark.rev,
        followed_mark(inline.mark),
        ms(inline.mark_ttl),
        inline.events_kept,
        ms(inline.events_ttl),
    ]
    for player, events in inline.events.items():
        all_keys += player_event_keys(player)
        all_args += [wake_channel(player), len(events)]
        for event_id, data in events:
            all_args += [event_id, data]
    return all_keys, all_args


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


class RedisStore(RedisPlayers, RedisOutbox, RedisMatches, RedisShared):
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
        codec: RecordCodec = "zstd",
    ) -> None:
        self._redis = client
        self._codec: RecordCodec = codec
        """How this worker writes records (it reads every codec)."""
        self._link = commands
        """The move path's connection itself, under the wrappers of `_commands`."""
        self._commands: Commands = TimedCommands(commands)
        self.changes = changes
        self._wait = wait
        """Replicas a move must reach before it is acknowledged (WAIT), if any."""
        self._write = _Script("write.lua")
        self._write_followed = _Script(
            "write_followed.lua",
            uses=[
                ("write_game", "write.lua"),
                ("set_mark", "followed.lua"),
                ("add_events", "add_player_events.lua"),
            ],
        )
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
        pool_size: int = 32,
        codec: RecordCodec = "zstd",
    ) -> RedisStore:
        """The store at `url`; `password` wins over the URL's. With `sentinels`, the master
        they name (the URL, which may be empty, gives only the scheme, user and database).
        `wait`: a move is acknowledged once that many replicas confirm it (not on Cluster).
        `pool_size`: redis-py's connections at most (a node each on Cluster), so that no
        burst of lobby calls takes a worker past a fixed number of Redis clients; a call
        past it waits up to `timeout` for one to come free. `codec`: how records are
        written (`record_codec`).
        """
        if wait is not None and cluster:
            raise ValueError("waiting for replicas is not supported on Redis Cluster")
        if sentinels is not None:
            return cls._through_sentinels(url, sentinels, timeout, password, wait, pool_size, codec)
        if password:
            url = with_password(url, password)
        if cluster:
            cluster_client = RedisCluster.from_url(
                url,
                # No retry inside redis-py (8.2 retries a failed command on the promoted
                # master by itself): a lost connection must reach `ClientCommands`, whose
                # generation then changes, so that records kept from before a failover
                # (which may have lost acknowledged writes) are read anew; clients retry
                # with their request ids.
                retry=Retry(NoBackoff(), 0),
                socket_timeout=timeout,
                socket_connect_timeout=timeout,
                health_check_interval=15,
                max_connections=pool_size,
            )
            return cls(
                cluster_client,
                ClientCommands(cluster_client),
                RedisLogChanges.from_url(url, timeout),
                codec=codec,
            )
        pool = aioredis.BlockingConnectionPool.from_url(
            url,
            max_connections=pool_size,
            timeout=timeout,
            socket_timeout=timeout,
            socket_connect_timeout=timeout,
            health_check_interval=15,
        )
        client = aioredis.Redis.from_pool(pool)
        # unix:// and URLs with options stay with redis-py, which follows them all.
        lean = RedisLink.understands(url)
        return cls(
            client,
            RedisLink.from_url(url, timeout) if lean else ClientCommands(client),
            RedisLogChanges.from_url(url, timeout),
            wait,
            codec,
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
        pool_size: int,
        codec: RecordCodec,
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
        # Some redis-py 8 releases leave it untyped (8.2.0 types it).
        sentinel = Sentinel(  # type: ignore[no-untyped-call, unused-ignore]
            sentinels.addresses,
            sentinel_kwargs={"password": sentinels.password, **timeouts},
            db=db,
            username=username,
            password=password,
            ssl=tls,
        )
        client = sentinel.master_for(
            sentinels.master, health_check_interval=15, max_connections=pool_size, **timeouts
        )
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
        return cls(client, link, RedisLogChanges(subscriber, timeout), wait, codec)

    @property
    def generation(self) -> int:
        """Changes whenever the move path's connection was lost: a record this worker kept
        from before may be one that a failover lost (and its rev reached again by other
        moves), so it is read anew."""
        return self._link.generation

    async def create(
        self, game_id: str, record: Record, entries: Sequence[Entry], ttl: float
    ) -> bool:
        game_key, log_key, _, _ = _keys(game_id)
        logged: list[str | bytes] = []
        for entry in entries:
            logged += [_stream_id(entry.id), entry.data]
        created = await self._create(
            self._commands,
            [game_key, log_key],
            [pack(record, self._codec), int(ttl * 1000), *logged],
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
        return unpack(raw), int(done) if done is not None else None

    async def write(self, game_id: str, write: Write) -> WriteResult:
        rev = write.expected_rev + 1
        keys: Sequence[str] = _keys(game_id)
        args: Sequence[str | bytes | int] = [
            write.expected_rev,
            pack(Record(write.state, write.meta, write.version, rev), self._codec),
            _stream_id(write.entry_id) if write.entry_id is not None else "",
            write.entry,
            write.request_id or "",
            write.version,
            int(write.ttl * 1000),
            write.snapshot or b"",
        ]
        script = self._write
        if write.inline is not None:
            script = self._write_followed
            keys, args = _with_follow_up(game_id, keys, args, write.inline)
        if write.follow_up:  # never with `inline`, which is the whole follow-up
            reply = await self._write_after_intent(game_id, write.follow_up, keys, args)
        elif self._wait is not None:
            (reply,) = await run_in_order(self._commands, [], [(script, keys, args)], self._wait)
        else:
            reply = await script(self._commands, keys, args)
        status = int(reply[0])
        if status == 1:
            return WriteResult(True, rev)
        if status == 2:
            return WriteResult(False, -1, duplicate_version=int(reply[1]))
        if status == 3:
            current = unpack(reply[1])
            return WriteResult(False, current.rev, current=current)
        if status == 4:
            return WriteResult(False, -1, mark_moved=True)
        return WriteResult(False, -1)

    @property
    def inline_follow_ups(self) -> bool:
        # On Cluster a game's and its players' keys are in different slots.
        return isinstance(self._link, RedisLink)

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
