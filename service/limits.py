"""Rate limits per token and per client address, shared by all workers through the store.

Counting each request in Redis would add a round trip to every move, so each worker
counts locally and adds its counts to the shared ones every `SYNC_SECONDS`, reading the
totals back. A worker admits a request while the last shared total plus its own
unsynced count is under the limit: all workers together may overshoot by at most what
they admit in one sync interval.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections import Counter

from .errors import RETRY_AFTER, ApiError, Reason
from .store import SharedCounters

log = logging.getLogger("genial.limits")

WINDOW_SECONDS = 10.0
SYNC_SECONDS = 0.1


class RateLimiter:
    def __init__(self, store: SharedCounters, per_token: int, per_address: int) -> None:
        """Limits are requests per `WINDOW_SECONDS`; 0 turns a limit off."""
        self.store = store
        self.limits = {"token": per_token, "address": per_address}
        self.unsynced: Counter[str] = Counter()
        # Counts on their way to the store: still ours until the store has them.
        self.in_flight: Counter[str] = Counter()
        self.shared: dict[str, int] = {}

    def admit(self, caller: str | None, address: str | None) -> None:
        """Count one request of a caller (`Principal.rate_key`: a digest, never a token) and
        a client address, or refuse it with RESOURCE_EXHAUSTED and when to retry."""
        now = time.time()
        window = int(now // WINDOW_SECONDS)
        keys = []
        if caller and self.limits["token"]:
            keys.append((f"token:{caller}:{window}", self.limits["token"]))
        if address and self.limits["address"]:
            keys.append((f"address:{address}:{window}", self.limits["address"]))
        for key, limit in keys:
            if self.shared.get(key, 0) + self.in_flight[key] + self.unsynced[key] >= limit:
                retry = max(1, math.ceil((window + 1) * WINDOW_SECONDS - now))
                raise ApiError(
                    Reason.RATE_LIMITED,
                    f"too many requests; retry in {retry} s",
                    {RETRY_AFTER: str(retry)},
                )
        for key, _ in keys:
            self.unsynced[key] += 1

    async def run(self) -> None:
        """Share the counts until cancelled."""
        while True:
            await asyncio.sleep(SYNC_SECONDS)
            self.in_flight, self.unsynced = self.unsynced, Counter()
            if not self.in_flight:
                continue
            try:
                totals = await self.store.add_counts(dict(self.in_flight), 2 * WINDOW_SECONDS)
            except Exception:  # the limiter outlives a store outage
                log.warning("rate limits: store unavailable", exc_info=True)
                # Not counted anywhere yet: try again with the next sync (past windows
                # no longer matter).
                window = int(time.time() // WINDOW_SECONDS)
                self.unsynced.update(
                    {k: n for k, n in self.in_flight.items() if k.endswith(f":{window}")}
                )
                self.in_flight = Counter()
                continue
            self.in_flight = Counter()
            window = int(time.time() // WINDOW_SECONDS)
            self.shared = {
                k: v for k, v in {**self.shared, **totals}.items() if k.endswith(f":{window}")
            }
