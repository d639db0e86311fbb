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
from typing import Protocol, TypeVar

from genial.engine import GameState, Move, Rng, View

SEED_BYTES = 16

T = TypeVar("T")


class Bot(Protocol):
    """A player: given its seat's view and the legal moves, one of those moves."""

    def choose(self, view: View, legal_moves: Sequence[Move]) -> Move: ...


def derive_seed(*parts: int | str | bytes) -> bytes:
    """A 16-byte seed from any parts: different parts give unrelated seeds.

    Used for a bot's own generator, for the arena's games, and for the sampled
    states of the search bot, so that every one of them is reproducible.
    """
    h = hashlib.blake2b(digest_size=SEED_BYTES, person=b"genial.bots")
    for part in parts:
        raw = part if isinstance(part, bytes) else repr(part).encode()
        # The length prefix keeps ("ab", "c") apart from ("a", "bc").
        h.update(len(raw).to_bytes(4, "little") + raw)
    return h.digest()


def fresh_seed(rng: Rng) -> bytes:
    """A new 16-byte seed drawn from a bot's generator (for a sampled state)."""
    return b"".join(rng.below(1 << 32).to_bytes(4, "little") for _ in range(SEED_BYTES // 4))


def shuffle(items: list[T], rng: Rng) -> None:
    """Fisher-Yates with a bot's generator (the engine keeps no shuffle of its own)."""
    for i in range(len(items) - 1, 0, -1):
        j = rng.below(i + 1)
        items[i], items[j] = items[j], items[i]


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

    `sample` deals a full state consistent with a view (the determinisation of
    the search bot); `rank` orders legal moves best first by the greedy rules of
    the game (a stable order, so ties keep the engine's order); `rows` and
    `goal` give each seat's six counts and their target for the evaluation;
    `weakest` is the extra weight of the lowest count. `strong` is how the strong
    bot plays: a `Search` over sampled states where the view hides cards, or an
    exact ranking where only chance is unknown (best first, like `rank`).
    """

    sample: Callable[[View, Rng], GameState]
    rank: Callable[[View, Sequence[Move]], list[Move]]
    rows: Callable[[GameState], list[list[int]]]
    goal: Callable[[GameState], int]
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


def state_from_view(
    game: type[GameState], view: View, rng: Rng, round_data: dict[str, object]
) -> GameState:
    """A state of `game` with the view's public fields, `round_data` for the round, and a
    fresh seed from the bot's generator: the real seed is not in the view, and the
    future it would decide is exactly what a sample must leave to chance."""
    return game.from_data(
        {
            "k": game.kind,
            "n": view["seats"],
            "s": fresh_seed(rng).hex(),
            "c": 0,
            "o": view["options"],
            "r": view["round"],
            "f": view["first_seat"],
            "p": view["points"],
            "x": view["finished"],
            "e": view["last_events"],
            "g": round_data,
        }
    )
