"""The engine's public chance and determinisation API: every outcome of a move with its
probability, a move made with its chance decided, and a state dealt from a view."""

from __future__ import annotations

import random
from collections import Counter
from math import comb, isclose

import pytest

from genial import engine
from genial.engine import COLORS, CardGame, DiceGame, GameState, Rng, TileGame, new_game
from genial.engine.cards import CARD_INDEX, COPIES, PAIRS
from genial.engine.dice import counts_of
from genial.engine.rng import draw_odds

KINDS = sorted(engine.GAMES)


def positions(kind: str, seats: int, count: int, seed: int = 1) -> list[GameState]:
    """Positions from random games of random moves."""
    rnd = random.Random(f"{kind}{seats}{seed}")
    found: list[GameState] = []
    game = new_game(kind, seats, rnd.randbytes(16))
    while len(found) < count:
        if game.is_over():
            game = new_game(kind, seats, rnd.randbytes(16))
        if rnd.random() < 0.25:
            found.append(game)
        seat = game.to_move
        assert seat is not None
        game, _ = game.apply(seat, rnd.choice(game.legal_moves()))
    return found


@pytest.mark.parametrize(("seats", "dice", "rolls"), [(2, 4, 126), (3, 3, 56), (4, 2, 21)])
def test_a_roll_has_every_multiset_of_colours_with_its_probability(
    seats: int, dice: int, rolls: int
) -> None:
    game = new_game("dice", seats, bytes(16))
    outcomes = game.chance_outcomes({"type": "roll"})
    assert len(outcomes) == rolls == comb(6 + dice - 1, dice)
    assert isclose(sum(o.probability for o in outcomes), 1.0)
    # Four dice all red: (1/6)^4; red, red, green, blue: 12 orders of (1/6)^4.
    odds = {counts_of(o.draws): o.probability for o in outcomes}
    assert isclose(odds[(dice, 0, 0, 0, 0, 0)], 6.0**-dice)
    if dice == 4:
        assert isclose(odds[(2, 1, 1, 0, 0, 0)], 12 * 6.0**-4)
    for o in outcomes:
        assert isinstance(o.state, DiceGame)
        assert o.state.dice[0] == list(o.draws)  # the roll, listed in colour order
        assert o.events[0]["dice"] == [COLORS[c] for c in o.draws]


def test_a_reveal_draws_each_colour_by_its_share_of_the_reserve() -> None:
    game = new_game("tiles", 2, bytes(16))
    assert isinstance(game, TileGame)
    outcomes = game.chance_outcomes({"type": "reveal"})
    assert [(o.draws[0], o.probability) for o in outcomes] == [
        (c, p) for c, p in draw_odds(game.reserve)
    ]
    for o in outcomes:
        c = o.draws[0]
        expected = "success" if game.centre[c] else "no_match"
        assert o.events[0] == {"type": "reveal", "seat": 0, "color": COLORS[c], "outcome": expected}


def test_a_card_drawn_at_the_end_of_a_turn_is_any_card_left_in_the_deck() -> None:
    game = new_game("cards", 3, bytes(16))
    assert isinstance(game, CardGame)
    move = game.legal_moves()[0]
    outcomes = game.chance_outcomes(move)
    deck = sum(game.deck)
    assert [(o.draws, o.probability) for o in outcomes] == [
        ((card,), n / deck) for card, n in enumerate(game.deck) if n
    ]
    kept = Counter(game.hands[0]) - Counter([CARD_INDEX[move["card"]]])
    for o in outcomes:
        assert Counter(o.state.hands[0]) == kept + Counter(o.draws)


def test_a_swap_draws_six_cards_as_one_multiset() -> None:
    """The hand's order changes nothing, so each multiset of six is one outcome: few
    enough to list, weighed by the multivariate hypergeometric law."""
    game = new_game("cards", 2, bytes(16))
    assert isinstance(game, CardGame)
    game.deck = [0] * len(PAIRS)
    game.deck[0], game.deck[1], game.deck[2] = 3, 2, 4  # 9 cards left
    game.discard = [COPIES - n for n in game.deck]
    game.hands[0] = [14]
    game.phase = "swap"
    outcomes = game.chance_outcomes({"type": "swap"})
    assert isclose(sum(o.probability for o in outcomes), 1.0)
    for o in outcomes:
        drawn = Counter(o.draws)
        expected = comb(3, drawn[0]) * comb(2, drawn[1]) * comb(4, drawn[2]) / comb(9, 6)
        assert isclose(o.probability, expected)
        assert list(o.draws) == sorted(o.draws)
    assert len(outcomes) == sum(
        1 for a in range(4) for b in range(3) for c in range(5) if a + b + c == 6
    )


@pytest.mark.parametrize("kind", KINDS)
def test_outcomes_add_up_to_one_and_each_is_the_move_made_with_its_draws(kind: str) -> None:
    for game in positions(kind, 3, 12):
        seat = game.to_move
        assert seat is not None
        for move in game.legal_moves()[:4]:
            outcomes = game.chance_outcomes(move)
            assert isclose(sum(o.probability for o in outcomes), 1.0)
            assert len({o.draws for o in outcomes}) == len(outcomes)
            for o in outcomes[:20]:
                forced, events = game.apply(seat, move, draws=o.draws)
                assert forced == o.state
                assert events == o.events


def test_a_move_without_chance_has_one_outcome_with_no_draws() -> None:
    game = new_game("dice", 2, bytes(16))
    rolled, _ = game.apply(0, {"type": "roll"})
    score = rolled.legal_moves()[0]
    [outcome] = rolled.chance_outcomes(score)
    assert (outcome.draws, outcome.probability) == ((), 1.0)
    assert outcome.state == rolled.apply(0, score)[0]


def test_draws_that_cannot_be_drawn_are_refused() -> None:
    game = new_game("tiles", 2, bytes(16))
    assert isinstance(game, TileGame)
    empty = next(c for c in range(6) if game.reserve[c] == 0) if 0 in game.reserve else None
    with pytest.raises(ValueError, match="cannot be"):
        game.apply(0, {"type": "reveal"}, draws=[6])
    if empty is not None:
        with pytest.raises(ValueError, match="cannot be"):
            game.apply(0, {"type": "reveal"}, draws=[empty])


def test_illegal_moves_have_no_outcomes() -> None:
    game = new_game("dice", 2, bytes(16))
    with pytest.raises(engine.IllegalMove) as err:
        game.chance_outcomes({"type": "reroll"})
    assert err.value.reason == "WRONG_PHASE"


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("seats", [2, 3, 4])
def test_a_state_dealt_from_a_view_shows_the_seat_exactly_that_view(kind: str, seats: int) -> None:
    rng = Rng(bytes(range(16)))
    for game in positions(kind, seats, 40):
        seat = game.to_move
        assert seat is not None
        view = game.view(seat)
        dealt = engine.from_view(view, rng)
        assert type(dealt) is type(game)
        assert dealt.view(seat) == view
        assert dealt.seed != game.seed  # the future is the deal's own
        assert dealt.legal_moves() == game.legal_moves()
        assert game.determinize(seat, rng).view(seat) == view


def test_a_dealt_card_game_holds_the_sixty_cards_and_varies_the_hidden_ones() -> None:
    rng = Rng(bytes(range(16)))
    game = positions("cards", 3, 5)[-1]
    assert isinstance(game, CardGame)
    hands = set()
    for _ in range(20):
        dealt = game.determinize(0, rng)
        cards = Counter(dict(enumerate(dealt.deck)))
        cards.update(dict(enumerate(dealt.discard)))
        for cards_of_seat in dealt.hands + dealt.open_cards:
            cards.update(cards_of_seat)
        assert cards == Counter(dict.fromkeys(range(len(PAIRS)), COPIES))
        assert dealt.hands[0] == game.hands[0]
        assert sum(dealt.deck) == sum(game.deck)
        hands.add(tuple(dealt.hands[1]))
    assert len(hands) > 1


def test_a_dealt_tile_game_knows_the_reserve_and_dice_the_dice() -> None:
    rng = Rng(bytes(16))
    for game in positions("tiles", 4, 10) + positions("dice", 4, 10):
        dealt = game.determinize(None, rng)
        assert dealt.to_data()["table"] == game.to_data()["table"]


@pytest.mark.parametrize("kind", KINDS)
def test_a_deal_from_a_view_depends_on_nothing_the_view_hides(kind: str) -> None:
    """Two states a seat cannot tell apart (another deal of the hidden cards, another
    seed and generator position) give the same deal from the same generator."""
    for game in positions(kind, 3, 20):
        seat = game.to_move
        assert seat is not None
        twin = game.determinize(seat, Rng(bytes([7] * 16)))
        assert twin.seed != game.seed
        assert twin.view(seat) == game.view(seat)
        mine = game.determinize(seat, Rng(bytes(16)))
        assert mine == twin.determinize(seat, Rng(bytes(16)))
