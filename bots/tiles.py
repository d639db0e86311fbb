"""The tile game for bots: a state from a view, the greedy rules and the strong ranking.

Nothing of the tile game is hidden: the reserve holds 21 of each colour less the
tiles in sight (centre, collection zone, collections), and only the order of the
draws is unknown, which a sampled state leaves to its own fresh seed. The strong
bot therefore needs no samples: it weighs every draw of the move exactly.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from genial.engine import COLORS, GameState, Move, Rng, TileGame, View
from genial.engine.tiles import TILES_PER_COLOR

from .base import Kit, progress, state_from_view

WEAKEST = 2.0
"""Extra weight of the smallest colour: it decides the rank."""
LINE_BONUS = 2.0
"""A colour first reaching a line gives a bonus move, worth about a take."""
EXPOSURE = 0.5
"""How much of what a position leaves the next player the strong bot counts against
it. Arena runs against greedy (800 games, 2 seats) won 56% without it and 61% with
0.5; 1 did no better than 0.5."""

Counts = tuple[int, ...]
"""Counts per colour: a collection, the centre or the reserve."""


def reserve(view: View) -> list[int]:
    """The reserve's make-up: 21 of each colour less every tile in sight."""
    table = view["table"]
    left = [TILES_PER_COLOR - n for n in table["centre"]]
    for name in table["zone"]:
        left[COLORS.index(name)] -= 1
    for p in table["players"]:
        for c, n in enumerate(p["collection"]):
            left[c] -= n
    return left


def sample(view: View, rng: Rng) -> GameState:
    table = view["table"]
    return state_from_view(
        TileGame,
        view,
        rng,
        {
            "v": reserve(view),
            "m": table["centre"],
            "z": [COLORS.index(name) for name in table["zone"]],
            "h": [p["collection"] for p in table["players"]],
            "t": view["to_move"],
            "b": table["bonus_moves"],
            "o": False,
        },
    )


def gain(held: Sequence[int], tiles: Sequence[int], line: int) -> float:
    """What adding `tiles` to a collection is worth, bonus moves for new lines included."""
    after = [h + t for h, t in zip(held, tiles, strict=True)]
    lines = sum(h < line <= a for h, a in zip(held, after, strict=True))
    return progress(after, line, WEAKEST) - progress(held, line, WEAKEST) + LINE_BONUS * lines


def rank(view: View, moves: Sequence[Move]) -> list[Move]:
    """Greedy: a take or an alternative move by what it adds; a reveal by the risk of
    failure, computed from the reserve: the chance of each colour times what taking
    after it would add (a failure adds nothing and ends the turn)."""
    table = view["table"]
    line = table["line_length"]
    held = table["players"][view["viewer"]]["collection"]
    centre = table["centre"]
    zone = {COLORS.index(name) for name in table["zone"]}

    def take(colours: set[int]) -> float:
        return gain(held, [1 + centre[c] if c in colours else 0 for c in range(len(COLORS))], line)

    def value(move: Move) -> float:
        if move["type"] == "take":
            return take(zone)
        if move["type"] == "alternative":
            c = COLORS.index(move["color"])
            return gain(held, [int(k == c) for k in range(len(COLORS))], line)
        left = reserve(view)
        total = sum(left)
        return sum(
            n / total * take(zone | {c})
            for c, n in enumerate(left)
            if n and centre[c] and c not in zone
        )

    # On equal value a take comes first: it clears the centre of its colours, where a
    # reveal that fails would leave more tiles for the next player.
    return sorted(moves, key=lambda m: (value(m), m["type"] == "take"), reverse=True)


def strong(view: View, moves: Sequence[Move]) -> list[Move]:
    """The strong bot: every move by the exact expectation of the rest of the move, over
    every draw from the reserve (the only unknown), with the best choice after each
    success: greedy weighs one reveal at most.

    A position where the turn ends is worth the seat's tiles towards its lines (each
    colour capped at the line; no extra weight for the smallest colour, which in
    arena runs only made the bot reveal for it too eagerly, 52% against greedy with
    weight 2 and 56% without), less `EXPOSURE` times what the next player may expect
    from one reveal and take on the centre left to them: a failure hands them the
    zone, a take clears colours from the centre. A bonus move still owed is worth
    `LINE_BONUS`, or the alternative move it allows, counted exactly (which takes the
    last colour of a full collection with no risk).
    """
    table = view["table"]
    line: int = table["line_length"]
    players = table["players"]
    after_me: Counts = tuple(players[(view["viewer"] + 1) % len(players)]["collection"])

    def towards_lines(held: Counts) -> int:
        return sum(min(n, line) for n in held)

    def leaf(held: Counts, centre: Counts, left: Counts) -> float:
        """The end of the turn: tiles over a line go back to the reserve."""
        own = towards_lines(held)
        if min(held) >= line:
            return own  # won: nothing is left to the others
        back = [n + max(0, h - line) for n, h in zip(left, held, strict=True)]
        total = sum(back)
        base = towards_lines(after_me)
        exposed = sum(
            n / total * (towards_lines(added(after_me, c, 1 + centre[c])) - base)
            for c, n in enumerate(back)
            if n and centre[c]
        )
        return own - EXPOSURE * exposed

    def end_move(held: Counts, centre: Counts, left: Counts, bonus: int) -> float:
        if min(held) >= line or not bonus:
            return leaf(held, centre, left)
        plain = leaf(held, centre, left) + LINE_BONUS * bonus
        safe = alternative(held, centre, left, bonus - 1)
        return plain if safe is None else max(plain, safe)

    def alternative(held: Counts, centre: Counts, left: Counts, bonus: int) -> float | None:
        """The alternative move, if open (decision 5 of the rules)."""
        lowest = min(held)
        if held.count(lowest) != 1 or not centre[held.index(lowest)]:
            return None
        c = held.index(lowest)
        line_now = int(held[c] + 1 == line)
        return end_move(added(held, c, 1), added(centre, c, -1), left, bonus + line_now)

    def take(held: Counts, centre: Counts, left: Counts, bonus: int, zone: frozenset[int]) -> float:
        gained = [1 + centre[c] if c in zone else 0 for c in range(len(COLORS))]
        after = tuple(h + g for h, g in zip(held, gained, strict=True))
        lines = sum(h < line <= a for h, a in zip(held, after, strict=True))
        rest = tuple(0 if c in zone else n for c, n in enumerate(centre))
        return end_move(after, rest, left, bonus + lines)

    @cache
    def reveal(
        held: Counts, centre: Counts, left: Counts, bonus: int, zone: frozenset[int]
    ) -> float:
        total = sum(left)
        value = 0.0
        for c, n in enumerate(left):
            if not n:
                continue
            rest = added(left, c, -1)
            if c in zone or not centre[c]:
                # A failure: the zone and the drawn tile go to the centre; the turn ends.
                failed = [m + (k in zone or k == c) for k, m in enumerate(centre)]
                value += n / total * leaf(held, tuple(failed), rest)
            else:
                grown = zone | {c}
                after = take(held, centre, rest, bonus, grown)
                if any(rest):
                    after = max(after, reveal(held, centre, rest, bonus, grown))
                value += n / total * after
        return value

    held: Counts = tuple(players[view["viewer"]]["collection"])
    centre: Counts = tuple(table["centre"])
    left: Counts = tuple(reserve(view))
    zone = frozenset(COLORS.index(name) for name in table["zone"])
    bonus: int = table["bonus_moves"]

    def value(move: Move) -> float:
        if move["type"] == "take":
            return take(held, centre, left, bonus, zone)
        if move["type"] == "reveal":
            return reveal(held, centre, left, bonus, zone)
        safe = alternative(held, centre, left, bonus)
        assert safe is not None  # the engine offers the move only when it is open
        return safe

    # On equal value a take comes first, as in greedy (rounding keeps float noise out).
    return sorted(moves, key=lambda m: (round(value(m), 9), m["type"] == "take"), reverse=True)


def added(counts: Counts, c: int, n: int) -> Counts:
    return (*counts[:c], counts[c] + n, *counts[c + 1 :])


def rows(state: GameState) -> list[list[int]]:
    assert isinstance(state, TileGame)
    return state.collections


KIT = Kit(
    sample=sample,
    rank=rank,
    rows=rows,
    goal=lambda state: int(state.options["line_length"]),
    weakest=WEAKEST,
    strong=strong,
)
