"""The tile game for bots: the greedy rules and the strong ranking.

Nothing of the tile game is hidden: the reserve's make-up is public (the engine's
`tiles.unseen` of a view), and only the order of the draws is unknown. The strong bot
therefore needs no samples: it weighs every draw of the move exactly, with the
engine's odds of a draw (`rng.draw_odds`) and its rules of a move (`tiles_rules`:
`reveal_outcome`, `taken`, `new_lines`, `over_limit`, `alternative_color`), on plain counts
so that a move's whole expectimax costs about a millisecond.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from genial.engine import COLORS, Move, View
from genial.engine.common import COLOR_INDEX
from genial.engine.rng import draw_odds
from genial.engine.tiles import unseen
from genial.engine.tiles_rules import (
    alternative_color,
    new_lines,
    over_limit,
    reveal_outcome,
    taken,
)

from .base import Kit, progress

WEAKEST = 2.0
"""Extra weight of the smallest colour: it decides the rank."""
LINE_BONUS = 2.0
"""A colour first reaching a line gives a bonus move, worth about a take."""
EXPOSURE = 0.5
"""How much of what a position leaves the next player the strong bot counts against
it. Arena runs against greedy (800 games, 2 seats) won 56% without it and 61% with
0.5; 1 did no better than 0.5."""

Counts = tuple[int, ...]
"""Counts per colour: a collection, the centre or the reserve."""


def gain(held: Sequence[int], tiles: Sequence[int], line: int) -> float:
    """What adding `tiles` to a collection is worth, bonus moves for new lines included."""
    after = [h + t for h, t in zip(held, tiles, strict=True)]
    lines = len(new_lines(held, tiles, line))
    return progress(after, line, WEAKEST) - progress(held, line, WEAKEST) + LINE_BONUS * lines


def rank(view: View, moves: Sequence[Move]) -> list[Move]:
    """Greedy: a take or an alternative move by what it adds; a reveal by the risk of
    failure, computed from the reserve: the chance of each colour times what taking
    after it would add (a failure adds nothing and ends the turn)."""
    table = view["table"]
    line = table["line_length"]
    held = table["players"][view["viewer"]]["collection"]
    centre = table["centre"]
    zone = {COLOR_INDEX[name] for name in table["zone"]}

    def take(colours: set[int]) -> float:
        return gain(held, taken(colours, centre), line)

    def value(move: Move) -> float:
        if move["type"] == "take":
            return take(zone)
        if move["type"] == "alternative":
            return gain(held, one(COLOR_INDEX[move["color"]], 1), line)
        return sum(
            p * take(zone | {c})
            for c, p in draw_odds(unseen(table))
            if reveal_outcome(c, zone, centre) == "success"
        )

    # On equal value a take comes first: it clears the centre of its colours, where a
    # reveal that fails would leave more tiles for the next player.
    return sorted(moves, key=lambda m: (value(m), m["type"] == "take"), reverse=True)


def strong(view: View, moves: Sequence[Move]) -> list[Move]:
    """The strong bot: every move by the exact expectation of the rest of the move, over
    every draw from the reserve (the only unknown), with the best choice after each
    success: greedy weighs one reveal at most.

    A position where the turn ends is worth the seat's tiles towards its lines (each
    colour capped at the line; no extra weight for the smallest colour, which in
    arena runs only made the bot reveal for it too eagerly, 52% against greedy with
    weight 2 and 56% without), less `EXPOSURE` times what the next player may expect
    from one reveal and take on the centre left to them: a failure hands them the
    zone, a take clears colours from the centre. A bonus move still owed is worth
    `LINE_BONUS`, or the alternative move it allows, counted exactly (which takes the
    last colour of a full collection with no risk).
    """
    table = view["table"]
    line: int = table["line_length"]
    players = table["players"]
    after_me: Counts = tuple(players[(view["viewer"] + 1) % len(players)]["collection"])

    def towards_lines(held: Counts) -> int:
        return sum(min(n, line) for n in held)

    def leaf(held: Counts, centre: Counts, left: Counts) -> float:
        """The end of the turn: tiles over a line go back to the reserve."""
        own = towards_lines(held)
        if min(held) >= line:
            return own  # won: nothing is left to the others
        back = [n + r for n, r in zip(left, over_limit(held, line), strict=True)]
        base = towards_lines(after_me)
        exposed = sum(
            p * (towards_lines(added(after_me, taken({c}, centre))) - base)
            for c, p in draw_odds(back)
            if reveal_outcome(c, (), centre) == "success"
        )
        return own - EXPOSURE * exposed

    def end_move(held: Counts, centre: Counts, left: Counts, bonus: int) -> float:
        if min(held) >= line or not bonus:
            return leaf(held, centre, left)
        plain = leaf(held, centre, left) + LINE_BONUS * bonus
        safe = alternative(held, centre, left, bonus - 1)
        return plain if safe is None else max(plain, safe)

    def alternative(held: Counts, centre: Counts, left: Counts, bonus: int) -> float | None:
        """The alternative move, if open (decision 5 of the rules)."""
        c = alternative_color(held, centre)
        if c is None:
            return None
        tile = one(c, 1)
        line_now = len(new_lines(held, tile, line))
        return end_move(added(held, tile), added(centre, one(c, -1)), left, bonus + line_now)

    def take(held: Counts, centre: Counts, left: Counts, bonus: int, zone: frozenset[int]) -> float:
        gained = taken(zone, centre)
        lines = len(new_lines(held, gained, line))
        rest = tuple(0 if c in zone else n for c, n in enumerate(centre))
        return end_move(added(held, gained), rest, left, bonus + lines)

    @cache
    def reveal(
        held: Counts, centre: Counts, left: Counts, bonus: int, zone: frozenset[int]
    ) -> float:
        value = 0.0
        for c, p in draw_odds(left):
            rest = added(left, one(c, -1))
            if reveal_outcome(c, zone, centre) != "success":
                # A failure: the zone and the drawn tile go to the centre; the turn ends.
                failed = [m + (k in zone or k == c) for k, m in enumerate(centre)]
                value += p * leaf(held, tuple(failed), rest)
            else:
                grown = zone | {c}
                after = take(held, centre, rest, bonus, grown)
                if any(rest):
                    after = max(after, reveal(held, centre, rest, bonus, grown))
                value += p * after
        return value

    held: Counts = tuple(players[view["viewer"]]["collection"])
    centre: Counts = tuple(table["centre"])
    left: Counts = tuple(unseen(table))
    zone = frozenset(COLOR_INDEX[name] for name in table["zone"])
    bonus: int = table["bonus_moves"]

    def value(move: Move) -> float:
        if move["type"] == "take":
            return take(held, centre, left, bonus, zone)
        if move["type"] == "reveal":
            return reveal(held, centre, left, bonus, zone)
        safe = alternative(held, centre, left, bonus)
        assert safe is not None  # the engine offers the move only when it is open
        return safe

    # On equal value a take comes first, as in greedy (rounding keeps float noise out).
    return sorted(moves, key=lambda m: (round(value(m), 9), m["type"] == "take"), reverse=True)


def one(c: int, n: int) -> Counts:
    """`n` tiles of colour `c`, as counts per colour."""
    return tuple(n if k == c else 0 for k in range(len(COLORS)))


def added(counts: Sequence[int], more: Sequence[int]) -> Counts:
    return tuple(a + b for a, b in zip(counts, more, strict=True))


KIT = Kit(
    rank=rank,
    weakest=WEAKEST,
    strong=strong,
)
