"""What the tables of the three games have in common: who sits where, a heading per player,
one row per colour, and the players side by side."""

from __future__ import annotations

from collections.abc import Iterable

from rich.columns import Columns
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from genial.v1 import types_pb2 as types

from . import palette


def seat_name(view: types.GameView, seat: int) -> str:
    """The name a seat joined with, with its number when another seat has the same one (the
    service names its bots by strength)."""
    name = view.players[seat].display_name if seat < len(view.players) else ""
    if not name:
        return f"seat {seat}"
    twins = sum(player.display_name == name for player in view.players)
    return f"{name} {seat}" if twins > 1 else name


def who(view: types.GameView, seat: int) -> Text:
    """A seat's name as the subject of a sentence."""
    return Text(seat_name(view, seat), style="bold")


def by_seat(view: types.GameView, pictures: Iterable[Text | None]) -> Text:
    """A picture per seat (None: nothing to show), each after the seat's name: "Ada R G,
    Bob B Y"."""
    return Text(", ").join(
        who(view, seat) + " " + picture
        for seat, picture in enumerate(pictures)
        if picture is not None
    )


def player_header(view: types.GameView, seat: int) -> Text:
    text = who(view, seat)
    if view.HasField("viewer") and view.viewer == seat:
        text.append(" (you)", style="italic")
    if seat < len(view.points) and any(view.points):
        text.append(f"  {view.points[seat]} VP")
    if view.HasField("to_move") and view.to_move == seat:
        text.append("  ◀ to move", style="reverse")
    return text


def round_text(view: types.GameView) -> str:
    """ "round 2 of 3", or "" for a game of one round."""
    rounds = view.options.rounds if view.options.HasField("rounds") else 1
    return f"round {view.round + 1} of {rounds} · " if rounds > 1 else ""


def colour_rows(pictures: Iterable[Text], numbers: Iterable[Text | str]) -> Table:
    """One row per colour, as on the boards and sheets: the name, a picture, a number."""
    rows = Table.grid(padding=(0, 1))
    for color, picture, number in zip(palette.COLORS, pictures, numbers, strict=True):
        rows.add_row(palette.word(color), picture, number)
    return rows


def layout(top: list[Text], players: list[RenderableType], bottom: list[Text]) -> RenderableType:
    """What the table shows first, the players side by side as far as the width allows, and
    what comes after them."""
    return Group(*top, Text(), Columns(players, padding=(1, 4)), *bottom)


def plural(count: int, noun: str) -> str:
    """ "1 card", "2 cards"."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"
