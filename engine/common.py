"""What the three games share: colours, moves, events and views as plain data, the
refusal of a move with a stable reason, and the small checks every game makes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

COLORS: tuple[str, ...] = ("red", "green", "blue", "orange", "yellow", "purple")
"""The six colours shared by the three games (the dice rulebook's "violet" is purple)."""

COLOR_INDEX: dict[str, int] = {c: i for i, c in enumerate(COLORS)}


Move = Mapping[str, Any]
"""A move: `{"type": ..., ...}`; the legal ones come from `GameState.legal_moves`."""

Event = dict[str, Any]
"""Something that happened: `{"type": ..., "seat": ..., ...}`. Events are public."""

View = dict[str, Any]
"""What one seat (or a spectator, seat None) may see of a game."""


class IllegalMove(Exception):
    """A move or request the rules do not allow; `reason` is a stable code."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message


class Reason:
    """Stable, machine-readable reasons for refusing a move or a setup."""

    NOT_YOUR_TURN = "NOT_YOUR_TURN"
    GAME_OVER = "GAME_OVER"
    MALFORMED_MOVE = "MALFORMED_MOVE"
    UNKNOWN_MOVE = "UNKNOWN_MOVE"
    WRONG_PHASE = "WRONG_PHASE"
    BAD_SEAT = "BAD_SEAT"
    BAD_OPTION = "BAD_OPTION"
    UNKNOWN_GAME = "UNKNOWN_GAME"
    BAD_COLOR = "BAD_COLOR"
    # card game
    CARD_NOT_IN_HAND = "CARD_NOT_IN_HAND"
    SWAP_NOT_ALLOWED = "SWAP_NOT_ALLOWED"
    # dice game
    NO_REROLL_LEFT = "NO_REROLL_LEFT"
    BAD_JOKER = "BAD_JOKER"
    # tile game
    NOTHING_TO_TAKE = "NOTHING_TO_TAKE"
    RESERVE_EMPTY = "RESERVE_EMPTY"
    ALTERNATIVE_NOT_ALLOWED = "ALTERNATIVE_NOT_ALLOWED"


def color(value: Any) -> int:
    """The index of a colour name, or IllegalMove(BAD_COLOR)."""
    if not isinstance(value, str) or value not in COLOR_INDEX:
        raise IllegalMove(Reason.BAD_COLOR, f"unknown colour {value!r}; one of {COLORS}")
    return COLOR_INDEX[value]


def move_fields(move: Move, fields: Mapping[str, tuple[str, ...]]) -> str:
    """Check a move's shape and return its type.

    `fields` maps each move type to the fields it takes; a name ending in "?" may be
    left out. Anything else, or a missing field, is MALFORMED_MOVE.
    """
    if not isinstance(move, Mapping):
        raise IllegalMove(Reason.MALFORMED_MOVE, "a move is an object with a 'type'")
    kind = move.get("type")
    if not isinstance(kind, str) or kind not in fields:
        raise IllegalMove(
            Reason.UNKNOWN_MOVE, f"unknown move type {kind!r}; one of {sorted(fields)}"
        )
    required = {f for f in fields[kind] if not f.endswith("?")}
    known = {"type", *required, *(f[:-1] for f in fields[kind] if f.endswith("?"))}
    extra, missing = set(move) - known, required - set(move)
    if extra or missing:
        raise IllegalMove(
            Reason.MALFORMED_MOVE,
            f"{kind} takes {sorted(known - {'type'})}; "
            f"unexpected: {sorted(extra)}, missing: {sorted(missing)}",
        )
    return kind


def rank_by(keys: Mapping[int, list[int]]) -> dict[int, int]:
    """Competition ranks (1, 2, 2, 4) for seats, higher keys first; equal keys share a rank."""
    order = sorted(keys, key=lambda s: keys[s], reverse=True)
    ranks: dict[int, int] = {}
    for pos, seat in enumerate(order):
        if pos and keys[seat] == keys[order[pos - 1]]:
            ranks[seat] = ranks[order[pos - 1]]
        else:
            ranks[seat] = pos + 1
    return ranks
