"""The bots see only a seat's view: the hidden state of the real game cannot change what
the strong bot does, and every state it searches is one dealt from its view."""

from __future__ import annotations

import json
from typing import Any

import pytest

from genial import engine
from genial.bots import make_bot
from genial.bots.base import derive_seed
from genial.engine import CardGame, GameState, Rng
from genial.engine.cards import PAIRS

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


def with_other_hidden_cards(game: CardGame) -> CardGame:
    """The same game for seat 0 with the other hands dealt anew from the deck, the deck
    and discard pile mixed together anew, and another seed: only hidden things change."""
    data: dict[str, Any] = json.loads(game.encode())
    table = data["table"]
    pool = [c for c, n in enumerate(table["deck"]) for _ in range(n)]
    pool += [c for c, n in enumerate(table["discard"]) for _ in range(n)]
    pool += [c for hand in table["hands"][1:] for c in hand]
    pool.reverse()  # a different, deterministic order of the same unknown cards
    for seat in range(1, game.seats):
        size = len(table["hands"][seat])
        table["hands"][seat], pool = sorted(pool[:size]), pool[size:]
    deck_size = sum(table["deck"])
    table["deck"] = [pool[:deck_size].count(c) for c in range(len(PAIRS))]
    table["discard"] = [pool[deck_size:].count(c) for c in range(len(PAIRS))]
    data["seed"] = bytes(range(16)).hex()
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
    """Every state the strong bot searches is one the engine dealt from its view: none
    has the game's seed."""
    game = positions("cards", 2, 10)[-1]
    seat = game.to_move
    assert seat is not None
    seeds: list[bytes] = []
    original = CardGame.from_view.__func__  # type: ignore[attr-defined]

    def spy(cls: type[CardGame], view: engine.View, rng: Rng) -> CardGame:
        state: CardGame = original(cls, view, rng)
        seeds.append(state.seed)
        return state

    monkeypatch.setattr(CardGame, "from_view", classmethod(spy))
    make_bot("cards", "strong", 1, budget=4).choose(game.view(seat), game.legal_moves())
    assert len(seeds) == 4
    assert game.seed not in seeds
