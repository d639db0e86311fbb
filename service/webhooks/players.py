"""Players' own webhook endpoints: SetPlayerWebhook, and the endpoint of a player.

Where the operator allows some hosts (`webhook_player_hosts`), a player may name one
endpoint for its own notifications; the service makes its signing secret and returns it
once. Its URL is checked by the guard (`guard`) when set and at every delivery.
"""

from __future__ import annotations

import base64
import json
import secrets

from standardwebhooks.webhooks import Webhook

from genial.v1 import webhook_service_pb2 as wpb

from ..credentials import Principal
from ..errors import ApiError, Reason
from ..settings import Settings
from ..store import GameStore
from .endpoints import EVENT_TYPES, Endpoint
from .guard import AddressGuard, Refused

PLAYER_PREFIX = "player:"
"""A player's endpoint's name: the prefix and the player id (operators' names have no ':')."""
TIMEOUT = 5.0
CONCURRENCY = 64
"""Deliveries to all players' endpoints at once, per worker."""


class PlayerWebhooks:
    def __init__(self, store: GameStore, settings: Settings) -> None:
        self.store = store
        self.settings = settings
        self.guard = AddressGuard.from_settings(
            settings.webhook_player_hosts, settings.webhook_player_networks
        )

    async def set_player_webhook(
        self, request: wpb.SetPlayerWebhookRequest, caller: Principal
    ) -> wpb.SetPlayerWebhookResponse:
        player = caller.require_player()
        if not request.url:  # removing one is always allowed
            await self.store.set_player_webhook(player, None, self.settings.player_ttl)
            return wpb.SetPlayerWebhookResponse()
        if not self.guard.on:
            raise ApiError(Reason.WEBHOOKS_OFF, "players' own webhooks are not allowed here")
        known = sorted(EVENT_TYPES.values())
        events = list(request.events) or known
        if not set(events) <= set(known):
            raise ApiError(Reason.BAD_WEBHOOK, f"event types are among {known}")
        try:
            await self.guard.check(request.url)
        except Refused as err:
            raise ApiError(Reason.BAD_WEBHOOK, str(err)) from None
        secret = "whsec_" + base64.b64encode(secrets.token_bytes(24)).decode()
        data = {"url": request.url, "secret": secret, "events": events}
        await self.store.set_player_webhook(
            player, json.dumps(data).encode(), self.settings.player_ttl
        )
        return wpb.SetPlayerWebhookResponse(secret=secret)

    async def endpoint(self, player: str) -> Endpoint | None:
        """The player's endpoint as it is now, if it has one."""
        raw = await self.store.player_webhook(player)
        if raw is None:
            return None
        data = json.loads(raw)
        return Endpoint(
            PLAYER_PREFIX + player,
            data["url"],
            (Webhook(data["secret"]),),
            frozenset(data["events"]),
            TIMEOUT,
            CONCURRENCY,
        )

    async def remove(self, player: str) -> None:
        """After a 410 Gone from the player's endpoint."""
        await self.store.set_player_webhook(player, None, self.settings.player_ttl)
