"""The tile game: the centre, the collection zone, each player's collection against the
line, and its moves and events in words."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text

from genial.v1 import tiles_pb2
from genial.v1 import types_pb2 as types

from . import palette
from .table import colour_rows, layout, player_header, plural, round_text, who

PHASES = {
    tiles_pb2.TILES_PHASE_START: "reveal a tile or take the alternative",
    tiles_pb2.TILES_PHASE_DECIDE: "reveal another tile or take",
}


def collection_row(color: int, count: int, line_length: int) -> Text:
    """A colour's tiles, one letter each, then the places left up to a line."""
    return Text().join([palette.cell(color)] * count) + Text(
        "·" * max(0, line_length - count), style="dim"
    )


def spread(counts: list[int]) -> list[int]:
    """Counts in Color order as one Color value per tile."""
    return [color for color, n in zip(palette.COLORS, counts, strict=False) for _ in range(n)]


def table(view: types.GameView) -> RenderableType:
    """The centre, the collection zone, and each player's collection."""
    tiles = view.tiles
    bonus = f" · {plural(tiles.bonus_moves, 'bonus move')} to make" if tiles.bonus_moves else ""
    players: list[RenderableType] = []
    for player in tiles.players:
        rows = (
            collection_row(c, n, tiles.line_length)
            for c, n in zip(palette.COLORS, player.collection, strict=True)
        )
        numbers = (
            Text(str(n)) + (Text(" line", style="bold") if c in player.lines else Text())
            for c, n in zip(palette.COLORS, player.collection, strict=True)
        )
        players.append(Group(player_header(view, player.seat), colour_rows(rows, numbers)))
    top = [
        Text(
            f"{round_text(view)}reserve {tiles.reserve_size} · a line is "
            f"{tiles.line_length} tiles · {PHASES.get(tiles.phase, '')}{bonus}"
        ),
        Text("centre ") + palette.chips(spread(list(tiles.centre))),
        Text("zone   ") + palette.chips(tiles.zone),
    ]
    return layout(top, players, [])


def move_words(move: tiles_pb2.TilesMove) -> Text:
    kind = move.WhichOneof("move")
    if kind == "reveal":
        return Text("reveal a tile")
    if kind == "take":
        return Text("take the zone, and the centre's tiles of its colours")
    if kind == "alternative":
        return Text("take one ") + palette.word(move.alternative.color) + " from the centre"
    return Text()


def reveal_words(reveal: tiles_pb2.TilesRevealEvent) -> Text:
    color = palette.word(reveal.color)
    if reveal.outcome == tiles_pb2.TILES_REVEAL_OUTCOME_SUCCESS:
        return Text(": it matches the centre")
    if reveal.outcome == tiles_pb2.TILES_REVEAL_OUTCOME_NO_MATCH:
        return Text(": no ") + color + " in the centre, the zone goes back to the centre"
    return Text(": ") + color + " is in the zone already, the zone goes back to the centre"


def event_words(event: tiles_pb2.TilesEvent, view: types.GameView) -> Text:
    kind = event.WhichOneof("event")
    if kind == "setup":
        setup = event.setup
        return (
            Text(f"Round {setup.round + 1}: ")
            + who(view, setup.first_seat)
            + " moves first. Centre: "
            + palette.chips(spread(list(setup.centre)))
        )
    if kind == "refill":
        return Text("The centre is filled up with ") + palette.chips(event.refill.colors)
    if kind == "reveal":
        reveal = event.reveal
        return (
            who(view, reveal.seat)
            + " reveals "
            + palette.chip(reveal.color)
            + " "
            + palette.word(reveal.color)
            + reveal_words(reveal)
        )
    if kind == "take":
        return who(view, event.take.seat) + " takes " + palette.counts(event.take.tiles)
    if kind == "alternative":
        alternative = event.alternative
        return who(view, alternative.seat) + " takes one " + palette.word(alternative.color)
    if kind == "bonus":
        bonus = event.bonus
        lines = Text(", ").join(palette.word(c) for c in bonus.colors)
        earned = plural(len(bonus.colors), "bonus move")
        return who(view, bonus.seat) + " completes a line of " + lines + f": {earned}"
    if kind == "return":
        returned: tiles_pb2.TilesReturnEvent = getattr(event, "return")  # a Python keyword
        return (
            who(view, returned.seat)
            + " returns "
            + palette.counts(returned.tiles)
            + " to the reserve"
        )
    if kind == "pass":
        passed: tiles_pb2.TilesPassEvent = getattr(event, "pass")
        return who(view, passed.seat) + " cannot move and passes"
    if kind == "turn_end":
        return who(view, event.turn_end.seat) + "'s turn ends"
    return Text()
