"""Einfach Genial: Wer zu viel riskiert, verliert! (the push-your-luck tile game).

126 tiles, 21 of each colour. On a move a player reveals tiles from the reserve
into the collection zone while each matches a colour in the centre and none in
the zone, then takes the zone and the centre tiles of its colours into their
collection. A colour first reaching a line gives a bonus move; the first player
with a line of every colour wins the round.

The reserve is kept as counts per colour: each draw picks uniformly from it with
the game's generator, so the state holds no order and nothing of the future.
Colours are indices into COLORS inside the state and names in moves, events and
views.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Self

from .core import (
    COLORS,
    Event,
    GameState,
    IllegalMove,
    Move,
    Reason,
    View,
    color,
    move_fields,
    rank_by,
)

TILES_PER_COLOR = 21
CENTRE_MIN = 3
"""The check: the centre holds at least this many tiles at the start of every move."""
LINE_LENGTH = 7
LINE_LENGTH_FOUR_SEATS = 5
MIN_LINE, MAX_LINE = 3, TILES_PER_COLOR

Counts = tuple[int, ...]
"""Counts per colour, as a hashable position in the search for progress."""

MOVE_FIELDS: dict[str, tuple[str, ...]] = {
    "reveal": (),
    "take": (),
    "alternative": ("color",),
}


def _names(colors: list[int]) -> list[str]:
    return [COLORS[c] for c in colors]


def _missing(held: Sequence[int]) -> int | None:
    """The colour an alternative move may take: the one strictly lowest in a collection."""
    lowest = min(held)
    return held.index(lowest) if held.count(lowest) == 1 else None


def _less(counts: Counts, c: int) -> Counts:
    return (*counts[:c], counts[c] - 1, *counts[c + 1 :])


def _turn_ends(reserve: Counts, totals: Counts, lacks: Sequence[bool]) -> set[Counts] | None:
    """The reserves a turn can leave without the mover gaining a colour it lacks, or None
    when it can gain one. `totals` are the tiles of each colour outside the collections."""
    centre = tuple(t - r for t, r in zip(totals, reserve, strict=True))
    if any(r and m and lack for r, m, lack in zip(reserve, centre, lacks, strict=True)):
        return None  # reveal such a tile: a success, and take it
    ends: set[Counts] = set()
    seen: set[frozenset[int]] = set()
    stack: list[tuple[Counts, frozenset[int]]] = [(reserve, frozenset())]
    while stack:
        left, zone = stack.pop()
        for c, n in enumerate(left):
            if not n:
                continue
            drawn = _less(left, c)
            if c in zone or not centre[c]:
                ends.add(drawn)  # a failure: the zone goes to the centre
                continue
            grown = zone | {c}
            # A take: all of the zone's colours are at a line, so everything taken goes back.
            ends.add(tuple(totals[k] if k in grown else m for k, m in enumerate(drawn)))
            if grown not in seen:
                seen.add(grown)
                stack.append((drawn, grown))
    return ends


def _refills(reserve: Counts, centre_size: int) -> set[Counts]:
    """The reserves the check at the start of a move can leave."""
    results = {reserve}
    for _ in range(CENTRE_MIN - centre_size):
        # The reserves of one step all hold the same number of tiles: all empty, or none.
        results = {_less(r, c) for r in results for c, n in enumerate(r) if n} or results
    return results


class TileGame(GameState):
    kind: ClassVar[str] = "tiles"
    option_defaults: ClassVar[Mapping[str, Any]] = {"rounds": 1, "line_length": None}

    reserve: list[int]
    centre: list[int]
    """Counts per colour."""
    zone: list[int]
    """The collection zone, in reveal order; not empty exactly while the mover decides."""
    collections: list[list[int]]
    """Per seat, counts per colour (over the line length only until the turn ends)."""
    current: int
    bonus_moves: int
    """Bonus moves earned this turn and not yet begun."""
    over: bool
    """A player holds every line, or nobody can make progress any more."""

    @classmethod
    def _check_options(cls, seats: int, options: dict[str, Any]) -> None:
        line = options["line_length"]
        if line is None:
            # Resolved once here so that the stored options and every view show the length played.
            options["line_length"] = LINE_LENGTH_FOUR_SEATS if seats == 4 else LINE_LENGTH
        elif not MIN_LINE <= line <= MAX_LINE:
            raise IllegalMove(Reason.BAD_OPTION, f"line_length must be {MIN_LINE}-{MAX_LINE}")

    @property
    def line_length(self) -> int:
        line: int = self.options["line_length"]
        return line

    # ---- setup --------------------------------------------------------------------

    def _setup_round(self) -> list[Event]:
        self.reserve = [TILES_PER_COLOR] * len(COLORS)
        self.centre = [0] * len(COLORS)
        self.zone = []
        self.collections = [[0] * len(COLORS) for _ in range(self.seats)]
        self.current = self.first_seat
        self.bonus_moves = 0
        self.over = False
        self._refill([])  # 3 random tiles face up; the setup event shows them, not a refill
        return [
            {
                "type": "setup",
                "round": self.round,
                "first_seat": self.first_seat,
                "centre": list(self.centre),
            }
        ]

    # ---- moves --------------------------------------------------------------------

    def _to_move(self) -> int:
        return self.current

    def _alternative_color(self, seat: int) -> int | None:
        """The colour of the alternative move open to `seat`, if any (decision 5)."""
        missing = _missing(self.collections[seat])
        return missing if missing is not None and self.centre[missing] else None

    def _can_start(self, seat: int) -> bool:
        return any(self.reserve) or self._alternative_color(seat) is not None

    def _legal_moves(self) -> list[dict[str, Any]]:
        moves: list[dict[str, Any]] = []
        if any(self.reserve):
            moves.append({"type": "reveal"})
        if self.zone:
            moves.append({"type": "take"})
        else:
            alternative = self._alternative_color(self.current)
            if alternative is not None:
                moves.append({"type": "alternative", "color": COLORS[alternative]})
        return moves

    def _apply(self, move: Move) -> list[Event]:
        kind = move_fields(move, MOVE_FIELDS)
        if kind == "reveal":
            return self._reveal()
        if kind == "take":
            return self._take()
        return self._alternative(color(move["color"]))

    def _draw(self) -> int:
        c = self.rng.pick_weighted(self.reserve)
        self.reserve[c] -= 1
        return c

    def _reveal(self) -> list[Event]:
        if not any(self.reserve):
            raise IllegalMove(Reason.RESERVE_EMPTY, "the reserve is empty: nothing to reveal")
        c = self._draw()
        # A colour in the zone is also in the centre (it matched there), so conflict comes first.
        if c in self.zone:
            outcome = "conflict"
        elif self.centre[c]:
            outcome = "success"
        else:
            outcome = "no_match"
        self.zone.append(c)
        events: list[Event] = [
            {"type": "reveal", "seat": self.current, "color": COLORS[c], "outcome": outcome}
        ]
        if outcome != "success":
            for z in self.zone:
                self.centre[z] += 1
            self.zone = []
            # "Your turn ends": bonus moves still owed lapse with it.
            self._end_turn(events)
        return events

    def _take(self) -> list[Event]:
        if not self.zone:
            raise IllegalMove(Reason.NOTHING_TO_TAKE, "tiles may be taken only after a success")
        tiles = [0] * len(COLORS)
        for c in self.zone:  # the zone never holds a colour twice
            tiles[c] = 1 + self.centre[c]
            self.centre[c] = 0
        self.zone = []
        events: list[Event] = [{"type": "take", "seat": self.current, "tiles": tiles}]
        self._gain(tiles, events)
        return events

    def _alternative(self, c: int) -> list[Event]:
        if self.zone:
            raise IllegalMove(
                Reason.WRONG_PHASE, "an alternative move replaces the first reveal of a move"
            )
        allowed = self._alternative_color(self.current)
        if c != allowed:
            hint = "none" if allowed is None else COLORS[allowed]
            raise IllegalMove(
                Reason.ALTERNATIVE_NOT_ALLOWED,
                "an alternative move takes the one colour strictly lowest in the collection, "
                f"from the centre; allowed now: {hint}",
            )
        self.centre[c] -= 1
        tiles = [0] * len(COLORS)
        tiles[c] = 1
        events: list[Event] = [{"type": "alternative", "seat": self.current, "color": COLORS[c]}]
        self._gain(tiles, events)
        return events

    def _gain(self, tiles: list[int], events: list[Event]) -> None:
        """Add a take or an alternative move to the collection; then the next move or turn."""
        seat = self.current
        held = self.collections[seat]
        line = self.line_length
        lines = [c for c, n in enumerate(tiles) if held[c] < line <= held[c] + n]
        for c, n in enumerate(tiles):
            held[c] += n
        if lines:
            self.bonus_moves += len(lines)
            events.append({"type": "bonus", "seat": seat, "colors": _names(lines)})
        if min(held) >= line:
            self._end_turn(events)  # a won round ends now: owed bonus moves lapse
            return
        if self.bonus_moves:
            self.bonus_moves -= 1
            self._refill(events)
            if self._can_start(seat):
                return
            # Nothing to reveal and no alternative move: this bonus move, and so the turn, ends.
            events.append({"type": "pass", "seat": seat})
        self._end_turn(events)

    def _refill(self, events: list[Event]) -> None:
        """The check at the start of a move: fill the centre up to 3 while the reserve lasts."""
        added: list[int] = []
        while sum(self.centre) < CENTRE_MIN and any(self.reserve):
            c = self._draw()
            self.centre[c] += 1
            added.append(c)
        if added:
            events.append({"type": "refill", "colors": _names(added)})

    def _end_turn(self, events: list[Event]) -> None:
        """Return tiles over the limit; then the next seat that can move, if the round goes on."""
        seat = self.current
        held = self.collections[seat]
        line = self.line_length
        back = [max(0, n - line) for n in held]
        if any(back):
            for c, n in enumerate(back):
                held[c] -= n
                self.reserve[c] += n
            events.append({"type": "return", "seat": seat, "tiles": back})
        events.append({"type": "turn_end", "seat": seat})
        self.bonus_moves = 0
        if min(held) >= line:
            self.over = True
            return
        self.current = (seat + 1) % self.seats
        self._refill(events)
        if self._stuck():
            self.over = True
            return
        # Not stuck, so the reserve has a tile (and everybody can reveal) or some seat has an
        # alternative move; with an empty reserve the check adds nothing for later seats.
        while not self._can_start(self.current):
            events.append({"type": "pass", "seat": self.current})
            self.current = (self.current + 1) % self.seats

    def _stuck(self) -> bool:
        """Whether no sequence of moves and draws can bring any player nearer a line.

        Asked between turns, after the check. Along such a sequence no bonus move arises
        and collections are the same at every turn's end (a take of colours at a line all
        goes back to the reserve), so a position is the reserve (the centre being the rest)
        and the seat to move; the search visits each once.
        """
        line = self.line_length
        mine = self.collections[self.current]
        if self._alternative_color(self.current) is not None or any(
            r and m and n < line for r, m, n in zip(self.reserve, self.centre, mine, strict=True)
        ):
            return False  # the usual case, quickly: the seat to move can gain a tile now
        lacks = [[n < line for n in held] for held in self.collections]
        lacking = [any(row[c] for row in lacks) for c in range(len(COLORS))]
        if not any(r and lack for r, lack in zip(self.reserve, lacking, strict=True)) and all(
            self._alternative_color(s) is None for s in range(self.seats)
        ):
            # Quickly too, where the search would try every spread of the colours nobody
            # lacks: a colour out of the reserve between turns never gets back to it or to
            # the centre, so only alternative moves could gain a lacking tile, and none can
            # open (lowest colours stay put, their centre counts only fall).
            return True
        totals = tuple(r + c for r, c in zip(self.reserve, self.centre, strict=True))
        missing = [_missing(held) for held in self.collections]
        start = (tuple(self.reserve), self.current)
        seen = {start}
        stack = [start]
        while stack:
            reserve, seat = stack.pop()
            alternative = missing[seat]
            if alternative is not None and totals[alternative] > reserve[alternative]:
                return False
            if any(reserve):
                ends = _turn_ends(reserve, totals, lacks[seat])
                if ends is None:
                    return False
            else:
                ends = {reserve}  # the seat passes
            after = (seat + 1) % self.seats
            for end in ends:
                for refilled in _refills(end, sum(totals) - sum(end)):
                    if (refilled, after) not in seen:
                        seen.add((refilled, after))
                        stack.append((refilled, after))
        return True

    # ---- end of a round -----------------------------------------------------------

    def _round_over(self) -> bool:
        return self.over

    def _round_points(self) -> list[int]:
        # A round ends at the end of a turn, so no count is over the line length here.
        return [min(held) for held in self.collections]

    def _round_ranks(self) -> dict[int, int]:
        return rank_by({s: sorted(held) for s, held in enumerate(self.collections)})

    # ---- views and data -----------------------------------------------------------

    def _table_view(self, seat: int | None) -> View:
        # Everything is public: the reserve's make-up is 126 minus the visible tiles.
        line = self.line_length
        return {
            "phase": "decide" if self.zone else "start",
            "bonus_moves": self.bonus_moves,
            "line_length": line,
            "reserve_size": sum(self.reserve),
            "centre": list(self.centre),
            "zone": _names(self.zone),
            "players": [
                {
                    "seat": s,
                    "collection": list(held),
                    # Counts at a line never drop below it, so these are the used bonuses.
                    "lines": [COLORS[c] for c, n in enumerate(held) if n >= line],
                }
                for s, held in enumerate(self.collections)
            ],
        }

    def _round_data(self) -> dict[str, Any]:
        return {
            "v": list(self.reserve),
            "m": list(self.centre),
            "z": list(self.zone),
            "h": [list(held) for held in self.collections],
            "t": self.current,
            "b": self.bonus_moves,
            "o": self.over,
        }

    def _load_round(self, data: Mapping[str, Any]) -> None:
        self.reserve = list(data["v"])
        self.centre = list(data["m"])
        self.zone = list(data["z"])
        self.collections = [list(held) for held in data["h"]]
        self.current = data["t"]
        self.bonus_moves = data["b"]
        self.over = data["o"]

    def _copy_round(self, other: Self) -> None:
        self.reserve = list(other.reserve)
        self.centre = list(other.centre)
        self.zone = list(other.zone)
        self.collections = [list(held) for held in other.collections]
        self.current = other.current
        self.bonus_moves = other.bonus_moves
        self.over = other.over
