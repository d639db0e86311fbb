"""The lobby: games waiting for players, by kind and all kinds together, oldest first.

Its lists are hints kept beside the games; a page checks each game it lists against the
game's own record and prunes what is stale (started, or expired).
"""

from __future__ import annotations

import math

from genial.v1 import game_service_pb2 as api
from genial.v1 import types_pb2 as types

from . import convert, records
from .credentials import Principal
from .errors import ApiError, Reason
from .records import WAITING
from .settings import Settings
from .store import GameStore

ALL_KINDS = "all"
"""The lobby of every kind, beside one per kind."""


class Lobby:
    def __init__(self, store: GameStore, settings: Settings) -> None:
        self.store = store
        self.settings = settings

    async def open(self, kind: str, game_id: str, created: float) -> None:
        for lobby in (kind, ALL_KINDS):
            await self.store.lobby_add(lobby, game_id, created)

    async def close(self, kind: str, game_id: str) -> None:
        for lobby in (kind, ALL_KINDS):
            await self.store.lobby_remove(lobby, game_id)

    async def list_games(
        self, request: api.ListGamesRequest, _caller: Principal
    ) -> api.ListGamesResponse:
        kind = convert.kind_name(request.kind) or ALL_KINDS
        size = request.page_size or 20
        if not 1 <= size <= self.settings.max_page_size:
            raise ApiError(Reason.BAD_PAGE, f"page_size is 1-{self.settings.max_page_size}")
        try:
            after = float(request.page_token) if request.page_token else 0.0
        except ValueError:
            after = math.nan
        if not math.isfinite(after):  # "nan", "inf" and "1e999" parse too
            raise ApiError(Reason.BAD_PAGE, "bad page_token")
        response = api.ListGamesResponse()
        last = after
        while (wanted := size - len(response.games)) > 0:
            page = await self.store.lobby_page(kind, last, wanted)
            for game_id, created in page:
                last = created
                summary = await self._summary(kind, game_id, created)
                if summary is not None:
                    response.games.append(summary)
            if len(page) < wanted:
                return response  # the lobby ends here
        response.next_page_token = repr(last)
        return response

    async def _summary(self, kind: str, game_id: str, created: float) -> types.GameSummary | None:
        """The game as the lobby shows it; None (and out of the lobby) if it no longer
        waits for players, or is gone."""
        record, _ = await self.store.read(game_id)
        meta = records.decode_meta(record.meta) if record else None
        if record is None or meta is None or meta.status != WAITING:
            await self.store.lobby_remove(kind, game_id)  # a stale hint
            return None
        summary = types.GameSummary(
            game_id=game_id,
            kind=convert.kind_enum(meta.kind),
            status=types.GAME_STATUS_WAITING,
            seats=meta.seats,
            open_seats=meta.seats - meta.joined,
        )
        summary.created_at.FromMilliseconds(round(created * 1000))
        convert.to_proto(records.decode_state(record.state).options, summary.options)
        return summary
