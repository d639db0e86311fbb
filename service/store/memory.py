"""The embedded store: the same semantics as Redis in one process (a single worker only)."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from .base import (
    REQUEST_IDS_KEPT,
    Entry,
    EntryId,
    Follower,
    Quota,
    Record,
    Write,
    WriteResult,
)
from .follow import Wakeups
from .memory_matches import MemoryMatches
from .memory_outbox import MemoryOutbox
from .memory_players import LeasedTimes, MemoryPlayers


@dataclass
class _MemoryGame:
    record: Record
    log: list[Entry]
    expires: float
    requests: dict[str, int] = field(default_factory=dict)
    snapshots: dict[int, bytes] = field(default_factory=dict)


class MemoryStore(MemoryPlayers, MemoryOutbox, MemoryMatches):
    """The embedded store: the same semantics in one process (a single worker only)."""

    name = "memory"
    inline_follow_ups = True
    generation = 0
    """Nothing it acknowledged is ever lost."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        MemoryPlayers.__init__(self)
        MemoryOutbox.__init__(self)
        MemoryMatches.__init__(self)
        self._games: dict[str, _MemoryGame] = {}
        self._lobby: dict[str, dict[str, float]] = {}
        self._schedule = LeasedTimes()
        self._counts: dict[str, tuple[int, float]] = {}
        self._game_counts: dict[str, dict[int, int]] = {}
        self._waiting: dict[str, dict[str, float]] = {}
        """Per address, its games that may wait, and when each expires (Unix time)."""
        self._wakeups = Wakeups()
        self._clock = clock

    def _get(self, game_id: str) -> _MemoryGame | None:
        game = self._games.get(game_id)
        if game is not None and game.expires and game.expires <= self._clock():
            del self._games[game_id]
            return None
        return game

    def _deadline(self, ttl: float) -> float:
        return self._clock() + ttl if ttl else 0.0

    async def create(
        self, game_id: str, record: Record, entries: Sequence[Entry], ttl: float
    ) -> bool:
        if self._get(game_id) is not None:
            return False
        self._games[game_id] = _MemoryGame(record, list(entries), self._deadline(ttl))
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
        if write.follow_up:
            self._follow_ups.times[game_id] = write.follow_up
        game = self._get(game_id)
        if game is None:
            return WriteResult(False, -1)
        if write.request_id is not None and write.request_id in game.requests:
            return WriteResult(False, game.record.rev, game.requests[write.request_id])
        if game.record.rev != write.expected_rev:
            return WriteResult(False, game.record.rev, current=game.record)
        inline = write.inline
        if inline is not None:
            mark = self._followed.get(game_id)
            if mark is None or mark.rev != inline.mark_rev:
                return WriteResult(False, -1, mark_moved=True)
            self._followed[game_id] = inline.mark
            # Nothing below awaits anything: the write and its follow-up are one step.
            for player, events in inline.events.items():
                await self.add_player_events(player, events, inline.events_kept, inline.events_ttl)
        if write.request_id is not None:
            game.requests[write.request_id] = write.version
            if write.version % REQUEST_IDS_KEPT == 0:  # as Redis prunes them
                oldest = write.version - REQUEST_IDS_KEPT
                game.requests = {r: v for r, v in game.requests.items() if v > oldest}
        if write.snapshot is not None:
            game.snapshots[write.version] = write.snapshot
        rev = game.record.rev + 1
        game.record = Record(write.state, write.meta, write.version, rev)
        if write.entry_id is not None:
            game.log.append(Entry(write.entry_id, write.entry))
        game.expires = self._deadline(write.ttl)
        self._wakeups.wake(game_id)
        return WriteResult(True, rev)

    async def entries(
        self, game_id: str, after: EntryId, until: EntryId | None = None
    ) -> list[Entry]:
        game = self._get(game_id)
        if game is None:
            return []
        return [e for e in game.log if e.id > after and (until is None or e.id <= until)]

    async def snapshot(self, game_id: str, version: int) -> bytes | None:
        game = self._get(game_id)
        return game.snapshots.get(version) if game else None

    async def follow(self, game_id: str) -> Follower:
        return self._wakeups.follow(game_id)

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
        self._schedule.times[game_id] = due

    async def due(self, now: float, count: int) -> list[tuple[str, float]]:
        return self._schedule.due(now, count)

    async def lease(self, game_id: str, due: float, until: float) -> bool:
        return self._schedule.move(game_id, due, until)

    async def unschedule(self, game_id: str, due: float) -> bool:
        return self._schedule.move(game_id, due, None)

    async def claim_creation(
        self, address: str, game_id: str, cost: int, expires: float, quota: Quota
    ) -> str | None:
        now = time.time()
        waiting = {g: t for g, t in self._waiting.get(address, {}).items() if t > now}
        if quota.waiting and len(waiting) >= quota.waiting:
            return "waiting"
        key = f"created:{address}:{int(now // 60)}"
        if quota.per_minute:
            created = self._counts.get(key, (0, 0.0))[0]
            if created + cost > quota.per_minute:
                return "rate"
        await self.add_counts({key: cost}, 120)
        waiting[game_id] = expires
        self._waiting[address] = waiting
        return None

    async def waiting_games(self, address: str) -> list[str]:
        return list(self._waiting.get(address, {}))

    async def release_waiting(self, address: str, game_ids: list[str]) -> None:
        waiting = self._waiting.get(address, {})
        for game_id in game_ids:
            waiting.pop(game_id, None)

    async def add_counts(self, deltas: dict[str, int], ttl: float) -> dict[str, int]:
        now = self._clock()
        self._counts = {k: v for k, v in self._counts.items() if v[1] > now}
        for key, delta in deltas.items():
            total, expires = self._counts.get(key, (0, now + ttl))
            self._counts[key] = (total + delta, expires)
        return {key: self._counts[key][0] for key in deltas}

    async def count_games(
        self, deltas: dict[str, dict[int, int]], since: dict[str, int]
    ) -> dict[str, int]:
        totals = {}
        for status, first in since.items():
            buckets = self._game_counts.setdefault(status, {})
            for bucket, delta in deltas.get(status, {}).items():
                buckets[bucket] = buckets.get(bucket, 0) + delta
            for bucket in [b for b in buckets if b < first]:
                del buckets[bucket]
            totals[status] = sum(buckets.values())
        return totals

    async def ping(self) -> bool:
        return True

    async def memory(self) -> None:
        return None

    def connections(self) -> int:
        return 0

    async def close(self) -> None:
        self._games.clear()
