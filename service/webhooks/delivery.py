"""Every worker delivers webhook notifications from the outbox.

A worker takes lanes' first notifications (at most `MAX_IN_FLIGHT` at once), posts each,
signed, to its endpoint (at most the endpoint's `concurrency` at once, within its
`timeout`, so a slow receiver holds up its own lanes only), and settles it: delivered (the
lane's next is ready), a retry after a backoff (exponential with jitter from
`webhook_backoff_seconds`, at most an hour, at least what `Retry-After` asks), or dead after
`webhook_retry_seconds` of failures. A 410 Gone disables the endpoint (by name and URL: a
new URL enables it again); its notifications go to the dead letters (`genial webhooks
failed`, `genial webhooks replay`). A worker that dies mid-delivery leaves its lanes taken:
another takes them after `webhook_visibility_seconds` and delivers again (the same
webhook-id: receivers dedupe).
"""

from __future__ import annotations

import asyncio
import contextlib
import email.utils
import logging
import os
import random
import secrets
import socket
import time

import httpx
import msgspec

from ..metrics import METRICS
from ..settings import Settings
from ..store import GameStore, Taken
from .endpoints import Endpoint, decode_item
from .guard import Refused, guarded_client
from .players import CONCURRENCY, PLAYER_PREFIX, PlayerWebhooks

log = logging.getLogger("genial.webhooks")

MAX_IN_FLIGHT = 256
"""Deliveries one worker makes at once, over all endpoints."""
POLL_SECONDS = 0.2
"""How often an idle worker looks for notifications other workers queued."""
SAMPLE_SECONDS = 5.0
BACKOFF_CAP_SECONDS = 3600.0
USER_AGENT = "genial-webhooks/1"
DELIVERED, RETRY, GONE = "delivered", "retry", "gone"


def retry_after(response: httpx.Response) -> float | None:
    """The seconds a `Retry-After` header asks for (a number or an HTTP date), if any."""
    raw = response.headers.get("retry-after")
    if raw is None:
        return None
    if raw.strip().isdigit():
        return float(raw)
    with contextlib.suppress(TypeError, ValueError):
        return max(0.0, email.utils.parsedate_to_datetime(raw).timestamp() - time.time())
    return None


class Deliveries:
    def __init__(
        self,
        store: GameStore,
        settings: Settings,
        endpoints: dict[str, Endpoint],
        players: PlayerWebhooks,
    ) -> None:
        self.store = store
        self.settings = settings
        self.endpoints = endpoints
        self.players = players
        self.consumer = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"
        self._wake = asyncio.Event()
        self._in_flight: dict[str, asyncio.Task[None]] = {}
        """By ready entry: each is a lane's turn (a lane is delivered one at a time)."""
        self._limits = {name: asyncio.Semaphore(e.concurrency) for name, e in endpoints.items()}
        self._players_limit = asyncio.Semaphore(CONCURRENCY)
        self._disabled: set[str] = set()
        self._client: httpx.AsyncClient | None = None
        self._guarded: httpx.AsyncClient | None = None
        """For players' endpoints: every connection checked by the guard."""

    def wake(self) -> None:
        """Look for notifications now (this worker queued some)."""
        self._wake.set()

    async def run(self) -> None:
        """Deliver until cancelled (nothing to do without endpoints)."""
        if not self.endpoints and not self.players.guard.on:
            return
        limits = httpx.Limits(max_connections=MAX_IN_FLIGHT, keepalive_expiry=60)
        async with (
            httpx.AsyncClient(verify=True, follow_redirects=False, limits=limits) as client,
            guarded_client(self.players.guard, limits) as guarded,
        ):
            self._client, self._guarded = client, guarded
            try:
                await asyncio.gather(self._take(), self._sample())
            finally:
                for task in self._in_flight.values():
                    task.cancel()

    async def _take(self) -> None:
        while True:
            self._wake.clear()
            room = MAX_IN_FLIGHT - len(self._in_flight)
            taken: list[Taken] = []
            if room > 0:
                try:
                    taken = await self.store.take_notifications(
                        self.consumer, room, time.time(), self.settings.webhook_visibility_seconds
                    )
                except Exception:  # the deliveries outlive a store outage
                    log.warning("webhooks: store unavailable", exc_info=True)
                    await asyncio.sleep(1.0)
            for found in taken:
                # A lane has one entry at a time; one of ours still in flight (slower than the
                # visibility timeout) comes back by XAUTOCLAIM: it is not delivered twice.
                if found.message not in self._in_flight:
                    self._in_flight[found.message] = asyncio.create_task(self._deliver(found))
            if room and len(taken) == room:
                continue
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), POLL_SECONDS)

    async def _deliver(self, taken: Taken) -> None:
        try:
            outcome, asked = await self._attempt(taken)
            now = time.time()
            retry_at = 0.0
            if outcome == RETRY:
                horizon = taken.queued + self.settings.webhook_retry_seconds
                if now >= horizon:
                    outcome = f"failed {taken.attempts + 1} times"
                else:
                    retry_at = min(horizon, now + self._backoff(taken.attempts, asked))
            if not await self.store.settle_notification(
                self.consumer, taken, outcome, now, retry_at
            ):
                outcome = "taken over"  # another worker took the lane meanwhile
            elif outcome == DELIVERED:
                METRICS.webhook_delivery_seconds.observe(now - taken.queued)
            METRICS.webhook_deliveries.labels(
                outcome if outcome in (DELIVERED, RETRY, GONE, "taken over") else "dead"
            ).inc()
        except Exception:  # the lane stays taken: it is taken again after the visibility time
            log.warning("webhooks: delivery failed", exc_info=True)
        finally:
            self._in_flight.pop(taken.message, None)
            self._wake.set()

    def _backoff(self, attempts: int, asked: float | None) -> float:
        delay: float = self.settings.webhook_backoff_seconds * 2.0**attempts
        delay = min(BACKOFF_CAP_SECONDS, delay)
        delay *= random.uniform(0.5, 1.0)  # jitter
        return max(delay, asked or 0.0)

    async def _attempt(self, taken: Taken) -> tuple[str, float | None]:
        """One delivery: its outcome, and the seconds the receiver asked to wait."""
        try:
            item = decode_item(taken.item)
        except msgspec.DecodeError:
            return "unreadable", None
        player = item.endpoint.removeprefix(PLAYER_PREFIX)
        own = player != item.endpoint
        endpoint = await self.players.endpoint(player) if own else self.endpoints.get(item.endpoint)
        if endpoint is None:
            return "endpoint removed", None
        if endpoint.key in self._disabled:
            return "endpoint disabled", None
        client = self._guarded if own else self._client
        assert client is not None
        async with self._players_limit if own else self._limits[endpoint.name]:
            stamp = int(time.time())
            headers = {
                "user-agent": USER_AGENT,
                "content-type": "application/json",
                "webhook-id": item.id,
                "webhook-timestamp": str(stamp),
                "webhook-signature": endpoint.signature(item.id, stamp, item.body),
            }
            try:
                response = await client.post(
                    endpoint.url,
                    content=item.body.encode(),
                    headers=headers,
                    timeout=endpoint.timeout,
                )
            except Refused as err:  # a player's endpoint at an address not allowed
                log.warning(
                    "webhook refused by the guard", extra={"endpoint": "player", "why": str(err)}
                )
                return "address refused", None
            except httpx.HTTPError as err:
                log.info(
                    "webhook not delivered",
                    extra={"endpoint": endpoint.name, "error": type(err).__name__},
                )
                return RETRY, None
        status = response.status_code
        if 200 <= status < 300:
            return DELIVERED, None
        if status == 410 and own:
            await self.players.remove(player)
            return GONE, None
        if status == 410:
            log.warning("webhook endpoint gone: disabled", extra={"endpoint": endpoint.name})
            await self.store.disable_endpoint(endpoint.key, time.time())
            self._disabled.add(endpoint.key)
            return GONE, None
        log.info("webhook refused", extra={"endpoint": endpoint.name, "status": status})
        return RETRY, retry_after(response)

    async def _sample(self) -> None:
        while True:
            try:
                self._disabled = await self.store.disabled_endpoints()
                pending, oldest = await self.store.outbox_stats()
                METRICS.notifications_pending.set(pending)
                METRICS.notifications_oldest.set(time.time() - oldest if oldest else 0)
                METRICS.webhook_endpoints_disabled.set(
                    sum(e.key in self._disabled for e in self.endpoints.values())
                )
            except Exception:
                log.warning("webhooks: store unavailable", exc_info=True)
            await asyncio.sleep(SAMPLE_SECONDS)
