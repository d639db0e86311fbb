"""The dice game for bots: a state from a view, and the greedy rules.

Nothing of the dice game is hidden; only the dice still to be rolled are unknown,
and a sampled state leaves them to its own fresh seed.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from functools import cache, lru_cache, partial
from itertools import combinations_with_replacement, product
from math import factorial, prod

from genial.engine import COLORS, DiceGame, GameState, Move, Rng, View
from genial.engine.dice import DICE_PER_SEAT, box_needs

from .base import Kit, progress, state_from_view

WEAKEST = 3.0
"""Extra weight of the weakest row: it decides the rank, and a row left behind locks
the next section for all the others."""

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
def best_value(own: Counts, others: Counts, sheet: Counts, needs: Counts) -> float:
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
        best = max(best, progress(after, len(needs), WEAKEST))
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
def reroll_value(dice: int, others: Counts, sheet: Counts, needs: Counts, later: int) -> float:
    """The expected value of a re-roll when `later` re-rolls are left after it: with
    none, the best score of the roll; with more, the better of that and re-rolling
    again (the others' dice and the sheet stay the same through a turn, so the value
    of re-rolling again is one number)."""
    again = reroll_value(dice, others, sheet, needs, later - 1) if later else 0.0
    return sum(p * max(best_value(own, others, sheet, needs), again) for own, p in outcomes(dice))


def rank(view: View, moves: Sequence[Move], plan: bool = False) -> list[Move]:
    """Greedy: each score by the value of the sheet it leaves, jokers included (so a
    joker goes where it helps the weakest rows most); a re-roll by the expected
    value of the best score after it, against the scores at hand. With `plan`, the
    re-roll's value counts the re-roll that may still follow it (the exact stopping
    rule of the turn, which the strong bot starts from)."""
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
            later = table["rerolls_left"] - 1 if plan else 0
            return reroll_value(sum(own), others, sheet, needs, later)
        jokers = {
            COLORS.index(j["group"]): COLORS.index(j["color"]) for j in move.get("jokers", [])
        }
        return progress(place(sheet, scored(own, others, jokers), needs), len(needs), WEAKEST)

    return sorted(moves, key=value, reverse=True)


def exposure(state: GameState, seat: int) -> float:
    """What the dice `seat` leaves in front of it are worth to the others, on average:
    each die of theirs matches one of them at chance 1/6 on their next roll, and a
    cross is worth most in the rows they lack most."""
    assert isinstance(state, DiceGame)
    needs = state.needs
    chance = DICE_PER_SEAT[state.seats] / len(COLORS)
    total = 0.0
    for other, sheet in enumerate(state.sheets):
        if other == seat:
            continue
        before = progress(sheet, len(needs), WEAKEST)
        for c in state.dice[seat]:
            cross = tuple(int(k == c) for k in range(len(COLORS)))
            after = progress(place(tuple(sheet), cross, needs), len(needs), WEAKEST)
            total += chance * (after - before)
    return total / (state.seats - 1)


def rows(state: GameState) -> list[list[int]]:
    assert isinstance(state, DiceGame)
    return state.sheets


KIT = Kit(
    sample=sample,
    rank=rank,
    plan=partial(rank, plan=True),
    rows=rows,
    goal=lambda state: sum(state.options["sections"]),
    weakest=WEAKEST,
    full_round=False,
    caution=1.0,
    budget=8,
    exposure=exposure,
)
