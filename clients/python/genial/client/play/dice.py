"""The dice game: the dice in front of each player and each player's score sheet by
section, and its moves and events in words."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rich.console import Group, RenderableType
from rich.text import Text

from genial.v1 import dice_pb2
from genial.v1 import types_pb2 as types

from . import palette
from .table import by_seat, colour_rows, layout, player_header, plural, round_text, who

PHASES = {
    dice_pb2.DICE_PHASE_ROLL: "roll",
    dice_pb2.DICE_PHASE_DECIDE: "reroll or score",
}


def sheet_row(color: int, crosses: int, sections: Sequence[int]) -> Text:
    """One colour's row of the score sheet: its crosses, then its empty boxes, by section."""
    boxes, left = [], crosses
    for size in sections:
        done = min(left, size)
        boxes.append(Text("✕" * done, style=palette.RGB[color]) + "□" * (size - done))
        left -= done
    return Text("│").join(boxes)


def table(view: types.GameView) -> RenderableType:
    """The dice in front of each player, and each player's score sheet."""
    dice = view.dice
    players: list[RenderableType] = [
        Group(
            player_header(view, player.seat),
            Text("dice ") + palette.chips(player.dice),
            colour_rows(
                (
                    sheet_row(c, n, dice.sections)
                    for c, n in zip(palette.COLORS, player.sheet, strict=True)
                ),
                (str(n) for n in player.sheet),
            ),
        )
        for player in dice.players
    ]
    top = Text(
        f"{round_text(view)}{PHASES.get(dice.phase, '')} · "
        f"{plural(dice.rerolls_left, 'reroll')} left"
    )
    return layout([top], players, [])


def jokers_words(jokers: Iterable[dice_pb2.DiceJoker], dice: Sequence[int]) -> Text:
    """ "3 red as 2 blue": each group of equal dice and the crosses it gives instead."""
    parts = []
    for joker in jokers:
        size = sum(die == joker.group for die in dice)
        group, color = palette.word(joker.group), palette.word(joker.color)
        parts.append(Text(f"{size} ") + group + f" as {size - 1} " + color)
    return Text(", ").join(parts)


def own_dice(view: types.GameView, seat: int) -> Sequence[int]:
    players = view.dice.players
    return players[seat].dice if seat < len(players) else []


def move_words(move: dice_pb2.DiceMove, view: types.GameView) -> Text:
    kind = move.WhichOneof("move")
    if kind == "roll":
        return Text("roll the dice")
    if kind == "reroll":
        return Text("roll all your dice again")
    if kind == "score":
        if not move.score.jokers:
            return Text("score")
        return Text("score, with ") + jokers_words(move.score.jokers, own_dice(view, view.to_move))
    return Text()


def event_words(event: dice_pb2.DiceEvent, view: types.GameView) -> Text:
    kind = event.WhichOneof("event")
    if kind == "setup":
        setup = event.setup
        rolled = by_seat(view, (palette.chips(d.dice) if d.dice else None for d in setup.dice))
        text = Text(f"Round {setup.round + 1}: ") + who(view, setup.first_seat) + " moves first"
        return text + (Text(". Dice: ") + rolled if rolled else Text())
    if kind == "roll":
        roll = event.roll
        verb = " rolls again: " if roll.reroll else " rolls "
        return (
            who(view, roll.seat)
            + verb
            + palette.chips(roll.dice)
            + f" ({plural(roll.rerolls_left, 'reroll')} left)"
        )
    if kind == "score":
        score = event.score
        text = who(view, score.seat) + " scores " + palette.counts(score.crosses, "+")
        if score.jokers:
            text += Text(", with ") + jokers_words(score.jokers, own_dice(view, score.seat))
        if any(score.lost):
            lost = palette.counts(score.lost)
            text += Text("; lost ") + lost + " to closed sections or full rows"
        return text
    return Text()
