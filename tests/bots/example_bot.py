"""The example bot of docs/bots.md, kept here so that the suite plays it in the arena."""

from __future__ import annotations

from collections.abc import Sequence

from genial.engine import Move, Rng, View, from_view


class LookaheadBot:
    """Tries every legal move on one state dealt from its view and keeps the move
    that leaves its own counts highest, the lowest first."""

    def __init__(self, kind: str, seed: bytes) -> None:
        self.rng = Rng(seed)  # its own generator: reproducible, and never the global one

    def choose(self, view: View, legal_moves: Sequence[Move]) -> Move:
        seat = view["viewer"]
        state = from_view(view, self.rng)  # a full game consistent with the view

        def outcome(move: Move) -> list[int]:
            after, _events = state.apply(seat, move)  # a new state; `state` is unchanged
            return sorted(after.counts()[seat])

        return max(legal_moves, key=outcome)
