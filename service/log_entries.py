"""How a game's log is stored: a seat taken before the start, each move, compactly, and a
seat resigned.

A move entry keeps only what cannot be derived: the seat, why it was played (by the
player, by the seat's bot, by the greedy bot when the seat's timer ran out), and the move.
Its events come back by replaying it, since the engine is deterministic from the seed; the
service's own events (a timeout, a reclaimed seat) follow from the cause (`service_events`).
A move is written as text: "1", the seat, the cause, then the move's index in the frozen
vocabulary of its game (`data/moves-v1.json`, base 36) or, for a move not in it, its JSON.
A four-seat dice game of ~400 moves keeps ~4 bytes a move, where the JSON of move and
events took 150-420.

Entries written before this format (JSON objects with the events) still read.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from typing import Any

import msgspec

from genial import engine

FORMAT = b"1"
"""The first byte of a compact move entry (a JSON entry starts with "{")."""


class Cause:
    """Why a move was played, one character each in the log."""

    PLAYER = "p"
    BOT = "b"
    """By the seat's own built-in bot."""
    TIMEOUT = "t"
    """By the greedy bot, for a seat whose turn timer ran out."""

    AUTOMATIC = frozenset({BOT, TIMEOUT})


@dataclass(frozen=True, slots=True)
class LoggedMove:
    seat: int
    cause: str
    move: dict[str, Any]

    @property
    def automatic(self) -> bool:
        return self.cause in Cause.AUTOMATIC


class JoinEntry(msgspec.Struct):
    """A seat taken before the first move (entry id `(0, n)`, the n-th seat)."""

    seat: int = msgspec.field(name="j")
    name: str = msgspec.field(name="n")


class _JsonMoveEntry(msgspec.Struct):
    """A move as entries were written before the compact format, events included."""

    seat: int = msgspec.field(name="s")
    move: dict[str, Any] = msgspec.field(name="m")
    events: list[dict[str, Any]] = msgspec.field(name="e")
    automatic: bool = msgspec.field(name="a", default=False)


def _canonical(move: engine.Move) -> str:
    """Compact JSON with sorted keys: json.dumps(..., sort_keys=True)'s text, which the
    vocabulary holds (tested), at a fifth of its cost."""
    return msgspec.json.encode(move, order="sorted").decode()


_VOCABULARY: dict[str, list[str]] = json.loads(
    resources.files(__package__).joinpath("data", "moves-v1.json").read_text()
)
_INDEX = {kind: {move: i for i, move in enumerate(moves)} for kind, moves in _VOCABULARY.items()}
_join = msgspec.json.Decoder(JoinEntry)
_json_move = msgspec.json.Decoder(_JsonMoveEntry)


class ResignEntry(msgspec.Struct):
    """A seat's player resigned (entry id `GameMeta.resign_entry_id`: after the move of its
    version, numbered past the seats)."""

    seat: int = msgspec.field(name="r")


def is_move(entry_id: tuple[int, int]) -> bool:
    """Whether a log entry is a move's (`(version, 0)`), not a seat taken or resigned."""
    return entry_id[0] > 0 and entry_id[1] == 0


def is_join(entry_id: tuple[int, int], seats: int) -> bool:
    return entry_id[0] == 0 and 1 <= entry_id[1] <= seats


_resign = msgspec.json.Decoder(ResignEntry)


def encode_resign(entry: ResignEntry) -> bytes:
    return msgspec.json.encode(entry)


def decode_resign(raw: bytes) -> ResignEntry:
    return _resign.decode(raw)


def encode_join(entry: JoinEntry) -> bytes:
    return msgspec.json.encode(entry)


def decode_join(raw: bytes) -> JoinEntry:
    return _join.decode(raw)


def encode_move(kind: str, entry: LoggedMove) -> bytes:
    text = _canonical(entry.move)
    index = _INDEX[kind].get(text)
    body = text if index is None else _base36(index)
    return FORMAT + f"{entry.seat}{entry.cause}{body}".encode()


def decode_move(kind: str, raw: bytes) -> LoggedMove:
    if raw[:1] != FORMAT:
        old = _json_move.decode(raw)
        cause = _old_cause(old)
        return LoggedMove(old.seat, cause, old.move)
    text = raw[1:].decode()
    seat, cause, body = int(text[0]), text[1], text[2:]
    move = body if body.startswith("{") else _VOCABULARY[kind][int(body, 36)]
    return LoggedMove(seat, cause, json.loads(move))


def _old_cause(old: _JsonMoveEntry) -> str:
    if not old.automatic:
        return Cause.PLAYER
    timed_out = any(e["type"] == "turn_timed_out" for e in old.events)
    return Cause.TIMEOUT if timed_out else Cause.BOT


def _base36(n: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = digits[n % 36]
    while n := n // 36:
        out = digits[n % 36] + out
    return out


def service_events(away: list[bool], seat: int, cause: str) -> list[engine.Event]:
    """The service's events before a move's own, updating who is away: a timeout makes the
    seat away; the player's own move brings it back."""
    if cause == Cause.TIMEOUT:
        away[seat] = True
        return [{"type": "turn_timed_out", "seat": seat}]
    if cause == Cause.PLAYER and away[seat]:
        away[seat] = False
        return [{"type": "seat_reclaimed", "seat": seat}]
    return []
