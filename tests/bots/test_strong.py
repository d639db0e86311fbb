"""The exact strong rankings of the dice and tile games: given only the view, and sound
in positions whose best move can be worked out by hand."""

from __future__ import annotations

import json

import pytest

from genial import engine
from genial.bots import make_bot
from genial.bots.base import derive_seed
from genial.bots.tiles import strong
from genial.engine import GameState, Rng


def reseeded(game: GameState) -> GameState:
    """The same game with another seed: the same view, another future."""
    return game.determinize(game.to_move, Rng(bytes(range(16))))


@pytest.mark.parametrize("kind", ["dice", "tiles"])
def test_the_strong_bot_is_blind_to_the_future(kind: str) -> None:
    """Games that differ only in their seed (the future rolls or draws) show the seat the
    same view, so the strong bot must choose the same in both."""
    rng = Rng(derive_seed("future", kind))
    game = engine.new_game(kind, 3, derive_seed("blind", kind))
    checked = 0
    while not game.is_over() and checked < 40:
        seat = game.to_move
        assert seat is not None
        legal = game.legal_moves()
        if len(legal) > 1:
            other = reseeded(game)
            assert other.view(seat) == game.view(seat)
            choices = [
                make_bot(kind, "strong", 5).choose(json.loads(json.dumps(g.view(seat))), legal)
                for g in (game, other)
            ]
            assert choices[0] == choices[1]
            checked += 1
        game, _ = game.apply(seat, legal[rng.below(len(legal))])
    assert checked >= 20


def tiles_view(collection: list[int], centre: list[int], zone: list[str]) -> engine.View:
    return {
        "viewer": 0,
        "table": {
            "line_length": 7,
            "bonus_moves": 0,
            "centre": centre,
            "zone": zone,
            "players": [
                {"seat": 0, "collection": collection},
                {"seat": 1, "collection": [3, 3, 3, 3, 3, 3]},
            ],
        },
    }


def test_the_tile_bot_takes_a_line_whose_bonus_move_wins_safely() -> None:
    """Taking green completes its line; the bonus move then takes the last orange by the
    alternative move. Revealing on risks all of it."""
    view = tiles_view([7, 6, 7, 6, 7, 7], [2, 5, 1, 2, 1, 1], ["green", "yellow", "red"])
    moves: list[engine.Move] = [{"type": "reveal"}, {"type": "take"}]
    assert strong(view, moves)[0] == {"type": "take"}


def test_the_tile_bot_reveals_on_when_a_take_is_worth_nothing_yet() -> None:
    """A zone of one colour already at its line gains nothing by a take; a further
    success in a colour stacked in the centre gains a lot."""
    view = tiles_view([7, 0, 0, 0, 0, 0], [1, 4, 4, 4, 4, 0], ["red"])
    moves: list[engine.Move] = [{"type": "reveal"}, {"type": "take"}]
    assert strong(view, moves)[0] == {"type": "reveal"}
