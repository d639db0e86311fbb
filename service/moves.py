"""The move path, for players and bots alike: read, choose, apply, compare-and-set.

A worker keeps the record it last wrote of each game (`RecordCache`) and moves on it
with one compare-and-set: the write proves it current, and if it is not, the write
answers with the record that is, so a conflict costs no extra read.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from genial import engine
from genial.v1 import game_service_pb2 as api

from . import convert, masks, records
from .bot_players import TIMEOUT_BOT, choose_move
from .census import Census
from .credentials import Principal
from .errors import ApiError, Reason
from .followups import Written
from .games import MAX_ATTEMPTS, load
from .history import SNAPSHOT_EVERY, PlayedMove, replay_at, snapshot_of
from .log_entries import Cause, LoggedMove, decode_move, encode_move, service_events
from .masks import ReadMask
from .metrics import METRICS
from .records import PLAYING, WAITING, GameMeta
from .settings import Settings
from .store import GameStore, Record, Write
from .turns import Turns
from .views import game_view

if TYPE_CHECKING:
    from .followups import FollowUps

REQUEST_ID = re.compile(r"[\x21-\x7e]{1,64}")
"""A player's request id: 1-64 visible ASCII characters (no space: see `automatic_turn`)."""


class RecordCache:
    """The record this worker last wrote of each game, and its decoded state.

    A hint, never the truth: the compare-and-set of the next write proves it current.
    Bounded, the least recently used game goes first."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._records: OrderedDict[str, tuple[Record, engine.GameState]] = OrderedDict()
        self._generation = 0
        """The store's generation the records were written in."""

    def get(self, game_id: str, generation: int) -> tuple[Record, engine.GameState] | None:
        """The record kept, unless the store lost its connection since (`generation`): after
        a failover a kept rev may be reached again by other moves on another state."""
        if generation != self._generation:
            self._records.clear()
            self._generation = generation
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


@dataclass(slots=True)
class Chosen:
    """A move about to be applied, and who chose it."""

    seat: int
    move: engine.Move
    cause: str = Cause.PLAYER
    """Who chose it (`log_entries.Cause`): the player, the seat's bot, the timeout bot."""


class NothingToDo(Exception):
    """An automatic turn that is not (or no longer) due."""


Authenticate = Callable[[GameMeta], int | None]
"""The seat the answer's view is for, or why the caller may not move (an `ApiError`)."""
Choose = Callable[[GameMeta, engine.GameState, int | None], Awaitable[Chosen | None]]
"""The move for the state just read; None: nothing to do."""


class Moves:
    def __init__(
        self,
        store: GameStore,
        settings: Settings,
        turns: Turns,
        followups: FollowUps,
        census: Census,
    ) -> None:
        self.store = store
        self.settings = settings
        self.turns = turns
        self.followups = followups
        self.census = census
        self.records = RecordCache(settings.record_cache_games)

    async def make_move(
        self, request: api.MakeMoveRequest, caller: Principal
    ) -> api.MakeMoveResponse:
        request_id = request.request_id or None
        if request_id is not None and not REQUEST_ID.fullmatch(request_id):
            raise ApiError(Reason.BAD_REQUEST_ID, "a request id is 1-64 visible ASCII")
        expected = request.expected_version if request.HasField("expected_version") else None
        mask = masks.of(request.read_mask, api.MakeMoveResponse)

        def authenticate(meta: GameMeta) -> int | None:
            return caller.seat(meta, required=True)

        async def players_move(
            meta: GameMeta, _state: engine.GameState, seat: int | None
        ) -> Chosen | None:
            assert seat is not None
            if meta.is_resigned(seat):
                raise ApiError(Reason.RESIGNED, "this seat's player resigned; a bot plays it")
            try:
                return Chosen(seat, convert.engine_move(meta.kind, request.move))
            except convert.BadMessage as err:
                raise ApiError(engine.Reason.MALFORMED_MOVE, str(err)) from None

        return await self.commit(
            request.game_id, request_id, expected, authenticate, players_move, mask
        )

    async def commit(
        self,
        game_id: str,
        request_id: str | None,
        expected: int | None,
        authenticate: Authenticate,
        choose: Choose,
        mask: ReadMask | None = None,
    ) -> api.MakeMoveResponse:
        """Read (or take the kept record), decide, apply and compare-and-set, again on a
        conflict without `expected`; the answer has what `mask` keeps.

        Only a decision on a record known to be current is final; one on the kept record
        (an error, nothing to do) is made again on a fresh read.
        """
        known = self.records.get(game_id, self.store.generation)
        fresh = False
        for attempt in range(MAX_ATTEMPTS):
            if known is None:
                record, meta, done = await load(self.store, game_id, request_id)
                if done is not None:
                    seat = authenticate(meta)
                    return await self._replayed(game_id, meta, record, seat, done, mask)
                known, fresh = (record, records.decode_state(record.state)), True
            record, state = known
            meta = records.decode_meta(record.meta)
            try:
                viewer, chosen, new, engine_events = await _decide(
                    record, meta, state, expected, authenticate, choose
                )
            except (ApiError, NothingToDo, engine.IllegalMove) as err:
                if not fresh:
                    known = None
                    continue
                if isinstance(err, engine.IllegalMove):
                    METRICS.illegal_moves.labels(err.reason).inc()
                    raise ApiError.from_engine(err) from None
                raise
            before = service_events(meta.away, chosen.seat, chosen.cause)
            meta.finished = new.is_over()
            meta.turn_started = round(time.time(), 3)
            events = before + engine_events
            version = record.version + 1
            logged = LoggedMove(chosen.seat, chosen.cause, dict(chosen.move))
            written = Record(
                records.encode_state(new), records.encode_meta(meta), version, record.rev + 1
            )
            snapshot = None if version % SNAPSHOT_EVERY else snapshot_of(meta.away, new)
            due = self.followups.intent(meta)
            change = inline = None
            if due:
                automatic = chosen.cause in Cause.AUTOMATIC
                played = PlayedMove(version, chosen.seat, chosen.move, events, automatic)
                change = Written(record, written, new, [played], after_meta=meta)
                plan = self.followups.plan(game_id, change)
                inline = plan.inline
                if plan.quiet or inline is not None:
                    due = 0.0  # nothing to follow up after the write: see `FollowUps.plan`
            result = await self.store.write(
                game_id,
                Write(
                    expected_rev=record.rev,
                    state=written.state,
                    version=version,
                    entry_id=(version, 0),
                    entry=encode_move(meta.kind, logged),
                    meta=written.meta,
                    request_id=request_id,
                    ttl=self.settings.finished_ttl if meta.finished else self.settings.idle_ttl,
                    snapshot=snapshot,
                    follow_up=due,
                    inline=inline,
                ),
            )
            if result.duplicate_version is not None:
                record, meta, _ = await load(self.store, game_id)
                done = result.duplicate_version
                return await self._replayed(game_id, meta, record, viewer, done, mask)
            if result.mark_moved:  # another worker followed this game up: the usual way
                self.followups.forget(game_id)
                continue
            if not result.ok:
                METRICS.conflicts.labels("move").inc()
                current = result.current
                if expected is not None and (current is None or current.version != expected):
                    raise ApiError(
                        Reason.STALE_VERSION,
                        "another move was made first",
                        {"current_version": str(current.version if current else version)},
                    )
                known = None if current is None else (current, records.decode_state(current.state))
                fresh = True
                continue
            self.records.put(game_id, written, new)
            if change is not None:
                self.followups.wrote(game_id, due, change, inline)
            METRICS.moves.labels(meta.kind).inc()
            if meta.finished:
                self.census.changed(PLAYING, meta)
            if attempt:
                METRICS.retries.observe(attempt)
            await self.turns.after_move(game_id, meta, new)
            return _answer(game_id, meta, version, new, viewer, events, len(before), mask)
        raise ApiError(Reason.CONTENTION, "too many moves at once; retry")

    async def play_automatic_turn(self, game_id: str) -> bool:
        """Play the turn of a bot seat, or of a seat whose timer ran out; False if none is due.

        Safe to run on several workers at once, and again after a crash: the request id
        is the version the move is for, so the move is applied once.
        """
        record, _, _ = await load(self.store, game_id)
        # No player's request id has a space, so this one is the automatic move's own.
        request_id = f"auto {record.version + 1}"
        try:
            await self.commit(
                game_id, request_id, record.version, _nobody, _automatic_move, NOTHING
            )
        except NothingToDo:
            return False
        except ApiError as err:
            if err.reason != Reason.STALE_VERSION:
                raise
            return False  # a player moved first: the next turn is scheduled by that move
        return True

    async def _replayed(
        self,
        game_id: str,
        meta: GameMeta,
        record: Record,
        seat: int | None,
        version: int,
        mask: ReadMask | None,
    ) -> api.MakeMoveResponse:
        """The answer a request id got the first time: the move is never applied twice."""
        METRICS.replayed_requests.inc()
        current = records.decode_state(record.state)
        replay = await replay_at(self.store, game_id, current, meta.seats, version - 1)
        entries = await self.store.entries(game_id, (version - 1, 0), (version, 0))
        events = replay.advance(version, decode_move(meta.kind, entries[-1].data))
        shown = replay.meta(meta)
        return _answer(game_id, shown, version, replay.state, seat, events, None, mask)


NOTHING = ReadMask({})
"""The mask of an answer nobody reads (an automatic turn's)."""


def _answer(
    game_id: str,
    meta: GameMeta,
    version: int,
    state: engine.GameState,
    seat: int | None,
    events: list[engine.Event],
    before: int | None,
    mask: ReadMask | None,
) -> api.MakeMoveResponse:
    """A move's answer, with what `mask` keeps: the seat's view after it and its events (the
    view's `last_events` are the events from `before` on; None: the view's own)."""
    if mask is not None and not mask.wants("view"):
        answer = api.MakeMoveResponse(version=version)
        if mask.wants("events"):
            answer.events.extend(convert.proto_event(meta.kind, e) for e in events)
        return mask.trim(answer)
    converted = [convert.proto_event(meta.kind, e) for e in events]
    last = None if before is None else converted[before:]
    parts = None if mask is None else mask.part("view")
    answer = api.MakeMoveResponse(version=version, events=converted)
    game_view(game_id, meta, version, state, seat, last, parts, into=answer.view)
    return answer if mask is None else mask.trim(answer)


async def _decide(
    record: Record,
    meta: GameMeta,
    state: engine.GameState,
    expected: int | None,
    authenticate: Authenticate,
    choose: Choose,
) -> tuple[int | None, Chosen, engine.GameState, list[engine.Event]]:
    """Who asks, which move, and the state it leads to; or why there is none (an
    `ApiError`, `NothingToDo`, or the engine's `IllegalMove`)."""
    viewer = authenticate(meta)
    if expected is not None and expected != record.version:
        raise ApiError(
            Reason.STALE_VERSION,
            f"the game is at version {record.version}, not {expected}",
            {"current_version": str(record.version)},
        )
    if meta.status == WAITING:
        raise ApiError(Reason.GAME_NOT_STARTED, "seats are still open")
    chosen = await choose(meta, state, viewer)
    if chosen is None:
        raise NothingToDo
    new, events = state.apply(chosen.seat, chosen.move)
    return viewer, chosen, new, events


def _nobody(_meta: GameMeta) -> None:
    """An automatic move's answer is for no seat: nobody reads it."""
    return None


async def _automatic_move(
    meta: GameMeta, state: engine.GameState, _viewer: int | None
) -> Chosen | None:
    """A bot's move for the seat to move, if it is a bot's or its timer ran out."""
    seat = state.to_move
    if seat is None or meta.status != PLAYING:
        return None
    strength, cause = meta.bots[seat], Cause.BOT
    if strength is None and meta.is_resigned(seat):
        strength = TIMEOUT_BOT  # the seat's bot from its resignation on
    if strength is None:
        deadline = meta.deadline(seat)
        if deadline is None or time.time() < deadline:
            return None
        strength, cause = TIMEOUT_BOT, Cause.TIMEOUT
    # Bots think in a thread, so that a strong bot's search never stalls the loop.
    move = await asyncio.to_thread(
        choose_move, meta.kind, strength, state.view(seat), state.legal_moves()
    )
    return Chosen(seat, move, cause)
