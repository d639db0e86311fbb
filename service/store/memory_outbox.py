"""The embedded store's webhook outbox: the same lanes, turns and dead letters as Redis's
(`redis_outbox`) in one process. Times are the caller's `now` (Unix time)."""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Sequence

from .outbox import Notification, Taken


class MemoryOutbox:
    def __init__(self) -> None:
        self._lanes: dict[str, deque[bytes]] = {}
        self._tries: dict[str, int] = {}
        self._ready: deque[tuple[str, str]] = deque()
        """(entry id, lane) not taken yet."""
        self._taken: dict[str, tuple[str, str, float]] = {}
        """Entry id -> (lane, consumer, when taken)."""
        self._later: dict[str, float] = {}
        self._seen: dict[str, float] = {}
        """Ids and coalescing keys -> when they are forgotten."""
        self._dead: dict[str, tuple[str, bytes, str]] = {}
        self._disabled: dict[str, float] = {}
        self._ids = itertools.count(1)

    def _turn(self, lane: str) -> None:
        self._ready.append((str(next(self._ids)), lane))

    def _remember(self, key: str, now: float, seconds: float) -> bool:
        """Like SET NX PX: False if `key` is remembered still."""
        if self._seen.get(key, 0.0) > now:
            return False
        self._seen[key] = now + seconds
        return True

    def _push(self, lane: str, head: bytes) -> None:
        queue = self._lanes.setdefault(lane, deque())
        queue.append(head)
        if len(queue) == 1:
            self._turn(lane)

    async def queue_notifications(
        self, items: Sequence[Notification], now: float, window: float, keep: float
    ) -> int:
        self._seen = {key: until for key, until in self._seen.items() if until > now}
        queued = 0
        for n in items:
            if self._remember("seen:" + n.id, now, keep) and (
                not n.coalesce or self._remember("co:" + n.coalesce, now, window)
            ):
                self._push(n.lane, b"%d %s" % (int(now * 1000), n.item))
                queued += 1
        return queued

    async def take_notifications(
        self, consumer: str, count: int, now: float, idle: float
    ) -> list[Taken]:
        for lane, due in list(self._later.items()):
            if due <= now:
                del self._later[lane]
                self._turn(lane)
        found = [
            (entry, lane) for entry, (lane, _, taken) in self._taken.items() if taken + idle <= now
        ][:count]
        while len(found) < count and self._ready:
            found.append(self._ready.popleft())
        result = []
        for entry, lane in found:
            queue = self._lanes.get(lane)
            if not queue:
                self._taken.pop(entry, None)
                continue
            self._taken[entry] = (lane, consumer, now)
            result.append(Taken(entry, lane, queue[0], self._tries.get(lane, 0)))
        return result

    async def settle_notification(
        self, consumer: str, taken: Taken, outcome: str, now: float, retry_at: float = 0.0
    ) -> bool:
        held = self._taken.get(taken.message)
        if held is None or held[1] != consumer:
            return False
        del self._taken[taken.message]
        queue = self._lanes.get(taken.lane)
        if not queue or queue[0] != taken.head:  # never expected: the lane keeps a turn
            if queue:
                self._turn(taken.lane)
            return False
        if outcome == "retry":
            self._tries[taken.lane] = self._tries.get(taken.lane, 0) + 1
            self._later[taken.lane] = retry_at
            return True
        queue.popleft()
        self._tries.pop(taken.lane, None)
        if outcome != "delivered":
            self._dead[str(next(self._ids))] = (taken.lane, taken.head, outcome)
        if queue:
            self._turn(taken.lane)
        else:
            del self._lanes[taken.lane]
        return True

    async def outbox_stats(self) -> tuple[int, float | None]:
        heads = [int(q[0].partition(b" ")[0]) / 1000 for q in self._lanes.values()]
        return sum(len(q) for q in self._lanes.values()), min(heads, default=None)

    async def dead_notifications(self, count: int) -> list[tuple[str, bytes, str]]:
        return [
            (entry, head.partition(b" ")[2], why)
            for entry, (_, head, why) in itertools.islice(self._dead.items(), count)
        ]

    async def replay_notifications(self, ids: Sequence[str], now: float) -> int:
        found = 0
        for entry in ids:
            if entry in self._dead:
                lane, head, _ = self._dead.pop(entry)
                self._push(lane, b"%d %s" % (int(now * 1000), head.partition(b" ")[2]))
                found += 1
        return found

    async def disable_endpoint(self, key: str, now: float) -> None:
        self._disabled[key] = now

    async def disabled_endpoints(self) -> set[str]:
        return set(self._disabled)
