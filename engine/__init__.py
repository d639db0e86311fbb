"""The rules of the three Einfach Genial games: pure, deterministic, standard library only.

>>> from genial import engine
>>> game = engine.new_game("cards", seats=3)
>>> seat = game.to_move
>>> game, events = game.apply(seat, game.legal_moves()[0])

The public API: `new_game`, `decode` (`from_data` for data parsed already) and
`GameState` (`apply`, `legal_moves`, `to_move`, `is_over`, `view`, `standings`, `encode`;
for searches `chance_outcomes`, `apply(..., draws=...)`, `from_view` / `determinize`,
`counts`, `goal`), `from_view` for a view of any game, `IllegalMove` with its `Reason`,
`Rng`, `seed_commitment`; and each game's rule functions that its moves are built from
(`cards.ceiling`, `cards.advance`, `dice.crosses_owed`, `dice.place_crosses`,
`tiles_rules.reveal_outcome`, ...), which searches may call on plain counts.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from . import legacy
from .cards import CardGame
from .chance import Outcome
from .common import COLORS, Event, IllegalMove, Move, Reason, View
from .core import GameState
from .dice import DiceGame
from .rng import Rng, new_seed, seed_commitment
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
    """The inverse of `GameState.encode`; reads the first layout too (`legacy`)."""
    return from_data(json.loads(data))


def from_data(raw: Mapping[str, Any]) -> GameState:
    """The inverse of `GameState.to_data`, for any game (the JSON `encode` writes, parsed);
    reads the first layout too (`legacy`)."""
    if legacy.is_format_1(raw):
        raw = legacy.upgrade(raw)
    return game_class(raw["game"]).from_data(raw)


def from_view(view: View, rng: Rng) -> GameState:
    """A full state consistent with a seat's view (`GameState.from_view`), for its game."""
    return game_class(view["kind"]).from_view(view, rng)


__all__ = [
    "COLORS",
    "GAMES",
    "CardGame",
    "DiceGame",
    "Event",
    "GameState",
    "IllegalMove",
    "Move",
    "Outcome",
    "Reason",
    "Rng",
    "TileGame",
    "View",
    "decode",
    "from_view",
    "game_class",
    "new_game",
    "new_seed",
    "seed_commitment",
]
