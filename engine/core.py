"""The interface every game shares, and the pieces they have in common.

A game in progress is a `GameState`. It is changed only through `apply`, which
returns a new state and the events the move caused and leaves the old state as
it was. Moves, events and views are plain data (dicts of str, int, bool, lists)
so that any transport can carry them; `view(seat)` is the one door to hidden
information.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Self

COLORS: tuple[str, ...] = ("red", "green", "blue", "orange", "yellow", "purple")
"""The six colours shared by the three games (the dice rulebook's "violet" is purple)."""

COLOR_INDEX: dict[str, int] = {c: i for i, c in enumerate(COLORS)}

MIN_SEATS = 2
MAX_SEATS = 4
SEED_BYTES = 16

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
        x = self.below(sum(counts))
        for i, c in enumerate(counts):
            if x < c:
                return i
            x -= c
        raise AssertionError("unreachable: x < sum(counts)")


def new_seed() -> bytes:
    """A fresh secret seed of 128 bits."""
    return secrets.token_bytes(SEED_BYTES)


def seed_commitment(seed: bytes) -> str:
    """The SHA-256 of a seed, published at creation and checked against it at the end."""
    return hashlib.sha256(seed).hexdigest()


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


class GameState(ABC):
    """One game (a series of one or more rounds) of one kind, at one moment.

    Subclasses implement a round of their game; this class runs the series:
    validating the mover, cloning, recording round results and victory points,
    rotating the first player, and the common parts of the view.
    """

    kind: ClassVar[str]
    option_defaults: ClassVar[Mapping[str, Any]] = {"rounds": 1}
    MAX_ROUNDS: ClassVar[int] = 10

    seats: int
    seed: bytes
    rng: Rng
    options: dict[str, Any]
    round: int
    first_seat: int
    points: list[int]
    finished: bool
    last_events: list[Event]

    # ---- what a game implements -------------------------------------------------

    @abstractmethod
    def _setup_round(self) -> list[Event]:
        """Deal a fresh round with `self.first_seat` to move first."""

    @abstractmethod
    def _round_over(self) -> bool:
        """Whether the current round has ended."""

    @abstractmethod
    def _round_points(self) -> list[int]:
        """Victory points of each seat for the round that just ended."""

    @abstractmethod
    def _round_ranks(self) -> dict[int, int]:
        """Ranks of the seats in the round that just ended (1 = winner)."""

    @abstractmethod
    def _to_move(self) -> int:
        """The seat to move while the round runs."""

    @abstractmethod
    def _legal_moves(self) -> list[dict[str, Any]]:
        """The legal moves of the seat to move."""

    @abstractmethod
    def _apply(self, move: Move) -> list[Event]:
        """Validate and apply a move of the seat to move, in place (on a clone)."""

    @abstractmethod
    def _table_view(self, seat: int | None) -> View:
        """The game-specific part of the view for `seat` (None: a spectator)."""

    @abstractmethod
    def _round_data(self) -> dict[str, Any]:
        """The round's state as plain data (the inverse of `_load_round`)."""

    @abstractmethod
    def _load_round(self, data: Mapping[str, Any]) -> None:
        """Restore the round's state from `_round_data`."""

    @abstractmethod
    def _copy_round(self, other: Self) -> None:
        """Copy the round's state of `other` into self, sharing nothing mutable."""

    @classmethod
    def _check_options(cls, seats: int, options: dict[str, Any]) -> None:
        """Refuse options the game cannot play with (IllegalMove(BAD_OPTION)).

        An optional hook: the card game has nothing to check.
        """

    # ---- the common interface ---------------------------------------------------

    @classmethod
    def new(
        cls, seats: int, seed: bytes | None = None, options: Mapping[str, Any] | None = None
    ) -> Self:
        """A new game, set up and ready for its first move."""
        if not isinstance(seats, int) or not MIN_SEATS <= seats <= MAX_SEATS:
            raise IllegalMove(Reason.BAD_SEAT, f"seats must be {MIN_SEATS}-{MAX_SEATS}")
        merged = cls._merge_options(seats, options or {})
        self = cls.__new__(cls)
        self.seats = seats
        self.seed = seed if seed is not None else new_seed()
        if len(self.seed) < SEED_BYTES:
            raise IllegalMove(Reason.BAD_OPTION, f"a seed has at least {SEED_BYTES} bytes")
        self.rng = Rng(self.seed)
        self.options = merged
        self.round = 0
        self.first_seat = 0
        self.points = [0] * seats
        self.finished = False
        self.last_events = self._setup_round()
        return self

    @classmethod
    def _merge_options(cls, seats: int, options: Mapping[str, Any]) -> dict[str, Any]:
        unknown = set(options) - set(cls.option_defaults)
        if unknown:
            raise IllegalMove(
                Reason.BAD_OPTION,
                f"unknown options for {cls.kind}: {sorted(unknown)}; "
                f"known: {sorted(cls.option_defaults)}",
            )
        merged = {**cls.option_defaults, **options}
        for key, value in merged.items():
            default = cls.option_defaults[key]
            # None as a default means "decided by the number of seats"; an int may then be given.
            expected = int if default is None else type(default)
            if not (value is None and default is None) and type(value) is not expected:
                raise IllegalMove(Reason.BAD_OPTION, f"option {key} must be a {expected.__name__}")
        rounds = merged["rounds"]
        if not isinstance(rounds, int) or not 1 <= rounds <= cls.MAX_ROUNDS:
            raise IllegalMove(Reason.BAD_OPTION, f"rounds must be 1-{cls.MAX_ROUNDS}")
        cls._check_options(seats, merged)
        return merged

    @property
    def to_move(self) -> int | None:
        """The seat whose move it is, or None once the game is over."""
        return None if self.finished else self._to_move()

    def legal_moves(self) -> list[dict[str, Any]]:
        """Every legal move of the seat to move, each in the form `apply` takes."""
        return [] if self.finished else self._legal_moves()

    def is_over(self) -> bool:
        return self.finished

    def apply(self, seat: int, move: Move) -> tuple[Self, list[Event]]:
        """The state after `seat` makes `move`, and the events it caused.

        Raises IllegalMove (with a stable reason) and leaves this state untouched
        when the move is not allowed.
        """
        if self.finished:
            raise IllegalMove(Reason.GAME_OVER, "the game is over")
        if seat != self._to_move():
            raise IllegalMove(Reason.NOT_YOUR_TURN, f"it is seat {self._to_move()}'s turn")
        new = self.clone()
        events = new._apply(move)
        if new._round_over():
            events += new._finish_round()
        new.last_events = events
        return new, events

    def _finish_round(self) -> list[Event]:
        round_points = self._round_points()
        for seat, p in enumerate(round_points):
            self.points[seat] += p
        ranks = self._round_ranks()
        events: list[Event] = [
            {
                "type": "round_over",
                "round": self.round,
                "ranks": [ranks[s] for s in range(self.seats)],
                "points": round_points,
                "totals": list(self.points),
            }
        ]
        if self.round + 1 < self.options["rounds"]:
            self.round += 1
            self.first_seat = (self.first_seat + 1) % self.seats
            events += self._setup_round()
        else:
            self.finished = True
            events.append({"type": "game_over", "standings": self.standings()})
        return events

    def standings(self) -> list[dict[str, Any]]:
        """Rank and victory points of each seat: by the round for a single round,
        by total points (equal totals share a rank) for a series."""
        if self.options["rounds"] == 1 and self.finished:
            ranks = self._round_ranks()
        else:
            ranks = rank_by({s: [self.points[s]] for s in range(self.seats)})
        return [{"seat": s, "rank": ranks[s], "points": self.points[s]} for s in range(self.seats)]

    def view(self, seat: int | None) -> View:
        """What `seat` sees (None: a spectator). Never the seed or another seat's hidden things."""
        if seat is not None and not 0 <= seat < self.seats:
            raise IllegalMove(Reason.BAD_SEAT, f"no seat {seat}")
        view: View = {
            "kind": self.kind,
            "seats": self.seats,
            "viewer": seat,
            "options": {k: list(v) if isinstance(v, list) else v for k, v in self.options.items()},
            "to_move": self.to_move,
            "finished": self.finished,
            "round": self.round,
            "first_seat": self.first_seat,
            "points": list(self.points),
            "last_events": self.last_events,
            "standings": self.standings() if self.finished else [],
            "table": self._table_view(seat),
        }
        return view

    def clone(self) -> Self:
        new = self.__class__.__new__(self.__class__)
        new.seats = self.seats
        new.seed = self.seed
        new.rng = Rng(self.seed, self.rng.counter)
        new.options = self.options
        new.round = self.round
        new.first_seat = self.first_seat
        new.points = list(self.points)
        new.finished = self.finished
        new.last_events = self.last_events
        new._copy_round(self)
        return new

    # ---- serialisation ----------------------------------------------------------

    def to_data(self) -> dict[str, Any]:
        """The full state (seed included) as plain data."""
        return {
            "k": self.kind,
            "n": self.seats,
            "s": self.seed.hex(),
            "c": self.rng.counter,
            "o": {k: v for k, v in self.options.items() if v != self.option_defaults[k]},
            "r": self.round,
            "f": self.first_seat,
            "p": self.points,
            "x": self.finished,
            "e": self.last_events,
            "g": self._round_data(),
        }

    def encode(self) -> bytes:
        """Compact serialisation of the full state; `decode` is its inverse."""
        return json.dumps(self.to_data(), separators=(",", ":")).encode()

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> Self:
        self = cls.__new__(cls)
        self.seats = data["n"]
        self.seed = bytes.fromhex(data["s"])
        self.rng = Rng(self.seed, data["c"])
        self.options = {**cls.option_defaults, **data["o"]}
        self.round = data["r"]
        self.first_seat = data["f"]
        self.points = list(data["p"])
        self.finished = data["x"]
        self.last_events = data["e"]
        self._load_round(data["g"])
        return self

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GameState) and self.to_data() == other.to_data()

    def __hash__(self) -> int:
        return hash(self.encode())

    def __repr__(self) -> str:
        return f"<{self.kind} game, {self.seats} seats, to move: {self.to_move}>"
