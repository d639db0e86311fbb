"""Moves, events, the table and the state of the game, for the screen: each game's module
draws its own table and words its own moves and events; the events every game shares are
worded here."""

from __future__ import annotations

from rich.console import RenderableType
from rich.text import Text

from genial.v1 import types_pb2 as types

from . import cards, dice, tiles
from .table import seat_name, who


def move_words(move: types.Move, view: types.GameView) -> Text:
    """A legal move, as the list of moves offers it: "play red/blue, red first"."""
    kind = move.WhichOneof("move")
    if kind == "cards":
        return cards.move_words(move.cards)
    if kind == "dice":
        return dice.move_words(move.dice, view)
    if kind == "tiles":
        return tiles.move_words(move.tiles)
    return Text()


def standings_words(view: types.GameView, standings: list[types.Standing]) -> Text:
    """ "1. Ada (12 VP), 2. Bob (8 VP)"."""
    return Text(", ").join(
        Text(f"{s.rank}. ") + who(view, s.seat) + f" ({s.points} VP)"
        for s in sorted(standings, key=lambda s: s.rank)
    )


def round_over_words(view: types.GameView, over: types.RoundOver) -> Text:
    rows = sorted(range(len(over.ranks)), key=lambda seat: over.ranks[seat])
    return Text(f"Round {over.round + 1} is over: ") + Text(", ").join(
        Text(f"{over.ranks[seat]}. ")
        + who(view, seat)
        + f" +{over.points[seat]} VP ({over.totals[seat]} in all)"
        for seat in rows
    )


def event_words(event: types.Event, view: types.GameView) -> Text:
    """What happened, in words: "Ada plays red/blue, red first: +2 red (to 5), ..."."""
    kind = event.WhichOneof("event")
    if kind == "cards":
        return cards.event_words(event.cards, view)
    if kind == "dice":
        return dice.event_words(event.dice, view)
    if kind == "tiles":
        return tiles.event_words(event.tiles, view)
    if kind == "round_over":
        return round_over_words(view, event.round_over)
    if kind == "game_over":
        return Text("Game over: ", style="bold") + standings_words(
            view, list(event.game_over.standings)
        )
    if kind == "player_joined":
        joined = event.player_joined
        return Text(joined.display_name, style="bold") + f" takes seat {joined.seat}"
    if kind == "game_started":
        return Text("Every seat is taken: the game begins")
    if kind == "turn_timed_out":
        return who(view, event.turn_timed_out.seat) + " ran out of time; a move is made for them"
    if kind == "seat_reclaimed":
        return who(view, event.seat_reclaimed.seat) + " is back"
    return Text()


TABLES = {"cards": cards.table, "dice": dice.table, "tiles": tiles.table}


def table_picture(view: types.GameView) -> RenderableType:
    kind = view.WhichOneof("table")
    return TABLES[kind](view) if kind else Text()


def status_text(view: types.GameView, seat: int, prog: str) -> Text:
    """Whose move it is, or why nobody moves (`prog` is the command others join with)."""
    if view.status == types.GAME_STATUS_WAITING:
        open_seats = sum(not player.joined for player in view.players)
        return Text(
            f"Waiting for {open_seats} more: others join with  {prog} --join {view.game_id}"
        )
    if view.status == types.GAME_STATUS_FINISHED:
        return (
            Text("Game over: ", style="bold")
            + standings_words(view, list(view.standings))
            + "   press q to quit"
        )
    if view.to_move == seat:
        return Text(f"Move {view.version + 1}: your turn, press a move's key", style="bold")
    return Text(f"Move {view.version + 1}: {seat_name(view, view.to_move)} is playing")
