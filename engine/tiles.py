"""Einfach Genial: Wer zu viel riskiert, verliert! (the push-your-luck tile game).

126 tiles, 21 of each colour. On a move a player reveals tiles from the reserve
into the collection zone while each matches a colour in the centre and none in
the zone, then takes the zone and the centre tiles of its colours into their
collection. A colour first reaching a line gives a bonus move; the first player
with a line of every colour wins the round.

The reserve is kept as counts per colour: each draw picks uniformly from it with
the game's generator, so the state holds no order and nothing of the future.
Colours are indices into COLORS inside the state and names in moves, events and
views. In `chance_outcomes` a draw is a colour index: the tile a reveal turns up, and
the tiles that refill the centre (one batch).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Self

from .common import (
    COLOR_INDEX,
    COLORS,
    Event,
    IllegalMove,
    Move,
    Reason,
    View,
    color,
    move_fields,
    rank_by,
)
from .core import GameState
from .rng import Rng
from .tiles_progress import CENTRE_MIN, stuck
from .tiles_rules import alternative_color, new_lines, over_limit, reveal_outcome, taken

TILES_PER_COLOR = 21
LINE_LENGTH = 7
LINE_LENGTH_FOUR_SEATS = 5
MIN_LINE, MAX_LINE = 3, TILES_PER_COLOR

MOVE_FIELDS: dict[str, tuple[str, ...]] = {
    "reveal": (),
    "take": (),
    "alternative": ("color",),
}


def _names(colors: list[int]) -> list[str]:
    return [COLORS[c] for c in colors]


def unseen(table: Mapping[str, Any]) -> list[int]:
    """The reserve's make-up from a table view: 21 of each colour less every tile in sight
    (centre, collection zone, collections). It is public; views show only its size."""
    left = [TILES_PER_COLOR - n for n in table["centre"]]
    for name in table["zone"]:
        left[COLOR_INDEX[name]] -= 1
    for p in table["players"]:
        for c, n in enumerate(p["collection"]):
            left[c] -= n
    return left


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

    def _can_start(self, seat: int) -> bool:
        if any(self.reserve):
            return True
        return alternative_color(self.collections[seat], self.centre) is not None

    def _legal_moves(self) -> list[dict[str, Any]]:
        moves: list[dict[str, Any]] = []
        if any(self.reserve):
            moves.append({"type": "reveal"})
        if self.zone:
            moves.append({"type": "take"})
        else:
            alternative = alternative_color(self.collections[self.current], self.centre)
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
        outcome = reveal_outcome(c, self.zone, self.centre)
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
        tiles = taken(self.zone, self.centre)
        for c in self.zone:
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
        allowed = alternative_color(self.collections[self.current], self.centre)
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
        lines = new_lines(held, tiles, line)
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
        self.rng.start_batch()  # into the centre, kept as counts
        while sum(self.centre) < CENTRE_MIN and any(self.reserve):
            c = self._draw()
            self.centre[c] += 1
            added.append(c)
        self.rng.end_batch()
        if added:
            events.append({"type": "refill", "colors": _names(added)})

    def _end_turn(self, events: list[Event]) -> None:
        """Return tiles over the limit; then the next seat that can move, if the round goes on."""
        seat = self.current
        held = self.collections[seat]
        line = self.line_length
        back = over_limit(held, line)
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
        return stuck(self.reserve, self.centre, self.collections, self.current, self.line_length)

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

    def _load_view(self, view: View, rng: Rng) -> None:
        # Nothing is hidden but the order of the reserve, which the new seed decides.
        table = view["table"]
        self.reserve = unseen(table)
        self.centre = list(table["centre"])
        self.zone = [COLOR_INDEX[name] for name in table["zone"]]
        self.collections = [list(p["collection"]) for p in table["players"]]
        self.current = view["to_move"] if view["to_move"] is not None else self.first_seat
        self.bonus_moves = table["bonus_moves"]
        self.over = view["finished"]

    def counts(self) -> list[list[int]]:
        return self.collections

    def goal(self) -> int:
        return self.line_length

    def _round_data(self) -> dict[str, Any]:
        return {
            "reserve": list(self.reserve),
            "centre": list(self.centre),
            "zone": list(self.zone),
            "collections": [list(held) for held in self.collections],
            "to_move": self.current,
            "bonus_moves": self.bonus_moves,
            "over": self.over,
        }

    def _load_round(self, data: Mapping[str, Any]) -> None:
        self.reserve = list(data["reserve"])
        self.centre = list(data["centre"])
        self.zone = list(data["zone"])
        self.collections = [list(held) for held in data["collections"]]
        self.current = data["to_move"]
        self.bonus_moves = data["bonus_moves"]
        self.over = data["over"]

    def _copy_round(self, other: Self) -> None:
        self.reserve = list(other.reserve)
        self.centre = list(other.centre)
        self.zone = list(other.zone)
        self.collections = [list(held) for held in other.collections]
        self.current = other.current
        self.bonus_moves = other.bonus_moves
        self.over = other.over
