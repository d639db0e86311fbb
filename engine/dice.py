"""Einfach Genial: Das Würfelspiel (the dice game).

Each player rolls their own dice (4, 3 or 2 with 2, 3 or 4 seats), up to three
times a turn, then scores: every die scores one cross in its colour for each
die of that colour in front of the other players, and a group of k >= 2 equal
own dice may instead be used as a joker for k-1 crosses in one colour of the
player's choice. A score sheet has `sum(sections)` boxes per colour; a section
opens only when every colour has a cross in the section before it. Colours are
kept as indices into COLORS.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import product
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

DICE_PER_SEAT: dict[int, int] = {2: 4, 3: 3, 4: 2}
REROLLS = 2
"""Re-rolls after the compulsory first roll of a turn."""
WINNER_POINTS = 7
MAX_SECTIONS = 5
MAX_SECTION_SIZE = 9
MAX_BOXES = 15

MOVE_FIELDS: dict[str, tuple[str, ...]] = {
    "roll": (),
    "reroll": (),
    "score": ("jokers",),
}
JOKER_FIELDS = frozenset({"group", "color"})

# Choices for one joker-eligible group in `_legal_moves`: not used, or a target colour.
GROUP_CHOICES: tuple[int | None, ...] = (None, *range(len(COLORS)))


def box_needs(sections: list[int]) -> tuple[int, ...]:
    """For each box (0-based) of a row, the crosses every row needs before it may be crossed.

    A box in section s > 0 needs a cross in every colour in section s-1, that is
    every row at least one past the start of section s-1.
    """
    needs: list[int] = []
    need = 0
    for size in sections:
        start = len(needs)
        needs += [need] * size
        need = start + 1
    return tuple(needs)


def _names(dice: list[int]) -> list[str]:
    return [COLORS[c] for c in dice]


class DiceGame(GameState):
    """The dice game.

    With option `variant_e` nobody rolls at the start of a round, so the
    starting player has nothing to match and can only score jokers, and each
    later player matches only the dice of those who have already had a turn.
    The rulebook has the players roll but not show their dice; not rolling at
    all is the same for every score and simpler.
    """

    kind: ClassVar[str] = "dice"
    option_defaults: ClassVar[Mapping[str, Any]] = {
        "rounds": 1,
        "variant_e": False,
        "sections": [3, 3, 3],
    }

    dice: list[list[int]]
    """Per seat, the dice in front of the player (their last roll; empty before any)."""
    sheets: list[list[int]]
    """Per seat, the crosses in each colour's row, in COLORS order."""
    current: int
    rolled: bool
    """Whether the seat to move has made the compulsory first roll of the turn."""
    rerolls_left: int
    needs: tuple[int, ...]
    """`box_needs` of the sections option (kept to avoid recomputing it every move)."""

    @classmethod
    def _check_options(cls, seats: int, options: dict[str, Any]) -> None:
        sections = options["sections"]
        if (
            not isinstance(sections, list)
            or not 1 <= len(sections) <= MAX_SECTIONS
            or any(type(s) is not int or not 1 <= s <= MAX_SECTION_SIZE for s in sections)
            or sum(sections) > MAX_BOXES
        ):
            raise IllegalMove(
                Reason.BAD_OPTION,
                f"sections must be 1-{MAX_SECTIONS} sizes of 1-{MAX_SECTION_SIZE} boxes, "
                f"at most {MAX_BOXES} in all",
            )

    # ---- setup --------------------------------------------------------------------

    def _setup_round(self) -> list[Event]:
        n = self.seats
        self.needs = box_needs(self.options["sections"])
        self.sheets = [[0] * len(COLORS) for _ in range(n)]
        self.dice = [[] for _ in range(n)]
        self.current = self.first_seat
        self.rolled = False
        self.rerolls_left = REROLLS
        if not self.options["variant_e"]:
            # Everybody but the starting player rolls, in turn order from the next seat.
            for i in range(1, n):
                self._roll((self.first_seat + i) % n)
        return [
            {
                "type": "setup",
                "round": self.round,
                "first_seat": self.first_seat,
                "dice": [_names(d) for d in self.dice],
            }
        ]

    def _roll(self, seat: int) -> None:
        self.dice[seat] = [self.rng.below(len(COLORS)) for _ in range(DICE_PER_SEAT[self.seats])]

    # ---- turn -----------------------------------------------------------------------

    def _to_move(self) -> int:
        return self.current

    def _groups(self) -> list[int]:
        """Colours of the joker-eligible groups (two or more own dice), in COLORS order."""
        own = self.dice[self.current]
        return [c for c in range(len(COLORS)) if own.count(c) >= 2]

    def _legal_moves(self) -> list[dict[str, Any]]:
        if not self.rolled:
            return [{"type": "roll"}]
        groups = self._groups()
        moves: list[dict[str, Any]] = []
        for targets in product(GROUP_CHOICES, repeat=len(groups)):
            jokers = [
                {"group": COLORS[g], "color": COLORS[t]}
                for g, t in zip(groups, targets, strict=True)
                if t is not None
            ]
            moves.append({"type": "score", "jokers": jokers})
        if self.rerolls_left:
            moves.append({"type": "reroll"})
        return moves

    def _apply(self, move: Move) -> list[Event]:
        kind = move_fields(move, MOVE_FIELDS)
        seat = self.current
        if kind == "roll":
            if self.rolled:
                raise IllegalMove(Reason.WRONG_PHASE, "already rolled: reroll or score")
            self.rolled = True
        elif not self.rolled:
            raise IllegalMove(Reason.WRONG_PHASE, "the first roll of a turn comes first")
        elif kind == "reroll":
            if not self.rerolls_left:
                raise IllegalMove(Reason.NO_REROLL_LEFT, f"only {REROLLS} re-rolls a turn")
            self.rerolls_left -= 1
        else:
            return [self._score(move.get("jokers", []))]
        self._roll(seat)
        return [
            {
                "type": "roll",
                "seat": seat,
                "dice": _names(self.dice[seat]),
                "rerolls_left": self.rerolls_left,
                "reroll": kind == "reroll",
            }
        ]

    def _parse_jokers(self, raw: Any) -> list[tuple[int, int]]:
        """(group colour, target colour) pairs, checked against the dice just rolled."""
        if not isinstance(raw, list):
            raise IllegalMove(Reason.MALFORMED_MOVE, "jokers is a list of {group, color}")
        own = self.dice[self.current]
        jokers: list[tuple[int, int]] = []
        for item in raw:
            if not isinstance(item, Mapping) or set(item) != JOKER_FIELDS:
                raise IllegalMove(Reason.MALFORMED_MOVE, "a joker is {group, color}")
            group, target = color(item["group"]), color(item["color"])
            if own.count(group) < 2:
                raise IllegalMove(
                    Reason.BAD_JOKER, f"a joker needs two or more {COLORS[group]} dice"
                )
            # One listing per choice keeps moves comparable with the legal ones.
            if jokers and group <= jokers[-1][0]:
                raise IllegalMove(
                    Reason.BAD_JOKER, f"each group at most once, in the order of {COLORS}"
                )
            jokers.append((group, target))
        return jokers

    def _score(self, raw_jokers: Any) -> Event:
        jokers = self._parse_jokers(raw_jokers)
        seat = self.current
        own = self.dice[seat]
        others = [0] * len(COLORS)
        for s, dice in enumerate(self.dice):
            if s != seat:
                for c in dice:
                    others[c] += 1
        joker_groups = {g for g, _ in jokers}
        pending = [0] * len(COLORS)
        for c in own:
            if c not in joker_groups:
                pending[c] += others[c]
        for g, t in jokers:
            pending[t] += own.count(g) - 1
        placed = self._cross(self.sheets[seat], pending)
        self.current = (seat + 1) % self.seats
        self.rolled = False
        self.rerolls_left = REROLLS
        return {
            "type": "score",
            "seat": seat,
            "jokers": [{"group": COLORS[g], "color": COLORS[t]} for g, t in jokers],
            "crosses": placed,
            "lost": [p - x for p, x in zip(pending, placed, strict=True)],
        }

    def _cross(self, sheet: list[int], pending: list[int]) -> list[int]:
        """Place what can be placed of `pending` on `sheet`; the crosses placed per colour.

        A cross only ever opens boxes, never closes one, so placing whatever is
        placeable until nothing is loses the fewest crosses in any order.
        """
        boxes = len(self.needs)
        placed = [0] * len(COLORS)
        progress = True
        while progress:
            progress = False
            lowest = min(sheet)
            for c in range(len(COLORS)):
                while (
                    placed[c] < pending[c] and sheet[c] < boxes and lowest >= self.needs[sheet[c]]
                ):
                    sheet[c] += 1
                    placed[c] += 1
                    progress = True
        return placed

    # ---- end of a round -------------------------------------------------------------

    def _round_over(self) -> bool:
        # Only a score can fill a sheet, and a score passes the turn: the seat before the
        # one to roll is the only one that can have just finished.
        return not self.rolled and min(self.sheets[self.current - 1]) == len(self.needs)

    def _round_points(self) -> list[int]:
        boxes = len(self.needs)
        return [WINNER_POINTS if min(sheet) == boxes else min(sheet) for sheet in self.sheets]

    def _round_ranks(self) -> dict[int, int]:
        # The winner's full sheet sorts above every other, so one ordering ranks all.
        return rank_by({s: sorted(self.sheets[s]) for s in range(self.seats)})

    # ---- views and data -----------------------------------------------------------

    def _table_view(self, seat: int | None) -> View:
        return {
            "phase": "decide" if self.rolled else "roll",
            "rerolls_left": self.rerolls_left,
            "sections": list(self.options["sections"]),
            "players": [
                {"seat": s, "dice": _names(self.dice[s]), "sheet": list(self.sheets[s])}
                for s in range(self.seats)
            ],
        }

    def _round_data(self) -> dict[str, Any]:
        return {
            "d": [list(d) for d in self.dice],
            "h": [list(h) for h in self.sheets],
            "t": self.current,
            "a": self.rolled,
            "l": self.rerolls_left,
        }

    def _load_round(self, data: Mapping[str, Any]) -> None:
        self.needs = box_needs(self.options["sections"])
        self.dice = [list(d) for d in data["d"]]
        self.sheets = [list(h) for h in data["h"]]
        self.current = data["t"]
        self.rolled = data["a"]
        self.rerolls_left = data["l"]

    def _copy_round(self, other: Self) -> None:
        self.needs = other.needs
        self.dice = [list(d) for d in other.dice]
        self.sheets = [list(h) for h in other.sheets]
        self.current = other.current
        self.rolled = other.rolled
        self.rerolls_left = other.rerolls_left
