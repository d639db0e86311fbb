"""The six colours on a terminal: explicit ones, each with its letter.

Named terminal colours ("red", "magenta") go through the terminal's or Textual's theme,
under which red and purple came out the same and orange and yellow nearly so; these are
fixed RGB values picked to stay apart. Every marker, die and tile also carries its
colour's initial (R G B O Y P), so the colours can be told apart without seeing them. The
names come from the proto's `Color` enum, the one list of colours the client knows.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.color import Color as RichColor
from rich.text import Text

from genial.v1 import cards_pb2, color_pb2

Color = color_pb2.Color

RGB: dict[int, str] = {
    color_pb2.COLOR_RED: "#e8282b",
    color_pb2.COLOR_GREEN: "#22b14c",
    color_pb2.COLOR_BLUE: "#3d7cf0",
    color_pb2.COLOR_ORANGE: "#ff7a00",
    color_pb2.COLOR_YELLOW: "#ffe100",
    color_pb2.COLOR_PURPLE: "#a347e0",
}
"""The colour each Color value is drawn in."""

COLORS: tuple[int, ...] = tuple(v for v in Color.values() if v != color_pb2.COLOR_UNSPECIFIED)
"""The Color values in the proto's order, which is the order of every per-colour list."""


def name(color: int) -> str:
    """The colour's word: COLOR_RED is "red"."""
    return Color.Name(color).removeprefix("COLOR_").lower()


def letter(color: int) -> str:
    return name(color)[0].upper()


def ink(color: int) -> str:
    """Black or white, whichever reads better on the colour."""
    red, green, blue = RichColor.parse(RGB[color]).get_truecolor()
    return "black" if 0.299 * red + 0.587 * green + 0.114 * blue > 140 else "white"


def word(color: int) -> Text:
    """The colour's name, written in the colour."""
    return Text(name(color), style=f"bold {RGB[color]}")


def chip(color: int, glyph: str | None = None) -> Text:
    """A marker, a die or a tile: a block of the colour with its letter on it."""
    return Text(f" {glyph or letter(color)} ", style=f"bold {ink(color)} on {RGB[color]}")


def cell(color: int) -> Text:
    """One tile of a row of tiles, a single character wide."""
    return Text(letter(color), style=f"bold {ink(color)} on {RGB[color]}")


def chips(colors: Iterable[int]) -> Text:
    """Chips for Color values, "-" for none."""
    return Text(" ").join(chip(c) for c in colors) or Text("-")


def card_colors(card: int) -> tuple[int, int]:
    """A card's two Color values: CARD_RED_GREEN is (COLOR_RED, COLOR_GREEN)."""
    first, second = cards_pb2.Card.Name(card).removeprefix("CARD_").split("_")
    return Color.Value(f"COLOR_{first}"), Color.Value(f"COLOR_{second}")


def card_chips(card: int) -> Text:
    """A card as its two colours side by side."""
    first, second = card_colors(card)
    return chip(first) + chip(second)


def cards_chips(cards: Iterable[int]) -> Text:
    return Text(" ").join(card_chips(c) for c in cards) or Text("-")


def card_words(card: int) -> Text:
    """A card in words, its colours in colour: "red/green"."""
    first, second = card_colors(card)
    return word(first) + "/" + word(second)


def counts(per_color: Iterable[int], sign: str = "") -> Text:
    """Counts in Color order in words, the zeros left out: "2 red, 1 blue"; "nothing"."""
    parts = [
        Text(f"{sign}{n} ") + word(color) for color, n in zip(COLORS, per_color, strict=False) if n
    ]
    return Text(", ").join(parts) if parts else Text("nothing")
