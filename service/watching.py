"""Watching a game: its log from a version on, each entry with the caller's view, then live.

A watcher waits on a wake-up from the store (`follow`), not on a read of its own, and the
watchers of one game on a worker share its `Feed`: one read of the log a write, however
many watch. A watch resumed late in a long game starts from the nearest snapshot
(`history.replay_at`), so what it costs follows what it sends, not the game's length.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

from genial import engine
from genial.v1 import game_service_pb2 as api

from . import convert
from .credentials import Principal
from .errors import ApiError, Reason
from .games import load
from .history import Replay, replay_at
from .log_entries import decode_join, decode_move
from .settings import Settings
from .store import Entry, EntryId, GameLogs, GameStore
from .views import game_view

FEED_TAIL = 32
"""Entries a feed keeps: a watcher further behind reads the log itself."""


class Feed:
    """The latest entries of one game's log on this worker, read once for all its watchers.

    The tail holds every entry after `base`; it is read again when a wake-up newer than the
    last read has come (a follower's generation), or when the last read is `max_age` old.
    """

    def __init__(self, logs: GameLogs, game_id: str) -> None:
        self.logs = logs
        self.game_id = game_id
        self.tail: list[Entry] = []
        self.base: EntryId | None = None
        self.generation = -1
        self.read_at = 0.0
        self.watchers = 0
        self._lock = asyncio.Lock()

    def _stale(self, generation: int, max_age: float) -> bool:
        return self.generation < generation or time.monotonic() - self.read_at > max_age

    async def after(self, cursor: EntryId, generation: int, max_age: float) -> list[Entry]:
        """The entries after `cursor`, as of wake-up `generation` at least."""
        if self._stale(generation, max_age):
            async with self._lock:
                if self._stale(generation, max_age):
                    await self._read(cursor, generation)
        if self.base is None or cursor < self.base:
            return await self.logs.entries(self.game_id, cursor)  # behind the tail
        return [entry for entry in self.tail if entry.id > cursor]

    async def _read(self, cursor: EntryId, generation: int) -> None:
        self.read_at = time.monotonic()
        if self.base is None:
            self.base = cursor
        last = self.tail[-1].id if self.tail else self.base
        self.tail += await self.logs.entries(self.game_id, last)
        self.generation = generation
        if len(self.tail) > FEED_TAIL:
            self.base = self.tail[-FEED_TAIL - 1].id
            del self.tail[:-FEED_TAIL]


class Watching:
    def __init__(self, store: GameStore, settings: Settings) -> None:
        self.store = store
        self.settings = settings
        self._feeds: dict[str, Feed] = {}

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
        record, meta, _ = await load(self.store, game_id)
        seat = caller.seat(meta, required=False)
        if request.from_version < 0:
            raise ApiError(Reason.BAD_REQUEST, "from_version is >= 0")
        keepalive = self.settings.watch_keepalive
        # Followed before the log is read, so that no write after the read goes unheard.
        follower = await self.store.follow(game_id)
        feed = self._open(game_id)
        try:
            current = engine.decode(record.state)
            start = min(request.from_version, record.version)
            replay = await replay_at(self.store, game_id, current, meta.seats, start)
            shown = meta.at_start() if replay.version == 0 else replay.meta(meta)
            cursor, skip = (replay.version, 0), (request.from_version, 0)
            caught_up = False
            while True:
                sent = False
                for entry in await feed.after(cursor, follower.generation, keepalive / 2):
                    cursor = entry.id
                    events = _advance(replay, shown.names, entry)
                    if entry.id[0]:
                        shown = replay.meta(meta)
                    if entry.id <= skip:
                        continue
                    sent = True
                    yield api.WatchGameResponse(
                        version=replay.version,
                        events=[convert.proto_event(meta.kind, e) for e in events],
                        view=game_view(game_id, shown, replay.version, replay.state, seat),
                    )
                if shown.finished:
                    return
                if not (caught_up or sent):
                    # Answer at once, so that the stream opens whatever there is to send.
                    yield api.WatchGameResponse(version=replay.version, keep_alive=True)
                caught_up = True
                if not await follower.wait(keepalive):
                    yield api.WatchGameResponse(version=replay.version, keep_alive=True)
        finally:
            follower.close()
            self._release(feed)


def _advance(replay: Replay, names: list[str | None], entry: Entry) -> list[engine.Event]:
    """The events of one log entry, with the replay (and the names, for a seat taken)
    brought to it."""
    if entry.id[0]:
        return replay.advance(entry.id[0], decode_move(replay.kind, entry.data))
    join = decode_join(entry.data)
    names[join.seat] = join.name
    events: list[engine.Event] = [
        {"type": "player_joined", "seat": join.seat, "display_name": join.name}
    ]
    if all(name is not None for name in names):
        events.append({"type": "game_started"})
    return events
