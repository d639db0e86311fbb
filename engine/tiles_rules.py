"""The tile game's rules of one move, on plain counts per colour: what the engine's moves
are made of, and what a search may call without building states."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from .common import COLORS


def missing_color(held: Sequence[int]) -> int | None:
    """The colour an alternative move may take: the one strictly lowest in a collection."""
    lowest = min(held)
    return held.index(lowest) if held.count(lowest) == 1 else None


def alternative_color(held: Sequence[int], centre: Sequence[int]) -> int | None:
    """The colour an alternative move may take from the centre, if any: the one colour
    strictly lowest in the collection `held`, when the centre has it."""
    missing = missing_color(held)
    return missing if missing is not None and centre[missing] else None


def reveal_outcome(c: int, zone: Collection[int], centre: Sequence[int]) -> str:
    """What revealing a tile of colour `c` is: "conflict" with a colour in the zone (which
    is also in the centre, where it matched, so this comes first), "success" where the
    centre has the colour, else "no_match"."""
    if c in zone:
        return "conflict"
    return "success" if centre[c] else "no_match"


def taken(zone: Collection[int], centre: Sequence[int]) -> list[int]:
    """Per colour, the tiles a take gains: the zone (never a colour twice) and the centre's
    tiles of its colours."""
    return [1 + centre[c] if c in zone else 0 for c in range(len(COLORS))]


def new_lines(held: Sequence[int], tiles: Sequence[int], line: int) -> list[int]:
    """The colours that adding `tiles` to `held` brings to a line for the first time: one
    bonus move each."""
    return [c for c, n in enumerate(tiles) if held[c] < line <= held[c] + n]


def over_limit(held: Sequence[int], line: int) -> list[int]:
    """Per colour, the tiles over the limit, returned to the reserve when a turn ends."""
    return [max(0, n - line) for n in held]
