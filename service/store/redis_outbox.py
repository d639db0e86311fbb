"""The Redis store's webhook outbox: every key under the hash tag `{wh}` (one slot on Redis
Cluster, apart from games and players), so that each step is one script.

A lane (endpoint, player) is a list of notifications, each stored as "<queued ms> <item>".
A lane with notifications has its turn either in the ready stream (read by the consumer
group "deliver"; an entry a dead consumer left pending is claimed again with XAUTOCLAIM
after the visibility timeout) or in the retry set. Settled lanes leave the stream
(XACK + XDEL), so it holds only the lanes being delivered.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .outbox import Notification, Taken
from .redis_commands import ms

if TYPE_CHECKING:
    from .redis_commands import _Script
    from .redis_link import RedisLink

PREFIX = "genial:{wh}:"
READY, LATER, COUNT, HEADS, TRIES, DEAD, DISABLED = (
    PREFIX + name for name in ("ready", "later", "count", "heads", "tries", "dead", "disabled")
)


def _text(raw: bytes | str) -> str:
    return raw.decode() if isinstance(raw, bytes) else raw


class RedisOutbox:
    """Mixed into `RedisStore`, which gives the connections and the scripts."""

    _redis: Any
    _commands: RedisLink | Any
    _outbox_queue: _Script
    _outbox_take: _Script
    _outbox_settle: _Script
    _outbox_replay: _Script

    async def queue_notifications(
        self, items: Sequence[Notification], now: float, window: float, keep: float
    ) -> int:
        if not items:
            return 0
        args: list[str | bytes | int] = [PREFIX, ms(now), ms(window), ms(keep)]
        for n in items:
            args += [n.id, n.lane, n.coalesce, n.item]
        return int(await self._outbox_queue(self._commands, [READY, COUNT, HEADS], args))

    async def take_notifications(
        self, consumer: str, count: int, now: float, idle: float
    ) -> list[Taken]:
        args: list[str | bytes | int] = [PREFIX, consumer, count, ms(now), ms(idle)]
        found = await self._outbox_take(self._commands, [READY, LATER], args)
        return [
            Taken(_text(found[i]), _text(found[i + 1]), found[i + 2], int(found[i + 3]))
            for i in range(0, len(found), 4)
        ]

    async def settle_notification(
        self, consumer: str, taken: Taken, outcome: str, now: float, retry_at: float = 0.0
    ) -> bool:
        keys = [READY, LATER, COUNT, HEADS, TRIES, DEAD]
        args: list[str | bytes | int] = [
            PREFIX,
            consumer,
            taken.message,
            taken.lane,
            taken.head,
            outcome,
            ms(now),
            ms(retry_at),
        ]
        return bool(await self._outbox_settle(self._commands, keys, args))

    async def outbox_stats(self) -> tuple[int, float | None]:
        count, oldest = await self._commands.pipeline(
            [("GET", COUNT), ("ZRANGE", HEADS, 0, 0, "WITHSCORES")]
        )
        for reply in (count, oldest):
            if isinstance(reply, Exception):
                raise reply
        if not oldest:
            return int(count or 0), None
        # redis-py's cluster client parses the reply into (member, score) pairs.
        score = oldest[0][1] if isinstance(oldest[0], tuple | list) else oldest[1]
        return int(count or 0), float(score) / 1000

    async def dead_notifications(self, count: int) -> list[tuple[str, bytes, str]]:
        rows = await self._commands.call("XRANGE", DEAD, "-", "+", "COUNT", count)
        found = []
        for entry_id, flat in rows:
            # A dict from redis-py's cluster client, which parses the reply.
            fields = (
                flat if isinstance(flat, dict) else dict(zip(flat[::2], flat[1::2], strict=True))
            )
            found.append((_text(entry_id), fields[b"d"].partition(b" ")[2], _text(fields[b"why"])))
        return found

    async def replay_notifications(self, ids: Sequence[str], now: float) -> int:
        if not ids:
            return 0
        keys = [READY, COUNT, HEADS, DEAD]
        return int(await self._outbox_replay(self._commands, keys, [PREFIX, ms(now), *ids]))

    async def disable_endpoint(self, key: str, now: float) -> None:
        await self._commands.call("HSET", DISABLED, key, repr(now))

    async def disabled_endpoints(self) -> set[str]:
        return {_text(key) for key in await self._commands.call("HKEYS", DISABLED)}
