"""The reader of the first stored layout (format 1, one-letter keys), for games stored
before format 2.

Games in progress are kept in the store as `GameState.encode()` wrote them; those
written before format 2 have keys such as "k" (the game), "o" (options; in the card
game's table the open cards, in the tile game's whether the round is over) and "g" (the
table). `decode` renames them and reads on. This module can go, with its test
(`tests/engine/test_legacy.py`), once no stored game is in format 1: a game lives at
most as long as the store's expiry of a game after its last move.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

STATE_KEYS = {
    "k": "game",
    "n": "seats",
    "s": "seed",
    "c": "rng_counter",
    "o": "options",
    "r": "round",
    "f": "first_seat",
    "p": "points",
    "x": "finished",
    "e": "last_events",
    "g": "table",
}
TABLE_KEYS = {
    "cards": {
        "m": "markers",
        "h": "hands",
        "o": "open_cards",
        "d": "deck",
        "x": "discard",
        "t": "to_move",
        "p": "phase",
        "b": "bonus_plays",
        "w": "winner",
    },
    "dice": {"d": "dice", "h": "sheets", "t": "to_move", "a": "rolled", "l": "rerolls_left"},
    "tiles": {
        "v": "reserve",
        "m": "centre",
        "z": "zone",
        "h": "collections",
        "t": "to_move",
        "b": "bonus_moves",
        "o": "over",
    },
}


def is_format_1(raw: Mapping[str, Any]) -> bool:
    return "k" in raw


def upgrade(raw: Mapping[str, Any]) -> dict[str, Any]:
    """A format 1 state as `GameState.from_data` reads it."""
    data = {STATE_KEYS[k]: v for k, v in raw.items()}
    table_keys = TABLE_KEYS[data["game"]]
    data["table"] = {table_keys[k]: v for k, v in data["table"].items()}
    return data
