"""Players' events as webhook notifications: a follow-up consumer.

The events a change makes (`players.feed.events_of`, the same as WatchPlayer's) become one
notification per endpoint that wants the event's type, in the lane (endpoint, player), with
a webhook-id derived from the endpoint, the player and the event's id: the outbox queues
an id once, so a change handed over again (a worker died before it marked it done) queues
nothing more.

A player's own endpoint (`players`), if it set one, gets the player's notifications too.

Coalescing: a "your turn" is not queued if one for the same player, game and endpoint was
queued in the last `webhook_coalesce_seconds` (a player whose turn comes back within that
time is playing live, and got the first); every other event is always sent.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from ..followups import Change, PlayerEvents
from ..players.feed import events_of, quiet
from ..settings import Settings
from ..store import GameStore, Notification
from .endpoints import EVENT_TYPES, YOUR_TURN, Endpoint, Item, body, encode_item, webhook_id
from .players import PlayerWebhooks

IDS_KEPT_SECONDS = 3600.0
"""How long a queued webhook-id is remembered: a change is handed over again within the
follow-ups' lease (seconds), or a sweep later."""
DISABLED_CACHE_SECONDS = 5.0


class Notifier:
    def __init__(
        self,
        store: GameStore,
        settings: Settings,
        endpoints: dict[str, Endpoint],
        players: PlayerWebhooks,
        queued: Callable[[], None],
    ) -> None:
        self.store = store
        self.settings = settings
        self.endpoints = endpoints
        self.players = players
        self.queued = queued
        """Called when notifications were queued (wakes this worker's deliveries)."""
        self._disabled: tuple[float, set[str]] = (0.0, set())

    @property
    def _off(self) -> bool:
        """No operator endpoint and no player's own: nothing to notify, ever."""
        return not self.endpoints and not self.players.guard.on

    async def follow(self, change: Change) -> None:
        if self._off:
            return
        now = time.time()
        disabled = await self._disabled_endpoints(now)
        items = []
        for player, events in events_of(change).items():
            targets = list(self.endpoints.values())
            if self.players.guard.on and (own := await self.players.endpoint(player)):
                targets.append(own)
            for event in events:
                kind = EVENT_TYPES[event.type]
                text = body(player, event, now)
                for endpoint in targets:
                    if kind not in endpoint.events or endpoint.key in disabled:
                        continue
                    lane = f"{endpoint.name}/{player}"
                    wid = webhook_id(endpoint.name, player, event.id)
                    coalesce = f"{lane}/{event.game_id}" if kind == YOUR_TURN else ""
                    item = encode_item(Item(wid, endpoint.name, text))
                    items.append(Notification(wid, lane, item, coalesce))
        queued = await self.store.queue_notifications(
            items, now, self.settings.webhook_coalesce_seconds, IDS_KEPT_SECONDS
        )
        if queued:
            self.queued()

    def idle(self, change: Change) -> bool:
        return self._off or quiet(change)  # notifications are the players' events

    def inline(self, change: Change) -> PlayerEvents | None:
        return {} if self.idle(change) else None

    async def _disabled_endpoints(self, now: float) -> set[str]:
        at, found = self._disabled
        if now - at > DISABLED_CACHE_SECONDS:
            found = await self.store.disabled_endpoints()
            self._disabled = (now, found)
        return found
