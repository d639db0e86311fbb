"""Einfach Genial: Das Würfelspiel (the dice game).

Each player rolls their own dice (4, 3 or 2 with 2, 3 or 4 seats), up to three
times a turn, then scores: every die scores one cross in its colour for each
die of that colour in front of the other players, and a group of k >= 2 equal
own dice may instead be used as a joker for k-1 crosses in one colour of the
player's choice. A score sheet has `sum(sections)` boxes per colour; a section
opens only when every colour has a cross in the section before it. Colours are
kept as indices into COLORS. In `chance_outcomes` a roll is one batch of draws, a
colour index per die: each multiset of colours once, listed in colour order.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Collection, Mapping, Sequence
from itertools import chain, product
from typing import Any, ClassVar, Self

from .common import COLORS, Event, IllegalMove, Move, Reason, View, color, move_fields, rank_by
from .core import GameState
from .rng import Rng

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

Counts = tuple[int, ...]
"""Per colour, a number of dice or crosses."""

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


def joker_groups(own: Sequence[int]) -> list[int]:
    """The colours whose dice may be a joker, given the own dice as counts per colour:
    those with two or more."""
    return [c for c, n in enumerate(own) if n >= 2]


def match_crosses(
    own: Sequence[int], others: Sequence[int], jokers: Collection[int] = ()
) -> list[int]:
    """Per colour, the crosses a roll earns by matches: each own die whose group is not a
    joker scores one for every die of its colour in front of the other players. Dice are
    counts per colour."""
    return [0 if c in jokers else n * others[c] for c, n in enumerate(own)]


def joker_crosses(own: Sequence[int], group: int) -> int:
    """The crosses of one colour a group of two or more equal dice gives as a joker."""
    return own[group] - 1


def crosses_owed(own: Sequence[int], others: Sequence[int], jokers: Mapping[int, int]) -> Counts:
    """Per colour, the crosses a roll earns with `jokers` (group -> colour)."""
    owed = match_crosses(own, others, jokers.keys())
    for group, target in jokers.items():
        owed[target] += joker_crosses(own, group)
    return tuple(owed)


def place_crosses(sheet: Sequence[int], owed: Sequence[int], needs: Sequence[int]) -> Counts:
    """The sheet after placing what fits of `owed`: every cross that fits, until none does.

    A cross only ever opens boxes, never closes one, so this loses the fewest crosses in
    any order. The boxes open to every row are those whose need (`box_needs`, which never
    decreases) the lowest row meets.
    """
    after = list(sheet)
    left = list(owed)
    while True:
        limit = bisect_right(needs, min(after))
        moved = False
        for c, n in enumerate(left):
            room = limit - after[c]
            if n and room > 0:
                step = min(n, room)
                after[c] += step
                left[c] -= step
                moved = True
        if not moved:
            return tuple(after)


def counts_of(dice: Sequence[int]) -> Counts:
    """Dice (colour indices) as counts per colour."""
    return tuple(map(dice.count, range(len(COLORS))))


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
        self.rng.start_batch()  # a roll's order changes no score
        self.dice[seat] = [self.rng.below(len(COLORS)) for _ in range(DICE_PER_SEAT[self.seats])]
        self.rng.end_batch()

    # ---- turn -----------------------------------------------------------------------

    def _to_move(self) -> int:
        return self.current

    def _legal_moves(self) -> list[dict[str, Any]]:
        if not self.rolled:
            return [{"type": "roll"}]
        groups = joker_groups(counts_of(self.dice[self.current]))
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

    @staticmethod
    def _parse_jokers(raw: Any, own: Counts) -> list[tuple[int, int]]:
        """(group colour, target colour) pairs, checked against the dice just rolled
        (`own`, as counts per colour)."""
        if not isinstance(raw, list):
            raise IllegalMove(Reason.MALFORMED_MOVE, "jokers is a list of {group, color}")
        groups = joker_groups(own) if raw else []
        jokers: list[tuple[int, int]] = []
        for item in raw:
            if not isinstance(item, Mapping) or set(item) != JOKER_FIELDS:
                raise IllegalMove(Reason.MALFORMED_MOVE, "a joker is {group, color}")
            group, target = color(item["group"]), color(item["color"])
            if group not in groups:
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
        seat = self.current
        own = counts_of(self.dice[seat])
        jokers = self._parse_jokers(raw_jokers, own)
        others = counts_of(list(chain.from_iterable(self.dice[:seat] + self.dice[seat + 1 :])))
        owed = crosses_owed(own, others, dict(jokers))
        before = self.sheets[seat]
        after = place_crosses(before, owed, self.needs)
        placed = [a - b for a, b in zip(after, before, strict=True)]
        self.sheets[seat] = list(after)
        self.current = (seat + 1) % self.seats
        self.rolled = False
        self.rerolls_left = REROLLS
        return {
            "type": "score",
            "seat": seat,
            "jokers": [{"group": COLORS[g], "color": COLORS[t]} for g, t in jokers],
            "crosses": placed,
            "lost": [p - x for p, x in zip(owed, placed, strict=True)],
        }

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

    def _load_view(self, view: View, rng: Rng) -> None:
        # Nothing is hidden but the future, which the new seed decides.
        table = view["table"]
        self.needs = box_needs(self.options["sections"])
        self.dice = [[COLORS.index(c) for c in p["dice"]] for p in table["players"]]
        self.sheets = [list(p["sheet"]) for p in table["players"]]
        self.current = view["to_move"] if view["to_move"] is not None else self.first_seat
        self.rolled = table["phase"] == "decide"
        self.rerolls_left = table["rerolls_left"]

    def counts(self) -> list[list[int]]:
        return self.sheets

    def goal(self) -> int:
        return len(self.needs)

    def _round_data(self) -> dict[str, Any]:
        return {
            "dice": [list(d) for d in self.dice],
            "sheets": [list(h) for h in self.sheets],
            "to_move": self.current,
            "rolled": self.rolled,
            "rerolls_left": self.rerolls_left,
        }

    def _load_round(self, data: Mapping[str, Any]) -> None:
        self.needs = box_needs(self.options["sections"])
        self.dice = [list(d) for d in data["dice"]]
        self.sheets = [list(h) for h in data["sheets"]]
        self.current = data["to_move"]
        self.rolled = data["rolled"]
        self.rerolls_left = data["rerolls_left"]

    def _copy_round(self, other: Self) -> None:
        self.needs = other.needs
        self.dice = [list(d) for d in other.dice]
        self.sheets = [list(h) for h in other.sheets]
        self.current = other.current
        self.rolled = other.rolled
        self.rerolls_left = other.rerolls_left
