"""The tile game's end without a winner: whether any player can still make progress.

A round also ends between turns when no sequence of moves and draws can give any player
a tile of a colour they hold fewer than a line of (docs/rules.md, Decisions, tile game
9). This module is that search.
"""

from __future__ import annotations

from collections.abc import Sequence

from .common import COLORS
from .tiles_rules import alternative_color, missing_color, reveal_outcome

CENTRE_MIN = 3
"""The check: the centre holds at least this many tiles at the start of every move."""

Counts = tuple[int, ...]
"""Counts per colour, as a hashable position in the search for progress."""


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
            if reveal_outcome(c, zone, centre) != "success":
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


def stuck(
    reserve_now: Sequence[int],
    centre: Sequence[int],
    collections: Sequence[Sequence[int]],
    current: int,
    line: int,
) -> bool:
    """Whether no sequence of moves and draws can bring any player nearer a line.

    Asked between turns, after the check. Along such a sequence no bonus move arises
    and collections are the same at every turn's end (a take of colours at a line all
    goes back to the reserve), so a position is the reserve (the centre being the rest)
    and the seat to move; the search visits each once.
    """
    seats = len(collections)
    mine = collections[current]
    if alternative_color(mine, centre) is not None or any(
        r and m and n < line for r, m, n in zip(reserve_now, centre, mine, strict=True)
    ):
        return False  # the usual case, quickly: the seat to move can gain a tile now
    lacks = [[n < line for n in held] for held in collections]
    lacking = [any(row[c] for row in lacks) for c in range(len(COLORS))]
    if not any(r and lack for r, lack in zip(reserve_now, lacking, strict=True)) and all(
        alternative_color(held, centre) is None for held in collections
    ):
        # Quickly too, where the search would try every spread of the colours nobody
        # lacks: a colour out of the reserve between turns never gets back to it or to
        # the centre, so only alternative moves could gain a lacking tile, and none can
        # open (lowest colours stay put, their centre counts only fall).
        return True
    totals = tuple(r + c for r, c in zip(reserve_now, centre, strict=True))
    missing = [missing_color(held) for held in collections]
    start = (tuple(reserve_now), current)
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
        after = (seat + 1) % seats
        for end in ends:
            for refilled in _refills(end, sum(totals) - sum(end)):
                if (refilled, after) not in seen:
                    seen.add((refilled, after))
                    stack.append((refilled, after))
    return True
