"""The card game: the rulebook's worked examples and the rules around them."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from genial.engine import COLORS, CardGame, IllegalMove, Reason, decode, new_game
from genial.engine.cards import CARD_INDEX, CARD_NAMES, COPIES, PAIRS, area_cap, ceiling

SEED = bytes(range(16))


def col(name: str) -> int:
    return COLORS.index(name)


def card(name: str) -> int:
    return CARD_INDEX[name]


def table(
    seats: int = 4,
    *,
    hands: dict[int, list[str]] | None = None,
    open_cards: dict[int, list[str]] | None = None,
    markers: dict[int, dict[str, int]] | None = None,
    current: int = 0,
) -> CardGame:
    """A game set up as a rulebook picture shows it; cards not named stay in the deck."""
    game = CardGame.new(seats, SEED)
    game.deck = [COPIES] * len(PAIRS)
    game.discard = [0] * len(PAIRS)
    game.current = current
    for seat in range(seats):
        game.hands[seat] = sorted(card(c) for c in (hands or {}).get(seat, []))
        default_open = ["orange_yellow"] * (2 if seats == 2 else 1)
        game.open_cards[seat] = [card(c) for c in (open_cards or {}).get(seat, default_open)]
        game.markers[seat] = [0] * 6
        for name, column in (markers or {}).get(seat, {}).items():
            game.markers[seat][col(name)] = column
        for c in game.hands[seat] + game.open_cards[seat]:
            game.deck[c] -= 1
    assert min(game.deck) >= 0
    return game


def conserved(game: CardGame) -> int:
    return (
        sum(game.deck)
        + sum(game.discard)
        + sum(len(h) for h in game.hands)
        + sum(len(o) for o in game.open_cards)
    )


def play(game: CardGame, name: str, first: str) -> tuple[CardGame, list[dict[str, Any]]]:
    return game.apply(game.current, {"type": "play", "card": name, "first": first})


def test_scoring_example_blue_yellow_card() -> None:
    """Four cards in play; a blue/yellow card scores two yellow and one blue."""
    game = table(
        hands={0: ["blue_yellow", "red_green"]},
        open_cards={0: ["red_yellow"], 1: ["yellow_purple"], 2: ["green_blue"], 3: ["red_orange"]},
        markers={0: dict.fromkeys(COLORS, 1)},
    )
    after, events = play(game, "blue_yellow", "yellow")
    assert after.markers[0][col("yellow")] == 1 + 2
    assert after.markers[0][col("blue")] == 1 + 1
    scores = events[0]["scores"]
    assert [(s["color"], s["matches"]) for s in scores] == [("yellow", 2), ("blue", 1)]


def test_scoring_example_area_rule_red_purple() -> None:
    """Red 2 -> 4, but purple only 5 -> 6: column 7 is not adjacent to blue's area."""
    game = table(
        hands={0: ["red_purple"]},
        open_cards={0: ["red_green"], 1: ["blue_purple"], 2: ["red_orange"], 3: ["yellow_purple"]},
        markers={0: {"red": 2, "green": 3, "blue": 1, "orange": 4, "yellow": 2, "purple": 5}},
    )
    after, events = play(game, "red_purple", "red")
    assert after.markers[0][col("red")] == 4
    assert after.markers[0][col("purple")] == 6
    purple = events[0]["scores"][1]
    assert (purple["matches"], purple["from"], purple["to"], purple["lost"]) == (2, 5, 6, 1)


def test_area_caps() -> None:
    assert [area_cap(low) for low in range(11)] == [3, 6, 6, 6, 10, 10, 10, 10, 10, 10, 10]


def test_a_marker_alone_at_the_bottom_climbs_one_area_past_the_others() -> None:
    """Yellow alone at column 3, the other five at 6, four yellow matches: the ceiling comes
    from the OTHER markers (lowest 6 -> column 10), so yellow goes to 7."""
    game = table(
        hands={0: ["red_yellow"]},
        open_cards={
            0: ["yellow_purple"],
            1: ["green_yellow"],
            2: ["blue_yellow"],
            3: ["orange_yellow"],
        },
        markers={0: {"red": 6, "green": 6, "blue": 6, "orange": 6, "yellow": 3, "purple": 6}},
    )
    after, events = play(game, "red_yellow", "yellow")
    yellow = events[0]["scores"][0]
    assert (yellow["color"], yellow["matches"], yellow["from"], yellow["to"]) == ("yellow", 4, 3, 7)
    assert yellow["lost"] == 0
    assert after.markers[0][col("yellow")] == 7


def test_a_marker_alone_in_column_zero_may_reach_column_four() -> None:
    """Red alone at 0, the others in 1-3, four red matches: red goes to 4, not 3."""
    game = table(
        hands={0: ["red_purple"]},
        open_cards={0: ["red_green"], 1: ["red_blue"], 2: ["red_orange"], 3: ["red_yellow"]},
        markers={0: {"red": 0, "green": 1, "blue": 3, "orange": 2, "yellow": 1, "purple": 3}},
    )
    after, events = play(game, "red_purple", "red")
    red, purple = events[0]["scores"]
    assert (red["matches"], red["from"], red["to"], red["lost"]) == (4, 0, 4, 0)
    # Purple scores nothing: no open card shows it.
    assert (purple["matches"], purple["to"]) == (0, 3)
    assert after.markers[0][col("red")] == 4


def test_ceiling_looks_at_the_other_five_markers() -> None:
    markers = [0, 2, 5, 3, 1, 2]
    assert [ceiling(markers, c) for c in range(6)] == [6, 3, 3, 3, 3, 3]
    assert ceiling([4, 7, 7, 7, 7, 7], 0) == 10
    assert ceiling([4, 3, 7, 7, 7, 7], 0) == 6


def test_order_of_symbols_matters_because_the_ceiling_is_looked_at_again() -> None:
    """Scoring red first lifts red out of column 0 and so the ceiling for green.

    (Corrected with issue 14: under the earlier note, which took the lowest marker
    including the one moving, red stopped at 3 in both orders.)"""
    setup = {
        "hands": {0: ["red_green", "blue_purple"]},
        "open_cards": {0: ["red_green"], 1: ["red_green"], 2: ["red_green"], 3: ["red_blue"]},
        "markers": {0: {"red": 0, "green": 3, "blue": 1, "orange": 1, "yellow": 1, "purple": 1}},
    }
    red_first, _ = play(table(**setup), "red_green", "red")  # type: ignore[arg-type]
    green_first, _ = play(table(**setup), "red_green", "green")  # type: ignore[arg-type]
    # Red first: the others' lowest is 1 (ceiling 6), red 0 -> 4; then green's others'
    # lowest is 1 too, so green 3 -> 6.
    assert red_first.markers[0][:2] == [4, 6]
    # Green first: red still at 0 caps green at 3; then red 0 -> 4.
    assert green_first.markers[0][:2] == [4, 3]


def test_played_card_does_not_score_itself_and_counts_once_per_colour() -> None:
    game = table(
        hands={0: ["red_green"]},
        open_cards={0: ["blue_orange"], 1: ["blue_orange"], 2: ["blue_orange"], 3: ["red_blue"]},
        markers={0: dict.fromkeys(COLORS, 1)},
    )
    after, _ = play(game, "red_green", "red")
    assert after.markers[0][col("red")] == 2
    assert after.markers[0][col("green")] == 1


def test_end_of_turn_discards_previous_card_and_refills_hand() -> None:
    game = table(
        hands={0: ["red_green"] + ["red_blue"] * 3 + ["green_blue"] * 2},
        open_cards={0: ["orange_yellow"]},
        markers={0: dict.fromkeys(COLORS, 1)},
    )
    after, events = play(game, "red_green", "red")
    assert after.open_cards[0] == [card("red_green")]
    assert after.discard[card("orange_yellow")] == 1
    assert len(after.hands[0]) == 6
    assert after.current == 1
    assert {"type": "draw", "seat": 0, "count": 1} in events
    assert conserved(after) == 60


def test_two_player_variant_column_of_two_cards() -> None:
    game = CardGame.new(2, SEED)
    assert [len(o) for o in game.open_cards] == [2, 2]
    assert [len(h) for h in game.hands] == [6, 6]
    game = table(
        2,
        hands={0: ["red_green"] + ["blue_orange"] * 3 + ["green_orange"] * 2},
        open_cards={0: ["red_blue", "red_orange"], 1: ["green_yellow", "red_purple"]},
        markers={0: dict.fromkeys(COLORS, 1)},
    )
    after, _ = play(game, "red_green", "red")
    assert after.markers[0][col("red")] == 1 + 3  # all four open cards are counted
    assert after.markers[0][col("green")] == 1 + 1
    assert after.open_cards[0] == [card("red_orange"), card("red_green")]  # top one discarded
    assert after.discard[card("red_blue")] == 1


def test_marker_reaching_ten_gives_a_bonus_play_before_drawing() -> None:
    game = table(
        hands={0: ["red_green", "blue_orange", "blue_purple"]},
        open_cards={0: ["red_blue"], 1: ["red_orange"], 2: ["blue_orange"], 3: ["blue_yellow"]},
        markers={0: {"red": 8, "green": 9, "blue": 6, "orange": 6, "yellow": 5, "purple": 4}},
    )
    after, events = play(game, "red_green", "red")
    assert after.markers[0][col("red")] == 10
    assert after.current == 0
    assert after.phase == "bonus"
    assert after.bonus_plays == 1
    assert len(after.hands[0]) == 2  # no drawing before the bonus play
    assert events[-1]["type"] == "play"
    # The bonus play scores against the card just played, now moved up.
    after2, _ = play(after, "blue_orange", "blue")
    assert after2.open_cards[0] == [card("blue_orange")]
    assert after2.discard[card("red_blue")] == 1
    assert after2.current == 1
    assert len(after2.hands[0]) == 6


def test_a_bonus_play_is_compulsory() -> None:
    """German: "bist sofort noch einmal am Zug" (the English "may" is not followed): in
    the bonus phase the only legal moves are plays; neither a swap nor ending the turn."""
    game = table(
        hands={0: ["red_green", "blue_orange", "blue_purple"]},
        open_cards={0: ["red_blue"], 1: ["red_orange"], 2: ["blue_orange"], 3: ["blue_yellow"]},
        markers={0: {"red": 8, "green": 9, "blue": 6, "orange": 6, "yellow": 5, "purple": 4}},
    )
    after, _ = play(game, "red_green", "red")
    assert after.phase == "bonus"
    assert {m["type"] for m in after.legal_moves()} == {"play"}
    for refused_move in ({"type": "swap"}, {"type": "decline_swap"}):
        with pytest.raises(IllegalMove) as err:
            after.apply(0, refused_move)
        assert err.value.reason == Reason.SWAP_NOT_ALLOWED


def test_two_markers_reaching_ten_give_two_bonus_plays() -> None:
    game = table(
        hands={0: ["red_green", "blue_orange", "blue_orange"]},
        open_cards={0: ["red_green"], 1: ["red_green"], 2: ["blue_orange"], 3: ["blue_yellow"]},
        markers={0: {"red": 8, "green": 8, "blue": 6, "orange": 6, "yellow": 5, "purple": 4}},
    )
    after, _ = play(game, "red_green", "red")
    assert after.bonus_plays == 2
    after, _ = play(after, "blue_orange", "blue")
    assert (after.current, after.bonus_plays, after.phase) == (0, 1, "bonus")


def test_bonus_plays_lapse_with_an_empty_hand() -> None:
    game = table(
        hands={0: ["red_green"]},
        open_cards={0: ["red_green"], 1: ["red_green"], 2: ["blue_orange"], 3: ["blue_yellow"]},
        markers={0: {"red": 8, "green": 8, "blue": 6, "orange": 6, "yellow": 5, "purple": 4}},
    )
    after, events = play(game, "red_green", "red")
    assert {"type": "bonus_lapsed", "seat": 0, "count": 2} in events
    assert after.current == 1
    assert len(after.hands[0]) == 6


def test_hand_swap_offered_when_no_card_shows_the_lowest_colour() -> None:
    game = table(
        hands={0: ["red_green", "red_blue", "blue_orange"]},
        markers={0: {"red": 3, "green": 4, "blue": 4, "orange": 5, "yellow": 1, "purple": 2}},
    )
    after, _ = play(game, "red_green", "red")
    assert after.phase == "swap"
    assert after.legal_moves() == [{"type": "swap"}, {"type": "decline_swap"}]
    swapped, events = after.apply(0, {"type": "swap"})
    assert events[0] == {"type": "swap", "seat": 0, "cards": ["red_blue", "blue_orange"]}
    assert len(swapped.hands[0]) == 6
    assert swapped.discard[card("red_blue")] == 1
    assert swapped.current == 1
    kept, events = after.apply(0, {"type": "decline_swap"})
    assert card("red_blue") in kept.hands[0]
    assert events[0] == {"type": "decline_swap", "seat": 0}
    assert conserved(swapped) == conserved(kept) == 60


def test_hand_swap_not_offered_when_any_tied_lowest_colour_is_in_hand() -> None:
    game = table(
        hands={0: ["red_green", "yellow_blue"]},
        markers={0: {"red": 3, "green": 4, "blue": 4, "orange": 1, "yellow": 1, "purple": 2}},
    )
    after, _ = play(game, "red_green", "red")
    assert after.phase == "play"
    assert after.current == 1
    with pytest.raises(IllegalMove) as err:
        after.apply(1, {"type": "swap"})
    assert err.value.reason == Reason.SWAP_NOT_ALLOWED


def test_game_end_all_markers_at_seven_wins_at_once_without_bonus() -> None:
    game = table(
        hands={0: ["red_green", "blue_orange"]},
        open_cards={0: ["red_green"], 1: ["red_green"], 2: ["red_blue"], 3: ["red_orange"]},
        markers={
            0: {"red": 7, "green": 6, "blue": 9, "orange": 7, "yellow": 8, "purple": 7},
            1: {"red": 5, "green": 6, "blue": 4, "orange": 7, "yellow": 8, "purple": 4},
            2: {"red": 5, "green": 6, "blue": 4, "orange": 7, "yellow": 8, "purple": 5},
            3: {"red": 5, "green": 6, "blue": 4, "orange": 7, "yellow": 8, "purple": 4},
        },
    )
    after, events = play(game, "red_green", "red")  # red 7 -> 10 would be a bonus play
    assert after.is_over()
    assert after.to_move is None
    assert after.legal_moves() == []
    assert len(after.hands[0]) == 1  # no drawing
    assert events[-1]["type"] == "game_over"
    ranks = {s["seat"]: s["rank"] for s in after.standings()}
    assert ranks == {0: 1, 2: 2, 1: 3, 3: 3}  # seat 2's second-lowest marker breaks the tie
    with pytest.raises(IllegalMove) as err:
        after.apply(0, {"type": "play", "card": "blue_orange", "first": "blue"})
    assert err.value.reason == Reason.GAME_OVER


def test_game_end_ranking_by_lowest_then_next_lowest_marker() -> None:
    """The rulebook's end-of-game picture: rank by the lowest marker, ties by the next."""
    game = table()
    game.markers = [
        [7, 7, 8, 9, 7, 10],  # the winner
        [3, 5, 6, 6, 6, 6],
        [3, 4, 6, 6, 6, 6],
        [4, 4, 4, 4, 4, 4],
    ]
    game.winner = 0
    ranks = game._round_ranks()
    assert ranks == {0: 1, 3: 2, 1: 3, 2: 4}
    assert game._round_points() == [7, 3, 3, 4]


def test_reshuffle_discard_when_deck_is_empty_and_short_hand_when_both_are() -> None:
    game = table(hands={0: ["red_green"] * 4 + ["red_blue"] * 2})
    game.discard = list(game.deck)
    game.deck = [0] * len(PAIRS)
    after, events = play(game, "red_green", "red")
    assert any(e["type"] == "reshuffle" for e in events)
    assert len(after.hands[0]) == 6
    game.deck = [0] * len(PAIRS)
    game.discard = [0] * len(PAIRS)
    after, _ = play(game, "red_green", "red")
    # The card from the previous play went to the discard pile and is drawn back.
    assert len(after.hands[0]) == 6
    assert sum(after.deck) + sum(after.discard) == 0


def test_illegal_moves_have_stable_reasons_and_leave_the_state_alone() -> None:
    game = table(hands={0: ["red_green"]})
    before = game.encode()
    cases: list[tuple[int, Any, str]] = [
        (1, {"type": "play", "card": "red_green", "first": "red"}, Reason.NOT_YOUR_TURN),
        (0, {"type": "play", "card": "blue_orange", "first": "blue"}, Reason.CARD_NOT_IN_HAND),
        (0, {"type": "play", "card": "red_green", "first": "blue"}, Reason.BAD_COLOR),
        (0, {"type": "play", "card": "red_green", "first": "pink"}, Reason.BAD_COLOR),
        (0, {"type": "play", "card": "red_red", "first": "red"}, Reason.MALFORMED_MOVE),
        (0, {"type": "play", "card": 3, "first": "red"}, Reason.MALFORMED_MOVE),
        (0, {"type": "play", "card": "red_green"}, Reason.MALFORMED_MOVE),
        (0, {"type": "fly"}, Reason.UNKNOWN_MOVE),
        (0, {"card": "red_green"}, Reason.UNKNOWN_MOVE),
        (0, ["play"], Reason.MALFORMED_MOVE),
        (0, {"type": "play", "card": "red_green", "first": "red", "x": 1}, Reason.MALFORMED_MOVE),
        (0, {"type": "swap"}, Reason.SWAP_NOT_ALLOWED),
    ]
    for seat, move, reason in cases:
        with pytest.raises(IllegalMove) as err:
            game.apply(seat, move)
        assert err.value.reason == reason, move
    assert game.encode() == before


def test_card_names_accept_either_colour_order() -> None:
    game = table(hands={0: ["red_green"]})
    after, events = play(game, "green_red", "green")
    assert events[0]["card"] == "red_green"
    assert after.open_cards[0] == [card("red_green")]


def test_setup_deals_six_cards_and_one_open_card_each_and_seat_zero_starts() -> None:
    game = new_game("cards", 4, SEED)
    assert isinstance(game, CardGame)
    assert [len(h) for h in game.hands] == [6] * 4
    assert [len(o) for o in game.open_cards] == [1] * 4
    assert sum(game.deck) == 60 - 28
    assert game.to_move == 0
    assert game.last_events[0]["type"] == "deal"


def test_a_series_of_rounds_rotates_the_first_player_and_adds_lowest_markers() -> None:
    game = new_game("cards", 3, SEED, {"rounds": 2})
    assert isinstance(game, CardGame)
    game.markers[0] = [7, 7, 9, 9, 9, 6]
    game.markers[1] = [2, 3, 3, 3, 3, 3]
    game.markers[2] = [1, 1, 1, 1, 1, 1]
    game.open_cards = [[card("purple_red")], [card("purple_blue")], [card("green_blue")]]
    game.hands[0] = [card("red_purple")]
    after, events = play(game, "red_purple", "purple")
    over = next(e for e in events if e["type"] == "round_over")
    assert over["points"] == [7, 2, 1]
    assert over["ranks"] == [1, 2, 3]
    assert not after.is_over()
    assert after.round == 1
    assert after.to_move == 1
    assert after.points == [7, 2, 1]
    assert all(min(m) == 0 for m in after.markers)
    assert conserved(after) == 60


def test_a_series_ranks_by_total_points_and_equal_totals_share_a_rank() -> None:
    game = new_game("cards", 3, SEED, {"rounds": 2})
    game.points = [5, 5, 3]
    assert [row["rank"] for row in game.standings()] == [1, 1, 3]


def test_views_show_only_the_viewers_hand() -> None:
    game = new_game("cards", 3, SEED)
    view = game.view(1)
    assert view["table"]["hand"] == [CARD_NAMES[c] for c in game.hands[1]]
    assert [p["hand_size"] for p in view["table"]["players"]] == [6, 6, 6]
    assert game.view(None)["table"]["hand"] == []
    assert SEED.hex() not in repr(view)
    with pytest.raises(IllegalMove):
        game.view(3)


def _random_game(seats: int, seed: int) -> list[CardGame]:
    rnd = random.Random(seed)
    game = new_game("cards", seats, rnd.randbytes(16))
    assert isinstance(game, CardGame)
    states = [game]
    while not game.is_over():
        game, _ = game.apply(game.current, rnd.choice(game.legal_moves()))
        states.append(game)
        assert len(states) < 5000, "a card game should end"
    return states


@settings(max_examples=300, deadline=None)
@given(seats=st.integers(2, 4), seed=st.integers(0, 2**32))
def test_cards_are_conserved_and_markers_stay_in_two_adjacent_areas(seats: int, seed: int) -> None:
    for game in _random_game(seats, seed):
        assert conserved(game) == 60
        for markers in game.markers:
            assert all(0 <= m <= 10 for m in markers)
            # Each marker within the ceiling of the other five, hence all within two areas.
            assert all(m <= ceiling(markers, c) for c, m in enumerate(markers))
            assert max(markers) <= area_cap(min(markers))
        assert all(len(h) <= 6 for h in game.hands)


def random_counts(total: int, rnd: random.Random) -> list[int]:
    counts = [0] * len(PAIRS)
    for _ in range(total):
        counts[rnd.randrange(len(PAIRS))] += 1
    return counts


@settings(max_examples=100, deadline=None)
@given(seats=st.integers(2, 4), seed=st.integers(0, 2**32))
def test_views_do_not_change_when_hidden_cards_change(seats: int, seed: int) -> None:
    """A seat's view is the same whatever the others hold and whatever the deck is."""
    rnd = random.Random(seed)
    for game in _random_game(seats, seed)[:: rnd.randint(5, 20)]:
        viewer = rnd.randrange(seats)
        other = decode(game.encode())
        assert isinstance(other, CardGame)
        other.seed = bytes(16)
        for seat in range(seats):
            if seat != viewer:  # give the others different cards of the same count
                for i, c in enumerate(other.hands[seat]):
                    other.hands[seat][i] = (c + 1 + rnd.randrange(14)) % len(PAIRS)
        other.deck = random_counts(sum(game.deck), rnd)
        other.discard = random_counts(sum(game.discard), rnd)
        assert game.view(viewer) == other.view(viewer)
