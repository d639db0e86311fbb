"""What the bots of the three games share: the interface, seeding, and the evaluation.

A bot is asked for a move with exactly what the service gives a player: the seat's
view (`GameState.view(seat)`) and the legal moves. It owns its generator, an
`engine.Rng` keyed from the seed it was made with, so that a bot is deterministic
given its seed and the views it is shown, and the global `random` is never touched.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from genial.engine import Move, Rng, View

SEED_BYTES = 16


class Bot(Protocol):
    """A player: given its seat's view and the legal moves, one of those moves."""

    def choose(self, view: View, legal_moves: Sequence[Move]) -> Move: ...


def derive_seed(*parts: int | str | bytes) -> bytes:
    """A 16-byte seed from any parts: different parts give unrelated seeds.

    Used for a bot's own generator and for the arena's games, so that every one of them
    is reproducible.
    """
    h = hashlib.blake2b(digest_size=SEED_BYTES, person=b"genial.bots")
    for part in parts:
        raw = part if isinstance(part, bytes) else repr(part).encode()
        # The length prefix keeps ("ab", "c") apart from ("a", "bc").
        h.update(len(raw).to_bytes(4, "little") + raw)
    return h.digest()


def progress(rows: Sequence[int], goal: int, weakest: float) -> float:
    """How near a set of six counts is to `goal` in every colour.

    All three games are won by getting every colour to a goal and rank the others
    by their lowest colour, so the counts are capped at the goal (more is worth
    nothing towards a win) and the lowest count weighs `weakest` times extra.
    """
    capped = [min(n, goal) for n in rows]
    return sum(capped) + weakest * min(capped)


@dataclass(frozen=True)
class Search:
    """How the strong bot of a game with hidden cards searches (`bots/search.py`).

    `plan` orders its candidates (greedy's order, or a better one the game can
    afford); `full_round` runs its playouts until the seat's next turn (False: to
    the end of its own turn); `budget` is its default number of iterations;
    `caution` is how many standard errors a candidate must gain over the plan's
    first move to be chosen instead.
    """

    plan: Callable[[View, Sequence[Move]], list[Move]]
    full_round: bool
    budget: int
    caution: float


@dataclass(frozen=True)
class Kit:
    """What the generic bots need to know of one game.

    `rank` orders legal moves best first by the greedy rules of the game (a stable
    order, so ties keep the engine's order); `weakest` is the extra weight of the lowest
    of a seat's six counts in the evaluation. `strong` is how the strong bot plays: a
    `Search` over states dealt from the view where the view hides cards, or an exact
    ranking where only chance is unknown (best first, like `rank`). The rules, the
    chance and the dealing of a state from a view are the engine's (`GameState.counts`,
    `goal`, `chance_outcomes`, `from_view`).
    """

    rank: Callable[[View, Sequence[Move]], list[Move]]
    weakest: float
    strong: Search | Callable[[View, Sequence[Move]], list[Move]]


class RandomBot:
    """Any legal move, uniformly."""

    def __init__(self, rng: Rng) -> None:
        self.rng = rng

    def choose(self, view: View, legal_moves: Sequence[Move]) -> Move:
        return legal_moves[self.rng.below(len(legal_moves))]


class RankBot:
    """The move a ranking puts first: the greedy rules, or a game's exact strong ranking."""

    def __init__(self, rank: Callable[[View, Sequence[Move]], list[Move]]) -> None:
        self.rank = rank

    def choose(self, view: View, legal_moves: Sequence[Move]) -> Move:
        return self.rank(view, legal_moves)[0]
