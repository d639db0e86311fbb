"""The tile game for bots: a state from a view, and the greedy rules.

Nothing of the tile game is hidden: the reserve holds 21 of each colour less the
tiles in sight (centre, collection zone, collections), and only the order of the
draws is unknown, which a sampled state leaves to its own fresh seed.
"""

from __future__ import annotations

from collections.abc import Sequence

from genial.engine import COLORS, GameState, Move, Rng, TileGame, View
from genial.engine.tiles import TILES_PER_COLOR

from .base import Kit, progress, state_from_view

WEAKEST = 2.0
"""Extra weight of the smallest colour: it decides the rank."""
LINE_BONUS = 2.0
"""A colour first reaching a line gives a bonus move, worth about a take."""


def reserve(view: View) -> list[int]:
    """The reserve's make-up: 21 of each colour less every tile in sight."""
    table = view["table"]
    left = [TILES_PER_COLOR - n for n in table["centre"]]
    for name in table["zone"]:
        left[COLORS.index(name)] -= 1
    for p in table["players"]:
        for c, n in enumerate(p["collection"]):
            left[c] -= n
    return left


def sample(view: View, rng: Rng) -> GameState:
    table = view["table"]
    return state_from_view(
        TileGame,
        view,
        rng,
        {
            "v": reserve(view),
            "m": table["centre"],
            "z": [COLORS.index(name) for name in table["zone"]],
            "h": [p["collection"] for p in table["players"]],
            "t": view["to_move"],
            "b": table["bonus_moves"],
            "o": False,
        },
    )


def gain(held: Sequence[int], tiles: Sequence[int], line: int) -> float:
    """What adding `tiles` to a collection is worth, bonus moves for new lines included."""
    after = [h + t for h, t in zip(held, tiles, strict=True)]
    lines = sum(h < line <= a for h, a in zip(held, after, strict=True))
    return progress(after, line, WEAKEST) - progress(held, line, WEAKEST) + LINE_BONUS * lines


def rank(view: View, moves: Sequence[Move]) -> list[Move]:
    """Greedy: a take or an alternative move by what it adds; a reveal by the risk of
    failure, computed from the reserve: the chance of each colour times what taking
    after it would add (a failure adds nothing and ends the turn)."""
    table = view["table"]
    line = table["line_length"]
    held = table["players"][view["viewer"]]["collection"]
    centre = table["centre"]
    zone = {COLORS.index(name) for name in table["zone"]}

    def take(colours: set[int]) -> float:
        return gain(held, [1 + centre[c] if c in colours else 0 for c in range(len(COLORS))], line)

    def value(move: Move) -> float:
        if move["type"] == "take":
            return take(zone)
        if move["type"] == "alternative":
            c = COLORS.index(move["color"])
            return gain(held, [int(k == c) for k in range(len(COLORS))], line)
        left = reserve(view)
        total = sum(left)
        return sum(
            n / total * take(zone | {c})
            for c, n in enumerate(left)
            if n and centre[c] and c not in zone
        )

    # On equal value a take comes first: it clears the centre of its colours, where a
    # reveal that fails would leave more tiles for the next player.
    return sorted(moves, key=lambda m: (value(m), m["type"] == "take"), reverse=True)


def rows(state: GameState) -> list[list[int]]:
    assert isinstance(state, TileGame)
    return state.collections


KIT = Kit(
    sample=sample,
    rank=rank,
    plan=rank,
    rows=rows,
    goal=lambda state: int(state.options["line_length"]),
    weakest=WEAKEST,
    full_round=True,
    # Two candidates at most (reveal or take), on common samples: little bias to guard
    # against, and the playouts see what greedy's one-step risk cannot.
    caution=0.0,
    budget=32,
)
