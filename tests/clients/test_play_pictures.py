"""What `genial play` draws, for tables set up by hand: the colours, and the card game's
scoring board with its areas and each marker's ceiling."""

from __future__ import annotations

import colorsys
import itertools
import re

import pytest
from rich.color import Color as RichColor
from rich.console import Console, RenderableType

from genial.client.play import cards, palette
from genial.v1 import cards_pb2, color_pb2
from genial.v1 import types_pb2 as types


def text(picture: RenderableType) -> str:
    console = Console(width=200, record=True, color_system=None, file=open("/dev/null", "w"))  # noqa: SIM115
    console.print(picture)
    return console.export_text()


def hue(rgb: str) -> float:
    """The colour's hue in degrees."""
    red, green, blue = (c / 255 for c in RichColor.parse(rgb).get_truecolor())
    return colorsys.rgb_to_hls(red, green, blue)[0] * 360


def test_every_colour_of_the_proto_has_its_own_colour_and_letter() -> None:
    values = [v for v in color_pb2.Color.values() if v != color_pb2.COLOR_UNSPECIFIED]
    assert list(palette.COLORS) == values
    assert set(palette.RGB) == set(values)
    assert len({palette.letter(c) for c in values}) == len(values)
    for a, b in itertools.combinations(values, 2):
        # Red and purple, orange and yellow were hard to tell apart under the theme's
        # colours: now every two are at least 20 degrees apart on the colour wheel.
        apart = abs(hue(palette.RGB[a]) - hue(palette.RGB[b]))
        assert min(apart, 360 - apart) >= 20, (palette.name(a), palette.name(b), apart)


def test_a_card_shows_its_two_colours_by_letter() -> None:
    card = cards_pb2.CARD_RED_PURPLE
    assert palette.card_colors(card) == (color_pb2.COLOR_RED, color_pb2.COLOR_PURPLE)
    assert palette.card_chips(card).plain == " R  P "
    assert palette.card_words(card).plain == "red/purple"


def board_rows(markers: list[int]) -> dict[str, tuple[int, str]]:
    """Each colour's row of a player's board: the marker's column as drawn, and what is
    written after the row ("max 6", "held at 3", "")."""
    drawn = text(cards.board(markers)).splitlines()
    assert re.fullmatch(r" *0 │ 1  2  3 │ 4  5  6 │ 7  8  9 10 *", drawn[0])
    board_width = 11 * cards.CELL + 3  # 11 columns, a bar between two areas
    rows = {}
    for line in drawn[1:7]:
        # The colour's name, its row (from where the heading's row starts), the marker's
        # column and what limits it.
        name, row = line[:6].strip(), line[7 : 7 + board_width]
        column, _, limit = line[7 + board_width :].strip().partition(" ")
        # The marker is its colour's letter, in its column's cell.
        assert row.replace("│", "").index(name[0].upper()) // cards.CELL == int(column), line
        rows[name] = (int(column), limit)
    return rows


@pytest.mark.parametrize(
    ("markers", "expected"),
    [
        # At the start every ceiling is 3.
        ([0, 0, 0, 0, 0, 0], ["max 3"] * 6),
        # Red alone at 0 with the others in 1-3: red may go to 6 (the others' lowest is in
        # 1-3), the others only to 3 (red, their lowest, is at 0).
        ([0, 3, 3, 2, 1, 3], ["max 6", "held at 3", "held at 3", "max 3", "max 3", "held at 3"]),
        # Yellow alone in 1-3, the others at 4 or more: yellow goes anywhere, the others to 6.
        ([5, 6, 4, 6, 2, 6], ["max 6", "held at 6", "max 6", "held at 6", "", "held at 6"]),
        # Everything at 4 or more: no ceiling below the last column.
        ([4, 7, 10, 9, 4, 5], [""] * 6),
    ],
)
def test_the_card_board_shows_each_markers_ceiling(markers: list[int], expected: list[str]) -> None:
    rows = board_rows(markers)
    assert [rows[palette.name(c)] for c in palette.COLORS] == list(
        zip(markers, expected, strict=True)
    )


def test_the_card_table_has_a_board_per_player_and_the_hand() -> None:
    view = types.GameView(
        players=[types.Player(seat=0, display_name="Ada"), types.Player(seat=1, display_name="Bo")],
        viewer=0,
        to_move=1,
        cards=cards_pb2.CardsView(
            phase=cards_pb2.CARDS_PHASE_PLAY,
            deck_size=40,
            players=[
                cards_pb2.CardsPlayer(seat=0, markers=[1] * 6, open_cards=[1], hand_size=6),
                cards_pb2.CardsPlayer(seat=1, markers=[2] * 6, open_cards=[15], hand_size=6),
            ],
            hand=[cards_pb2.CARD_RED_GREEN, cards_pb2.CARD_BLUE_ORANGE],
        ),
    )
    drawn = text(cards.table(view))
    assert "deck 40 · discard 0 · play a card" in drawn
    assert re.search(r"Ada \(you\) +6 cards +Bo +◀ to move +6 cards", drawn)
    assert drawn.count("0 │ 1  2  3 │ 4  5  6 │ 7  8  9 10") == 2
    assert "your hand  R  G   B  O" in drawn
