"""The card game for bots: the greedy rules (the strong bot is `search.SearchBot`)."""

from __future__ import annotations

from collections.abc import Sequence

from genial.engine import COLORS, Move, View
from genial.engine.cards import CARD_INDEX, LAST_COLUMN, PAIRS, advance, symbol_matches

from .base import Kit, Search

WEAKEST = 2.0
"""Extra weight of the lowest marker: it decides the rank and, through the area rule,
how far every other marker may go."""


def rank(view: View, moves: Sequence[Move]) -> list[Move]:
    """Greedy: the play whose markers, sorted from the lowest, are highest.

    Comparing the sorted markers raises the lowest colour first, as the ranking
    does; the area rule is applied exactly, so a symbol order that frees the cap
    first is found. Equal outcomes prefer more markers reaching column 10 (each is
    a bonus play). The swap is offered only when no card in hand shows a lowest
    colour, so the hand is poor for the colour that matters most: always take it.
    """
    table = view["table"]
    if table["phase"] == "swap":
        return sorted(moves, key=lambda m: m["type"] != "swap")
    markers = table["players"][view["viewer"]]["markers"]
    matches = symbol_matches(
        [CARD_INDEX[name] for p in table["players"] for name in p["open_cards"]]
    )

    def key(move: Move) -> tuple[list[int], int]:
        a, b = PAIRS[CARD_INDEX[move["card"]]]
        first = COLORS.index(move["first"])
        after = list(markers)
        advance(after, matches, (first, a + b - first))
        bonus = sum(n == LAST_COLUMN > m for n, m in zip(after, markers, strict=True))
        return sorted(after), bonus

    return sorted(moves, key=key, reverse=True)


KIT = Kit(
    rank=rank,
    weakest=WEAKEST,
    strong=Search(plan=rank, full_round=True, budget=8, caution=1.0),
)
