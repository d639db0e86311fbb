"""The card game: each player's scoring board with its four areas, the open cards, the
hand, and its moves and events in words.

The area rule, as the board shows it: a marker may leave an area only once all of the
player's other markers have reached at least the area before it. So a marker's ceiling
comes from the lowest of the player's other five markers: with that one in column 0 the
marker goes at most to 3, in 1-3 at most to 6, in 4-6 or higher to 10. Points past the
ceiling are lost.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from genial.v1 import cards_pb2
from genial.v1 import types_pb2 as types

from . import palette
from .table import by_seat, layout, player_header, plural, round_text, who

AREAS = (range(0, 1), range(1, 4), range(4, 7), range(7, 11))
"""The columns of the scoring board's four areas: 0 | 1-3 | 4-6 | 7-10."""
LAST_COLUMN = AREAS[-1][-1]
CELL = 3
"""Characters per column of the board."""

PHASES = {
    cards_pb2.CARDS_PHASE_PLAY: "play a card",
    cards_pb2.CARDS_PHASE_BONUS: "bonus play",
    cards_pb2.CARDS_PHASE_SWAP: "swap the hand or keep it",
    cards_pb2.CARDS_PHASE_OVER: "over",
}


def area_of(column: int) -> int:
    return next(i for i, area in enumerate(AREAS) if column in area)


def ceiling(markers: Sequence[int], color_index: int) -> int:
    """The furthest column the marker at `color_index` may reach now: the end of the area
    after the one the lowest of the other markers is in."""
    lowest = min(m for i, m in enumerate(markers) if i != color_index)
    return AREAS[min(area_of(lowest) + 1, len(AREAS) - 1)][-1]


def board_row(color: int, column: int, limit: int) -> Text:
    """One colour's row: the marker (its letter on its colour) at its column, the columns it
    passed in its colour, the free ones dotted, those past its ceiling shaded."""
    text = Text()
    for area in AREAS:
        if area.start:
            text.append("│", style="dim")
        for c in area:
            if c == column:
                text += palette.chip(color)
            elif c < column:
                text.append("━" * CELL, style=palette.RGB[color])
            elif c <= limit:
                text.append(" · ", style="dim")
            else:
                text.append("░" * CELL, style="dim")
    return text


def board_heading() -> Text:
    return Text("│").join(
        Text("".join(f"{c:^{CELL}}" for c in area), style="dim") for area in AREAS
    )


def limit_text(column: int, limit: int) -> Text:
    """The marker's column, and its ceiling when that holds it below the last column."""
    text = Text(f"{column:>2}")
    if column >= limit and limit < LAST_COLUMN:
        text.append(f" held at {limit}", style="reverse")
    elif limit < LAST_COLUMN:
        text.append(f" max {limit}", style="dim")
    return text


def board(markers: Sequence[int]) -> Table:
    """A scoring board: the columns by area, one row per colour."""
    rows = Table.grid(padding=(0, 1))
    rows.add_row(Text(), board_heading(), Text())
    for i, (color, column) in enumerate(zip(palette.COLORS, markers, strict=True)):
        limit = ceiling(markers, i)
        row = board_row(color, column, limit)
        rows.add_row(palette.word(color), row, limit_text(column, limit))
    return rows


LEGEND = Text(
    "░ past the marker's ceiling: a marker leaves its area only once all your other markers "
    "have reached the area before it (the lowest other one at 0: up to 3; in 1-3: up to 6; "
    "in 4-6 or higher: up to 10).",
    style="dim",
)


def table(view: types.GameView) -> RenderableType:
    """Each player's scoring board and open cards, and the viewer's hand."""
    cards = view.cards
    bonus = f" · {plural(cards.bonus_plays, 'bonus play')} to make" if cards.bonus_plays else ""
    players: list[RenderableType] = [
        Group(
            player_header(view, player.seat) + Text(f"   {plural(player.hand_size, 'card')}"),
            Text("open ") + palette.cards_chips(player.open_cards),
            board(player.markers),
        )
        for player in cards.players
    ]
    hand = [Text("your hand ") + palette.cards_chips(cards.hand)] if cards.hand else []
    top = Text(
        f"{round_text(view)}deck {cards.deck_size} · discard {cards.discard_size} · "
        f"{PHASES.get(cards.phase, '')}{bonus}"
    )
    return layout([top], players, [Text(), *hand, LEGEND])


def move_words(move: cards_pb2.CardsMove) -> Text:
    kind = move.WhichOneof("move")
    if kind == "play":
        return Text("play ") + play_words(move.play.card, move.play.first)
    if kind == "swap":
        return Text("swap the hand: discard it all, draw new cards")
    if kind == "decline_swap":
        return Text("keep the hand")
    return Text()


def play_words(card: int, first: int) -> Text:
    """ "red/blue, red first"."""
    return palette.card_words(card) + ", " + palette.word(first) + " first"


def score_words(score: cards_pb2.CardsScore) -> Text:
    """ "+2 red (to 5)", "+0 blue (to 3, lost 1 to the ceiling)"."""
    start = getattr(score, "from")  # `from` is a Python keyword
    text = Text(f"+{score.to - start} ") + palette.word(score.color) + f" (to {score.to}"
    if score.lost:
        where = "past column 10" if score.to == LAST_COLUMN else "to the ceiling"
        text.append(f", lost {score.lost} {where}")
    return text + ")"


def event_words(event: cards_pb2.CardsEvent, view: types.GameView) -> Text:
    kind = event.WhichOneof("event")
    if kind == "deal":
        deal = event.deal
        opened = by_seat(view, (palette.cards_chips(c.cards) for c in deal.open_cards))
        return (
            Text(f"Round {deal.round + 1} dealt; ")
            + who(view, deal.first_seat)
            + " plays first. Open cards: "
            + opened
        )
    if kind == "draw":
        return who(view, event.draw.seat) + f" draws {plural(event.draw.count, 'card')}"
    if kind == "reshuffle":
        size = event.reshuffle.deck_size
        return Text(f"The discard pile is shuffled into a new deck of {plural(size, 'card')}")
    if kind == "play":
        play = event.play
        text = (
            who(view, play.seat)
            + " plays "
            + play_words(play.card, play.first)
            + ": "
            + Text(", ").join(score_words(s) for s in play.scores)
        )
        if play.bonus_plays:
            text.append(f"; {plural(play.bonus_plays, 'bonus play')} to make")
        return text
    if kind == "bonus_lapsed":
        lapsed = event.bonus_lapsed
        verb = "lapses" if lapsed.count == 1 else "lapse"
        return who(view, lapsed.seat) + (
            f" has no card left: {plural(lapsed.count, 'bonus play')} {verb}"
        )
    if kind == "swap":
        return (
            who(view, event.swap.seat)
            + " swaps the hand, showing "
            + palette.cards_chips(event.swap.cards)
        )
    if kind == "decline_swap":
        return who(view, event.decline_swap.seat) + " keeps the hand"
    return Text()
