"""The service stores states with msgspec's JSON: the engine's own bytes, read back the same."""

from __future__ import annotations

import random

import pytest

from genial import engine
from genial.service import records


@pytest.mark.parametrize("kind", ["cards", "dice", "tiles"])
@pytest.mark.parametrize("seats", [2, 4])
def test_every_state_of_a_game_encodes_as_the_engine_does(kind: str, seats: int) -> None:
    rng = random.Random(f"{kind}{seats}")
    state = engine.new_game(kind, seats, seed=rng.randbytes(16))
    while not state.is_over():
        stored = records.encode_state(state)
        assert stored == state.encode()
        assert records.decode_state(stored).to_data() == state.to_data()
        state, _ = state.apply(state.to_move, rng.choice(state.legal_moves()))
    assert records.encode_state(state) == state.encode()
