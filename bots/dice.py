"""The dice game for bots: the greedy rules and the strong ranking.

Nothing of the dice game is hidden; only the dice still to be rolled are unknown. The
strong bot therefore needs no samples: it weighs every outcome of every re-roll left in
the turn, with the engine's odds of a roll (`GameState.chance_outcomes`) and the
engine's scoring (`genial.engine.dice`: joker groups, crosses owed, their placing).
The dice a turn ends with stay in front of the player, and the others score their next
rolls against them: the strong bot also counts what the roll it stops on gives them.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache, lru_cache
from itertools import product

from genial.engine import COLORS, Move, View, new_game
from genial.engine.common import COLOR_INDEX
from genial.engine.dice import (
    DICE_PER_SEAT,
    box_needs,
    counts_of,
    crosses_owed,
    joker_crosses,
    joker_groups,
    match_crosses,
    place_crosses,
)
from genial.engine.rng import SEED_BYTES

from .base import Kit, progress

WEAKEST = 3.0
"""Extra weight of the weakest row: it decides the rank, and a row left behind locks
the next section for all the others."""
STRONG_WEAKEST = 1.0
"""The strong bot's weight of the weakest row. Arena runs of the exact turn against
greedy (800 games, 4 seats) put it best near 1: with weight 0 it won 29%, 0.5: 34%,
1: 35%, 2: 31%, 3 (greedy's): 28%, 6: 22%. Weighing the weakest row heavily spends
jokers and re-rolls on it too early; the game is a race to fill all 54 boxes, and
the section locks already make a row far behind cost crosses."""
GIVEN = 1.0
"""How much of what the dice it stops on give the other players the strong bot counts
against a roll (`given`). Arena runs against greedy (2 seats, 400 games, seed 7): 62%
without it, 68% with 0.7, 69% with 1, 68% with 1.5, 66% with 2, 57% with 3; with 1
confirmed on 800 games of seed 1000: 70.6% [67.4, 73.7], against 64.9% without. With
more seats it is the mean over the others: the sum over three did worse than nothing at
4 seats (33% against 35%, seed 7); the mean does no worse (35.9% against 35.8%, 800
games, seed 7; 32.2% against 30.4%, seed 1000)."""

Counts = tuple[int, ...]
"""Per colour, a number of dice or crosses."""
ROLL: Move = {"type": "roll"}


# Bounded: arena runs see millions of positions, and recent ones repeat the most.
@lru_cache(maxsize=1 << 16)
def best_value(own: Counts, others: Counts, sheet: Counts, needs: Counts, weakest: float) -> float:
    """The value of about the best score of a roll, for the expected value of a re-roll.

    Each group is tried as a joker or not; a joker goes to the row lowest after the
    other crosses (the weakest row, where the value is), which spares trying all
    six colours for every group of every possible roll.
    """
    groups = joker_groups(own)
    best = 0.0
    for used in product((False, True), repeat=len(groups)):
        jokers = [g for g, use in zip(groups, used, strict=True) if use]
        owed = match_crosses(own, others, jokers)
        after = place_crosses(sheet, owed, needs)
        for g in jokers:
            owed[min(range(len(COLORS)), key=after.__getitem__)] += joker_crosses(own, g)
            after = place_crosses(sheet, owed, needs)
        best = max(best, progress(after, len(needs), weakest))
    return best


@cache
def roll_odds(dice: int) -> tuple[tuple[Counts, float], ...]:
    """Every roll of `dice` dice as colour counts, with its probability: the engine's
    chance outcomes of the first roll of a game where each seat has that many dice."""
    seats = next(s for s, n in DICE_PER_SEAT.items() if n == dice)
    game = new_game("dice", seats, bytes(SEED_BYTES))
    return tuple((counts_of(o.draws), o.probability) for o in game.chance_outcomes(ROLL))


Shown = tuple[tuple[float, ...], ...]
"""Per colour, per number of own dice showing it, what those dice give the others: see
`shown_value`. Empty: nothing (greedy's view of a roll)."""


@lru_cache(maxsize=1 << 12)
def reroll_value(
    dice: int,
    others: Counts,
    sheet: Counts,
    needs: Counts,
    later: int,
    weakest: float,
    shown: Shown = (),
) -> float:
    """The expected value of a re-roll when `later` re-rolls are left after it: with
    none, the best score of the roll; with more, the better of that and re-rolling
    again (the others' dice and the sheet stay the same through a turn, so the value
    of re-rolling again is one number). Each roll is worth less what its dice give
    the others (`given`; nothing with an empty `shown`)."""
    again = reroll_value(dice, others, sheet, needs, later - 1, weakest, shown) if later else 0.0
    return sum(
        p * max(best_value(own, others, sheet, needs, weakest) - given(own, shown), again)
        for own, p in roll_odds(dice)
    )


def given(own: Counts, shown: Shown) -> float:
    """What leaving the dice `own` in front of the player gives the others."""
    return sum(shown[c][n] for c, n in enumerate(own)) if shown else 0.0


@lru_cache(maxsize=1 << 12)
def shown_value(sheets: tuple[Counts, ...], dice: int, needs: Counts) -> Shown:
    """Per colour c and number n of own dice showing it, `GIVEN` times the crosses the
    other players (their `sheets`) expect from them on one roll: each of their dice
    showing c scores n crosses in c, as many as their sheet can place (a row full or
    locked takes none), with the engine's odds of a roll. Averaged over the others: a
    cross for one of several is less of a threat than for the only one."""
    table = [[0.0] * (dice + 1) for _ in COLORS]
    for c in range(len(COLORS)):
        showing = [0.0] * (dice + 1)  # the odds of k of the other's dice showing c
        for roll, p in roll_odds(dice):
            showing[roll[c]] += p
        for sheet, n, (k, p) in product(sheets, range(1, dice + 1), enumerate(showing)):
            owed = tuple(k * n if i == c else 0 for i in range(len(COLORS)))
            placed = place_crosses(sheet, owed, needs)[c] - sheet[c]
            table[c][n] += GIVEN * p * placed / len(sheets)
    return tuple(map(tuple, table))


def rank(view: View, moves: Sequence[Move]) -> list[Move]:
    """Greedy: each score by the value of the sheet it leaves, jokers included (so a
    joker goes where it helps the weakest rows most); a re-roll by the expected
    value of the best score after it, against the scores at hand."""
    return ranked(view, moves, WEAKEST, lookahead=False)


def strong(view: View, moves: Sequence[Move]) -> list[Move]:
    """The strong bot: the exact stopping rule of the turn, whose re-roll value counts
    the re-roll that may still follow it, over every outcome of the dice (the only
    unknown), with the strong weight of the weakest row; every roll it may stop on is
    worth less what its dice give the others on their next turn (`GIVEN`).

    Sampled playouts of the turn (the earlier strong bot) only added noise to this
    expectation: with four seats they lost to greedy."""
    return ranked(view, moves, STRONG_WEAKEST, lookahead=True)


def ranked(view: View, moves: Sequence[Move], weakest: float, lookahead: bool) -> list[Move]:
    """Scores by the sheet they leave, valued with `weakest`; a re-roll by the expected
    best score after it, and with `lookahead` after the re-rolls still left and less
    what the dice stopped on give the others."""
    table = view["table"]
    if table["phase"] != "decide":
        return list(moves)
    seat = view["viewer"]
    needs = box_needs(table["sections"])
    players = table["players"]
    sheet = tuple(players[seat]["sheet"])
    own = counts_of([COLOR_INDEX[c] for c in players[seat]["dice"]])
    others = counts_of([COLOR_INDEX[c] for p in players if p["seat"] != seat for c in p["dice"]])
    sheets = tuple(tuple(p["sheet"]) for p in players if p["seat"] != seat)
    shown = shown_value(sheets, sum(own), needs) if lookahead else ()

    def value(move: Move) -> float:
        if move["type"] == "reroll":
            later = table["rerolls_left"] - 1 if lookahead else 0
            return reroll_value(sum(own), others, sheet, needs, later, weakest, shown)
        jokers = {COLOR_INDEX[j["group"]]: COLOR_INDEX[j["color"]] for j in move["jokers"]}
        owed = crosses_owed(own, others, jokers)
        after = progress(place_crosses(sheet, owed, needs), len(needs), weakest)
        return after - given(own, shown)

    return sorted(moves, key=value, reverse=True)


KIT = Kit(
    rank=rank,
    weakest=WEAKEST,
    strong=strong,
)
