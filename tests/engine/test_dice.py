"""The dice game: the rulebook's worked examples, the rules, and random play."""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from genial.engine import (
    COLORS,
    DiceGame,
    Event,
    GameState,
    IllegalMove,
    Reason,
    decode,
    new_game,
)

SEED = bytes(range(16))
MAX_MOVES = 5000
"""Far above the longest random game seen (about 700 moves with 4 seats)."""
TABLE_KEYS = {"phase", "rerolls_left", "sections", "players"}

# The seats of the rulebook's three-player examples, in turn order.
SVENJA, BIRGIT, ROMAN = 0, 1, 2


# ---- helpers ----------------------------------------------------------------------------


def new_dice(seats: int, seed: bytes = SEED, **options: Any) -> DiceGame:
    game = new_game("dice", seats, seed=seed, options=options)
    assert isinstance(game, DiceGame)
    return game


def table(
    dice: Sequence[Sequence[str]],
    sheets: Sequence[Sequence[int]] | None = None,
    *,
    current: int = 0,
    rerolls_left: int = 2,
    **options: Any,
) -> DiceGame:
    """A game where `current` has just rolled `dice[current]` and the others show theirs."""
    state = new_dice(len(dice), **options).clone()
    state.dice = [[COLORS.index(c) for c in d] for d in dice]
    state.sheets = [list(s) for s in sheets] if sheets else [[0] * 6 for _ in dice]
    state.current = current
    state.rolled = True
    state.rerolls_left = rerolls_left
    return state


def score(state: DiceGame, *jokers: tuple[str, str]) -> tuple[DiceGame, Event]:
    """Score the current roll with the given (group, colour) jokers; the new state and event."""
    move = {"type": "score", "jokers": [{"group": g, "color": c} for g, c in jokers]}
    assert move in state.legal_moves()
    new, events = state.apply(state.current, move)
    assert events[0]["type"] == "score"
    return new, events[0]


def score_moves(state: DiceGame) -> list[dict[str, Any]]:
    return [m for m in state.legal_moves() if m["type"] == "score"]


def refusal(state: DiceGame, seat: int, move: Any) -> str | None:
    """The reason `move` by `seat` is refused, or None if it is accepted."""
    try:
        state.apply(seat, move)
    except IllegalMove as refused:
        return refused.reason
    return None


def refused(state: DiceGame, move: Any, reason: str, seat: int | None = None) -> None:
    before = state.encode()
    assert refusal(state, state.current if seat is None else seat, move) == reason
    assert state.encode() == before


def crosses(**by_colour: int) -> list[int]:
    return [by_colour.get(c, 0) for c in COLORS]


# ---- the rulebook's scoring examples ------------------------------------------------------

# Three players with three dice each; the dice in front of them before Svenja's turn.
BIRGIT_START = ["blue", "yellow", "yellow"]
ROMAN_START = ["red", "blue", "yellow"]


def test_svenja_first_roll_scores_one_red() -> None:
    state = table([["green", "red", "purple"], BIRGIT_START, ROMAN_START], current=SVENJA)
    # No two dice alike: no joker, just the one score (and re-rolls).
    assert score_moves(state) == [{"type": "score", "jokers": []}]
    _, event = score(state)
    assert event["crosses"] == crosses(red=1)
    assert event["lost"] == crosses()


def test_svenja_second_roll_scores_three_yellow_and_four_blue() -> None:
    # One cross in every row already, so the middle section is open for the fourth blue.
    state = table(
        [["yellow", "blue", "blue"], BIRGIT_START, ROMAN_START],
        [[1] * 6, [0] * 6, [0] * 6],
        current=SVENJA,
        rerolls_left=1,
    )
    _, event = score(state)
    assert event["crosses"] == crosses(yellow=3, blue=4)


def test_svenja_second_roll_blue_pair_as_joker() -> None:
    state = table(
        [["yellow", "blue", "blue"], BIRGIT_START, ROMAN_START],
        [[1] * 6, [0] * 6, [0] * 6],
        current=SVENJA,
    )
    # The blue pair crosses any one symbol and no longer scores its matches.
    for target in COLORS:
        _, event = score(state, ("blue", target))
        expected = crosses(yellow=3)
        expected[COLORS.index(target)] += 1
        assert event["crosses"] == expected


def test_birgit_first_roll_violet_pair_only_as_joker() -> None:
    state = table(
        [["yellow", "blue", "blue"], ["orange", "purple", "purple"], ROMAN_START], current=BIRGIT
    )
    assert len(score_moves(state)) == 1 + len(COLORS)
    _, event = score(state)
    assert event["crosses"] == crosses()
    _, event = score(state, ("purple", "green"))
    assert event["crosses"] == crosses(green=1)


def test_birgit_second_roll_scores_three_blue_and_one_red() -> None:
    state = table(
        [["yellow", "blue", "blue"], ["blue", "green", "red"], ROMAN_START], current=BIRGIT
    )
    new, event = score(state)
    assert event["crosses"] == crosses(blue=3, red=1)
    assert new.sheets[BIRGIT] == crosses(blue=3, red=1)


# ---- the rulebook's score sheet examples --------------------------------------------------


def test_svenja_scores_4_green_and_2_yellow_crosses_3_green_and_1_yellow() -> None:
    # No blue yet in the left section (1-3): the middle section (4-6) is locked.
    sheet = crosses(red=2, orange=3, yellow=2, purple=1)
    state = table(
        [["green", "yellow", "orange"], ["green", "green", "yellow"], ["green", "green", "yellow"]],
        [sheet, [0] * 6, [0] * 6],
        current=SVENJA,
    )
    new, event = score(state)
    assert [c + lost for c, lost in zip(event["crosses"], event["lost"], strict=True)] == crosses(
        green=4, yellow=2
    )
    assert event["crosses"] == crosses(green=3, yellow=1)
    assert event["lost"] == crosses(green=1, yellow=1)
    assert new.sheets[SVENJA] == crosses(red=2, green=3, orange=3, yellow=3, purple=1)


def test_birgit_one_green_six_yellow_green_unlocks_right_section() -> None:
    # Green has nothing in the middle section yet, so the right section (7-9) is locked
    # until the green cross is made; then 5 yellow fill the row and the sixth is lost.
    sheet = crosses(red=4, green=3, blue=5, orange=6, yellow=4, purple=4)
    state = table(
        [["yellow", "red", "blue"], ["green", "yellow", "yellow"], ["green", "yellow", "yellow"]],
        [[0] * 6, sheet, [0] * 6],
        current=BIRGIT,
    )
    new, event = score(state)
    assert event["crosses"] == crosses(green=1, yellow=5)
    assert event["lost"] == crosses(yellow=1)
    assert new.sheets[BIRGIT] == crosses(red=4, green=4, blue=5, orange=6, yellow=9, purple=4)


def test_crosses_placed_in_the_order_that_loses_fewest() -> None:
    # Purple comes after red in COLORS, yet its cross must come first to open red's boxes 7-8.
    sheet = crosses(red=5, green=4, blue=4, orange=4, yellow=4, purple=3)
    state = table(
        [["red", "purple", "green", "blue"], ["red", "red", "red", "purple"]], [sheet, [0] * 6]
    )
    new, event = score(state)
    assert event["crosses"] == crosses(red=3, purple=1)
    assert event["lost"] == crosses()
    assert new.sheets[0] == crosses(red=8, green=4, blue=4, orange=4, yellow=4, purple=4)


# ---- the rulebook's victory points example ----------------------------------------------


def test_roman_scores_2_points_with_two_crosses_in_his_weakest_row() -> None:
    state = table(
        [["purple", "green", "blue"], ["purple", "red", "red"], ROMAN_START],
        [
            crosses(red=9, green=9, blue=9, orange=9, yellow=9, purple=8),
            crosses(red=6, green=6, blue=5, orange=6, yellow=4, purple=6),
            crosses(red=5, green=6, blue=4, orange=5, yellow=2, purple=6),
        ],
        current=SVENJA,
        rounds=3,
    )
    new, events = state.apply(SVENJA, {"type": "score", "jokers": []})
    over = events[1]
    assert over["type"] == "round_over"
    assert over["points"] == [7, 4, 2]
    assert over["ranks"] == [1, 2, 3]
    assert new.points == [7, 4, 2]
    # The next game of the series starts at once, with the next starting player.
    assert events[2]["type"] == "setup"
    assert new.first_seat == BIRGIT
    assert new.to_move == BIRGIT


# ---- turn structure ---------------------------------------------------------------------


@pytest.mark.parametrize(("seats", "per_seat"), [(2, 4), (3, 3), (4, 2)])
def test_setup_everyone_but_the_starting_player_rolls(seats: int, per_seat: int) -> None:
    game = new_dice(seats)
    setup = game.last_events[0]
    assert setup == {
        "type": "setup",
        "round": 0,
        "first_seat": 0,
        "dice": [[COLORS[c] for c in d] for d in game.dice],
    }
    assert game.dice[0] == []
    assert all(len(d) == per_seat for d in game.dice[1:])
    assert game.sheets == [[0] * 6] * seats
    state, events = game.apply(0, {"type": "roll"})
    assert events == [
        {
            "type": "roll",
            "seat": 0,
            "dice": [COLORS[c] for c in state.dice[0]],
            "rerolls_left": 2,
            "reroll": False,
        }
    ]
    assert len(state.dice[0]) == per_seat


def test_first_roll_is_compulsory() -> None:
    game = new_dice(3)
    assert game.legal_moves() == [{"type": "roll"}]
    assert game.view(None)["table"]["phase"] == "roll"
    refused(game, {"type": "reroll"}, Reason.WRONG_PHASE)
    refused(game, {"type": "score", "jokers": []}, Reason.WRONG_PHASE)
    refused(game, {"type": "score", "jokers": []}, Reason.WRONG_PHASE)
    rolled, _ = game.apply(0, {"type": "roll"})
    assert rolled.view(None)["table"]["phase"] == "decide"
    refused(rolled, {"type": "roll"}, Reason.WRONG_PHASE)


def test_at_most_two_rerolls() -> None:
    state, _ = new_dice(2).apply(0, {"type": "roll"})
    for left in (1, 0):
        assert {"type": "reroll"} in state.legal_moves()
        state, events = state.apply(0, {"type": "reroll"})
        assert events[0]["reroll"] is True
        assert events[0]["rerolls_left"] == left
        assert state.view(0)["table"]["rerolls_left"] == left
    assert {"type": "reroll"} not in state.legal_moves()
    refused(state, {"type": "reroll"}, Reason.NO_REROLL_LEFT)
    # Scoring is still open, and the next player starts afresh.
    state, _ = state.apply(0, {"type": "score", "jokers": []})
    assert state.to_move == 1
    assert state.legal_moves() == [{"type": "roll"}]
    assert state.view(1)["table"]["rerolls_left"] == 2


def test_score_passes_the_turn_clockwise_and_dice_stay_in_front() -> None:
    state = table(
        [["red", "green"], ["blue", "blue"], ["red", "red"], ["orange", "red"]], current=3
    )
    new, event = score(state)
    assert event["crosses"] == crosses(red=3)
    assert new.to_move == 0
    assert new.dice == state.dice
    refused(new, {"type": "roll"}, Reason.NOT_YOUR_TURN, seat=3)


def test_view_shows_the_whole_table() -> None:
    state = table(
        [["red", "green"], ["blue", "blue"], []],
        [crosses(red=2), crosses(blue=1, purple=3), [0] * 6],
        current=1,
        rerolls_left=1,
    )
    for seat in (None, 0, 1, 2):
        assert state.view(seat)["table"] == {
            "phase": "decide",
            "rerolls_left": 1,
            "sections": [3, 3, 3],
            "players": [
                {"seat": 0, "dice": ["red", "green"], "sheet": [2, 0, 0, 0, 0, 0]},
                {"seat": 1, "dice": ["blue", "blue"], "sheet": [0, 0, 1, 0, 0, 3]},
                {"seat": 2, "dice": [], "sheet": [0, 0, 0, 0, 0, 0]},
            ],
        }


def test_matches_among_own_dice_do_not_count() -> None:
    state = table([["red", "red", "red", "green"], ["blue", "blue", "green", "orange"]])
    _, event = score(state)
    assert event["crosses"] == crosses(green=1)


# ---- jokers -----------------------------------------------------------------------------


def test_four_of_a_kind_joker_gives_three_crosses() -> None:
    state = table([["orange"] * 4, ["orange", "red", "red", "blue"]])
    assert len(score_moves(state)) == 1 + len(COLORS)
    _, event = score(state, ("orange", "purple"))
    assert event["crosses"] == crosses(purple=3)
    # Not used as a joker, each of the four dice matches the one orange opposite.
    _, event = score(state)
    assert event["crosses"] == crosses(orange=3)
    assert event["lost"] == crosses(orange=1)


def test_three_of_a_kind_joker_gives_two_crosses_of_one_colour() -> None:
    state = table([["blue"] * 3, ["red", "blue", "red"], ["green", "green", "yellow"]])
    _, event = score(state, ("blue", "green"))
    assert event["crosses"] == crosses(green=2)


def test_two_pairs_are_decided_each_on_its_own() -> None:
    state = table([["red", "blue", "red", "blue"], ["red", "yellow", "yellow", "yellow"]])
    moves = score_moves(state)
    assert len(moves) == (1 + len(COLORS)) ** 2
    assert len({json.dumps(m) for m in moves}) == len(moves)
    _, event = score(state, ("blue", "yellow"))
    assert event["crosses"] == crosses(red=2, yellow=1)
    _, event = score(state, ("red", "green"), ("blue", "green"))
    assert event["crosses"] == crosses(green=2)
    assert event["jokers"] == [
        {"group": "red", "color": "green"},
        {"group": "blue", "color": "green"},
    ]


def test_a_joker_may_cross_its_own_colour() -> None:
    state = table([["yellow", "yellow", "red"], ["red", "red", "green"], ["red", "blue", "blue"]])
    _, event = score(state, ("yellow", "yellow"))
    assert event["crosses"] == crosses(yellow=1, red=3)


JOKER_STATE = table([["red", "red", "blue", "blue"], ["green", "green", "green", "green"]])


@pytest.mark.parametrize(
    ("jokers", "reason"),
    [
        ([{"group": "green", "color": "red"}], Reason.BAD_JOKER),
        ([{"group": "yellow", "color": "red"}], Reason.BAD_JOKER),
        ([{"group": "red", "color": "red"}, {"group": "red", "color": "blue"}], Reason.BAD_JOKER),
        ([{"group": "blue", "color": "red"}, {"group": "red", "color": "red"}], Reason.BAD_JOKER),
        ([{"group": "violet", "color": "red"}], Reason.BAD_COLOR),
        ([{"group": "red", "color": "pink"}], Reason.BAD_COLOR),
        ([{"group": 0, "color": "red"}], Reason.BAD_COLOR),
        ([{"group": "red", "color": None}], Reason.BAD_COLOR),
        ([{"group": "red"}], Reason.MALFORMED_MOVE),
        ([{"group": "red", "color": "red", "count": 1}], Reason.MALFORMED_MOVE),
        (["red"], Reason.MALFORMED_MOVE),
        ({"group": "red", "color": "red"}, Reason.MALFORMED_MOVE),
        ("red", Reason.MALFORMED_MOVE),
        (None, Reason.MALFORMED_MOVE),
    ],
)
def test_bad_jokers_are_refused(jokers: Any, reason: str) -> None:
    refused(JOKER_STATE, {"type": "score", "jokers": jokers}, reason)


@pytest.mark.parametrize(
    ("move", "reason"),
    [
        ({"type": "score", "jokers": [], "dice": ["red"]}, Reason.MALFORMED_MOVE),
        ({"type": "reroll", "times": 2}, Reason.MALFORMED_MOVE),
        ({"type": "pass"}, Reason.UNKNOWN_MOVE),
        ({}, Reason.UNKNOWN_MOVE),
        ("score", Reason.MALFORMED_MOVE),
        (None, Reason.MALFORMED_MOVE),
    ],
)
def test_malformed_moves_are_refused(move: Any, reason: str) -> None:
    refused(JOKER_STATE, move, reason)


# ---- the score sheet --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sections", "needs"),
    [
        ([3, 3, 3], (0, 0, 0, 1, 1, 1, 4, 4, 4)),
        ([1, 2, 3], (0, 1, 1, 2, 2, 2)),
        ([4], (0, 0, 0, 0)),
        ([1, 1, 1, 1, 1], (0, 1, 2, 3, 4)),
    ],
)
def test_box_needs(sections: list[int], needs: tuple[int, ...]) -> None:
    state = new_dice(2, sections=sections)
    assert state.needs == needs
    assert state.view(0)["table"]["sections"] == sections


def test_section_rule_with_other_section_sizes() -> None:
    # Sections 1-2 | 3-4 | 5: the third section needs a cross in box 3 of every row.
    sheet = crosses(red=2, green=3, blue=4, orange=3, yellow=3, purple=2)
    state = table(
        [["red", "purple", "blue", "blue"], ["red", "red", "red", "red"]],
        [sheet, [0] * 6],
        sections=[2, 2, 1],
    )
    _, event = score(state)
    # Two red reach the end of the middle section; the last section needs a cross in
    # box 3 of every row, and purple has only two.
    assert event["crosses"] == crosses(red=2)
    assert event["lost"] == crosses(red=2)


def test_round_ends_the_moment_a_sheet_is_full() -> None:
    state = table(
        [["green", "green", "red", "blue"], ["green", "red", "red", "red"]],
        [crosses(red=1, green=0, blue=1, orange=1, yellow=1, purple=1), crosses(red=1)],
        sections=[1],
    )
    new, events = state.apply(
        0, {"type": "score", "jokers": [{"group": "green", "color": "green"}]}
    )
    assert [e["type"] for e in events] == ["score", "round_over", "game_over"]
    assert new.is_over()
    assert new.to_move is None
    assert new.legal_moves() == []
    assert events[1]["points"] == [7, 0]
    assert new.standings() == [
        {"seat": 0, "rank": 1, "points": 7},
        {"seat": 1, "rank": 2, "points": 0},
    ]
    refused(new, {"type": "roll"}, Reason.GAME_OVER, seat=1)


def test_others_ranked_by_weakest_row_then_the_next() -> None:
    state = table(
        [["purple", "red"], ["purple", "red"], ["green", "blue"], ["green", "blue"]],
        [
            crosses(red=9, green=9, blue=9, orange=9, yellow=9, purple=8),
            crosses(red=3, green=3, blue=5, orange=5, yellow=5, purple=5),
            crosses(red=3, green=4, blue=5, orange=5, yellow=5, purple=5),
            crosses(red=4, green=3, blue=5, orange=5, yellow=5, purple=5),
        ],
    )
    _, events = state.apply(0, {"type": "score", "jokers": []})
    assert events[1]["ranks"] == [1, 4, 2, 2]
    assert events[1]["points"] == [7, 3, 3, 3]


# ---- variant E --------------------------------------------------------------------------


def test_variant_e_starting_player_can_only_use_jokers() -> None:
    game = new_dice(3, variant_e=True)
    assert game.dice == [[], [], []]
    assert game.last_events[0]["dice"] == [[], [], []]
    first, _ = game.apply(0, {"type": "roll"})
    for move in score_moves(first):
        _, events = first.apply(0, move)
        joker_crosses = sum(
            first.dice[0].count(COLORS.index(j["group"])) - 1 for j in move["jokers"]
        )
        assert sum(events[0]["crosses"]) + sum(events[0]["lost"]) == joker_crosses
    # The second player matches the starting player's dice only; the third has none yet.
    second, _ = first.apply(0, {"type": "score", "jokers": []})
    second, _ = second.apply(1, {"type": "roll"})
    assert second.dice[2] == []
    _, events = second.apply(1, {"type": "score", "jokers": []})
    expected = [0] * 6
    for c in second.dice[1]:
        expected[c] += second.dice[0].count(c)
    assert [a + b for a, b in zip(events[0]["crosses"], events[0]["lost"], strict=True)] == expected


def test_variant_e_applies_to_every_game_of_a_series() -> None:
    state = table(
        [["purple", "purple", "red"], ["red", "red", "green"], ["red", "blue", "blue"]],
        [crosses(red=9, green=9, blue=9, orange=9, yellow=9, purple=8), [0] * 6, [0] * 6],
        rounds=2,
        variant_e=True,
    )
    new, _ = score(state, ("purple", "purple"))
    assert new.round == 1
    assert new.dice == [[], [], []]
    assert new.sheets == [[0] * 6] * 3


# ---- options ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "options",
    [
        {"sections": []},
        {"sections": [0]},
        {"sections": [10]},
        {"sections": [1, 1, 1, 1, 1, 1]},
        {"sections": [9, 7]},
        {"sections": [3, "3"]},
        {"sections": [True, 3]},
        {"sections": [3.0]},
        {"sections": "333"},
        {"sections": None},
        {"variant_e": "yes"},
        {"variant_e": 1},
        {"rounds": 0},
        {"rounds": 11},
        {"dice": 5},
    ],
)
def test_bad_options_are_refused(options: dict[str, Any]) -> None:
    with pytest.raises(IllegalMove) as caught:
        new_game("dice", 3, seed=SEED, options=options)
    assert caught.value.reason == Reason.BAD_OPTION


@pytest.mark.parametrize("sections", [[1], [9], [5, 5, 5], [9, 6], [1, 1, 1, 1, 1], [3, 3, 3]])
def test_good_sections_are_accepted(sections: list[int]) -> None:
    game = new_dice(4, sections=sections)
    assert game.options["sections"] == sections
    assert len(game.needs) == sum(sections)


# ---- series -----------------------------------------------------------------------------


def play(
    game: DiceGame,
    rng: random.Random,
    check: Callable[[DiceGame, Any, DiceGame, list[Event]], None],
) -> tuple[DiceGame, list[tuple[int, Any]]]:
    """Play random legal moves to the end; `check(before, move, after, events)` after each."""
    played: list[tuple[int, Any]] = []
    while not game.is_over():
        assert len(played) < MAX_MOVES
        seat = game.to_move
        assert seat is not None
        move = rng.choice(game.legal_moves())
        new, events = game.apply(seat, move)
        check(game, move, new, events)
        played.append((seat, move))
        game = new
    return game, played


def test_series_rotates_the_starting_player_and_adds_up_points() -> None:
    rounds: list[Event] = []
    setups: list[Event] = []

    def record(before: DiceGame, move: Any, after: DiceGame, events: list[Event]) -> None:
        check_rules(before, move, after, events)
        for event in events:
            if event["type"] == "round_over":
                rounds.append(event)
            elif event["type"] == "setup":
                setups.append(event)
                assert after.sheets == [[0] * 6] * 3
                assert after.to_move == event["first_seat"]

    game = new_dice(3, rounds=4, sections=[1, 1])
    final, _ = play(game, random.Random(4), record)
    assert [r["round"] for r in rounds] == [0, 1, 2, 3]
    assert [s["first_seat"] for s in setups] == [1, 2, 0]
    assert final.first_seat == 0
    for r in rounds:
        assert max(r["points"]) == 7
        assert r["ranks"].count(1) == 1
    assert final.points == [sum(r["points"][s] for r in rounds) for s in range(3)]
    assert rounds[-1]["totals"] == final.points
    ranks = {s["seat"]: s["rank"] for s in final.standings()}
    assert all(
        ranks[a] < ranks[b] for a in range(3) for b in range(3) if final.points[a] > final.points[b]
    )


# ---- random play ------------------------------------------------------------------------


def section_start(sections: Sequence[int], box: int) -> tuple[int, int]:
    """The section of a box (0-based) and the first box of the section before it."""
    start = previous = 0
    for s, size in enumerate(sections):
        if box < start + size:
            return s, previous
        previous, start = start, start + size
    raise AssertionError(f"no box {box}")


def placeable(sheet: Sequence[int], sections: Sequence[int], c: int) -> bool:
    if sheet[c] == sum(sections):
        return False
    s, previous = section_start(sections, sheet[c])
    return s == 0 or all(x > previous for x in sheet)


def fills_left_to_right(sheet: Sequence[int], sections: Sequence[int]) -> bool:
    """No cross in a section unless every row has one in the section before it."""
    for count in sheet:
        if count:
            s, previous = section_start(sections, count - 1)
            if s and not all(x > previous for x in sheet):
                return False
    return True


def owed(dice: Sequence[Sequence[int]], seat: int, jokers: Sequence[Any]) -> list[int]:
    """The crosses a score is worth before the sheet rule, counted die by die."""
    groups = [COLORS.index(j["group"]) for j in jokers]
    total = [0] * 6
    for c in dice[seat]:
        if c not in groups:
            total[c] += sum(d.count(c) for s, d in enumerate(dice) if s != seat)
    for j in jokers:
        total[COLORS.index(j["color"])] += dice[seat].count(COLORS.index(j["group"])) - 1
    return total


def check_rules(before: DiceGame, move: Any, after: DiceGame, events: list[Event]) -> None:
    """The rules, checked against an independent count after every move."""
    seat = before.current
    sections = before.options["sections"]
    event = events[0]
    assert event["seat"] == seat
    if move["type"] != "score":
        assert event["type"] == "roll"
        assert len(after.dice[seat]) == {2: 4, 3: 3, 4: 2}[before.seats]
        return
    sheet = before.sheets[seat]
    final = after.sheets[seat] if len(events) == 1 else None  # a new round clears the sheets
    assert event["jokers"] == move["jokers"]
    assert [a + b for a, b in zip(event["crosses"], event["lost"], strict=True)] == owed(
        before.dice, seat, move["jokers"]
    )
    result = [a + b for a, b in zip(sheet, event["crosses"], strict=True)]
    assert final is None or final == result
    assert fills_left_to_right(result, sections)
    # Fewest lost: whatever was lost could not be placed at the end.
    assert all(not event["lost"][c] or not placeable(result, sections, c) for c in range(6))
    if len(events) == 1:
        assert after.to_move == (seat + 1) % before.seats
    else:
        assert min(result) == sum(sections)
        assert events[1]["type"] == "round_over"
        assert events[1]["points"] == [
            7 if s == seat else min(before.sheets[s]) for s in range(before.seats)
        ]
        assert events[1]["ranks"][seat] == 1


SECTIONS = st.one_of(
    st.just([3, 3, 3]),
    st.lists(st.integers(1, 4), min_size=1, max_size=4).filter(lambda s: sum(s) <= 12),
)


@pytest.mark.parametrize("seats", [2, 3, 4])
@settings(max_examples=600, deadline=None)
@given(seed=st.binary(min_size=16, max_size=16), pick=st.integers(0), variant_e=st.booleans())
def test_random_games_follow_the_rules_and_end(
    seats: int, seed: bytes, pick: int, variant_e: bool
) -> None:
    game = new_dice(seats, seed, variant_e=variant_e)
    final, played = play(game, random.Random(pick), check_rules)
    assert final.is_over()
    assert len(played) < MAX_MOVES


def mutants(move: dict[str, Any], rng: random.Random) -> list[Any]:
    """Moves near a legal one: most are illegal, the test skips those that are legal."""
    colour = rng.choice([*COLORS, "violet", "", 3, None])
    jokers: list[Any] = list(move.get("jokers", []))
    out: list[Any] = [
        None,
        move["type"],
        [move],
        {},
        {**move, "type": rng.choice(["roll", "reroll", "score", "pass", "ROLL", 1, None])},
        {**move, "extra": True},
        {"type": "score", "jokers": [*jokers, {"group": colour, "color": rng.choice(COLORS)}]},
        {"type": "score", "jokers": [{"group": rng.choice(COLORS), "color": colour}]},
        {"type": "score", "jokers": tuple(jokers)},
        {"type": "score", "jokers": None},
    ]
    if jokers:
        i = rng.randrange(len(jokers))
        out += [
            {"type": "score", "jokers": [*jokers, jokers[i]]},
            {"type": "score", "jokers": jokers[::-1]},
            {"type": "score", "jokers": [*jokers[:i], {**jokers[i], "group": colour}]},
            {"type": "score", "jokers": [*jokers[:i], {**jokers[i], "color": colour}]},
            {"type": "score", "jokers": [*jokers[:i], {"group": jokers[i]["group"]}]},
            {"type": "score", "jokers": [*jokers[:i], {**jokers[i], "n": 1}]},
        ]
    return out


def spelled_out(move: Any) -> Any:
    """A move as the legal list spells it: a score without jokers lists them empty."""
    if isinstance(move, dict) and move.get("type") == "score" and "jokers" not in move:
        return {**move, "jokers": []}
    return move


@pytest.mark.parametrize("seats", [2, 3, 4])
@settings(max_examples=25, deadline=None)
@given(
    seed=st.binary(min_size=16, max_size=16),
    pick=st.integers(0),
    options=st.fixed_dictionaries(
        {"variant_e": st.booleans(), "sections": SECTIONS, "rounds": st.integers(1, 3)}
    ),
)
def test_random_games_round_trip_and_refuse_illegal_moves(
    seats: int, seed: bytes, pick: int, options: dict[str, Any]
) -> None:
    rng = random.Random(pick)
    game = new_dice(seats, seed, **options)
    secret = seed.hex()

    def check(before: DiceGame, move: Any, after: DiceGame, events: list[Event]) -> None:
        check_rules(before, move, after, events)
        legal = before.legal_moves()
        encoded = before.encode()
        for seat in range(seats):
            if seat != before.current:
                assert refusal(before, seat, move) == Reason.NOT_YOUR_TURN
        assert all(refusal(before, before.current, m) is None for m in legal)
        for mutant in mutants(move, rng):
            if spelled_out(mutant) not in legal:
                assert refusal(before, before.current, mutant) is not None, mutant
        assert before.encode() == encoded
        assert decode(after.encode()) == after
        spectator = after.view(None)
        assert set(spectator["table"]) == TABLE_KEYS
        assert secret not in json.dumps(spectator)
        for seat in range(seats):
            # Nothing is hidden in this game: every seat sees what a spectator sees.
            assert after.view(seat) == {**spectator, "viewer": seat}
        assert json.loads(json.dumps(events)) == events

    assert decode(game.encode()) == game
    final, played = play(game, rng, check)
    replay: GameState = new_game("dice", seats, seed=seed, options=options)
    for seat, move in played:
        replay, _ = replay.apply(seat, move)
    assert replay == final
    assert final.round == options["rounds"] - 1
