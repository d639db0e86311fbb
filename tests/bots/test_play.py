"""Every bot plays whole games of every kind without an illegal move."""

from __future__ import annotations

import pytest

from genial import engine
from genial.bots import STRENGTHS, Bot, make_bot
from genial.bots.base import derive_seed

KINDS = sorted(engine.GAMES)


def play(kind: str, bots: list[Bot], seed: bytes) -> int:
    """A whole game; every move is checked against the legal list first. Its length."""
    game = engine.new_game(kind, len(bots), seed)
    moves = 0
    while not game.is_over():
        seat = game.to_move
        assert seat is not None
        legal = game.legal_moves()
        view = game.view(seat)
        move = bots[seat].choose(view, legal)
        assert move in legal, (kind, move, legal)
        game, _ = game.apply(seat, move)
        moves += 1
        assert moves < 10_000, "a game that does not end"
    return moves


@pytest.mark.parametrize("kind", KINDS)
def test_thousands_of_games_of_random_and_greedy_bots(kind: str) -> None:
    """A thousand games per kind, 2-4 seats, each table mixing random and greedy seats
    (so greedy meets positions random play leads to, and the reverse)."""
    for i in range(1000):
        seats = 2 + i % 3
        bots = [
            make_bot(kind, ("random", "greedy")[(i + s) % 2], derive_seed(i, s))
            for s in range(seats)
        ]
        play(kind, bots, derive_seed("test", kind, i))


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("seats", [2, 3, 4])
def test_strong_bot_plays_whole_games(kind: str, seats: int) -> None:
    for i in range(2):
        bots = [
            make_bot(kind, STRENGTHS[(i + s) % 3], derive_seed(i, s), budget=2)
            for s in range(seats)
        ]
        play(kind, bots, derive_seed("strong", kind, seats, i))


def test_a_bot_is_deterministic_given_its_seed() -> None:
    game = engine.new_game("cards", 3, bytes(16))
    seat = game.to_move
    assert seat is not None
    view, legal = game.view(seat), game.legal_moves()
    for strength in STRENGTHS:
        first = [make_bot("cards", strength, 7, budget=4).choose(view, legal) for _ in range(2)]
        assert first[0] == first[1]


def test_unknown_kinds_and_strengths_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown game"):
        make_bot("chess", "random", 1)
    with pytest.raises(ValueError, match="unknown strength"):
        make_bot("cards", "perfect", 1)
    with pytest.raises(ValueError, match="at least two"):
        make_bot("cards", "strong", 1, budget=1)
