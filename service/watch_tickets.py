"""Watch tickets: a credential for watching one game, short-lived, for a client that cannot
send an authorization header with a stream (a browser's EventSource puts everything in its
URL). The holder of a seat asks for one with its own credential, in a header; the ticket,
sent as the watch's `ticket`, then stands for that seat, for watching that game only.

A ticket is a token of the service's own (signed with the session keys, like a player's
access token) for another audience, naming the game and the seat; it lives a minute, so a
URL that lands in a log or a browser's history is worth nothing soon after.
"""

from __future__ import annotations

from genial.v1 import game_service_pb2 as api

from .credentials import Credentials, Principal
from .errors import ApiError, Reason
from .games import load
from .store import GameStore

WATCH_AUDIENCE = "genial-watch"
TICKET_SECONDS = 60
SESSION = "watch"
"""The session claim of a ticket: tickets belong to no session (nothing revokes them)."""


class WatchTickets:
    def __init__(self, store: GameStore, credentials: Credentials) -> None:
        self.store = store
        self.credentials = credentials

    async def create_watch_ticket(
        self, request: api.CreateWatchTicketRequest, caller: Principal
    ) -> api.CreateWatchTicketResponse:
        _, meta, _ = await load(self.store, request.game_id)
        seat = caller.seat(meta, required=True)
        keys = await self.credentials.session_keys()
        ticket, expires = keys.issue(
            f"{request.game_id}:{seat}", SESSION, WATCH_AUDIENCE, TICKET_SECONDS
        )
        response = api.CreateWatchTicketResponse(ticket=ticket)
        response.expire_time.FromSeconds(int(expires))
        return response

    async def seat(self, ticket: str, game_id: str) -> int:
        """The seat a ticket stands for in `game_id`, or why it stands for none."""
        verified = await self.credentials.verify(ticket, WATCH_AUDIENCE)
        ticket_game, _, seat = verified.player.rpartition(":")
        if verified.session != SESSION or ticket_game != game_id or not seat.isdigit():
            raise ApiError(Reason.TOKEN_INVALID, "this ticket is not for watching this game")
        return int(seat)
