"""The bots see only a seat's view: the sampled states agree with it, and the hidden
state of the real game cannot change what the strong bot does."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest

from genial import engine
from genial.bots import KITS, make_bot
from genial.bots.base import derive_seed
from genial.engine import CardGame, GameState, Rng
from genial.engine.cards import COPIES, PAIRS

KINDS = sorted(engine.GAMES)


def positions(kind: str, seats: int, count: int) -> list[GameState]:
    """Positions from random games, every `count`-th move or so."""
    rng = Rng(derive_seed("positions", kind, seats))
    found: list[GameState] = []
    game = engine.new_game(kind, seats, derive_seed(kind, seats))
    while len(found) < count:
        if game.is_over():
            game = engine.new_game(kind, seats, derive_seed(kind, seats, len(found)))
        if rng.below(4) == 0:
            found.append(game)
        legal = game.legal_moves()
        seat = game.to_move
        assert seat is not None
        game, _ = game.apply(seat, legal[rng.below(len(legal))])
    return found


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("seats", [2, 3, 4])
def test_a_sampled_state_shows_the_seat_exactly_its_view(kind: str, seats: int) -> None:
    rng = Rng(derive_seed("sampler"))
    for game in positions(kind, seats, 60):
        seat = game.to_move
        assert seat is not None
        view = game.view(seat)
        sample = KITS[kind].sample(view, rng)
        assert sample.view(seat) == view
        assert sample.seed != game.seed  # the future is the sample's own
        assert sample.legal_moves() == game.legal_moves()


def test_a_sampled_deal_holds_the_sixty_cards_and_varies_the_hidden_ones() -> None:
    rng = Rng(derive_seed("deal"))
    game = positions("cards", 3, 5)[-1]
    assert isinstance(game, CardGame)
    view = game.view(0)
    hands = set()
    for _ in range(20):
        sample = KITS["cards"].sample(view, rng)
        assert isinstance(sample, CardGame)
        cards = Counter(dict(enumerate(sample.deck)))
        cards.update(dict(enumerate(sample.discard)))
        for cards_of_seat in sample.hands + sample.open_cards:
            cards.update(cards_of_seat)
        assert cards == Counter(dict.fromkeys(range(len(PAIRS)), COPIES))
        assert sample.hands[0] == game.hands[0]
        hands.add(tuple(sample.hands[1]))
    assert len(hands) > 1


def with_other_hidden_cards(game: CardGame) -> CardGame:
    """The same game for seat 0 with the other hands dealt anew from the deck, the deck
    and discard pile mixed together anew, and another seed: only hidden things change."""
    data: dict[str, Any] = json.loads(game.encode())
    g = data["g"]
    pool = [c for c, n in enumerate(g["d"]) for _ in range(n)]
    pool += [c for c, n in enumerate(g["x"]) for _ in range(n)]
    pool += [c for hand in g["h"][1:] for c in hand]
    pool.reverse()  # a different, deterministic order of the same unknown cards
    for seat in range(1, game.seats):
        size = len(g["h"][seat])
        g["h"][seat], pool = sorted(pool[:size]), pool[size:]
    deck_size = sum(g["d"])
    g["d"] = [pool[:deck_size].count(c) for c in range(len(PAIRS))]
    g["x"] = [pool[deck_size:].count(c) for c in range(len(PAIRS))]
    data["s"] = bytes(range(16)).hex()
    other = CardGame.from_data(data)
    return other


def test_the_strong_bot_is_blind_to_hidden_cards() -> None:
    """Two games that differ only in what seat 0 cannot see give it the same view, so
    the strong bot must choose the same; a bot that reached the real game (its seed,
    the other hands, the deck) would be told apart here."""
    checked = 0
    for game in positions("cards", 3, 40):
        if game.to_move != 0:
            continue
        assert isinstance(game, CardGame)
        other = with_other_hidden_cards(game)
        assert other.hands[1:] != game.hands[1:] or other.deck != game.deck
        assert other.view(0) == game.view(0)
        choices = [
            make_bot("cards", "strong", 5, budget=6).choose(
                # Plain data only: a JSON copy shares nothing with the real game.
                json.loads(json.dumps(g.view(0))),
                g.legal_moves(),
            )
            for g in (game, other)
        ]
        assert choices[0] == choices[1]
        checked += 1
    assert checked >= 5


def test_the_strong_bot_never_plays_on_the_real_seed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every state the strong bot searches is one it sampled: none has the game's seed."""
    game = positions("cards", 2, 10)[-1]
    seat = game.to_move
    assert seat is not None
    seeds: list[bytes] = []
    original = GameState.from_data.__func__  # type: ignore[attr-defined]

    def spy(cls: type[GameState], data: dict[str, Any]) -> GameState:
        seeds.append(bytes.fromhex(data["s"]))
        state: GameState = original(cls, data)
        return state

    monkeypatch.setattr(GameState, "from_data", classmethod(spy))
    make_bot("cards", "strong", 1, budget=4).choose(game.view(seat), game.legal_moves())
    assert len(seeds) == 4
    assert game.seed not in seeds
