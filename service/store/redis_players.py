"""The Redis store's part for players: sessions, profiles, game lists, event feeds and
follow-up intents.

A player's keys share the hash tag `{p:<player id>}` (one slot on Redis Cluster, apart from
any game's); a session's keys `{s:<session id>}`. Follow-up intents and revocations are a
sorted set each, outside every game's and player's slot, like the turn schedule; how far a
game's follow-ups got is a key in the game's own slot.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from .base import Followed, Follower, player_feed
from .redis_changes import RedisLogChanges, channel_of
from .redis_commands import Commands, ScriptCall, _Script, ms, run_in_order

FOLLOW_UPS_KEY = "genial:followups"
REVOKED_KEY = "genial:revoked"


def followed_key(game_id: str) -> str:
    return f"genial:{{{game_id}}}:followed"


def _player_keys(player: str, *names: str) -> list[str]:
    return [f"genial:{{p:{player}}}:{name}" for name in names]


def player_event_keys(player: str) -> list[str]:
    """A player's events (id -> number), their data (id -> data), the last number."""
    return _player_keys(player, "events", "event_data", "last_event")


def followed_mark(followed: Followed) -> bytes:
    return b"%d %d\n" % (followed.rev, followed.version) + followed.meta


def wake_channel(player: str) -> str:
    """Where a player's new events are announced: what `RedisLogChanges` listens to."""
    return channel_of(player_feed(player))


class RedisPlayers:
    """Mixed into `RedisStore`, which gives the connections and the scripts."""

    _redis: Any
    _commands: Commands
    _reschedule: _Script
    changes: RedisLogChanges
    _followed_script: _Script
    _rotate: _Script
    _finish: _Script
    _add_events: _Script
    _read_events: _Script

    # ---- follow-ups ------------------------------------------------------------------------

    async def follow_ups_due(self, now: float, count: int) -> list[tuple[str, float]]:
        rows: Any = await self._redis.zrangebyscore(
            FOLLOW_UPS_KEY, "-inf", now, start=0, num=count, withscores=True
        )
        return [(gid.decode(), score) for gid, score in rows]

    async def lease_follow_up(self, game_id: str, due: float, until: float) -> bool:
        args = [game_id, repr(due), repr(until)]
        return bool(await self._reschedule(self._commands, [FOLLOW_UPS_KEY], args))

    async def followed(self, game_id: str) -> Followed | None:
        raw = await self._commands.call("GET", followed_key(game_id))
        if raw is None:
            return None
        head, _, meta = raw.partition(b"\n")
        rev, version = (int(n) for n in head.split())
        return Followed(rev, version, meta)

    async def follow_up_done(
        self, game_id: str, due: float, followed: Followed | None, ttl: float
    ) -> None:
        calls: list[ScriptCall] = []
        if followed is not None:
            mark = followed_mark(followed)
            calls.append(
                (self._followed_script, [followed_key(game_id)], [followed.rev, mark, ms(ttl)])
            )
        calls.append((self._reschedule, [FOLLOW_UPS_KEY], [game_id, repr(due), ""]))
        await run_in_order(self._commands, [], calls)

    # ---- sessions --------------------------------------------------------------------------

    async def create_session(self, session_id: str, player: str, digest: str, ttl: float) -> None:
        key = f"genial:{{s:{session_id}}}:session"
        await self._commands.pipeline(
            [("HSET", key, "p", player, "g", 0, "h", digest), ("PEXPIRE", key, ms(ttl))]
        )

    async def rotate_session(
        self, session_id: str, generation: int, digest: str, new_digest: str, ttl: float
    ) -> str:
        reply = await self._rotate(
            self._commands,
            [f"genial:{{s:{session_id}}}:session"],
            [generation, digest, new_digest, ms(ttl)],
        )
        return reply.decode() if isinstance(reply, bytes) else str(reply)

    async def session_holder(self, session_id: str) -> tuple[str, str, bool] | None:
        found = await self._commands.call(
            "HMGET", f"genial:{{s:{session_id}}}:session", "p", "h", "r"
        )
        if not found or found[0] is None:
            return None
        return found[0].decode(), found[1].decode(), found[2] is not None

    async def revoke_session(self, session_id: str, keep: float) -> None:
        key = f"genial:{{s:{session_id}}}:session"
        at = time.time()
        replies = await self._commands.pipeline(
            [
                ("HSET", key, "r", "1"),
                ("ZADD", REVOKED_KEY, repr(at), session_id),
                ("ZREMRANGEBYSCORE", REVOKED_KEY, "-inf", repr(at - keep)),
            ]
        )
        for reply in replies:
            if isinstance(reply, Exception):
                raise reply

    async def revoked_sessions(self, since: float) -> list[tuple[str, float]]:
        rows: Any = await self._redis.zrangebyscore(
            REVOKED_KEY, repr(since), "+inf", withscores=True
        )
        return [(sid.decode(), score) for sid, score in rows]

    async def shared_secret(self, name: str, proposal: str) -> str:
        key = f"genial:secret:{name}"
        _, value = await self._commands.pipeline([("SET", key, proposal, "NX"), ("GET", key)])
        if isinstance(value, Exception):
            raise value
        return str(value.decode())

    # ---- profiles and game lists -----------------------------------------------------------

    async def player_profile(self, player: str) -> bytes | None:
        (key,) = _player_keys(player, "profile")
        raw: bytes | None = await self._commands.call("GET", key)
        return raw

    async def set_player_profile(self, player: str, profile: bytes, ttl: float) -> None:
        (key,) = _player_keys(player, "profile")
        await self._commands.call("SET", key, profile, "PX", ms(ttl))

    async def player_webhook(self, player: str) -> bytes | None:
        (key,) = _player_keys(player, "webhook")
        raw: bytes | None = await self._commands.call("GET", key)
        return raw

    async def set_player_webhook(self, player: str, webhook: bytes | None, ttl: float) -> None:
        (key,) = _player_keys(player, "webhook")
        if webhook is None:
            await self._commands.call("DEL", key)
        else:
            await self._commands.call("SET", key, webhook, "PX", ms(ttl))

    async def add_my_game(self, player: str, game_id: str, at: float, ttl: float) -> int:
        (key,) = _player_keys(player, "games")
        replies = await self._commands.pipeline(
            [("ZADD", key, "NX", repr(at), game_id), ("ZCARD", key), ("PEXPIRE", key, ms(ttl))]
        )
        for reply in replies:
            if isinstance(reply, Exception):
                raise reply
        return int(replies[1])

    async def remove_my_game(self, player: str, game_id: str) -> None:
        (key,) = _player_keys(player, "games")
        await self._commands.call("ZREM", key, game_id)

    async def my_games(self, player: str, count: int) -> list[str]:
        (key,) = _player_keys(player, "games")
        rows = await self._commands.call("ZRANGE", key, 0, count - 1, "REV")
        return [gid.decode() for gid in rows]

    async def finish_my_game(
        self, player: str, game_id: str, at: float, summary: bytes, keep: int, ttl: float
    ) -> None:
        await self._finish(
            self._commands,
            _player_keys(player, "games", "finished", "summaries"),
            [game_id, repr(at), summary, keep, ms(ttl)],
        )

    async def finished_games(self, player: str, count: int) -> list[bytes]:
        finished, summaries = _player_keys(player, "finished", "summaries")
        ids = await self._commands.call("ZRANGE", finished, 0, count - 1, "REV")
        if not ids:
            return []
        found = await self._commands.call("HMGET", summaries, *ids)
        return [summary for summary in found if summary is not None]

    # ---- events ----------------------------------------------------------------------------

    async def add_player_events(
        self, player: str, events: Sequence[tuple[str, bytes]], keep: int, ttl: float
    ) -> int:
        args: list[str | bytes | int] = [keep, ms(ttl), wake_channel(player)]
        for event_id, data in events:
            args += [event_id, data]
        added = await self._add_events(self._commands, player_event_keys(player), args)
        return int(added)

    async def player_events(self, player: str, after: int, count: int) -> list[tuple[int, bytes]]:
        flat = await self._read_events(
            self._commands, _player_keys(player, "events", "event_data"), [after, count]
        )
        return [
            (int(flat[i]), flat[i + 1]) for i in range(0, len(flat), 2) if flat[i + 1] is not None
        ]

    async def last_player_event(self, player: str) -> int:
        (key,) = _player_keys(player, "last_event")
        last = await self._commands.call("GET", key)
        return int(last) if last is not None else 0

    async def follow_player(self, player: str) -> Follower:
        return await self.changes.follow(player_feed(player))
