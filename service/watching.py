"""Watching a game: its log from a version on, each entry with the caller's view, then live.

A watcher waits on a wake-up from the store (`follow`), not on a read of its own, and the
watchers of one game on a worker share its `Feed`: one read of the log and one replay of
each new move, however many watch; each watcher only builds its own seat's view. A watch
resumed late in a long game starts from the nearest snapshot (`history.replay_at`), so what
it costs follows what it sends, not the game's length.
"""

from __future__ import annotations

import asyncio
import copy
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass

import msgspec

from genial import engine
from genial.v1 import game_service_pb2 as api
from genial.v1 import types_pb2 as types

from . import convert, masks, records
from .credentials import Principal
from .errors import ApiError, Reason
from .games import load
from .history import Replay, replay_at
from .log_entries import decode_join, decode_move, decode_resign, is_join, is_move
from .masks import ReadMask
from .records import GameMeta
from .settings import Settings
from .store import Entry, EntryId, GameStore
from .views import game_view
from .watch_tickets import WatchTickets

WATCH_OPENINGS = 128
"""Watches of a worker that read their start from Redis at once."""

FEED_TAIL = 32
"""Steps a feed keeps: a watcher further behind catches up on its own."""


@dataclass(frozen=True, slots=True)
class Step:
    """One log entry as watchers see it: the game after it, and what it caused."""

    id: EntryId
    events: list[types.Event]
    replay: Replay
    """The game after the entry (its state is never changed: the next step has its own)."""
    shown: GameMeta
    """The metadata as it was after the entry."""

    @property
    def version(self) -> int:
        return self.id[0]


class Walk:
    """A game walked through its log from one version on, one `Step` an entry. The
    metadata it shows follows the log (seats taken, seats away, the end); the rest of it
    (the turn's start, for a deadline) is the latest read, `settle`d into the last step."""

    def __init__(self, replay: Replay, meta: GameMeta) -> None:
        self.replay = replay
        self.shown = meta.at_start() if replay.version == 0 else replay.meta(meta)

    def settle(self, step: Step, meta: GameMeta) -> Step:
        """`step`, the latest of the game, with the game's metadata as read with it."""
        self.shown = msgspec.structs.replace(
            meta, away=list(self.replay.away), finished=self.replay.over
        )
        return Step(step.id, step.events, step.replay, self.shown)

    def step(self, entry: Entry) -> Step:
        replay = self.replay
        events: list[engine.Event]
        if is_move(entry.id):
            replay = Replay(replay.kind, replay.version, replay.state, list(replay.away))
            events = replay.advance(entry.id[0], decode_move(replay.kind, entry.data))
            self.shown = replay.meta(self.shown)
        elif not is_join(entry.id, self.shown.seats):  # a seat resigned
            seat = decode_resign(entry.data).seat
            events = [{"type": "seat_resigned", "seat": seat}]
            resigned = list(self.shown.resigned) or [False] * self.shown.seats
            resigned[seat] = True
            self.shown = msgspec.structs.replace(self.shown, resigned=resigned)
        else:
            join = decode_join(entry.data)
            names = list(self.shown.names)
            names[join.seat] = join.name
            self.shown = msgspec.structs.replace(self.shown, names=names)
            events = [{"type": "player_joined", "seat": join.seat, "display_name": join.name}]
            if all(name is not None for name in names):
                events.append({"type": "game_started"})
        self.replay = replay
        kind = replay.kind
        return Step(entry.id, [convert.proto_event(kind, e) for e in events], replay, self.shown)


def _at(version: int, meta: GameMeta, step: Step) -> bool:
    """Whether a record of `version` with `meta` is the game just after `step`: the same
    version, and the same seats taken and resigned (the joins share version 0, and a
    resignation its last move's, so the version alone does not tell)."""
    shown = step.shown
    return (
        version == step.version
        and meta.names == shown.names
        and all(meta.is_resigned(s) == shown.is_resigned(s) for s in range(meta.seats))
    )


class Feed:
    """The latest steps of one game on this worker, read and replayed once for all its
    watchers. Its steps are every entry after `base`; it reads the log again when a wake-up
    newer than its last read has come (a follower's generation), or when that read is
    `max_age` old."""

    def __init__(self, store: GameStore, game_id: str) -> None:
        self.store = store
        self.game_id = game_id
        self.steps: list[Step] = []
        self.walk: Walk | None = None
        self.base: EntryId = (0, 0)
        self.last: EntryId = (0, 0)
        self.generation = -1
        self.read_at = 0.0
        self.watchers = 0
        self._lock = asyncio.Lock()

    def _stale(self, generation: int, max_age: float) -> bool:
        return self.generation < generation or time.monotonic() - self.read_at > max_age

    async def after(
        self, walk: Walk, cursor: EntryId, generation: int, max_age: float
    ) -> list[Step] | None:
        """The steps after `cursor`, as of wake-up `generation` at least; None when the
        tail does not reach back to it (the watcher, slow, catches up with its own `walk`,
        which is where the feed starts if it has not yet)."""
        if self._stale(generation, max_age):
            async with self._lock:
                if self._stale(generation, max_age):
                    await self._read(walk, cursor, generation)
        if cursor < self.base:
            return None
        return [step for step in self.steps if step.id > cursor]

    async def _read(self, walk: Walk, cursor: EntryId, generation: int) -> None:
        self.read_at = time.monotonic()
        if self.walk is None:  # the first watcher's place is where the feed starts
            self.walk = copy.copy(walk)
            self.base = self.last = cursor
        entries = await self.store.entries(self.game_id, self.last)
        # Read after the entries, so as new as they are or newer: a newer record settles
        # nothing now, and the write that made it wakes the feed to read its entry.
        record, _ = await self.store.read(self.game_id)
        for entry in entries:
            self.steps.append(self.walk.step(entry))
            self.last = entry.id
        if entries and record is not None:
            meta = records.decode_meta(record.meta)
            if _at(record.version, meta, self.steps[-1]):
                self.steps[-1] = self.walk.settle(self.steps[-1], meta)
        self.generation = generation
        if len(self.steps) > FEED_TAIL:
            self.base = self.steps[-FEED_TAIL - 1].id
            del self.steps[:-FEED_TAIL]


def _answer(
    game_id: str, step: Step, seat: int | None, mask: ReadMask | None
) -> api.WatchGameResponse:
    """A step as the watcher sees it, with what `mask` keeps."""
    version, state = step.version, step.replay.state
    answer = api.WatchGameResponse(version=version)
    if mask is None or mask.wants("events"):
        answer.events.extend(step.events)
    if mask is None or mask.wants("view"):
        parts = None if mask is None else mask.part("view")
        game_view(game_id, step.shown, version, state, seat, parts=parts, into=answer.view)
    return answer if mask is None else mask.trim(answer)


class Watching:
    def __init__(self, store: GameStore, settings: Settings, tickets: WatchTickets) -> None:
        self.store = store
        self.settings = settings
        self.tickets = tickets
        self._feeds: dict[str, Feed] = {}
        # A herd of watches (a worker's clients reconnecting, a game watched by thousands)
        # reads its starts from Redis a few hundred at a time: all at once, the replies
        # queue behind each other past redis_timeout.
        self._openings = asyncio.Semaphore(WATCH_OPENINGS)

    def _open(self, game_id: str) -> Feed:
        feed = self._feeds.get(game_id)
        if feed is None:
            feed = self._feeds[game_id] = Feed(self.store, game_id)
        feed.watchers += 1
        return feed

    def _release(self, feed: Feed) -> None:
        feed.watchers -= 1
        if not feed.watchers:
            del self._feeds[feed.game_id]

    async def watch_game(
        self, request: api.WatchGameRequest, caller: Principal
    ) -> AsyncIterator[api.WatchGameResponse]:
        """Every entry after `from_version`, each with a fresh view, then live ones; a
        keep-alive once caught up, and after each `watch_keepalive` seconds of quiet."""
        game_id = request.game_id
        mask = masks.of(request.read_mask, api.WatchGameResponse, ("keep_alive",))
        if request.from_version < 0:
            raise ApiError(Reason.BAD_REQUEST, "from_version is >= 0")
        keepalive = self.settings.watch_keepalive
        async with self._openings:
            record, meta, _ = await load(self.store, game_id)
            if request.ticket:
                seat: int | None = await self.tickets.seat(request.ticket, game_id)
            else:
                seat = caller.seat(meta, required=False)
            # Followed before the log is read, so that no write after the read goes unheard.
            follower = await self.store.follow(game_id)
            try:
                current = records.decode_state(record.state)
                start = min(request.from_version, record.version)
                walk = Walk(await replay_at(self.store, game_id, current, meta.seats, start), meta)
                cursor, skip = (walk.replay.version, 0), (request.from_version, 0)
                # Alone up to the end of the log, then with the game's feed.
                first = [walk.step(e) for e in await self.store.entries(game_id, cursor)]
            except BaseException:
                follower.close()
                raise
        feed = self._open(game_id)
        try:
            if first and not _at(record.version, meta, first[-1]):
                # The log went past the record read before it (a seat taken meanwhile).
                record, meta, _ = await load(self.store, game_id)
            if first and _at(record.version, meta, first[-1]):
                first[-1] = walk.settle(first[-1], meta)  # the metadata read is that entry's
            finished, sent = walk.shown.finished, False
            steps: list[Step] | None = first
            while True:
                if steps is None:  # behind the feed's tail: alone again, from the log
                    steps = [walk.step(e) for e in await self.store.entries(game_id, cursor)]
                for step in steps:
                    walk.replay, walk.shown = step.replay, step.shown
                    cursor, finished = step.id, step.shown.finished
                    if step.id <= skip:
                        continue
                    sent = True
                    yield _answer(game_id, step, seat, mask)
                if finished:
                    return
                if not sent:
                    # Answer at once, so that the stream opens whatever there is to send.
                    sent = True
                    yield api.WatchGameResponse(version=cursor[0], keep_alive=True)
                if not steps and not await follower.wait(keepalive):
                    yield api.WatchGameResponse(version=cursor[0], keep_alive=True)
                steps = await feed.after(walk, cursor, follower.generation, keepalive / 2)
        finally:
            follower.close()
            self._release(feed)
