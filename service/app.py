"""The use cases of the API, one code path for every transport.

Requests and responses are the proto messages themselves: a gRPC servicer passes
them through, the REST gateway decodes JSON into them. Errors are `ApiError`s.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import json
import logging
import math
import re
import secrets
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from genial import engine
from genial.v1 import game_service_pb2 as api
from genial.v1 import types_pb2 as types

from . import convert
from .bot_players import TIMEOUT_BOT, choose_move
from .errors import ApiError, Code, Reason
from .limits import RateLimiter
from .metrics import METRICS
from .settings import Settings
from .store import GameStore, Record, Write

log = logging.getLogger("genial.app")

GAME_ID = re.compile(r"^[A-Za-z0-9_-]{16}$")
REQUEST_ID = re.compile(r"^[\x21-\x7e]{1,64}$")
MAX_NAME = 32
AWAY_GRACE = 5
"""Seconds an away seat gets before the greedy bot moves for it again."""
MAX_TURN = 86_400
"""The longest turn timer, in seconds (the shortest is a setting)."""
MAX_ATTEMPTS = 16
"""Compare-and-set attempts of one request before it gives up with ABORTED."""

WAITING, PLAYING, FINISHED = "waiting", "playing", "finished"
ALL_KINDS = "all"
"""The lobby of every kind, beside one per kind."""
STATUS = {
    WAITING: types.GAME_STATUS_WAITING,
    PLAYING: types.GAME_STATUS_PLAYING,
    FINISHED: types.GAME_STATUS_FINISHED,
}


def hash_token(token: str) -> str:
    """What is kept of a token: 128 bits of its SHA-256, in 22 characters."""
    return base64.urlsafe_b64encode(hashlib.sha256(token.encode()).digest()[:16]).decode()[:22]


@dataclass(slots=True)
class Meta:
    """What the service keeps about a game beside the engine's state."""

    kind: str
    seats: int
    created: float
    names: list[str | None]
    tokens: list[str | None]
    """`hash_token` of each seat's token; the tokens themselves are never stored."""
    bots: list[str | None]
    """The strength of the built-in bot at each seat, None for a player."""
    away: list[bool]
    """Seats that missed their turn timer and have not moved since."""
    turn_seconds: int | None = None
    turn_started: float = 0.0
    """When the seat to move got the turn (kept only for games with a timer)."""
    finished: bool = False

    @property
    def joined(self) -> int:
        return sum(name is not None for name in self.names)

    @property
    def status(self) -> str:
        if self.finished:
            return FINISHED
        return PLAYING if self.joined == self.seats else WAITING

    def encode(self) -> bytes:
        return json.dumps(
            {
                "k": self.kind,
                "n": self.seats,
                "c": self.created,
                "p": self.names,
                "t": self.tokens,
                "b": self.bots,
                "a": self.away,
                "s": self.turn_seconds,
                "w": self.turn_started,
                "f": self.finished,
            },
            separators=(",", ":"),
        ).encode()

    @classmethod
    def decode(cls, raw: bytes) -> Meta:
        d = json.loads(raw)
        return cls(d["k"], d["n"], d["c"], d["p"], d["t"], d["b"], d["a"], d["s"], d["w"], d["f"])

    def deadline(self, seat: int | None) -> float | None:
        """When `seat`, to move, runs out of time; None without a timer."""
        if self.turn_seconds is None or seat is None or self.status != PLAYING:
            return None
        limit = min(self.turn_seconds, AWAY_GRACE) if self.away[seat] else self.turn_seconds
        return self.turn_started + limit


def check_game_id(game_id: str) -> None:
    if not GAME_ID.match(game_id):
        raise ApiError(
            Code.INVALID_ARGUMENT, Reason.BAD_GAME_ID, "a game id is 16 characters [A-Za-z0-9_-]"
        )


@dataclass(slots=True)
class Chosen:
    """A move about to be applied, and who chose it."""

    seat: int
    move: engine.Move
    automatic: bool = False
    """Chosen by a bot: the seat's own, or for a seat that ran out of time."""
    events: list[engine.Event] = field(default_factory=list)
    """Service events that come before the move's own (a timeout, a reclaimed seat)."""


class NothingToDo(Exception):
    """An automatic turn that is not (or no longer) due."""


def engine_error(err: engine.IllegalMove) -> ApiError:
    setup = err.reason in (
        engine.Reason.BAD_OPTION,
        engine.Reason.BAD_SEAT,
        engine.Reason.UNKNOWN_GAME,
    )
    code = Code.INVALID_ARGUMENT if setup else Code.FAILED_PRECONDITION
    return ApiError(code, err.reason, err.message)


class RecordCache:
    """The record this worker last wrote of each game, and its decoded state.

    A hint, never the truth: the compare-and-set of the next write proves it current.
    Bounded, the least recently used game goes first."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._records: OrderedDict[str, tuple[Record, engine.GameState]] = OrderedDict()

    def get(self, game_id: str) -> tuple[Record, engine.GameState] | None:
        known = self._records.get(game_id)
        if known is not None:
            self._records.move_to_end(game_id)
        return known

    def put(self, game_id: str, record: Record, state: engine.GameState) -> None:
        if not self.size:
            return
        self._records[game_id] = (record, state)
        self._records.move_to_end(game_id)
        if len(self._records) > self.size:
            self._records.popitem(last=False)


class GameApp:
    """Create, join, view, move, watch, history and lobby, over any `GameStore`.

    Every use case takes the request and the caller's bearer token (None without one),
    so that transports call them all alike; some need no token.
    """

    def __init__(self, store: GameStore, settings: Settings) -> None:
        self.store = store
        self.settings = settings
        self.records = RecordCache(settings.record_cache_games)
        self.limiter = RateLimiter(store, settings.rate_limit_token, settings.rate_limit_address)
        self.turn_due = asyncio.Event()
        """Set when a bot's turn is due now, to wake the turn loop (`service.turns`)."""

    # ---- reading and authenticating -----------------------------------------------

    async def _load(
        self, game_id: str, request_id: str | None = None
    ) -> tuple[Record, Meta, int | None]:
        check_game_id(game_id)
        record, done = await self.store.read(game_id, request_id)
        if record is None:
            raise ApiError(Code.NOT_FOUND, Reason.GAME_NOT_FOUND, f"no game {game_id}")
        return record, Meta.decode(record.meta), done

    @staticmethod
    def _seat(meta: Meta, token: str | None, *, required: bool) -> int | None:
        """The seat a token binds, None for a spectator (no token, when allowed)."""
        if not token:
            if required:
                raise ApiError(
                    Code.UNAUTHENTICATED,
                    Reason.TOKEN_MISSING,
                    "send 'authorization: Bearer <token>'",
                )
            return None
        digest = hash_token(token)
        seat = None
        for s, stored in enumerate(meta.tokens):
            # Compare with every seat, in constant time, so timing tells nothing.
            if stored is not None and hmac.compare_digest(stored, digest):
                seat = s
        if seat is None:
            raise ApiError(
                Code.PERMISSION_DENIED, Reason.TOKEN_INVALID, "this token does not bind a seat here"
            )
        return seat

    # ---- views ------------------------------------------------------------------------

    def _view(
        self,
        game_id: str,
        meta: Meta,
        version: int,
        state: engine.GameState,
        seat: int | None,
        last_events: list[types.Event] | None = None,
    ) -> types.GameView:
        """The seat's view (a spectator's for None); `last_events` converted already, if given."""
        raw = state.view(seat)
        view = types.GameView(
            game_id=game_id,
            kind=convert.kind_enum(meta.kind),
            version=version,
            status=STATUS[meta.status],
            seats=meta.seats,
            seed_sha256=engine.seed_commitment(state.seed),
            round=raw["round"],
            first_seat=raw["first_seat"],
            points=raw["points"],
        )
        if meta.status == PLAYING and raw["to_move"] is not None:
            view.to_move = raw["to_move"]
        if seat is not None:
            view.viewer = seat
        if meta.finished:
            view.seed = state.seed.hex()
        convert.to_proto(raw["options"], view.options)
        for s, name in enumerate(meta.names):
            player = view.players.add(seat=s, joined=name is not None, away=meta.away[s])
            if name is not None:
                player.display_name = name
            if (strength := meta.bots[s]) is not None:
                player.bot = types.BotStrength.Value(f"BOT_STRENGTH_{strength.upper()}")
        if meta.turn_seconds is not None:
            view.turn_seconds = meta.turn_seconds
            deadline = meta.deadline(view.to_move if view.HasField("to_move") else None)
            if deadline is not None:
                view.turn_deadline.FromNanoseconds(int(deadline * 1e9))
        for row in raw["standings"]:
            view.standings.add(**row)
        if last_events is None:
            last_events = [convert.proto_event(meta.kind, e) for e in raw["last_events"]]
        view.last_events.extend(last_events)
        convert.table_to_proto(meta.kind, raw["table"], view)
        return view

    # ---- the use cases ----------------------------------------------------------------

    async def create_game(
        self, request: api.CreateGameRequest, _token: str | None
    ) -> api.CreateGameResponse:
        kind = convert.kind_name(request.kind) or ""  # no kind: the engine's UNKNOWN_GAME
        seed = engine.new_seed()
        try:
            state = engine.new_game(kind, request.seats, seed, convert.options(request.options))
        except engine.IllegalMove as err:
            raise engine_error(err) from None
        turn_seconds = request.turn_seconds if request.HasField("turn_seconds") else None
        shortest = self.settings.min_turn_seconds
        if turn_seconds is not None and not shortest <= turn_seconds <= MAX_TURN:
            raise ApiError(
                Code.INVALID_ARGUMENT,
                Reason.BAD_TURN_TIMER,
                f"turn_seconds is {shortest}-{MAX_TURN}",
            )
        bots: list[str | None] = [None] * request.seats
        for seat_bot in request.bots:
            strength = convert.from_proto(seat_bot)["strength"]
            if not 0 <= seat_bot.seat < request.seats or bots[seat_bot.seat] is not None:
                raise ApiError(
                    Code.INVALID_ARGUMENT,
                    engine.Reason.BAD_SEAT,
                    f"bot seats are distinct seats 0-{request.seats - 1}",
                )
            bots[seat_bot.seat] = strength
        meta = Meta(
            kind=kind,
            seats=request.seats,
            created=time.time(),  # full precision: it orders the lobby's pages
            names=[f"{b} bot" if b else None for b in bots],
            tokens=[None] * request.seats,
            bots=bots,
            away=[False] * request.seats,
            turn_seconds=turn_seconds,
            turn_started=round(time.time(), 3),
        )
        game_id = secrets.token_urlsafe(12)
        record = Record(state.encode(), meta.encode(), 0, 0)
        if not await self.store.create(game_id, record, None, self.settings.waiting_ttl):
            raise ApiError(Code.INTERNAL, Reason.INTERNAL, "game id collision; try again")
        if meta.status == WAITING:
            for lobby in (kind, ALL_KINDS):
                await self.store.lobby_add(lobby, game_id, meta.created)
        else:  # bots only: the game plays itself
            await self.after_move(game_id, meta, state)
        METRICS.games_created.labels(kind).inc()
        log.info("game created", extra={"game_id": game_id, "kind": kind, "seats": meta.seats})
        return api.CreateGameResponse(
            game_id=game_id,
            view=self._view(game_id, meta, 0, state, None),
            seed_sha256=engine.seed_commitment(seed),
        )

    async def join_game(
        self, request: api.JoinGameRequest, _token: str | None
    ) -> api.JoinGameResponse:
        name = request.display_name.strip()
        if not 1 <= len(name) <= MAX_NAME or not name.isprintable():
            raise ApiError(
                Code.INVALID_ARGUMENT,
                Reason.BAD_DISPLAY_NAME,
                f"a display name has 1-{MAX_NAME} printable characters",
            )
        for _ in range(MAX_ATTEMPTS):
            record, meta, _ = await self._load(request.game_id)
            if meta.status != WAITING:
                raise ApiError(Code.FAILED_PRECONDITION, Reason.GAME_FULL, "every seat is taken")
            free = [s for s, n in enumerate(meta.names) if n is None]
            if request.HasField("seat"):
                if not 0 <= request.seat < meta.seats:
                    raise ApiError(
                        Code.INVALID_ARGUMENT, engine.Reason.BAD_SEAT, f"no seat {request.seat}"
                    )
                if request.seat not in free:
                    raise ApiError(
                        Code.FAILED_PRECONDITION, Reason.SEAT_TAKEN, f"seat {request.seat} is taken"
                    )
                seat = request.seat
            else:
                seat = free[0]
            token = secrets.token_urlsafe(32)
            meta.names[seat] = name
            meta.tokens[seat] = hash_token(token)
            meta.turn_started = round(time.time(), 3)
            started = meta.status == PLAYING
            entry = json.dumps({"j": seat, "n": name}, separators=(",", ":")).encode()
            result = await self.store.write(
                request.game_id,
                Write(
                    expected_rev=record.rev,
                    state=record.state,
                    version=0,
                    entry_id=(0, meta.joined),
                    entry=entry,
                    meta=meta.encode(),
                    ttl=self.settings.idle_ttl if started else self.settings.waiting_ttl,
                ),
            )
            if not result.ok:
                METRICS.conflicts.labels("join").inc()
                continue
            state = engine.decode(record.state)
            if started:
                for lobby in (meta.kind, ALL_KINDS):
                    await self.store.lobby_remove(lobby, request.game_id)
                await self.after_move(request.game_id, meta, state)
            return api.JoinGameResponse(
                seat=seat,
                player_token=token,
                view=self._view(request.game_id, meta, 0, state, seat),
            )
        raise ApiError(Code.ABORTED, Reason.CONTENTION, "too many players joined at once; retry")

    async def get_game(self, request: api.GetGameRequest, token: str | None) -> api.GetGameResponse:
        record, meta, _ = await self._load(request.game_id)
        seat = self._seat(meta, token, required=False)
        state = engine.decode(record.state)
        return api.GetGameResponse(
            view=self._view(request.game_id, meta, record.version, state, seat)
        )

    async def list_legal_moves(
        self, request: api.ListLegalMovesRequest, token: str | None
    ) -> api.ListLegalMovesResponse:
        record, meta, _ = await self._load(request.game_id)
        seat = self._seat(meta, token, required=True)
        response = api.ListLegalMovesResponse(version=record.version)
        state = engine.decode(record.state)
        if meta.status == PLAYING and state.to_move == seat:
            for move in state.legal_moves():
                response.moves.append(convert.proto_move(meta.kind, move))
        return response

    async def make_move(
        self, request: api.MakeMoveRequest, token: str | None
    ) -> api.MakeMoveResponse:
        request_id = request.request_id or None
        if request_id is not None and not REQUEST_ID.match(request_id):
            raise ApiError(
                Code.INVALID_ARGUMENT, Reason.BAD_REQUEST_ID, "a request id is 1-64 visible ASCII"
            )
        expected = request.expected_version if request.HasField("expected_version") else None

        def authenticate(meta: Meta) -> int | None:
            return self._seat(meta, token, required=True)

        async def players_move(
            meta: Meta, state: engine.GameState, seat: int | None
        ) -> Chosen | None:
            assert seat is not None
            try:
                return Chosen(seat, convert.engine_move(meta.kind, request.move))
            except convert.BadMessage as err:
                raise ApiError(
                    Code.INVALID_ARGUMENT, engine.Reason.MALFORMED_MOVE, str(err)
                ) from None

        return await self._commit(request.game_id, request_id, expected, authenticate, players_move)

    async def _commit(
        self,
        game_id: str,
        request_id: str | None,
        expected: int | None,
        authenticate: Callable[[Meta], int | None],
        choose: Callable[[Meta, engine.GameState, int | None], Awaitable[Chosen | None]],
    ) -> api.MakeMoveResponse:
        """The move path, for players and bots alike: read, choose, apply, compare-and-set.

        `authenticate` gives the seat the answer's view is for; `choose` gives the move for
        the state just read (None: nothing to do). The record this worker wrote last
        stands in for the read: the compare-and-set proves it current, and if it is not,
        the write answers with the record that is (so a conflict costs no extra read).
        Only a decision on a record known to be current is final; one on the kept record
        (an error, nothing to do) is made again on a fresh read. On a conflict without
        `expected` the path starts again from the record the write returned.
        """
        known = self.records.get(game_id)
        fresh = False
        for attempt in range(MAX_ATTEMPTS):
            if known is None:
                record, meta, done = await self._load(game_id, request_id)
                if done is not None:
                    return await self._replayed(game_id, meta, record, authenticate(meta), done)
                known, fresh = (record, engine.decode(record.state)), True
            record, state = known
            meta = Meta.decode(record.meta)
            try:
                viewer, chosen, new, engine_events = await self._decide(
                    record, meta, state, expected, authenticate, choose
                )
            except (ApiError, NothingToDo, engine.IllegalMove) as err:
                if not fresh:
                    known = None
                    continue
                if isinstance(err, engine.IllegalMove):
                    METRICS.illegal_moves.labels(err.reason).inc()
                    raise engine_error(err) from None
                raise
            before = [dict(e) for e in chosen.events]
            if not chosen.automatic and meta.away[chosen.seat]:
                meta.away[chosen.seat] = False
                before.append({"type": "seat_reclaimed", "seat": chosen.seat})
            meta.finished = new.is_over()
            meta.turn_started = round(time.time(), 3)
            events = before + engine_events
            version = record.version + 1
            entry: dict[str, Any] = {"s": chosen.seat, "m": chosen.move, "e": events}
            if chosen.automatic:
                entry["a"] = 1
            written = Record(new.encode(), meta.encode(), version, record.rev + 1)
            result = await self.store.write(
                game_id,
                Write(
                    expected_rev=record.rev,
                    state=written.state,
                    version=version,
                    entry_id=(version, 0),
                    entry=json.dumps(entry, separators=(",", ":")).encode(),
                    meta=written.meta,
                    request_id=request_id,
                    ttl=self.settings.finished_ttl if meta.finished else self.settings.idle_ttl,
                ),
            )
            if result.duplicate_version is not None:
                record, meta, _ = await self._load(game_id)
                return await self._replayed(game_id, meta, record, viewer, result.duplicate_version)
            if not result.ok:
                METRICS.conflicts.labels("move").inc()
                current = result.current
                if expected is not None and (current is None or current.version != expected):
                    raise ApiError(
                        Code.ABORTED,
                        Reason.STALE_VERSION,
                        "another move was made first",
                        {"current_version": str(current.version if current else version)},
                    )
                known = None if current is None else (current, engine.decode(current.state))
                fresh = True
                continue
            self.records.put(game_id, written, new)
            METRICS.moves.labels(meta.kind).inc()
            if attempt:
                METRICS.retries.observe(attempt)
            await self.after_move(game_id, meta, new)
            converted = [convert.proto_event(meta.kind, e) for e in events]
            return api.MakeMoveResponse(
                version=version,
                view=self._view(game_id, meta, version, new, viewer, converted[len(before) :]),
                events=converted,
            )
        raise ApiError(Code.ABORTED, Reason.CONTENTION, "too many moves at once; retry")

    @staticmethod
    async def _decide(
        record: Record,
        meta: Meta,
        state: engine.GameState,
        expected: int | None,
        authenticate: Callable[[Meta], int | None],
        choose: Callable[[Meta, engine.GameState, int | None], Awaitable[Chosen | None]],
    ) -> tuple[int | None, Chosen, engine.GameState, list[engine.Event]]:
        """Who asks, which move, and the state it leads to; or why there is none (an
        `ApiError`, `NothingToDo`, or the engine's `IllegalMove`)."""
        viewer = authenticate(meta)
        if expected is not None and expected != record.version:
            raise ApiError(
                Code.ABORTED,
                Reason.STALE_VERSION,
                f"the game is at version {record.version}, not {expected}",
                {"current_version": str(record.version)},
            )
        if meta.status == WAITING:
            raise ApiError(
                Code.FAILED_PRECONDITION, Reason.GAME_NOT_STARTED, "seats are still open"
            )
        chosen = await choose(meta, state, viewer)
        if chosen is None:
            raise NothingToDo
        new, events = state.apply(chosen.seat, chosen.move)
        return viewer, chosen, new, events

    # ---- bots and turn timers -----------------------------------------------------------

    async def after_move(self, game_id: str, meta: Meta, state: engine.GameState) -> None:
        """Hand the turn to a bot, or set the turn timer, after a move or the start."""
        seat = state.to_move
        if meta.status != PLAYING or seat is None:
            return
        if meta.bots[seat] is not None:
            await self.store.schedule(game_id, time.time())
            self.turn_due.set()
        elif (deadline := meta.deadline(seat)) is not None:
            await self.store.schedule(game_id, deadline)

    async def play_automatic_turn(self, game_id: str) -> bool:
        """Play the turn of a bot seat, or of a seat whose timer ran out; False if none is due.

        Safe to run on several workers at once, and again after a crash: the request id
        is the version the move is for, so the move is applied once.
        """

        async def bot_move(
            meta: Meta, state: engine.GameState, _viewer: int | None
        ) -> Chosen | None:
            seat = state.to_move
            if seat is None or meta.status != PLAYING:
                return None
            strength = meta.bots[seat]
            events: list[engine.Event] = []
            if strength is None:
                deadline = meta.deadline(seat)
                if deadline is None or time.time() < deadline:
                    return None
                strength = TIMEOUT_BOT
                meta.away[seat] = True
                events.append({"type": "turn_timed_out", "seat": seat})
            # Bots think in a thread, so that a strong bot's search never stalls the loop.
            move = await asyncio.to_thread(
                choose_move, meta.kind, strength, state.view(seat), state.legal_moves()
            )
            return Chosen(seat, move, automatic=True, events=events)

        record, _, _ = await self._load(game_id)
        # No player's request id has a space, so this one is the automatic move's own.
        request_id = f"auto {record.version + 1}"
        try:
            await self._commit(game_id, request_id, record.version, lambda m: None, bot_move)
        except NothingToDo:
            return False
        except ApiError as err:
            if err.reason != Reason.STALE_VERSION:
                raise
            return False  # a player moved first: the next turn is scheduled by that move
        return True

    async def _replayed(
        self, game_id: str, meta: Meta, record: Record, seat: int | None, version: int
    ) -> api.MakeMoveResponse:
        """The answer a request id got the first time: the move is never applied twice."""
        METRICS.replayed_requests.inc()
        entry = await self.store.entry(game_id, version)
        state = engine.decode(record.state)
        if record.version != version:
            state = await self._state_at(game_id, state, version)
        events = json.loads(entry.data)["e"] if entry else []
        return api.MakeMoveResponse(
            version=version,
            view=self._view(game_id, meta, version, state, seat),
            events=[convert.proto_event(meta.kind, e) for e in events],
        )

    async def _state_at(
        self, game_id: str, current: engine.GameState, version: int
    ) -> engine.GameState:
        """Replay the log from the seed up to `version` (the engine is deterministic)."""
        state = engine.new_game(current.kind, current.seats, current.seed, current.options)
        for entry in await self.store.entries(game_id, (0, 0)):
            if 0 < entry.id[0] <= version:
                data = json.loads(entry.data)
                state, _ = state.apply(data["s"], data["m"])
        return state

    async def watch_game(
        self, request: api.WatchGameRequest, token: str | None
    ) -> AsyncIterator[api.WatchGameResponse]:
        """Every entry after `from_version`, each with a fresh view, then live ones."""
        record, meta, _ = await self._load(request.game_id)
        seat = self._seat(meta, token, required=False)
        if request.from_version < 0:
            raise ApiError(Code.INVALID_ARGUMENT, Reason.BAD_REQUEST, "from_version is >= 0")
        current = engine.decode(record.state)
        # A replica of the game, advanced by the logged moves: views for every version
        # come from it, without reading the game again.
        state = engine.new_game(current.kind, current.seats, current.seed, current.options)
        # The metadata as it was at the start, advanced by the log like the state.
        meta.names = [n if b else None for n, b in zip(meta.names, meta.bots, strict=True)]
        meta.away = [False] * meta.seats
        meta.finished = False
        version, after = 0, (0, 0)
        block = 0  # the first read answers at once with what is there
        answered = False
        while True:
            entries = await self.store.entries(request.game_id, after, block)
            block = int(self.settings.watch_keepalive * 1000)
            if not entries:
                if meta.finished:
                    return
                yield api.WatchGameResponse(version=version)  # keep-alive: nothing new
                continue
            for entry in entries:
                data = json.loads(entry.data)
                after = entry.id
                if "j" in data:
                    meta.names[data["j"]] = data["n"]
                    events = [
                        {"type": "player_joined", "seat": data["j"], "display_name": data["n"]}
                    ]
                    if meta.status == PLAYING:
                        events.append({"type": "game_started"})
                else:
                    state, _ = state.apply(data["s"], data["m"])
                    version = entry.id[0]
                    events = data["e"]
                    meta.finished = state.is_over()
                    for event in events:
                        if event["type"] in ("turn_timed_out", "seat_reclaimed"):
                            meta.away[event["seat"]] = event["type"] == "turn_timed_out"
                if entry.id <= (request.from_version, 0):
                    continue
                answered = True
                yield api.WatchGameResponse(
                    version=version,
                    events=[convert.proto_event(meta.kind, e) for e in events],
                    view=self._view(request.game_id, meta, version, state, seat),
                )
            if meta.finished:
                return
            if not answered:  # caught up at once: answer now (a keep-alive), not in 15 s
                answered = True
                yield api.WatchGameResponse(version=version)

    async def get_history(
        self, request: api.GetHistoryRequest, _token: str | None
    ) -> api.GetHistoryResponse:
        record, meta, _ = await self._load(request.game_id)
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
            data = json.loads(entry.data)
            response.entries.add(
                version=entry.id[0],
                seat=data["s"],
                move=convert.proto_move(meta.kind, data["m"]),
                events=[convert.proto_event(meta.kind, e) for e in data["e"]],
                automatic=bool(data.get("a")),
            )
        return response

    async def list_games(
        self, request: api.ListGamesRequest, _token: str | None
    ) -> api.ListGamesResponse:
        kind = convert.kind_name(request.kind) or ALL_KINDS
        size = request.page_size or 20
        if not 1 <= size <= self.settings.max_page_size:
            raise ApiError(
                Code.INVALID_ARGUMENT,
                Reason.BAD_PAGE,
                f"page_size is 1-{self.settings.max_page_size}",
            )
        try:
            after = float(request.page_token) if request.page_token else 0.0
        except ValueError:
            after = math.nan
        if not math.isfinite(after):  # "nan", "inf" and "1e999" parse too
            raise ApiError(Code.INVALID_ARGUMENT, Reason.BAD_PAGE, "bad page_token")
        response = api.ListGamesResponse()
        page = await self.store.lobby_page(kind, after, size)
        last = after
        for game_id, created in page:
            record, _ = await self.store.read(game_id)
            meta = Meta.decode(record.meta) if record else None
            if meta is None or meta.status != WAITING:
                await self.store.lobby_remove(kind, game_id)  # a stale hint
                continue
            summary = response.games.add(
                game_id=game_id,
                kind=convert.kind_enum(meta.kind),
                status=types.GAME_STATUS_WAITING,
                seats=meta.seats,
                open_seats=meta.seats - meta.joined,
            )
            convert.to_proto(engine.decode(record.state).options, summary.options)
            last = created
        if len(page) == size:
            response.next_page_token = repr(last)
        return response
