"""A game's past: any earlier state, the moves since a version, and the history's pages.

The log keeps each move compactly (`log_entries`) and every `SNAPSHOT_EVERY` versions a
snapshot of the game; an earlier version is the snapshot at or before it, advanced by the
logged moves after it (the engine is deterministic). So going back costs at most
`SNAPSHOT_EVERY` - 1 moves of replay, whatever the game's length.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

import msgspec

from genial import engine
from genial.v1 import game_service_pb2 as api

from . import convert, records
from .credentials import Principal
from .errors import ApiError, Reason
from .games import load
from .log_entries import LoggedMove, decode_move, is_move, service_events
from .metrics import METRICS
from .records import GameMeta
from .settings import Settings
from .store import GameLogs, GameStore

SNAPSHOT_EVERY = 32
"""Versions between snapshots: a snapshot costs ~300 B (10 B a move), a version back from
one a replayed move (0.04-0.3 ms)."""
HISTORY_PAGE = 100
MAX_HISTORY_PAGE = 500


def snapshot_of(away: list[bool], state: engine.GameState) -> bytes:
    """What a snapshot keeps: who is away, and the game's state."""
    return zlib.compress(
        "".join("01"[a] for a in away).encode() + b"\n" + records.encode_state(state), 1
    )


@dataclass(slots=True)
class Replay:
    """A game as it was at `version`, advanced one logged move at a time."""

    kind: str
    version: int
    state: engine.GameState
    away: list[bool]

    def advance(self, version: int, logged: LoggedMove) -> list[engine.Event]:
        """Apply the move that made `version`; its events, the service's first."""
        events = service_events(self.away, logged.seat, logged.cause)
        self.state, caused = self.state.apply(logged.seat, logged.move)
        METRICS.replayed_moves.inc()
        self.version = version
        return events + caused

    def meta(self, meta: GameMeta) -> GameMeta:
        """The game's metadata as it was at this version (every seat was taken by then)."""
        return msgspec.structs.replace(meta, away=list(self.away), finished=self.over)

    @property
    def over(self) -> bool:
        return self.state.is_over()


async def replay_at(
    logs: GameLogs, game_id: str, current: engine.GameState, seats: int, version: int
) -> Replay:
    """The game at `version`, from the snapshot at or before it (or the start)."""
    start = version - version % SNAPSHOT_EVERY
    kept = await logs.snapshot(game_id, start) if start else None
    if kept is None:
        fresh = engine.new_game(current.kind, seats, current.seed, current.options)
        replay = Replay(current.kind, 0, fresh, [False] * seats)
    else:
        away, _, state = zlib.decompress(kept).partition(b"\n")
        replay = Replay(
            current.kind, start, records.decode_state(state), [a == ord("1") for a in away]
        )
    if version > replay.version:
        for entry in await logs.entries(game_id, (replay.version, 0), (version, 0)):
            if entry.id[0] > replay.version and is_move(entry.id):
                replay.advance(entry.id[0], decode_move(replay.kind, entry.data))
    return replay


@dataclass(frozen=True, slots=True)
class PlayedMove:
    """A move as the log tells it: who, what, what it caused, and whether a bot chose it."""

    version: int
    seat: int
    move: engine.Move
    events: list[engine.Event]
    """The service's events (a timeout, a reclaimed seat), then the engine's."""
    automatic: bool


async def moves_since(store: GameStore, game_id: str, version: int) -> list[PlayedMove]:
    """The moves after `version`, in order, with their events (what anything that follows
    a game reads)."""
    record, meta, _ = await load(store, game_id)
    replay = await replay_at(
        store, game_id, records.decode_state(record.state), meta.seats, version
    )
    played = []
    for entry in await store.entries(game_id, (version, 0)):
        if entry.id[0] > version and is_move(entry.id):
            logged = decode_move(replay.kind, entry.data)
            events = replay.advance(entry.id[0], logged)
            played.append(
                PlayedMove(entry.id[0], logged.seat, logged.move, events, logged.automatic)
            )
    return played


class History:
    def __init__(self, store: GameStore, settings: Settings) -> None:
        self.store = store
        self.settings = settings

    async def get_history(
        self, request: api.GetHistoryRequest, _caller: Principal
    ) -> api.GetHistoryResponse:
        size = request.page_size or HISTORY_PAGE
        if not 1 <= size <= MAX_HISTORY_PAGE:
            raise ApiError(Reason.BAD_PAGE, f"page_size is 1-{MAX_HISTORY_PAGE}")
        after = _history_token(request.page_token)
        record, meta, _ = await load(self.store, request.game_id)
        state = records.decode_state(record.state)
        response = api.GetHistoryResponse(
            kind=convert.kind_enum(meta.kind),
            seats=meta.seats,
            seed_sha256=engine.seed_commitment(state.seed),
        )
        convert.to_proto(state.options, response.options)
        if meta.finished:
            response.seed = state.seed.hex()
        last = min(after + size, record.version)
        if after < last:
            replay = await replay_at(self.store, request.game_id, state, meta.seats, after)
            for entry in await self.store.entries(request.game_id, (after, 0), (last, 0)):
                if entry.id[0] <= after or not is_move(entry.id):
                    continue
                logged = decode_move(meta.kind, entry.data)
                events = replay.advance(entry.id[0], logged)
                response.entries.add(
                    version=entry.id[0],
                    seat=logged.seat,
                    move=convert.proto_move(meta.kind, logged.move),
                    events=[convert.proto_event(meta.kind, e) for e in events],
                    automatic=logged.automatic,
                )
        if last < record.version:
            response.next_page_token = str(last)
        return response


def _history_token(token: str) -> int:
    """A history page token: the version the page before ended at."""
    if not token:
        return 0
    if not token.isdigit() or len(token) > 18:
        raise ApiError(Reason.BAD_PAGE, "bad page_token")
    return int(token)
