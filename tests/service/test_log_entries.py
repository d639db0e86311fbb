"""Move entries are written in the vocabulary's words, found by their canonical JSON."""

from __future__ import annotations

import json
import random

import pytest

from genial import engine
from genial.service import log_entries
from genial.service.log_entries import Cause, LoggedMove


def test_the_canonical_text_of_every_vocabulary_move_is_itself() -> None:
    for moves in log_entries._VOCABULARY.values():
        for text in moves:
            assert log_entries._canonical(json.loads(text)) == text


@pytest.mark.parametrize("kind", ["cards", "dice", "tiles"])
def test_the_moves_of_a_game_are_written_as_words_and_read_back(kind: str) -> None:
    rng = random.Random(kind)
    state = engine.new_game(kind, 3, seed=rng.randbytes(16))
    while not state.is_over():
        move = rng.choice(state.legal_moves())
        raw = log_entries.encode_move(kind, LoggedMove(state.to_move, Cause.PLAYER, move))
        assert not raw[3:].startswith(b"{"), "a move of the game is in the vocabulary"
        assert log_entries.decode_move(kind, raw).move == move
        state, _ = state.apply(state.to_move, move)
