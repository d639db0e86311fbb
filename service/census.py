"""Games by status (`genial_games`), counted where they change status, shared by all workers.

Counting the games in Redis would mean reading every record; instead each worker notes
the changes of status it writes (a game created waiting, or playing when only bots sit at
it; filled, so playing; over, so finished) and adds them, every sample of `StoreHealth`,
to counters all workers share. A game leaves the store by itself when its keys expire,
which nobody is told of, so each count sits in a bucket of the time the game is expected
to expire, and only buckets still ahead are summed:

- waiting: until its creation + `waiting_ttl` (joins that do not fill it do not extend it);
- playing: until its creation + `waiting_ttl` + `idle_ttl` (an abandoned game leaves the
  count then, within `waiting_ttl` of its keys; one played on for longer than `idle_ttl`
  after it began leaves the count early);
- finished: until it finished + `finished_ttl`.

A bucket is a hundredth of the status's time to live (a minute at least), so a count may
hold games expired within that much. A worker that dies loses the changes of its last
sample (five seconds); whatever it miscounted expires with its buckets. The move path pays
one dictionary update when a game changes status, and nothing on other moves.
"""

from __future__ import annotations

import math
import time
from collections import defaultdict

from .metrics import GAME_STATUSES, METRICS
from .records import FINISHED, PLAYING, WAITING, GameMeta
from .settings import Settings
from .store import GameStore

BUCKETS = 100
"""Buckets over a status's time to live."""


class Census:
    def __init__(self, settings: Settings) -> None:
        self.ttl = {
            WAITING: settings.waiting_ttl,
            PLAYING: settings.waiting_ttl + settings.idle_ttl,
            FINISHED: settings.finished_ttl,
        }
        self.width = {status: max(60.0, ttl / BUCKETS) for status, ttl in self.ttl.items()}
        self._deltas: dict[str, dict[int, int]] = defaultdict(lambda: defaultdict(int))

    def changed(self, before: str | None, meta: GameMeta, now: float | None = None) -> None:
        """A game this worker wrote went from status `before` (None: it is new) to its
        status now."""
        after = meta.status
        if after == before:
            return
        if before is not None:
            self._add(before, self._expires(before, meta, now), -1)
        self._add(after, self._expires(after, meta, now), 1)

    def _expires(self, status: str, meta: GameMeta, now: float | None) -> float:
        if status == FINISHED:
            return (time.time() if now is None else now) + self.ttl[FINISHED]
        return meta.created + self.ttl[status]

    def _add(self, status: str, expires: float, delta: int) -> None:
        self._deltas[status][math.ceil(expires / self.width[status])] += delta

    async def share(self, store: GameStore, now: float | None = None) -> dict[str, int]:
        """Add this worker's changes to the shared counts; the games by status now (also
        set as `genial_games`). The changes are kept for the next time if the store fails."""
        now = time.time() if now is None else now
        deltas = {status: dict(buckets) for status, buckets in self._deltas.items()}
        self._deltas.clear()
        since = {status: math.floor(now / width) + 1 for status, width in self.width.items()}
        try:
            counts = await store.count_games(deltas, since)
        except BaseException:
            for status, buckets in deltas.items():
                for bucket, delta in buckets.items():
                    self._deltas[status][bucket] += delta
            raise
        for status in GAME_STATUSES:
            METRICS.games.labels(status).set(max(0, counts.get(status, 0)))
        return counts
