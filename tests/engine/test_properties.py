"""Properties every game shares, over thousands of random games per game and seat count."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from genial.engine import GAMES, GameState, IllegalMove, decode, new_game

KINDS = sorted(GAMES)
MAX_MOVES = 20_000


def play_random(kind: str, seats: int, seed: int) -> tuple[GameState, list[Any], list[GameState]]:
    """A whole game of random legal moves: the start, the moves, and every state on the way."""
    rnd = random.Random(seed)
    start = new_game(kind, seats, rnd.randbytes(16))
    game, moves, states = start, [], [start]
    while not game.is_over():
        seat = game.to_move
        assert seat is not None
        legal = game.legal_moves()
        assert legal, "the seat to move always has a legal move"
        move = rnd.choice(legal)
        game, _ = game.apply(seat, move)
        moves.append((seat, move))
        states.append(game)
        assert len(moves) < MAX_MOVES, "every game ends"
    return start, moves, states


@pytest.mark.parametrize("seats", [2, 3, 4])
@pytest.mark.parametrize("kind", KINDS)
def test_thousand_random_games_end(kind: str, seats: int) -> None:
    """Every game ends with a full ranking, for 1000 seeds per game and seat count."""
    for seed in range(1000):
        _, _, states = play_random(kind, seats, seed)
        final = states[-1]
        assert final.to_move is None
        assert final.legal_moves() == []
        ranks = sorted(row["rank"] for row in final.standings())
        assert ranks[0] == 1
        assert len(ranks) == seats


@settings(max_examples=150, deadline=None)
@given(kind=st.sampled_from(KINDS), seats=st.integers(2, 4), seed=st.integers(0, 2**64))
def test_replay_and_serialisation(kind: str, seats: int, seed: int) -> None:
    """Replaying the moves from the seed gives the same states; decode(encode) is the identity."""
    start, moves, states = play_random(kind, seats, seed)
    game = new_game(kind, seats, start.seed)
    assert game == start
    for (seat, move), expected in zip(moves, states[1:], strict=True):
        game, _ = game.apply(seat, move)
        assert game == expected
        again = decode(game.encode())
        assert again == game
        assert again.encode() == game.encode()


def mutations(move: dict[str, Any], rnd: random.Random) -> list[Any]:
    """Moves near a legal one: fields dropped, added, or given other values."""
    out: list[Any] = [None, [], "play", {}, {**move, "extra": 1}]
    for key in move:
        out.append({k: v for k, v in move.items() if k != key})
        for value in (None, 7, -1, "", "red", "nope", [], {}, ["red"], True):
            out.append({**move, key: value})
    return out


@settings(max_examples=60, deadline=None)
@given(kind=st.sampled_from(KINDS), seats=st.integers(2, 4), seed=st.integers(0, 2**64))
def test_moves_outside_the_legal_list_are_refused_and_change_nothing(
    kind: str, seats: int, seed: int
) -> None:
    rnd = random.Random(seed)
    _, _, states = play_random(kind, seats, seed)
    for game in rnd.sample(states[:-1], min(8, len(states) - 1)):
        before = game.encode()
        legal = game.legal_moves()
        seat = game.to_move
        assert seat is not None
        candidates = [m for move in legal for m in mutations(move, rnd)]
        for move in candidates:
            if move in legal:
                continue
            with pytest.raises(IllegalMove) as err:
                game.apply(seat, move)
            assert err.value.reason.isupper()
        for other in range(seats):
            if other != seat:
                with pytest.raises(IllegalMove) as err:
                    game.apply(other, legal[0])
                assert err.value.reason == "NOT_YOUR_TURN"
        assert game.encode() == before
    final = states[-1]
    with pytest.raises(IllegalMove) as err:
        final.apply(0, {"type": "play"})
    assert err.value.reason == "GAME_OVER"


@settings(max_examples=60, deadline=None)
@given(kind=st.sampled_from(KINDS), seats=st.integers(2, 4), seed=st.integers(0, 2**64))
def test_views_are_plain_data_without_the_seed(kind: str, seats: int, seed: int) -> None:
    _, _, states = play_random(kind, seats, seed)
    secret = states[0].seed.hex()
    for game in states:
        for viewer in [None, *range(seats)]:
            text = json.dumps(game.view(viewer))  # plain data: serialisable as it is
            assert secret not in text
            assert '"c"' not in text


def test_every_legal_move_is_accepted_as_listed() -> None:
    for kind in KINDS:
        for seats in (2, 3, 4):
            _, _, states = play_random(kind, seats, 7)
            for game in states[:-1:5]:
                for move in game.legal_moves():
                    game.apply(game.to_move or 0, move)


def test_options_are_validated() -> None:
    for kind in KINDS:
        for options in ({"rounds": 0}, {"rounds": 11}, {"rounds": "2"}, {"colour": 1}):
            with pytest.raises(IllegalMove) as err:
                new_game(kind, 3, options=options)
            assert err.value.reason == "BAD_OPTION"
        for seats in (1, 5):
            with pytest.raises(IllegalMove) as err:
                new_game(kind, seats)
            assert err.value.reason == "BAD_SEAT"
    with pytest.raises(IllegalMove) as err:
        new_game("chess", 2)
    assert err.value.reason == "UNKNOWN_GAME"
