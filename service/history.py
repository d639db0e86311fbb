"""A game's past and its live events: the history, watching, and any earlier state.

The log holds what each write did (a seat taken, a move and its events); every earlier
state comes from replaying the moves from the seed, since the engine is deterministic.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

from genial import engine
from genial.v1 import game_service_pb2 as api

from . import convert, records
from .credentials import Principal
from .errors import ApiError, Reason
from .games import load
from .records import PLAYING
from .settings import Settings
from .store import GameLogs, GameStore
from .views import game_view


@dataclass(frozen=True, slots=True)
class PlayedMove:
    """A move as the log tells it: who, what, what it caused, and whether a bot chose it."""

    version: int
    seat: int
    move: engine.Move
    events: list[engine.Event]
    """The service's events (a timeout, a reclaimed seat), then the engine's."""
    automatic: bool


async def moves_since(logs: GameLogs, game_id: str, version: int) -> list[PlayedMove]:
    """The moves after `version`, in order (what anything that follows a game reads)."""
    played = []
    for entry in await logs.entries(game_id, (version, 0)):
        if entry.id[0] > version:
            move = records.decode_move(entry.data)
            played.append(
                PlayedMove(entry.id[0], move.seat, move.move, move.events, move.automatic)
            )
    return played


async def state_at(
    logs: GameLogs, game_id: str, current: engine.GameState, version: int
) -> engine.GameState:
    """The game as it was at `version`, replayed from the seed."""
    state = engine.new_game(current.kind, current.seats, current.seed, current.options)
    for entry in await logs.entries(game_id, (0, 0)):
        if 0 < entry.id[0] <= version:
            move = records.decode_move(entry.data)
            state, _ = state.apply(move.seat, move.move)
    return state


class History:
    def __init__(self, store: GameStore, settings: Settings) -> None:
        self.store = store
        self.settings = settings

    async def watch_game(
        self, request: api.WatchGameRequest, caller: Principal
    ) -> AsyncIterator[api.WatchGameResponse]:
        """Every entry after `from_version`, each with a fresh view, then live ones."""
        record, meta, _ = await load(self.store, request.game_id)
        seat = caller.seat(meta, required=False)
        if request.from_version < 0:
            raise ApiError(Reason.BAD_REQUEST, "from_version is >= 0")
        current = engine.decode(record.state)
        # A replica of the game, advanced by the logged moves: views for every version
        # come from it, without reading the game again.
        state = engine.new_game(current.kind, current.seats, current.seed, current.options)
        meta = meta.at_start()  # advanced by the log like the state
        version, after = 0, (0, 0)
        block = 0  # the first read answers at once with what is there
        while True:
            entries = await self.store.entries(request.game_id, after, block)
            block = int(self.settings.watch_keepalive * 1000)
            if not entries:
                if meta.finished:
                    return
                yield api.WatchGameResponse(version=version)  # keep-alive: nothing new
                continue
            for entry in entries:
                after = entry.id
                events: list[engine.Event]
                if entry.id[0] == 0:
                    join = records.decode_join(entry.data)
                    meta.names[join.seat] = join.name
                    events = [
                        {"type": "player_joined", "seat": join.seat, "display_name": join.name}
                    ]
                    if meta.status == PLAYING:
                        events.append({"type": "game_started"})
                else:
                    move = records.decode_move(entry.data)
                    state, _ = state.apply(move.seat, move.move)
                    version = entry.id[0]
                    events = move.events
                    meta.finished = state.is_over()
                    for event in events:
                        if event["type"] in ("turn_timed_out", "seat_reclaimed"):
                            meta.away[event["seat"]] = event["type"] == "turn_timed_out"
                if entry.id <= (request.from_version, 0):
                    continue
                yield api.WatchGameResponse(
                    version=version,
                    events=[convert.proto_event(meta.kind, e) for e in events],
                    view=game_view(request.game_id, meta, version, state, seat),
                )
            if meta.finished:
                return

    async def get_history(
        self, request: api.GetHistoryRequest, _caller: Principal
    ) -> api.GetHistoryResponse:
        record, meta, _ = await load(self.store, request.game_id)
        state = engine.decode(record.state)
        response = api.GetHistoryResponse(
            kind=convert.kind_enum(meta.kind),
            seats=meta.seats,
            seed_sha256=engine.seed_commitment(state.seed),
        )
        convert.to_proto(state.options, response.options)
        if meta.finished:
            response.seed = state.seed.hex()
        for entry in await self.store.entries(request.game_id, (0, 0)):
            if entry.id[0] == 0:
                continue
            move = records.decode_move(entry.data)
            response.entries.add(
                version=entry.id[0],
                seat=move.seat,
                move=convert.proto_move(meta.kind, move.move),
                events=[convert.proto_event(meta.kind, e) for e in move.events],
                automatic=move.automatic,
            )
        return response
