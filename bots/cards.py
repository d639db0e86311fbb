"""The card game for bots: sampling a deal consistent with a view, and the greedy rules."""

from __future__ import annotations

from collections.abc import Sequence

from genial.engine import COLORS, CardGame, GameState, Move, Rng, View
from genial.engine.cards import (
    CARD_INDEX,
    COPIES,
    GOAL_COLUMN,
    LAST_COLUMN,
    PAIRS,
    advance,
    symbol_matches,
)

from .base import Kit, Search, shuffle, state_from_view

WEAKEST = 2.0
"""Extra weight of the lowest marker: it decides the rank and, through the area rule,
how far every other marker may go."""


def sample(view: View, rng: Rng) -> GameState:
    """A full state the seat's view could come from.

    The unknown cards are the 60 less the own hand and every open card; they are
    dealt at random into the other hands by their sizes, then the deck and the
    discard pile by their counts. (A player with a perfect memory would know more
    of the discard pile; a bot works from the view it is shown, which does not.)
    """
    table = view["table"]
    seat = view["viewer"]
    players = table["players"]
    known = [CARD_INDEX[name] for name in table["hand"]]
    open_cards = [[CARD_INDEX[name] for name in p["open_cards"]] for p in players]
    left = [COPIES] * len(PAIRS)
    for card in known + [c for cards in open_cards for c in cards]:
        left[card] -= 1
    unknown = [card for card, n in enumerate(left) for _ in range(n)]
    shuffle(unknown, rng)
    hands: list[list[int]] = []
    for p in players:
        if p["seat"] == seat:
            hands.append(sorted(known))
        else:
            hands.append(sorted(unknown[: p["hand_size"]]))
            del unknown[: p["hand_size"]]
    deck = [0] * len(PAIRS)
    discard = [0] * len(PAIRS)
    for i, card in enumerate(unknown):
        (deck if i < table["deck_size"] else discard)[card] += 1
    return state_from_view(
        CardGame,
        view,
        rng,
        {
            "m": [p["markers"] for p in players],
            "h": hands,
            "o": open_cards,
            "d": deck,
            "x": discard,
            "t": view["to_move"],
            "p": table["phase"],
            "b": table["bonus_plays"],
            "w": None,
        },
    )


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
    matches = symbol_matches(CARD_INDEX[name] for p in table["players"] for name in p["open_cards"])

    def key(move: Move) -> tuple[list[int], int]:
        a, b = PAIRS[CARD_INDEX[move["card"]]]
        first = COLORS.index(move["first"])
        after = list(markers)
        advance(after, matches, (first, a + b - first))
        bonus = sum(n == LAST_COLUMN > m for n, m in zip(after, markers, strict=True))
        return sorted(after), bonus

    return sorted(moves, key=key, reverse=True)


def rows(state: GameState) -> list[list[int]]:
    assert isinstance(state, CardGame)
    return state.markers


KIT = Kit(
    sample=sample,
    rank=rank,
    rows=rows,
    goal=lambda _state: GOAL_COLUMN,
    weakest=WEAKEST,
    strong=Search(plan=rank, full_round=True, budget=8, caution=1.0),
)
