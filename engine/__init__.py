"""The rules of the three Einfach Genial games: pure, deterministic, standard library only.

>>> from genial import engine
>>> game = engine.new_game("cards", seats=3)
>>> seat = game.to_move
>>> game, events = game.apply(seat, game.legal_moves()[0])
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from .cards import CardGame
from .core import (
    COLORS,
    Event,
    GameState,
    IllegalMove,
    Move,
    Reason,
    Rng,
    View,
    new_seed,
    seed_commitment,
)
from .dice import DiceGame
from .tiles import TileGame

GAMES: dict[str, type[GameState]] = {g.kind: g for g in (CardGame, DiceGame, TileGame)}
"""The games by kind: "cards", "dice", "tiles"."""


def game_class(kind: str) -> type[GameState]:
    try:
        return GAMES[kind]
    except KeyError:
        raise IllegalMove(
            Reason.UNKNOWN_GAME, f"unknown game {kind!r}; one of {sorted(GAMES)}"
        ) from None


def new_game(
    kind: str,
    seats: int,
    seed: bytes | None = None,
    options: Mapping[str, Any] | None = None,
) -> GameState:
    """A new game of `kind` for 2-4 seats, ready for its first move."""
    return game_class(kind).new(seats, seed, options)


def decode(data: bytes) -> GameState:
    """The inverse of `GameState.encode`."""
    raw = json.loads(data)
    return game_class(raw["k"]).from_data(raw)


__all__ = [
    "COLORS",
    "GAMES",
    "CardGame",
    "DiceGame",
    "Event",
    "GameState",
    "IllegalMove",
    "Move",
    "Reason",
    "Rng",
    "TileGame",
    "View",
    "decode",
    "game_class",
    "new_game",
    "new_seed",
    "seed_commitment",
]
