"""What all games share in Redis, outside any game's slot: the lobby, the turn schedule,
the creation quotas of client addresses, the rate limiters' counters and the games by
status. Mixed into `RedisStore`, which gives the connections and the scripts."""

from __future__ import annotations

import time
from typing import Any

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster

from .base import Quota
from .redis_commands import Commands, _Script
from .redis_link import Command

SCHEDULE_KEY = "genial:schedule"
"""Outside any game's slot: the schedule is its own key, written on its own."""


def _quota_keys(address: str) -> list[str]:
    """An address's waiting games and its creations this minute, in one slot."""
    minute = int(time.time() // 60)
    return [f"genial:quota:{{{address}}}:waiting", f"genial:quota:{{{address}}}:{minute}"]


class RedisShared:
    _redis: aioredis.Redis | RedisCluster
    _commands: Commands
    _reschedule: _Script
    _claim_creation: _Script

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
