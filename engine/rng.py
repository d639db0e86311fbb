"""Chance: the engine's generator, and the scripted one that enumerates or forces draws.

Every random thing in the three games (a card drawn, a die rolled, a tile revealed) is
one draw: an index picked from a pool of weights (counts of cards or tiles, or six equal
faces), uniformly over the items of the pool. `Rng` makes the draws of a real game from
its secret seed; `ScriptedRng` answers them from a script, which is how
`GameState.chance_outcomes` lists every outcome of a move and `GameState.apply(...,
draws=...)` makes a move with an outcome chosen.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Sequence

SEED_BYTES = 16


class Rng:
    """Counter-based generator: draw `n` is BLAKE2b(seed, n).

    The state keeps only the seed and the counter, so the same seed and the
    same moves replay the same game, and nothing of the future is stored.
    """

    __slots__ = ("counter", "seed")

    def __init__(self, seed: bytes, counter: int = 0) -> None:
        self.seed = seed
        self.counter = counter

    def _next64(self) -> int:
        digest = hashlib.blake2b(
            self.counter.to_bytes(8, "little"), digest_size=8, key=self.seed
        ).digest()
        self.counter += 1
        return int.from_bytes(digest, "little")

    def below(self, n: int) -> int:
        """A uniform integer in [0, n), by rejection so that no value is favoured."""
        if n <= 0:
            raise ValueError("below() needs a positive bound")
        limit = (1 << 64) - (1 << 64) % n
        while True:
            x = self._next64()
            if x < limit:
                return x % n

    def pick_weighted(self, counts: Sequence[int]) -> int:
        """The index of one item drawn uniformly from a multiset given by counts."""
        x = Rng.below(self, sum(counts))  # not a script's below: its draw is this one
        for i, c in enumerate(counts):
            if x < c:
                return i
            x -= c
        raise AssertionError("unreachable: x < sum(counts)")

    def seed_bytes(self) -> bytes:
        """A new seed drawn from this generator (for a state dealt from a view)."""
        return b"".join(self.below(1 << 32).to_bytes(4, "little") for _ in range(SEED_BYTES // 4))

    def start_batch(self) -> None:
        """The draws from here to `end_batch` go to one place where their order changes
        nothing (a hand, the centre, a roll's colours): `chance_outcomes` lists each
        multiset of them once. A real game needs no such bookkeeping."""

    def end_batch(self) -> None:
        """See `start_batch`."""

    def plain(self) -> Rng:
        """This generator as a real game's: itself (a script hands over to the seed)."""
        return self


def draw_odds(pool: Sequence[int]) -> list[tuple[int, float]]:
    """The chance of each index of `pool` (weights, e.g. tiles per colour) in one draw."""
    total = sum(pool)
    return [(i, n / total) for i, n in enumerate(pool) if n]


class DeadEnd(Exception):
    """A batch listed in order can go no further (what is left is all below the last
    draw): that multiset is listed by another order, so this run stops."""


class ScriptedRng(Rng):
    """Answers draws from `script` rather than the seed, and records every draw.

    Past the end of the script it answers the first value it may (the least index with
    weight, and within a batch no less than the draw before, so that a batch is listed
    in order), or with `free` draws from the seed like a real game.
    """

    __slots__ = ("batch", "batches", "draws", "free", "pools", "script")

    def __init__(
        self, seed: bytes, counter: int, script: Sequence[int], free: bool = False
    ) -> None:
        super().__init__(seed, counter)
        self.script = script
        self.free = free
        self.draws: list[int] = []
        self.pools: list[tuple[int, ...]] = []
        self.batches: list[int] = []
        self.batch = 0

    def below(self, n: int) -> int:
        return self._draw((1,) * n)

    def pick_weighted(self, counts: Sequence[int]) -> int:
        return self._draw(tuple(counts))

    def start_batch(self) -> None:
        self.batch = len(self.draws) + 1  # unique: no two batches start at one draw

    def end_batch(self) -> None:
        self.batch = 0

    def plain(self) -> Rng:
        return Rng(self.seed, self.counter)

    def _draw(self, pool: tuple[int, ...]) -> int:
        i = len(self.draws)
        if i < len(self.script):
            value = self.script[i]
            if not 0 <= value < len(pool) or not pool[value]:
                raise ValueError(f"draw {i} cannot be {value}: the pool is {list(pool)}")
        elif self.free:
            value = Rng.pick_weighted(self, pool)  # as a real game draws
        else:
            value = next((v for v in range(self._least(), len(pool)) if pool[v]), -1)
            if value < 0:
                raise DeadEnd  # the batch's other orders list this multiset
        self.draws.append(value)
        self.pools.append(pool)
        self.batches.append(self.batch)
        self.counter += 1
        return value

    def _least(self) -> int:
        """The least value the next draw may take in an enumeration."""
        in_batch = self.draws and self.batch and self.batches[-1] == self.batch
        return self.draws[-1] if in_batch else 0


def new_seed() -> bytes:
    """A fresh secret seed of 128 bits."""
    return secrets.token_bytes(SEED_BYTES)


def seed_commitment(seed: bytes) -> str:
    """The SHA-256 of a seed, published at creation and checked against it at the end."""
    return hashlib.sha256(seed).hexdigest()
