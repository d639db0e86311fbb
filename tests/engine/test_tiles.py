"""The tile game: the rulebook's worked examples, the rules around them, and random play."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from genial.engine import COLORS, IllegalMove, Reason, Rng, TileGame, decode, new_game
from genial.engine.tiles_rules import alternative_color

SEED = bytes(range(16))
TOTAL = 126


def col(name: str) -> int:
    return COLORS.index(name)


def counts(**by_colour: int) -> list[int]:
    """Six counts from colour names: counts(red=2) == [2, 0, 0, 0, 0, 0]."""
    result = [0] * len(COLORS)
    for name, n in by_colour.items():
        result[col(name)] = n
    return result


def tiles_in_play(game: TileGame) -> int:
    return sum(game.reserve) + sum(game.centre) + len(game.zone) + sum(map(sum, game.collections))


def with_fields(game: TileGame, **fields: Any) -> TileGame:
    """A clone of `game` with the named round fields replaced."""
    new = game.clone()
    for name, value in fields.items():
        setattr(new, name, value)
    return new


def table(
    seats: int = 3,
    *,
    centre: list[int],
    collections: dict[int, list[int]] | None = None,
    zone: list[str] | None = None,
    current: int = 0,
    line_length: int | None = None,
) -> TileGame:
    """A game as a rulebook example shows it; the tiles not named make up the reserve."""
    game = new_game("tiles", seats, SEED, {"line_length": line_length})
    assert isinstance(game, TileGame)
    held = [list((collections or {}).get(s, [0] * 6)) for s in range(seats)]
    zone_colours = [col(c) for c in zone or []]
    reserve = [21 - centre[c] - zone_colours.count(c) - sum(h[c] for h in held) for c in range(6)]
    assert min(reserve) >= 0
    return with_fields(
        game,
        reserve=reserve,
        centre=list(centre),
        zone=zone_colours,
        collections=held,
        current=current,
    )


def only(game: TileGame, name: str, n: int | None = None) -> TileGame:
    """A clone whose reserve is all `name` (as many tiles as before, or n), so draws are certain."""
    return with_fields(game, reserve=counts(**{name: sum(game.reserve) if n is None else n}))


def move(game: TileGame, kind: str, **fields: Any) -> tuple[TileGame, list[dict[str, Any]]]:
    seat = game.to_move
    assert seat is not None
    return game.apply(seat, {"type": kind, **fields})


def reveal(game: TileGame, name: str) -> tuple[TileGame, list[dict[str, Any]]]:
    """Reveal a tile of colour `name`."""
    return move(only(game, name), "reveal")


def refused(game: TileGame, reason: str, kind: str, **fields: Any) -> None:
    before = game.encode()
    with pytest.raises(IllegalMove) as err:
        move(game, kind, **fields)
    assert err.value.reason == reason
    assert game.encode() == before


def types(events: list[dict[str, Any]]) -> list[str]:
    return [e["type"] for e in events]


# ---- the rulebook's turn examples: one table, four turns in a row ----------------------


def example_1() -> tuple[TileGame, list[dict[str, Any]], list[dict[str, Any]]]:
    game = table(centre=counts(red=1, blue=1, yellow=1))
    game, revealed = reveal(game, "blue")
    # The tile the check then adds for the next player (example 2) is purple.
    game, took = move(only(game, "purple"), "take")
    return game, revealed, took


def test_turn_example_1_blue_matches_and_the_player_takes() -> None:
    game, revealed, took = example_1()
    assert revealed == [{"type": "reveal", "seat": 0, "color": "blue", "outcome": "success"}]
    assert took[:2] == [
        {"type": "take", "seat": 0, "tiles": counts(blue=2)},
        {"type": "turn_end", "seat": 0},
    ]
    assert game.collections[0] == counts(blue=2)
    assert game.to_move == 1


def example_2() -> tuple[TileGame, list[dict[str, Any]]]:
    game, _, _ = example_1()
    game, first = reveal(game, "yellow")
    game, second = reveal(game, "green")
    return game, first + second


def test_turn_example_2_the_check_adds_purple_then_green_does_not_match() -> None:
    game, _, took = example_1()
    assert took[2] == {"type": "refill", "colors": ["purple"]}
    assert game.centre == counts(red=1, yellow=1, purple=1)
    assert game.view(None)["table"]["phase"] == "start"

    game, events = example_2()
    assert events == [
        {"type": "reveal", "seat": 1, "color": "yellow", "outcome": "success"},
        {"type": "reveal", "seat": 1, "color": "green", "outcome": "no_match"},
        {"type": "turn_end", "seat": 1},
    ]
    # Both zone tiles went to the centre; with 5 tiles there, no check refill.
    assert game.centre == counts(red=1, green=1, yellow=2, purple=1)
    assert game.zone == []
    assert game.collections[1] == [0] * 6
    assert game.to_move == 2


def example_3() -> tuple[TileGame, list[dict[str, Any]]]:
    game, _ = example_2()
    events: list[dict[str, Any]] = []
    for name in ("red", "purple", "red"):
        game, new = reveal(game, name)
        events += new
    return game, events


def test_turn_example_3_red_purple_then_red_is_a_conflict() -> None:
    game, events = example_3()
    assert [(e.get("color"), e.get("outcome")) for e in events] == [
        ("red", "success"),
        ("purple", "success"),
        ("red", "conflict"),
        (None, None),
    ]
    assert events[-1] == {"type": "turn_end", "seat": 2}
    assert game.centre == counts(red=3, green=1, yellow=2, purple=2)
    assert game.to_move == 0


def test_turn_example_4_green_and_red_take_two_green_and_four_red() -> None:
    game, _ = example_3()
    assert sum(game.centre) == 8
    game, _ = reveal(game, "green")
    game, _ = reveal(game, "red")
    assert game.view(0)["table"]["zone"] == ["green", "red"]
    game, events = move(game, "take")
    assert events[0] == {"type": "take", "seat": 0, "tiles": counts(green=2, red=4)}
    assert game.collections[0] == counts(red=4, green=2, blue=2)
    assert game.centre[: col("yellow")] == [0, 0, 0, 0]
    assert game.to_move == 1
    assert tiles_in_play(game) == TOTAL


# ---- the ranking example -------------------------------------------------------------


def test_ranking_example_a_wins_b_second_c_third_d_last() -> None:
    game = table(
        4,
        centre=counts(red=2, purple=1),
        collections={
            0: counts(red=5, green=5, blue=5, orange=5, yellow=5, purple=4),
            1: counts(red=5, green=3, blue=4, orange=5, yellow=4, purple=4),
            2: counts(red=4, green=5, blue=3, orange=4, yellow=5, purple=3),
            3: counts(red=5, green=5, blue=4, orange=4, yellow=2, purple=5),
        },
    )
    assert game.line_length == 5
    game, _ = reveal(game, "purple")
    game, events = move(game, "take")
    # Won on the take (purple 6); the end-of-turn return still caps the count at 5.
    assert types(events) == ["take", "bonus", "return", "turn_end", "round_over", "game_over"]
    assert events[3]["seat"] == 0
    assert events[2]["tiles"] == counts(purple=1)
    over = events[4]
    assert over["ranks"] == [1, 2, 3, 4]
    assert over["points"] == [5, 3, 3, 2]
    assert game.is_over()
    assert [(s["rank"], s["points"]) for s in game.standings()] == [(1, 5), (2, 3), (3, 3), (4, 2)]


# ---- the alternative-move examples ---------------------------------------------------


def alternative_table(collection: list[int]) -> TileGame:
    return table(centre=counts(red=1, green=1, blue=1, yellow=1), collections={0: collection})


def test_alternative_example_1_no_red_allows_taking_red() -> None:
    game = alternative_table(counts(green=1, blue=2, orange=1, yellow=3, purple=1))
    assert {"type": "alternative", "color": "red"} in game.legal_moves()
    after, events = move(game, "alternative", color="red")
    assert events[:2] == [
        {"type": "alternative", "seat": 0, "color": "red"},
        {"type": "turn_end", "seat": 0},
    ]
    assert after.collections[0][col("red")] == 1
    assert after.centre[col("red")] == 0
    assert after.to_move == 1


def test_alternative_example_2_two_green_fewer_than_the_rest_allows_green() -> None:
    game = alternative_table(counts(red=3, green=2, blue=4, orange=3, yellow=5, purple=3))
    assert {"type": "alternative", "color": "green"} in game.legal_moves()
    after, _ = move(game, "alternative", color="green")
    assert after.collections[0][col("green")] == 3


def test_alternative_example_3_no_green_and_no_blue_is_not_allowed() -> None:
    game = alternative_table(counts(red=1, orange=2, yellow=1, purple=1))
    assert game.legal_moves() == [{"type": "reveal"}]
    for name in ("green", "blue"):
        refused(game, Reason.ALTERNATIVE_NOT_ALLOWED, "alternative", color=name)


def test_alternative_example_4_two_green_and_two_yellow_is_not_allowed() -> None:
    game = alternative_table(counts(red=3, green=2, blue=4, orange=3, yellow=2, purple=3))
    assert game.legal_moves() == [{"type": "reveal"}]
    refused(game, Reason.ALTERNATIVE_NOT_ALLOWED, "alternative", color="green")


def test_alternative_needs_the_missing_colour_in_the_centre_and_the_right_colour() -> None:
    game = alternative_table(counts(red=1, green=1, blue=1, yellow=1, purple=1))
    assert game.legal_moves() == [{"type": "reveal"}]  # orange is missing but not in the centre
    game = alternative_table(counts(green=1, blue=1, orange=1, yellow=1, purple=1))
    refused(game, Reason.ALTERNATIVE_NOT_ALLOWED, "alternative", color="blue")
    refused(game, Reason.BAD_COLOR, "alternative", color="pink")
    refused(game, Reason.MALFORMED_MOVE, "alternative")


# ---- turns ---------------------------------------------------------------------------


def test_setup_puts_three_tiles_in_the_centre_and_seat_zero_starts() -> None:
    game = new_game("tiles", 3, SEED)
    assert isinstance(game, TileGame)
    assert game.last_events == [
        {"type": "setup", "round": 0, "first_seat": 0, "centre": game.centre}
    ]
    assert sum(game.centre) == 3
    assert sum(game.reserve) == TOTAL - 3
    assert game.to_move == 0
    assert game.legal_moves() == [{"type": "reveal"}]
    view = game.view(2)["table"]
    assert view["phase"] == "start"
    assert view["reserve_size"] == TOTAL - 3
    assert view["players"][1] == {"seat": 1, "collection": [0] * 6, "lines": []}


def test_take_is_refused_before_a_success_and_after_a_failure() -> None:
    game = table(centre=counts(red=3))
    refused(game, Reason.NOTHING_TO_TAKE, "take")
    failed, events = reveal(game, "blue")
    assert events[0]["outcome"] == "no_match"
    assert failed.to_move == 1
    assert {"type": "take"} not in failed.legal_moves()
    refused(failed, Reason.NOTHING_TO_TAKE, "take")
    with pytest.raises(IllegalMove) as err:
        failed.apply(0, {"type": "take"})
    assert err.value.reason == Reason.NOT_YOUR_TURN


def test_after_a_success_the_player_may_reveal_again_or_take_but_not_go_alternative() -> None:
    game = table(centre=counts(red=1, blue=2), collections={0: counts(green=1)})
    game, _ = reveal(game, "red")
    assert game.legal_moves() == [{"type": "reveal"}, {"type": "take"}]
    refused(game, Reason.WRONG_PHASE, "alternative", color="red")
    assert game.view(0)["table"]["phase"] == "decide"


def test_a_line_gives_one_bonus_move_once_per_colour_and_extra_tiles_wait_for_turn_end() -> None:
    game = table(2, centre=counts(red=1, blue=1, yellow=1), collections={0: counts(red=6)})
    game, _ = reveal(game, "red")
    game, events = move(only(game, "red"), "take")
    # The bonus move starts at once, with the check refilling the centre.
    assert types(events) == ["take", "bonus", "refill"]
    assert events[1] == {"type": "bonus", "seat": 0, "colors": ["red"]}
    assert game.to_move == 0
    assert game.collections[0][col("red")] == 8  # kept until the end of the whole turn
    view = game.view(1)["table"]
    assert (view["phase"], view["bonus_moves"]) == ("start", 0)
    assert view["players"][0]["lines"] == ["red"]

    game, _ = reveal(game, "red")
    game, events = move(only(game, "red"), "take")
    assert "bonus" not in types(events)  # red made its line already
    assert events[-3:-1] == [
        {"type": "return", "seat": 0, "tiles": counts(red=3)},
        {"type": "turn_end", "seat": 0},
    ]
    assert game.collections[0][col("red")] == 7
    assert game.to_move == 1


def test_two_lines_at_once_give_two_bonus_moves() -> None:
    game = table(
        2,
        centre=counts(red=1, blue=1, yellow=1),
        collections={0: counts(red=6, blue=6, green=1)},
    )
    game, _ = reveal(game, "red")
    game, _ = reveal(game, "blue")
    game, events = move(only(game, "yellow"), "take")
    assert events[1] == {"type": "bonus", "seat": 0, "colors": ["red", "blue"]}
    assert (game.to_move, game.bonus_moves) == (0, 1)

    game, _ = reveal(game, "yellow")  # first bonus move
    game, events = move(game, "take")
    assert types(events) == ["take", "refill"]
    assert (game.to_move, game.bonus_moves) == (0, 0)

    game, events = reveal(game, "purple")  # second bonus move: no match
    assert types(events) == ["reveal", "return", "turn_end"]
    assert events[1]["tiles"] == counts(red=1, blue=1)
    assert game.to_move == 1


def test_a_failure_ends_the_turn_and_owed_bonus_moves_lapse() -> None:
    game = table(2, centre=counts(red=1, blue=1, yellow=1), collections={0: counts(red=6, blue=6)})
    game, _ = reveal(game, "red")
    game, _ = reveal(game, "blue")
    game, _ = move(only(game, "yellow"), "take")
    assert game.bonus_moves == 1
    game, events = reveal(game, "purple")
    assert types(events) == ["reveal", "return", "turn_end"]
    assert (game.to_move, game.bonus_moves) == (1, 0)


def test_an_alternative_move_ends_only_that_move_when_bonus_moves_are_owed() -> None:
    game = table(
        2,
        centre=counts(red=1, blue=1, green=1),
        collections={0: counts(red=6, blue=6, orange=2, yellow=2, purple=2)},
    )
    game, _ = reveal(game, "red")
    game, _ = reveal(game, "blue")
    game, _ = move(only(game, "yellow"), "take")
    assert game.legal_moves() == [{"type": "reveal"}, {"type": "alternative", "color": "green"}]
    game, events = move(game, "alternative", color="green")
    assert types(events) == ["alternative", "refill"]  # the second bonus move begins
    assert (game.to_move, game.bonus_moves) == (0, 0)
    assert game.collections[0][col("green")] == 1
    game, events = reveal(game, "purple")
    assert types(events) == ["reveal", "return", "turn_end"]


def test_an_alternative_move_completing_the_last_line_keeps_its_bonus_and_wins() -> None:
    # The alternative colour is the strictly lowest, so its line is always the last one.
    game = table(2, centre=counts(purple=3), collections={0: [7, 7, 7, 7, 7, 6], 1: [1] * 6})
    game, events = move(game, "alternative", color="purple")
    assert types(events) == ["alternative", "bonus", "turn_end", "round_over", "game_over"]
    assert events[3]["ranks"] == [1, 2]
    assert events[3]["points"] == [7, 1]


def test_line_length_five_with_four_seats() -> None:
    game = table(4, centre=counts(red=1, blue=2), collections={0: counts(red=4)})
    game, _ = reveal(game, "red")
    game, events = move(game, "take")
    assert events[1] == {"type": "bonus", "seat": 0, "colors": ["red"]}


# ---- the empty reserve ---------------------------------------------------------------


def test_empty_reserve_a_player_in_the_zone_must_take() -> None:
    game = table(centre=counts(red=1, blue=1), zone=["red"])
    game = with_fields(game, reserve=[0] * 6)
    assert game.legal_moves() == [{"type": "take"}]
    refused(game, Reason.RESERVE_EMPTY, "reveal")


def test_empty_reserve_the_check_fills_the_centre_as_far_as_it_can() -> None:
    game = table(
        centre=counts(red=1, yellow=1),
        collections={1: counts(green=1, blue=1, orange=1, yellow=1, purple=1)},
    )
    game, _ = reveal(only(game, "red", 2), "red")
    game, events = move(game, "take")
    assert events[-1] == {"type": "refill", "colors": ["red"]}
    assert game.centre == counts(red=1, yellow=1)
    assert sum(game.reserve) == 0
    # Seat 1 cannot reveal; its one move is the alternative move.
    assert game.to_move == 1
    assert game.legal_moves() == [{"type": "alternative", "color": "red"}]
    refused(game, Reason.RESERVE_EMPTY, "reveal")


def test_empty_reserve_seats_that_cannot_move_pass() -> None:
    game = table(
        centre=counts(red=1, blue=2, yellow=1),
        collections={2: counts(red=1, green=1, orange=1, yellow=1, purple=1)},
    )
    game, _ = reveal(only(game, "red", 1), "red")
    game, events = move(game, "take")
    assert types(events) == ["take", "turn_end", "pass"]
    assert events[2] == {"type": "pass", "seat": 1}
    assert game.to_move == 2
    assert game.legal_moves() == [{"type": "alternative", "color": "blue"}]


def test_empty_reserve_an_owed_bonus_move_that_cannot_be_made_passes() -> None:
    game = table(
        2,
        centre=counts(red=1, blue=2),
        collections={0: counts(red=6), 1: counts(red=1, green=1, orange=1, yellow=1, purple=1)},
    )
    game, _ = reveal(only(game, "red", 1), "red")
    game, events = move(game, "take")
    # Seat 0 can neither reveal nor move alternatively; its turn ends, and the tile it
    # returns goes straight into the centre by the check for seat 1.
    assert types(events) == ["take", "bonus", "pass", "return", "turn_end", "refill"]
    assert events[2] == {"type": "pass", "seat": 0}
    assert events[5] == {"type": "refill", "colors": ["red"]}
    assert game.to_move == 1
    assert game.legal_moves() == [{"type": "alternative", "color": "blue"}]


def test_empty_reserve_the_round_ends_when_nobody_can_make_progress() -> None:
    game = table(
        centre=counts(red=1, blue=2),
        collections={0: counts(green=2, blue=1), 1: counts(red=3, green=3), 2: counts(red=2)},
    )
    game, _ = reveal(only(game, "red", 1), "red")
    game, events = move(game, "take")
    assert types(events) == ["take", "turn_end", "round_over", "game_over"]
    # Ranked by the smallest count, then the next: all have 0 of some colour.
    assert events[2]["points"] == [0, 0, 0]
    assert events[2]["ranks"] == [1, 2, 3]
    assert game.is_over()


def test_the_round_ends_when_the_reserve_holds_only_colours_everybody_has_a_line_of() -> None:
    game = table(
        2,
        centre=counts(red=1, blue=2),
        collections={0: [6, 6, 7, 7, 7, 7], 1: [6, 5, 7, 7, 7, 7]},
    )
    # Purple could only cycle between the reserve, the centre and the lines for ever.
    game, events = reveal(only(game, "purple", 3), "purple")
    assert types(events) == ["reveal", "turn_end", "round_over", "game_over"]
    assert events[2]["ranks"] == [1, 2]
    assert events[2]["points"] == [6, 5]


CIRCLE = {
    0: counts(red=4, green=5, blue=5, orange=5, yellow=4, purple=5),
    1: counts(red=5, green=5, blue=4, orange=5, yellow=4, purple=5),
    2: counts(red=5, green=4, blue=5, orange=5, yellow=5, purple=4),
    3: counts(red=4, green=5, blue=4, orange=4, yellow=5, purple=5),
}
"""Found by random play: the two purple tiles outside the collections can only go round."""


def circle(current: int) -> TileGame:
    game = table(4, centre=counts(red=3, green=2, blue=3, orange=2, yellow=3), collections=CIRCLE)
    return with_fields(game, reserve=counts(purple=2), current=current)


def test_the_round_ends_when_forced_moves_only_go_round_in_a_circle() -> None:
    # Every move is forced: seat 0 fails, seat 1 succeeds and must take (the reserve is
    # empty), the two purple tiles go back, and seat 2, the one lacking purple, fails again.
    _, events = reveal(circle(0), "purple")
    assert types(events) == ["reveal", "turn_end", "round_over", "game_over"]
    assert events[2]["points"] == [4, 4, 4, 4]
    assert events[2]["ranks"] == [1, 1, 1, 4]


def test_the_round_goes_on_when_the_circle_reaches_the_seat_lacking_the_colour() -> None:
    game, _ = reveal(circle(1), "purple")  # fails: one purple in the centre, one in reserve
    assert game.to_move == 2
    game, events = reveal(game, "purple")
    assert events[0]["outcome"] == "success"
    game, events = move(game, "take")
    assert events[1] == {"type": "bonus", "seat": 2, "colors": ["purple"]}


def test_the_round_goes_on_while_a_lacking_colour_is_in_the_reserve() -> None:
    game = table(
        2,
        centre=counts(red=1, blue=1, orange=2),
        zone=["blue"],
        collections={0: [6, 6, 7, 7, 7, 7], 1: [6, 5, 7, 7, 7, 7]},
    )
    game = with_fields(game, reserve=counts(red=1, purple=2))
    game, events = move(game, "take")
    assert types(events) == ["take", "return", "turn_end"]
    assert game.reserve == counts(red=1, blue=2, purple=2)
    assert game.to_move == 1


# ---- options and series --------------------------------------------------------------


@pytest.mark.parametrize(("seats", "line"), [(2, 7), (3, 7), (4, 5)])
def test_line_length_defaults_by_seats_and_shows_in_views(seats: int, line: int) -> None:
    game = new_game("tiles", seats, SEED)
    assert game.options["line_length"] == line
    view = game.view(None)
    assert view["table"]["line_length"] == line
    assert view["options"]["line_length"] == line
    assert decode(game.encode()) == game


@pytest.mark.parametrize("line", [3, 21])
def test_line_length_option_accepts_3_to_21(line: int) -> None:
    game = new_game("tiles", 4, SEED, {"line_length": line})
    assert game.view(0)["table"]["line_length"] == line


@pytest.mark.parametrize(
    "options",
    [
        {"line_length": 2},
        {"line_length": 22},
        {"line_length": -5},
        {"line_length": "5"},
        {"line_length": 5.0},
        {"line_length": True},
        {"length": 5},
        {"rounds": 0},
    ],
)
def test_bad_options_are_refused(options: dict[str, Any]) -> None:
    with pytest.raises(IllegalMove) as err:
        new_game("tiles", 3, SEED, options)
    assert err.value.reason == Reason.BAD_OPTION


def test_a_series_of_rounds_rotates_the_first_player_and_adds_the_smallest_counts() -> None:
    rnd = random.Random(7)
    game = new_game("tiles", 3, SEED, {"rounds": 3})
    assert isinstance(game, TileGame)
    all_events: list[dict[str, Any]] = []
    while not game.is_over():
        game, events = game.apply(game.current, rnd.choice(game.legal_moves()))
        all_events += events
    overs = [e for e in all_events if e["type"] == "round_over"]
    setups = [e for e in all_events if e["type"] == "setup"]
    assert [e["round"] for e in overs] == [0, 1, 2]
    assert [(e["round"], e["first_seat"]) for e in setups] == [(1, 1), (2, 2)]
    assert game.points == [sum(e["points"][s] for e in overs) for s in range(3)]
    assert overs[-1]["totals"] == game.points


# ---- random play ---------------------------------------------------------------------

CANDIDATES: list[dict[str, Any]] = [
    {"type": "reveal"},
    {"type": "take"},
    *({"type": "alternative", "color": c} for c in COLORS),
    {"type": "alternative"},
    {"type": "alternative", "color": "pink"},
    {"type": "take", "tiles": 1},
    {"type": "pass"},
]
"""Every move shape, legal or not; the ones not in the legal list must be refused."""


def random_game(
    seats: int, seed: int, rounds: int = 1
) -> Iterator[tuple[TileGame, dict[str, Any], TileGame, list[dict[str, Any]]]]:
    """(state, move, next state, events) of a game played by random legal moves."""
    rnd = random.Random(seed)
    game = new_game("tiles", seats, rnd.randbytes(16), {"rounds": rounds})
    assert isinstance(game, TileGame)
    for _ in range(3000):
        if game.is_over():
            return
        seat = game.to_move
        assert seat is not None
        chosen = rnd.choice(game.legal_moves())  # fails if the seat to move has no move
        after, events = game.apply(seat, chosen)
        yield game, chosen, after, events
        game = after
    raise AssertionError("a tile game should end well within 3000 moves")


def check_invariants(game: TileGame, events: list[dict[str, Any]]) -> None:
    assert tiles_in_play(game) == TOTAL
    assert min(game.reserve) >= 0
    assert min(game.centre) >= 0
    line = game.line_length
    ended = {e["seat"] for e in events if e["type"] == "turn_end"}
    for seat, held in enumerate(game.collections):
        if seat != game.current or seat in ended:  # only a turn under way may go over
            assert max(held) <= line
    if not game.is_over():
        assert len(set(game.zone)) == len(game.zone)
        assert all(game.centre[c] for c in game.zone)
        # Between moves the centre is refilled as far as the reserve allows.
        assert game.zone or sum(game.centre) >= 3 or not any(game.reserve)


class Endless(TileGame):
    """The game without its end for lack of progress, while the reserve has tiles."""

    def _stuck(self) -> bool:
        return super()._stuck() and not any(self.reserve)


def assert_no_progress_possible(final: TileGame, seed: int) -> None:
    """Play on past a round ended for lack of progress: no capped count ever rises."""
    line = final.line_length
    if not any(final.reserve):
        assert all(alternative_color(held, final.centre) is None for held in final.collections)
        return  # nobody has a move at all
    data = final.to_data()
    game = Endless.from_data({**data, "finished": False, "table": {**data["table"], "over": False}})
    before = [[min(n, line) for n in held] for held in game.collections]
    rnd = random.Random(seed)
    for _ in range(100):
        if game.is_over():
            return
        game, _ = game.apply(game.current, rnd.choice(game.legal_moves()))
        assert [[min(n, line) for n in held] for held in game.collections] == before


GAMES_PER_EXAMPLE = 4
"""Games played per example: 250 examples make 1000 games a seat count, and hypothesis
costs about as much per example as a game."""


@settings(max_examples=250, deadline=None, database=None)
@given(seed=st.integers(0, 2**64))
@pytest.mark.parametrize("seats", [2, 3, 4])
def test_random_games_end_and_conserve_the_tiles(seats: int, seed: int) -> None:
    for game_seed in range(seed, seed + GAMES_PER_EXAMPLE):
        final: TileGame | None = None
        for _, _, after, events in random_game(seats, game_seed):
            check_invariants(after, events)
            final = after
        assert final is not None
        assert final.is_over()
        line = final.line_length
        won = [s for s, held in enumerate(final.collections) if min(held) == line]
        assert len(won) <= 1
        if not won:
            assert_no_progress_possible(final, game_seed)
        ranks = {s["seat"]: s["rank"] for s in final.standings()}
        assert all(ranks[w] == 1 for w in won)


@settings(max_examples=30, deadline=None, database=None)
@given(seed=st.integers(0, 2**64))
@pytest.mark.parametrize("seats", [2, 3, 4])
def test_random_games_refuse_illegal_moves_and_round_trip(seats: int, seed: int) -> None:
    for game, _, after, _ in random_game(seats, seed):
        before = game.encode()
        legal = game.legal_moves()
        for candidate in CANDIDATES:
            if candidate not in legal:
                with pytest.raises(IllegalMove):
                    game.apply(game.current, candidate)
        with pytest.raises(IllegalMove) as err:
            game.apply((game.current + 1) % seats, legal[0])
        assert err.value.reason == Reason.NOT_YOUR_TURN
        assert game.encode() == before
        assert decode(after.encode()) == after


@settings(max_examples=30, deadline=None, database=None)
@given(seed=st.integers(0, 2**64))
@pytest.mark.parametrize("seats", [2, 3, 4])
def test_random_series_replay_from_the_seed_and_views_hide_it(seats: int, seed: int) -> None:
    played = list(random_game(seats, seed, rounds=2))
    replayed = new_game("tiles", seats, played[0][0].seed, {"rounds": 2})
    assert replayed == played[0][0]
    for game, chosen, after, _ in played:
        replayed, _ = replayed.apply(game.current, chosen)
        assert replayed == after
        # Another seed and another count of draws: the views must not tell the difference.
        other = with_fields(after, seed=bytes(16), rng=Rng(bytes(16), after.rng.counter + 99))
        for viewer in [None, *range(seats)]:
            assert other.view(viewer) == after.view(viewer)
        assert after.seed.hex() not in json.dumps(after.view(None))
