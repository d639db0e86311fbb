"""A seat's view of a game as the API sends it, built from the engine's view of that seat:
the one door to hidden information (a spectator's view for no seat)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from genial import engine
from genial.v1 import types_pb2 as types

from . import convert
from .masks import ReadMask
from .records import FINISHED, PLAYING, WAITING, GameMeta

STATUS = {
    WAITING: types.GAME_STATUS_WAITING,
    PLAYING: types.GAME_STATUS_PLAYING,
    FINISHED: types.GAME_STATUS_FINISHED,
}


ENGINE_PARTS = frozenset(
    {
        "to_move",
        "round",
        "first_seat",
        "points",
        "options",
        "standings",
        "last_events",
        "turn_deadline",
        "cards",
        "dice",
        "tiles",
    }
)
"""The fields of a view that need the engine's view of the seat."""


def game_view(
    game_id: str,
    meta: GameMeta,
    version: int,
    state: engine.GameState,
    seat: int | None,
    last_events: list[types.Event] | None = None,
    parts: ReadMask | None = None,
    *,
    into: types.GameView | None = None,
) -> types.GameView:
    """The seat's view (a spectator's for None); `last_events` converted already, if given.
    With `parts` (a read mask on the view), what it leaves out is not built (cheap fields
    are: the caller trims the answer). Built in `into` (an answer's empty view field) if
    given, which spares a copy of the whole view into the answer."""
    want = _everything if parts is None else parts.wants
    view = types.GameView() if into is None else into
    view.game_id = game_id
    view.kind = convert.kind_enum(meta.kind)
    view.version = version
    view.status = STATUS[meta.status]
    view.seats = meta.seats
    if seat is not None:
        view.viewer = seat
    if meta.finished:
        view.seed = state.seed.hex()
    if want("seed_sha256"):
        view.seed_sha256 = engine.seed_commitment(state.seed)
    if want("players"):
        _players(meta, view)
    if meta.turn_seconds is not None:
        view.turn_seconds = meta.turn_seconds
    if any(want(name) for name in ENGINE_PARTS):
        _engine_parts(meta, state.view(seat), view, want, last_events)
    return view


def _players(meta: GameMeta, view: types.GameView) -> None:
    for s, name in enumerate(meta.names):
        player = view.players.add(
            seat=s,
            joined=name is not None,
            away=meta.away[s],
            resigned=meta.is_resigned(s),
            bot_account=meta.is_bot_account(s),
        )
        if name is not None:
            player.display_name = name
        if (strength := meta.bots[s]) is not None:
            player.bot = convert.bot_strength(strength)


def _engine_parts(
    meta: GameMeta,
    raw: dict[str, Any],
    view: types.GameView,
    want: Callable[[str], bool],
    last_events: list[types.Event] | None,
) -> None:
    """What the engine's view of the seat gives: the round, the table, the events..."""
    view.round, view.first_seat = raw["round"], raw["first_seat"]
    view.points.extend(raw["points"])
    if meta.status == PLAYING and raw["to_move"] is not None:
        view.to_move = raw["to_move"]
    if want("options"):
        convert.to_proto(raw["options"], view.options)
    if meta.turn_seconds is not None:
        deadline = meta.deadline(view.to_move if view.HasField("to_move") else None)
        if deadline is not None:
            # Whole milliseconds: a float's nanoseconds print as 22.480999936Z.
            view.turn_deadline.FromMilliseconds(round(deadline * 1000))
    for row in raw["standings"]:
        view.standings.add(**row)
    if want("last_events"):
        if last_events is None:
            last_events = [convert.proto_event(meta.kind, e) for e in raw["last_events"]]
        view.last_events.extend(last_events)
    if want(meta.kind):
        convert.table_to_proto(meta.kind, raw["table"], view)


def _everything(_name: str) -> bool:
    return True
