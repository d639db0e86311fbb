"""The interface every game shares: `GameState`, which runs a series of rounds.

A game in progress is a `GameState`. It is changed only through `apply`, which
returns a new state and the events the move caused and leaves the old state as
it was. Moves, events and views are plain data (dicts of str, int, bool, lists)
so that any transport can carry them; `view(seat)` is the one door to hidden
information.

For searches (bots, analysis) a state also offers, like OpenSpiel's game API, its
chance outcomes (`chance_outcomes(move)`, and `apply(..., draws=...)` to follow one),
and the determinisation of a view (`from_view(view, rng)`, `determinize(seat, rng)`):
a full state consistent with what one seat sees, which knows nothing the view does
not show.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Self

from .chance import Outcome, enumerate_outcomes
from .common import Event, IllegalMove, Move, Reason, View, rank_by
from .rng import SEED_BYTES, Rng, ScriptedRng, new_seed

MIN_SEATS = 2
MAX_SEATS = 4
FORMAT = 2
"""The version of `GameState.to_data`'s layout (1, with one-letter keys, had no number)."""


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

    @abstractmethod
    def _load_view(self, view: View, rng: Rng) -> None:
        """Set the round's state from a seat's view, dealing what it hides with `rng`."""

    @abstractmethod
    def counts(self) -> list[list[int]]:
        """Per seat, its six counts in COLORS order, the numbers a round is won and ranked
        by: the columns of its markers, the crosses in its rows, its tiles per colour."""

    @abstractmethod
    def goal(self) -> int:
        """The count every colour must reach to win the round: column 7, every box of a
        row, a line."""

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

    def apply(
        self, seat: int, move: Move, draws: Sequence[int] | None = None
    ) -> tuple[Self, list[Event]]:
        """The state after `seat` makes `move`, and the events it caused.

        Raises IllegalMove (with a stable reason) and leaves this state untouched
        when the move is not allowed. `draws` makes the move with chance decided: the
        `draws` of one of its `chance_outcomes` (any draws past them come from the
        generator); ValueError if one of them cannot be drawn.
        """
        if draws is None:
            return self._apply_with(seat, move, None)
        return self._apply_with(
            seat, move, ScriptedRng(self.seed, self.rng.counter, tuple(draws), free=True)
        )

    def chance_outcomes(self, move: Move) -> list[Outcome[Self]]:
        """Every way chance can go when the seat to move makes `move` now, with its
        probability and the state and events it leads to (one outcome with no draws for
        a move without chance). See `engine/chance.py`."""
        return enumerate_outcomes(self, move)

    def _apply_with(
        self, seat: int, move: Move, rng: ScriptedRng | None
    ) -> tuple[Self, list[Event]]:
        if self.finished:
            raise IllegalMove(Reason.GAME_OVER, "the game is over")
        if seat != self._to_move():
            raise IllegalMove(Reason.NOT_YOUR_TURN, f"it is seat {self._to_move()}'s turn")
        new = self.clone()
        if rng is not None:
            new.rng = rng
        events = new._apply(move)
        if new._round_over():
            events += new._finish_round()
        if rng is not None:
            new.rng = new.rng.plain()
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
            # The next deal is no outcome of this move: it comes from the seed.
            self.rng = self.rng.plain()
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

    @classmethod
    def from_view(cls, view: View, rng: Rng) -> Self:
        """A full state consistent with a seat's `view`: everything the view shows, and
        what it hides (other hands, the deck, the discard pile; the seed) dealt at random
        with `rng`. It shows that seat exactly `view`, and knows nothing more: a search
        from it meets the future and the hidden cards of its own deal."""
        self = cls._series_from({**view, "seed": rng.seed_bytes().hex(), "rng_counter": 0})
        self._load_view(view, rng)
        return self

    def determinize(self, seat: int | None, rng: Rng) -> Self:
        """A state `seat` cannot tell from this one: `from_view` of its view."""
        return self.from_view(self.view(seat), rng)

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
        """The full state (seed included) as plain data; `from_data` is its inverse."""
        return {
            "format": FORMAT,
            "game": self.kind,
            "seats": self.seats,
            "seed": self.seed.hex(),
            "rng_counter": self.rng.counter,
            "options": {k: v for k, v in self.options.items() if v != self.option_defaults[k]},
            "round": self.round,
            "first_seat": self.first_seat,
            "points": self.points,
            "finished": self.finished,
            "last_events": self.last_events,
            "table": self._round_data(),
        }

    def encode(self) -> bytes:
        """Compact serialisation of the full state; `decode` is its inverse."""
        return json.dumps(self.to_data(), separators=(",", ":")).encode()

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> Self:
        self = cls._series_from(data)
        self._load_round(data["table"])
        return self

    @classmethod
    def _series_from(cls, data: Mapping[str, Any]) -> Self:
        """A state with the series' part of `data` set (`to_data`'s keys; a view has the
        same but for the seed and the generator's position)."""
        self = cls.__new__(cls)
        self.seats = data["seats"]
        self.seed = bytes.fromhex(data["seed"])
        self.rng = Rng(self.seed, data["rng_counter"])
        self.options = {**cls.option_defaults, **data["options"]}
        self.round = data["round"]
        self.first_seat = data["first_seat"]
        self.points = list(data["points"])
        self.finished = data["finished"]
        self.last_events = data["last_events"]
        return self

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GameState) and self.to_data() == other.to_data()

    def __hash__(self) -> int:
        return hash(self.encode())

    def __repr__(self) -> str:
        return f"<{self.kind} game, {self.seats} seats, to move: {self.to_move}>"
