"""The chance outcomes of a move: every way its draws can go, with its probability.

A move draws while it is made (the dice of a roll, the tile of a reveal, the cards that
refill a hand, the tiles that refill the centre). `enumerate_outcomes` makes the move
once per possible sequence of draws, with a `ScriptedRng` answering them: a depth-first
walk where each run takes the least value at every draw past its script, and every
greater value at those draws starts another run. Draws the engine marks as one batch
(`Rng.start_batch`), whose order changes nothing, are walked in order only (each
multiset once) and weighed by the number of their orders. The deal of a next round,
which a round's last move starts, is no outcome of that move: it comes from the seed.

The cost is one `apply` per outcome: a roll of 4, 3 or 2 dice has 126, 56 or 21; a
reveal at most 6; a card drawn at the end of a turn at most 15; a hand swapped for six
new cards thousands.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from math import factorial, prod
from typing import TYPE_CHECKING, Generic, TypeVar

from .rng import DeadEnd, ScriptedRng

if TYPE_CHECKING:
    from .common import Event, Move
    from .core import GameState

S = TypeVar("S", bound="GameState")


@dataclass(frozen=True)
class Outcome(Generic[S]):
    """One way chance can go in a move."""

    probability: float
    draws: tuple[int, ...]
    """What was drawn, in order: a colour index per die or tile, a card index per card
    (see each game's module); within a batch in ascending order, standing for all its
    orders. `GameState.apply(seat, move, draws=...)` makes the move with these draws."""
    state: S
    events: list[Event]


def enumerate_outcomes(state: S, move: Move) -> list[Outcome[S]]:
    """Every outcome of `move` by the seat to move, in ascending order of draws; their
    probabilities add up to 1. IllegalMove if the move is not allowed."""
    seat = state.to_move
    outcomes: list[Outcome[S]] = []
    scripts: list[tuple[int, ...]] = [()]
    while scripts:
        script = scripts.pop()
        rng = ScriptedRng(state.seed, state.rng.counter, script)
        try:
            after, events = state._apply_with(seat if seat is not None else -1, move, rng)
        except DeadEnd:
            after = None
        draws, pools = rng.draws, rng.pools
        for j in range(len(script), len(draws)):
            for value in range(draws[j] + 1, len(pools[j])):
                if pools[j][value]:
                    scripts.append((*draws[:j], value))
        if after is not None:
            outcomes.append(Outcome(probability(rng), tuple(draws), after, events))
    outcomes.sort(key=lambda o: o.draws)
    return outcomes


def probability(rng: ScriptedRng) -> float:
    """The chance of the draws `rng` answered, each batch counted in all its orders."""
    p = 1.0
    for value, pool in zip(rng.draws, rng.pools, strict=True):
        p *= pool[value] / sum(pool)
    batches: dict[int, list[int]] = {}
    for value, batch in zip(rng.draws, rng.batches, strict=True):
        if batch:
            batches.setdefault(batch, []).append(value)
    for values in batches.values():
        p *= factorial(len(values)) // prod(factorial(n) for n in Counter(values).values())
    return p
