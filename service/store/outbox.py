"""What the webhook outbox needs from storage: lanes of notifications, per endpoint and
player, taken for delivery by one consumer at a time (docs/notifications.md)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class Notification:
    """A webhook notification to queue: for one endpoint, about one player."""

    id: str
    """The webhook-id: the same however often the change that makes it is handed over, so
    it is queued once (and a receiver dedupes deliveries by it)."""
    lane: str
    """Delivered in order after the earlier notifications of its lane (endpoint, player)."""
    item: bytes
    """What the deliverer needs (`webhooks.Item`, JSON)."""
    coalesce: str = ""
    """Not queued if another with this key was queued within the coalescing window."""


@dataclass(frozen=True, slots=True)
class Taken:
    """The first notification of a lane, taken for delivery by one consumer."""

    message: str
    """The lane's turn in the ready queue (its consumer-group entry)."""
    lane: str
    head: bytes
    """The notification as stored: "<queued, Unix ms> <item>"."""
    attempts: int
    """Deliveries of this notification tried (and failed) before."""

    @property
    def item(self) -> bytes:
        return self.head.partition(b" ")[2]

    @property
    def queued(self) -> float:
        """When it was queued (Unix time)."""
        return int(self.head.partition(b" ")[0]) / 1000


class Outbox(Protocol):
    """Webhook notifications: one queue per lane (endpoint, player), each delivered in order;
    a lane with notifications is in exactly one place at a time: ready (taken by at most
    one consumer), or waiting for a retry. A lane a consumer took and did not settle
    within `idle` seconds (it died) is taken again by another."""

    async def queue_notifications(
        self, items: Sequence[Notification], now: float, window: float, keep: float
    ) -> int:
        """Queue those not queued before (by id, remembered `keep` seconds) nor coalesced
        (by key, `window` seconds); how many were queued."""
        ...

    async def take_notifications(
        self, consumer: str, count: int, now: float, idle: float
    ) -> list[Taken]:
        """Up to `count` lanes' first notifications: lanes whose retry is due, lanes left
        idle `idle` seconds by their consumer, and ready ones."""
        ...

    async def settle_notification(
        self, consumer: str, taken: Taken, outcome: str, now: float, retry_at: float = 0.0
    ) -> bool:
        """After a delivery: "delivered" (the lane moves on), "retry" (at `retry_at`) or a
        reason to dead-letter it (the lane moves on). False, and nothing done, if the lane
        is no longer this consumer's (it was taken again)."""
        ...

    async def outbox_stats(self) -> tuple[int, float | None]:
        """Notifications queued and not settled, and when the oldest was queued."""
        ...

    async def dead_notifications(self, count: int) -> list[tuple[str, bytes, str]]:
        """The dead letters (id, item, reason), oldest first."""
        ...

    async def replay_notifications(self, ids: Sequence[str], now: float) -> int:
        """Queue dead letters again (at the end of their lanes); how many were found."""
        ...

    async def disable_endpoint(self, key: str, now: float) -> None: ...

    async def disabled_endpoints(self) -> set[str]: ...
