"""Games from creation to the first move: create, join, look at, and what the caller may do.

Every use case takes the request message and the caller (`Principal`) and returns the
response message, so that both transports call them alike.
"""

from __future__ import annotations

import logging
import re
import secrets
import time
import unicodedata
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING

from genial import engine
from genial.v1 import game_service_pb2 as api

from . import convert, masks, records
from .credentials import Principal, new_seat_token, token_digest
from .errors import RETRY_AFTER, ApiError, Reason
from .health import StoreHealth
from .lobby import Lobby
from .log_entries import JoinEntry, encode_join
from .metrics import METRICS
from .records import PLAYING, WAITING, GameMeta
from .settings import Settings
from .store import Entry, GameStore, Quota, Record, Write
from .turns import Turns
from .views import game_view

if TYPE_CHECKING:
    from .followups import FollowUps

log = logging.getLogger("genial.games")

GAME_ID = re.compile(r"[A-Za-z0-9_-]{16}")
MAX_NAME = 32
MAX_TURN = 86_400
"""The longest turn timer, in seconds (the shortest is a setting)."""
MAX_ATTEMPTS = 16
"""Compare-and-set attempts of one request before it gives up with ABORTED."""

ProfileName = Callable[[str], Awaitable[str]]
"""A player's display name, for a player who joins without giving one."""


BLANK = frozenset("\u115f\u1160\u17b4\u17b5\u180e\u2800\u3164\uffa0\u034f")
"""Letters and symbols that show nothing (fillers, a blank braille pattern)."""
MAX_MARKS = 2
"""Combining marks one character may carry (a Vietnamese letter has two)."""


def display_name(raw: str) -> str:
    """A display name as kept: NFC, trimmed, 1-32 printable characters of which one at
    least shows something, no pile of combining marks."""
    name = unicodedata.normalize("NFC", raw).strip()
    rule = f"a display name has 1-{MAX_NAME} printable characters, one of them visible"
    if not 1 <= len(name) <= MAX_NAME or not name.isprintable():
        raise ApiError(Reason.BAD_DISPLAY_NAME, rule)
    marks = 0
    for char in name:
        marks = marks + 1 if unicodedata.category(char).startswith("M") else 0
        if marks > MAX_MARKS:
            raise ApiError(Reason.BAD_DISPLAY_NAME, f"{rule}; at most {MAX_MARKS} marks on one")
    if not any(_visible(char) for char in name):
        raise ApiError(Reason.BAD_DISPLAY_NAME, rule)
    return name


def _visible(char: str) -> bool:
    return char not in BLANK and unicodedata.category(char)[0] in "LNPS"


def folded(name: str) -> str:
    """What two names must not share at one table: NFKC, case folded, blanks dropped."""
    return "".join(c for c in unicodedata.normalize("NFKC", name).casefold() if _visible(c))


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
    def __init__(
        self,
        store: GameStore,
        settings: Settings,
        lobby: Lobby,
        turns: Turns,
        health: StoreHealth,
        followups: FollowUps,
        profile_name: ProfileName,
    ) -> None:
        self.store = store
        self.settings = settings
        self.followups = followups
        self.profile_name = profile_name
        self.lobby = lobby
        self.turns = turns
        self.health = health

    async def _claim(self, address: str, game_id: str, cost: int, expires: float) -> None:
        """Count the game against its creator's quotas, or refuse it (TOO_MANY_GAMES)."""
        quota = Quota(self.settings.games_per_minute, self.settings.waiting_games)
        verdict = await self.store.claim_creation(address, game_id, cost, expires, quota)
        if verdict == "waiting":
            # Its list keeps games until they expire; those that started leave it here.
            listed = await self.store.waiting_games(address)
            found = [(await self.store.read(g))[0] for g in listed]
            done = [
                g
                for g, r in zip(listed, found, strict=True)
                if r is None or records.decode_meta(r.meta).status != WAITING
            ]
            await self.store.release_waiting(address, done)
            if done:
                verdict = await self.store.claim_creation(address, game_id, cost, expires, quota)
        if verdict == "waiting":
            raise ApiError(
                Reason.TOO_MANY_GAMES,
                f"at most {quota.waiting} games waiting for players from one address",
            )
        if verdict == "rate":
            raise ApiError(
                Reason.TOO_MANY_GAMES,
                f"at most {quota.per_minute} games a minute from one address (a game of bots "
                f"only counts {self.settings.bot_game_cost}); retry in a minute",
                {RETRY_AFTER: "60"},
            )

    async def create_game(
        self, request: api.CreateGameRequest, caller: Principal
    ) -> api.CreateGameResponse:
        if self.health.near_full:
            raise ApiError(
                Reason.STORE_FULL, "storage is nearly full: new games wait; games in play go on"
            )
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
        game_id = secrets.token_urlsafe(12)
        if caller.address is not None and (
            self.settings.games_per_minute or self.settings.waiting_games
        ):
            playable = any(strength is None for strength in bots)
            cost = 1 if playable else self.settings.bot_game_cost
            await self._claim(caller.address, game_id, cost, now + self.settings.waiting_ttl)
        meta = new_meta(kind, bots, turn_seconds, now)
        if not await self.open(game_id, state, meta, listed=True):
            raise ApiError(Reason.INTERNAL, "game id collision; try again")
        return api.CreateGameResponse(
            game_id=game_id,
            view=game_view(game_id, meta, 0, state, None),
            seed_sha256=engine.seed_commitment(seed),
        )

    async def open(
        self,
        game_id: str,
        state: engine.GameState,
        meta: GameMeta,
        *,
        listed: bool,
        seated: Sequence[int] = (),
    ) -> bool:
        """Store a new game and set it going (in the lobby if `listed`, or played by its
        bots); False if the id is taken. The `seated` seats were taken as it was made (a
        match's players): each gets its join in the log, as if it had joined, so that
        watches and histories, which replay the log, see it taken."""
        record = Record(records.encode_state(state), records.encode_meta(meta), 0, 0)
        joined = meta.joined - len(seated)  # the bots, seated by `new_meta`
        entries = [
            Entry((0, joined + i), encode_join(JoinEntry(seat, name)))
            for i, seat in enumerate(seated, 1)
            if (name := meta.names[seat]) is not None
        ]
        if not await self.store.create(game_id, record, entries, self.settings.waiting_ttl):
            return False
        if meta.status != WAITING:  # bots only: the game plays itself
            await self.turns.after_move(game_id, meta, state)
        elif listed:
            await self.lobby.open(meta.kind, game_id, meta.created)
        METRICS.games_created.labels(meta.kind).inc()
        self.health.census.changed(None, meta)
        log.info("game created", extra={"game_id": game_id, "kind": meta.kind, "seats": meta.seats})
        return True

    async def join_game(
        self, request: api.JoinGameRequest, caller: Principal
    ) -> api.JoinGameResponse:
        player = caller.player
        # A player may leave the name to its profile's.
        name = display_name(request.display_name) if request.display_name or not player else ""
        listed = False  # whether the game is in the player's list of games yet
        for _ in range(MAX_ATTEMPTS):
            record, meta, _ = await load(self.store, request.game_id)
            now = time.time()
            if player is not None and (taken := meta.seat_of(player)) is not None:
                if request.HasField("seat") and request.seat != taken:
                    raise ApiError(Reason.ALREADY_SEATED, f"this player sits at seat {taken}")
                state = records.decode_state(record.state)
                view = game_view(request.game_id, meta, record.version, state, taken)
                return api.JoinGameResponse(seat=taken, view=view)  # joined again
            if meta.status != WAITING:
                raise ApiError(Reason.GAME_FULL, "every seat is taken")
            seat = _open_seat(meta, request, player, now)
            if player is not None and not listed:
                name = name or display_name(await self.profile_name(player))
                await self._list(player, request.game_id, now)
                listed = True
            taken_names = {folded(n) for n in meta.names if n is not None}
            if folded(name) in taken_names:
                raise ApiError(Reason.NAME_TAKEN, f"{name!r} is at this table already")
            token = None if player is not None else new_seat_token()
            meta.names[seat] = name
            meta.tokens[seat] = token_digest(token) if token is not None else None
            if player is not None or meta.players:
                # (or frees a seat kept for a player who did not come)
                meta.bind(seat, player, bot_account=caller.bot_account)
            meta.turn_started = round(now, 3)
            started = meta.status == PLAYING
            due = self.followups.intent(meta)
            after = Record(record.state, records.encode_meta(meta), 0, record.rev + 1)
            result = await self.store.write(
                request.game_id,
                Write(
                    expected_rev=record.rev,
                    state=record.state,
                    version=0,
                    entry_id=(0, meta.joined),
                    entry=encode_join(JoinEntry(seat, name)),
                    meta=after.meta,
                    ttl=self.settings.idle_ttl if started else self.settings.waiting_ttl,
                    follow_up=due,
                ),
            )
            if not result.ok:
                METRICS.conflicts.labels("join").inc()
                continue
            state = records.decode_state(record.state)
            self.followups.written(request.game_id, due, record, after, state)
            if started:
                self.health.census.changed(WAITING, meta)
                await self.lobby.close(meta.kind, request.game_id)
                await self.turns.after_move(request.game_id, meta, state)
            return api.JoinGameResponse(
                seat=seat,
                player_token=token or "",
                view=game_view(request.game_id, meta, 0, state, seat),
            )
        raise ApiError(Reason.CONTENTION, "too many players joined at once; retry")

    async def _list(self, player: str, game_id: str, now: float) -> None:
        """Put a game in the player's list before the join is written (a hint: a join that
        fails leaves a game the list's reader drops), within the player's limit."""
        listed = await self.store.add_my_game(player, game_id, now, self.settings.player_ttl)
        if listed > self.settings.live_games_per_player:
            await self.store.remove_my_game(player, game_id)
            raise ApiError(
                Reason.TOO_MANY_GAMES,
                f"a player sits at {self.settings.live_games_per_player} games at most",
            )

    async def get_game(self, request: api.GetGameRequest, caller: Principal) -> api.GetGameResponse:
        mask = masks.of(request.read_mask, api.GetGameResponse)
        record, meta, _ = await load(self.store, request.game_id)
        seat = caller.seat(meta, required=False)
        if mask is not None and not mask.wants("view"):
            return api.GetGameResponse()
        state = records.decode_state(record.state)
        parts = None if mask is None else mask.part("view")
        view = game_view(request.game_id, meta, record.version, state, seat, parts=parts)
        answer = api.GetGameResponse(view=view)
        return answer if mask is None else mask.trim(answer)

    async def list_legal_moves(
        self, request: api.ListLegalMovesRequest, caller: Principal
    ) -> api.ListLegalMovesResponse:
        record, meta, _ = await load(self.store, request.game_id)
        seat = caller.seat(meta, required=True)
        response = api.ListLegalMovesResponse(version=record.version)
        state = records.decode_state(record.state)
        mover = state.to_move if meta.status == PLAYING else None
        if mover is not None and mover == seat and not meta.played_by_bot(mover):
            for move in state.legal_moves():
                response.moves.append(convert.proto_move(meta.kind, move))
        return response


def new_meta(kind: str, bots: list[str | None], turn_seconds: int | None, now: float) -> GameMeta:
    """A new game's metadata: its bots seated, the other seats open."""
    seats = len(bots)
    return GameMeta(
        kind=kind,
        seats=seats,
        created=now,
        names=[f"{b} bot" if b else None for b in bots],
        tokens=[None] * seats,
        bots=bots,
        away=[False] * seats,
        turn_seconds=turn_seconds,
        turn_started=round(now, 3),
    )


def _open_seat(meta: GameMeta, request: api.JoinGameRequest, player: str | None, now: float) -> int:
    """The seat a join takes: the one asked for, or the one kept for the player, or the
    first open one; seats kept for other players (a rematch's) are not open."""
    kept = [s for s in range(meta.seats) if meta.reserved(s, now) is not None]
    mine = [s for s in kept if meta.reserved(s, now) == player]
    free = [s for s, n in enumerate(meta.names) if n is None and (s not in kept or s in mine)]
    if request.HasField("seat"):
        if not 0 <= request.seat < meta.seats:
            raise ApiError(engine.Reason.BAD_SEAT, f"no seat {request.seat}")
        if request.seat not in free:
            raise ApiError(Reason.SEAT_TAKEN, f"seat {request.seat} is taken")
        return request.seat
    if not free:
        raise ApiError(Reason.SEAT_TAKEN, "the open seats are kept for other players")
    return (mine or free)[0]
