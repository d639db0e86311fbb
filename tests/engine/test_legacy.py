"""Games stored before format 2 (one-letter keys) decode and play on.

The fixture holds, per game, a state encoded by the engine as it was before format 2,
the view of the seat to move then, the next moves it played and the spectator's view
after them. Remove this test with `engine/legacy.py` once no stored game is in format 1.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from genial.engine import decode

FIXTURE = Path(__file__).parent / "fixtures" / "format1_states.json"
STORED: dict[str, dict[str, Any]] = json.loads(FIXTURE.read_text())


@pytest.mark.parametrize("kind", sorted(STORED))
def test_a_format_1_state_decodes_to_the_same_game(kind: str) -> None:
    stored = STORED[kind]
    raw = json.loads(stored["state"])
    assert "k" in raw, "the fixture is in format 1"
    assert "game" not in raw
    game = decode(stored["state"].encode())
    assert game.kind == kind
    assert game.view(game.to_move) == stored["view"]
    again = decode(game.encode())
    assert again == game
    assert json.loads(game.encode())["format"] == 2


@pytest.mark.parametrize("kind", ["dice", "tiles"])
def test_a_format_1_game_plays_on_with_the_same_draws(kind: str) -> None:
    """The generator goes on where the stored game left it: the same moves give the same
    dice and tiles as the engine that stored the game (the card game's area rule has
    changed since, so its markers may differ)."""
    stored = STORED[kind]
    game = decode(stored["state"].encode())
    for seat, move in stored["moves"]:
        game, _ = game.apply(seat, move)
    assert game.view(None) == stored["spectator_view_after"]


@pytest.mark.parametrize("kind", sorted(STORED))
def test_a_format_1_game_plays_to_its_end(kind: str) -> None:
    game = decode(STORED[kind]["state"].encode())
    rnd = random.Random(kind)
    moves = 0
    while not game.is_over():
        seat = game.to_move
        assert seat is not None
        game, _ = game.apply(seat, rnd.choice(game.legal_moves()))
        moves += 1
        assert moves < 20_000
    assert sorted(row["rank"] for row in game.standings())[0] == 1
