"""How the store is doing, as readiness and the near-full guard see it.

Every worker samples its store every `SAMPLE_SECONDS`: whether it answers, and on Redis how
much memory it uses against its `maxmemory`. Past `store_full_fraction` of it new games are
refused (`STORE_FULL`), so that what is left serves the moves of games in progress; at
`maxmemory` Redis refuses writes itself and the worker reports not ready.
"""

from __future__ import annotations

import asyncio
import logging

from .census import Census
from .metrics import METRICS
from .settings import Settings
from .store import GameStore

log = logging.getLogger("genial.health")

SAMPLE_SECONDS = 5.0


class StoreHealth:
    def __init__(self, store: GameStore, settings: Settings, census: Census) -> None:
        self.store = store
        self.settings = settings
        self.census = census
        self.used = 0
        self.most = 0
        """Redis's maxmemory; 0: none set (or the in-process store)."""

    @property
    def near_full(self) -> bool:
        return bool(self.most) and self.used >= self.settings.store_full_fraction * self.most

    @property
    def full(self) -> bool:
        return bool(self.most) and self.used >= self.most

    async def ready(self) -> tuple[bool, str]:
        """Whether this worker can serve, and why not."""
        if not await self.store.ping():
            if self.near_full:
                return _report(False, "the store is full: it refuses writes")
            return _report(False, "the store does not answer, or refuses writes")
        if self.full:
            return _report(False, "the store is full: it refuses writes")
        if self.near_full:
            return _report(True, "ready; the store is nearly full: new games are refused")
        return _report(True, "ready")

    async def sample(self) -> None:
        await self.census.share(self.store)
        METRICS.redis_connections.set(self.store.connections())
        memory = await self.store.memory()
        if memory is not None:
            self.used, self.most = memory
            METRICS.redis_memory_used.set(self.used)
            METRICS.redis_memory_max.set(self.most)

    async def run(self) -> None:
        """Sample until cancelled."""
        while True:
            try:
                await self.sample()
            except Exception:  # an outage shows in readiness; the sampler outlives it
                log.warning("store health: no sample", exc_info=True)
            await asyncio.sleep(SAMPLE_SECONDS)


def _report(ready: bool, why: str) -> tuple[bool, str]:
    METRICS.ready.set(1 if ready else 0)
    return ready, why
