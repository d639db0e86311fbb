"""The dice game for bots: a state from a view, the greedy rules and the strong ranking.

Nothing of the dice game is hidden; only the dice still to be rolled are unknown,
and a sampled state leaves them to its own fresh seed. The strong bot therefore
needs no samples: it weighs every outcome of every re-roll left in the turn.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from functools import cache, lru_cache
from itertools import combinations_with_replacement, product
from math import factorial, prod

from genial.engine import COLORS, DiceGame, GameState, Move, Rng, View
from genial.engine.dice import box_needs

from .base import Kit, progress, state_from_view

WEAKEST = 3.0
"""Extra weight of the weakest row: it decides the rank, and a row left behind locks
the next section for all the others."""
STRONG_WEAKEST = 1.0
"""The strong bot's weight of the weakest row. Arena runs of the exact turn against
greedy (800 games, 4 seats) put it best near 1: with weight 0 it won 29%, 0.5: 34%,
1: 35%, 2: 31%, 3 (greedy's): 28%, 6: 22%. Weighing the weakest row heavily spends
jokers and re-rolls on it too early; the game is a race to fill all 54 boxes, and
the section locks already make a row far behind cost crosses."""

Counts = tuple[int, ...]
"""Per colour, a number of dice or crosses."""


def sample(view: View, rng: Rng) -> GameState:
    table = view["table"]
    return state_from_view(
        DiceGame,
        view,
        rng,
        {
            "d": [[COLORS.index(c) for c in p["dice"]] for p in table["players"]],
            "h": [p["sheet"] for p in table["players"]],
            "t": view["to_move"],
            "a": table["phase"] == "decide",
            "l": table["rerolls_left"],
        },
    )


def place(sheet: Counts, pending: Counts, needs: Counts) -> Counts:
    """The sheet after placing what fits of `pending`, as the engine places it: every
    cross that fits, until none does (the order that loses the fewest).

    The engine's own placement works in place on a game; the bots evaluate every
    possible roll, so they keep this quick copy on plain tuples. The boxes open to
    every row are those whose need the lowest row meets (`needs` never decreases).
    """
    after = list(sheet)
    left = list(pending)
    while True:
        limit = bisect_right(needs, min(after))
        moved = False
        for c, n in enumerate(left):
            room = limit - after[c]
            if n and room > 0:
                step = min(n, room)
                after[c] += step
                left[c] -= step
                moved = True
        if not moved:
            return tuple(after)


def scored(own: Counts, others: Counts, jokers: dict[int, int]) -> Counts:
    """Crosses owed by a roll of `own` against `others` with `jokers` (group -> colour)."""
    pending = [0 if c in jokers else n * others[c] for c, n in enumerate(own)]
    for group, target in jokers.items():
        pending[target] += own[group] - 1
    return tuple(pending)


# Bounded: arena runs see millions of positions, and recent ones repeat the most.
@lru_cache(maxsize=1 << 16)
def best_value(own: Counts, others: Counts, sheet: Counts, needs: Counts, weakest: float) -> float:
    """The value of about the best score of a roll, for the expected value of a re-roll.

    Each group is tried as a joker or not; a joker goes to the row lowest after the
    other crosses (the weakest row, where the value is), which spares trying all
    six colours for every group of every possible roll.
    """
    groups = [c for c, n in enumerate(own) if n >= 2]
    best = 0.0
    for used in product((False, True), repeat=len(groups)):
        jokers = {g for g, use in zip(groups, used, strict=True) if use}
        pending = [0 if c in jokers else n * others[c] for c, n in enumerate(own)]
        after = place(sheet, tuple(pending), needs)
        for g in sorted(jokers):
            pending[min(range(len(COLORS)), key=after.__getitem__)] += own[g] - 1
            after = place(sheet, tuple(pending), needs)
        best = max(best, progress(after, len(needs), weakest))
    return best


@cache
def outcomes(dice: int) -> tuple[tuple[Counts, float], ...]:
    """Every roll of `dice` dice as colour counts, with its probability."""
    result = []
    for roll in combinations_with_replacement(range(len(COLORS)), dice):
        counts = tuple(roll.count(c) for c in range(len(COLORS)))
        ways = factorial(dice) // prod(factorial(n) for n in counts)
        result.append((counts, ways / len(COLORS) ** dice))
    return tuple(result)


@lru_cache(maxsize=1 << 12)
def reroll_value(
    dice: int, others: Counts, sheet: Counts, needs: Counts, later: int, weakest: float
) -> float:
    """The expected value of a re-roll when `later` re-rolls are left after it: with
    none, the best score of the roll; with more, the better of that and re-rolling
    again (the others' dice and the sheet stay the same through a turn, so the value
    of re-rolling again is one number)."""
    again = reroll_value(dice, others, sheet, needs, later - 1, weakest) if later else 0.0
    return sum(
        p * max(best_value(own, others, sheet, needs, weakest), again) for own, p in outcomes(dice)
    )


def rank(view: View, moves: Sequence[Move]) -> list[Move]:
    """Greedy: each score by the value of the sheet it leaves, jokers included (so a
    joker goes where it helps the weakest rows most); a re-roll by the expected
    value of the best score after it, against the scores at hand."""
    return ranked(view, moves, WEAKEST, lookahead=False)


def strong(view: View, moves: Sequence[Move]) -> list[Move]:
    """The strong bot: the exact stopping rule of the turn, whose re-roll value counts
    the re-roll that may still follow it, over every outcome of the dice (the only
    unknown), with the strong weight of the weakest row.

    Sampled playouts of the turn (the earlier strong bot) only added noise to this
    expectation: with four seats they lost to greedy."""
    return ranked(view, moves, STRONG_WEAKEST, lookahead=True)


def ranked(view: View, moves: Sequence[Move], weakest: float, lookahead: bool) -> list[Move]:
    """Scores by the sheet they leave, valued with `weakest`; a re-roll by the expected
    best score after it, and with `lookahead` after the re-rolls still left."""
    table = view["table"]
    if table["phase"] != "decide":
        return list(moves)
    seat = view["viewer"]
    needs = box_needs(table["sections"])
    players = table["players"]
    sheet = tuple(players[seat]["sheet"])
    own = tuple(players[seat]["dice"].count(c) for c in COLORS)
    others = tuple(sum(p["dice"].count(c) for p in players if p["seat"] != seat) for c in COLORS)

    def value(move: Move) -> float:
        if move["type"] == "reroll":
            later = table["rerolls_left"] - 1 if lookahead else 0
            return reroll_value(sum(own), others, sheet, needs, later, weakest)
        jokers = {
            COLORS.index(j["group"]): COLORS.index(j["color"]) for j in move.get("jokers", [])
        }
        return progress(place(sheet, scored(own, others, jokers), needs), len(needs), weakest)

    return sorted(moves, key=value, reverse=True)


def rows(state: GameState) -> list[list[int]]:
    assert isinstance(state, DiceGame)
    return state.sheets


KIT = Kit(
    sample=sample,
    rank=rank,
    rows=rows,
    goal=lambda state: sum(state.options["sections"]),
    weakest=WEAKEST,
    strong=strong,
)
