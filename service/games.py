"""Games from creation to the first move: create, join, look at, and what the caller may do.

Every use case takes the request message and the caller (`Principal`) and returns the
response message, so that both transports call them alike.
"""

from __future__ import annotations

import logging
import re
import secrets
import time

from genial import engine
from genial.v1 import game_service_pb2 as api

from . import convert, records
from .credentials import Principal, new_seat_token, token_digest
from .errors import ApiError, Reason
from .lobby import Lobby
from .metrics import METRICS
from .records import PLAYING, WAITING, GameMeta, JoinEntry
from .settings import Settings
from .store import GameStore, Record, Write
from .turns import Turns
from .views import game_view

log = logging.getLogger("genial.games")

GAME_ID = re.compile(r"[A-Za-z0-9_-]{16}")
MAX_NAME = 32
MAX_TURN = 86_400
"""The longest turn timer, in seconds (the shortest is a setting)."""
MAX_ATTEMPTS = 16
"""Compare-and-set attempts of one request before it gives up with ABORTED."""


def check_game_id(game_id: str) -> None:
    if not GAME_ID.fullmatch(game_id):
        raise ApiError(Reason.BAD_GAME_ID, "a game id is 16 characters [A-Za-z0-9_-]")


async def load(
    store: GameStore, game_id: str, request_id: str | None = None
) -> tuple[Record, GameMeta, int | None]:
    """The game's record and metadata, and the version `request_id` produced if it did."""
    check_game_id(game_id)
    record, done = await store.read(game_id, request_id)
    if record is None:
        raise ApiError(Reason.GAME_NOT_FOUND, f"no game {game_id}")
    return record, records.decode_meta(record.meta), done


class Games:
    def __init__(self, store: GameStore, settings: Settings, lobby: Lobby, turns: Turns) -> None:
        self.store = store
        self.settings = settings
        self.lobby = lobby
        self.turns = turns

    async def create_game(
        self, request: api.CreateGameRequest, _caller: Principal
    ) -> api.CreateGameResponse:
        kind = convert.kind_name(request.kind) or ""  # no kind: the engine's UNKNOWN_GAME
        seed = engine.new_seed()
        try:
            state = engine.new_game(kind, request.seats, seed, convert.options(request.options))
        except engine.IllegalMove as err:
            raise ApiError.from_engine(err) from None
        turn_seconds = request.turn_seconds if request.HasField("turn_seconds") else None
        shortest = self.settings.min_turn_seconds
        if turn_seconds is not None and not shortest <= turn_seconds <= MAX_TURN:
            raise ApiError(Reason.BAD_TURN_TIMER, f"turn_seconds is {shortest}-{MAX_TURN}")
        bots: list[str | None] = [None] * request.seats
        for seat_bot in request.bots:
            strength = convert.from_proto(seat_bot)["strength"]
            if not 0 <= seat_bot.seat < request.seats or bots[seat_bot.seat] is not None:
                raise ApiError(
                    engine.Reason.BAD_SEAT, f"bot seats are distinct seats 0-{request.seats - 1}"
                )
            bots[seat_bot.seat] = strength
        now = time.time()
        meta = GameMeta(
            kind=kind,
            seats=request.seats,
            created=now,
            names=[f"{b} bot" if b else None for b in bots],
            tokens=[None] * request.seats,
            bots=bots,
            away=[False] * request.seats,
            turn_seconds=turn_seconds,
            turn_started=round(now, 3),
        )
        game_id = secrets.token_urlsafe(12)
        record = Record(state.encode(), records.encode(meta), 0, 0)
        if not await self.store.create(game_id, record, None, self.settings.waiting_ttl):
            raise ApiError(Reason.INTERNAL, "game id collision; try again")
        if meta.status == WAITING:
            await self.lobby.open(meta.kind, game_id, meta.created)
        else:  # bots only: the game plays itself
            await self.turns.after_move(game_id, meta, state)
        METRICS.games_created.labels(kind).inc()
        log.info("game created", extra={"game_id": game_id, "kind": kind, "seats": meta.seats})
        return api.CreateGameResponse(
            game_id=game_id,
            view=game_view(game_id, meta, 0, state, None),
            seed_sha256=engine.seed_commitment(seed),
        )

    async def join_game(
        self, request: api.JoinGameRequest, _caller: Principal
    ) -> api.JoinGameResponse:
        name = request.display_name.strip()
        if not 1 <= len(name) <= MAX_NAME or not name.isprintable():
            raise ApiError(
                Reason.BAD_DISPLAY_NAME, f"a display name has 1-{MAX_NAME} printable characters"
            )
        for _ in range(MAX_ATTEMPTS):
            record, meta, _ = await load(self.store, request.game_id)
            if meta.status != WAITING:
                raise ApiError(Reason.GAME_FULL, "every seat is taken")
            free = [s for s, n in enumerate(meta.names) if n is None]
            if request.HasField("seat"):
                if not 0 <= request.seat < meta.seats:
                    raise ApiError(engine.Reason.BAD_SEAT, f"no seat {request.seat}")
                if request.seat not in free:
                    raise ApiError(Reason.SEAT_TAKEN, f"seat {request.seat} is taken")
                seat = request.seat
            else:
                seat = free[0]
            token = new_seat_token()
            meta.names[seat] = name
            meta.tokens[seat] = token_digest(token)
            meta.turn_started = round(time.time(), 3)
            started = meta.status == PLAYING
            result = await self.store.write(
                request.game_id,
                Write(
                    expected_rev=record.rev,
                    state=record.state,
                    version=0,
                    entry_id=(0, meta.joined),
                    entry=records.encode(JoinEntry(seat, name)),
                    meta=records.encode(meta),
                    ttl=self.settings.idle_ttl if started else self.settings.waiting_ttl,
                ),
            )
            if not result.ok:
                METRICS.conflicts.labels("join").inc()
                continue
            state = engine.decode(record.state)
            if started:
                await self.lobby.close(meta.kind, request.game_id)
                await self.turns.after_move(request.game_id, meta, state)
            return api.JoinGameResponse(
                seat=seat,
                player_token=token,
                view=game_view(request.game_id, meta, 0, state, seat),
            )
        raise ApiError(Reason.CONTENTION, "too many players joined at once; retry")

    async def get_game(self, request: api.GetGameRequest, caller: Principal) -> api.GetGameResponse:
        record, meta, _ = await load(self.store, request.game_id)
        seat = caller.seat(meta, required=False)
        state = engine.decode(record.state)
        return api.GetGameResponse(
            view=game_view(request.game_id, meta, record.version, state, seat)
        )

    async def list_legal_moves(
        self, request: api.ListLegalMovesRequest, caller: Principal
    ) -> api.ListLegalMovesResponse:
        record, meta, _ = await load(self.store, request.game_id)
        seat = caller.seat(meta, required=True)
        response = api.ListLegalMovesResponse(version=record.version)
        state = engine.decode(record.state)
        if meta.status == PLAYING and state.to_move == seat:
            for move in state.legal_moves():
                response.moves.append(convert.proto_move(meta.kind, move))
        return response
