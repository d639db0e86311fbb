"""Leaving a game and playing it again: Resign and Rematch.

A resignation is a write of its own: the seat is marked resigned in the metadata and the
log gets an entry (after the move of that version, `GameMeta.resign_entry_id`), so every
watcher sees it; from then on the greedy bot plays the seat through the turn loop, like a
bot's seat. When every seat played by people has resigned, the bots play the game out: it
ends like any other, its standings rank every seat, the resigned ones marked.

A rematch is asked for once: the first caller writes the new game's id into the finished
game (a compare-and-set), then creates the game under that id; everyone who asks later,
or again, gets the same id, and creates the game if its creator died in between.
"""

from __future__ import annotations

import secrets
import time

from genial import engine
from genial.v1 import game_service_pb2 as api

from .. import records
from ..credentials import Principal
from ..errors import ApiError, Reason
from ..followups import FollowUps
from ..games import MAX_ATTEMPTS, Games, load, new_meta
from ..log_entries import ResignEntry, encode_resign
from ..records import WAITING, GameMeta
from ..settings import Settings
from ..store import GameStore, Record, Write
from ..turns import Turns
from ..views import game_view


class Seats:
    def __init__(
        self,
        store: GameStore,
        settings: Settings,
        games: Games,
        turns: Turns,
        followups: FollowUps,
    ) -> None:
        self.store = store
        self.settings = settings
        self.games = games
        self.turns = turns
        self.followups = followups

    async def resign(self, request: api.ResignRequest, caller: Principal) -> api.ResignResponse:
        for _ in range(MAX_ATTEMPTS):
            record, meta, _ = await load(self.store, request.game_id)
            seat = caller.seat(meta, required=True)
            assert seat is not None
            state = records.decode_state(record.state)
            if meta.status == WAITING:
                raise ApiError(Reason.GAME_NOT_STARTED, "seats are still open")
            if meta.finished:
                raise ApiError(engine.Reason.GAME_OVER, "the game is over")
            if not meta.is_resigned(seat):
                meta.resign(seat)
                entry = (meta.resign_entry_id(record.version), encode_resign(ResignEntry(seat)))
                if not await self._rewrite(request.game_id, record, meta, entry):
                    continue
                await self.turns.after_move(request.game_id, meta, state)
            view = game_view(request.game_id, meta, record.version, state, seat)
            return api.ResignResponse(view=view)
        raise ApiError(Reason.CONTENTION, "too many writes at once; retry")

    async def _rewrite(
        self,
        game_id: str,
        record: Record,
        meta: GameMeta,
        entry: tuple[tuple[int, int], bytes] | None,
    ) -> bool:
        """Compare-and-set the game's metadata (and a log entry, if any) on `record`, its
        state and version as they are; False if another write came first."""
        due = self.followups.intent(meta)
        after = Record(record.state, records.encode_meta(meta), record.version, record.rev + 1)
        result = await self.store.write(
            game_id,
            Write(
                expected_rev=record.rev,
                state=record.state,
                version=record.version,
                entry_id=entry[0] if entry else None,
                entry=entry[1] if entry else b"",
                meta=after.meta,
                ttl=self.settings.finished_ttl if meta.finished else self.settings.idle_ttl,
                follow_up=due,
            ),
        )
        if result.ok:
            self.followups.written(game_id, due, record, after, records.decode_state(record.state))
        return result.ok

    async def rematch(self, request: api.RematchRequest, caller: Principal) -> api.RematchResponse:
        for _ in range(MAX_ATTEMPTS):
            record, meta, _ = await load(self.store, request.game_id)
            caller.seat(meta, required=True)
            if not meta.finished:
                raise ApiError(Reason.GAME_NOT_OVER, "a rematch follows a finished game")
            if meta.rematch is not None:
                break
            meta.rematch = secrets.token_urlsafe(12)
            now = time.time()
            for player in _players(meta):  # hints before the write, as for a join
                await self.store.add_my_game(player, meta.rematch, now, self.settings.player_ttl)
            if await self._rewrite(request.game_id, record, meta, None):
                break
        else:
            raise ApiError(Reason.CONTENTION, "too many writes at once; retry")
        game_id = meta.rematch
        state = records.decode_state(record.state)
        again = engine.new_game(meta.kind, meta.seats, engine.new_seed(), state.options)
        # Seats kept for the same players (bound seats only: a seat token names nobody).
        rematch = new_meta(meta.kind, list(meta.bots), meta.turn_seconds, time.time())
        for kept in range(meta.seats):
            if meta.bots[kept] is None:
                rematch.bind(kept, meta.player(kept))
        rematch.reserved_until = time.time() + self.settings.rematch_seconds
        # Not in the lobby: it is for the same table. An id taken means it exists already.
        await self.games.open(game_id, again, rematch, listed=False)
        record, rematch, _ = await load(self.store, game_id)
        seat = rematch.seat_of(caller.player) if caller.player is not None else None
        view = game_view(game_id, rematch, record.version, records.decode_state(record.state), seat)
        return api.RematchResponse(game_id=game_id, view=view)


def _players(meta: GameMeta) -> list[str]:
    """The players seated at a game."""
    return [
        player
        for seat in range(meta.seats)
        if (player := meta.player(seat)) is not None and meta.names[seat] is not None
    ]
