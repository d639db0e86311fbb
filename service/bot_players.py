"""The built-in bots as the service runs them: one call, a view and the legal moves in,
a move out. Bots see exactly what their seat's view shows."""

from __future__ import annotations

import secrets
from typing import Any

from genial import engine
from genial.bots import make_bot

TIMEOUT_BOT = "greedy"
"""The strength that moves for a seat whose turn timer ran out."""


def choose_move(
    kind: str, strength: str, view: engine.View, legal_moves: list[dict[str, Any]]
) -> dict[str, Any]:
    # A fresh seed each time: the service needs no replayable bots, and a bot's choice
    # must not be predictable from the outside.
    bot = make_bot(kind, strength, secrets.randbits(64))
    return dict(bot.choose(view, legal_moves))
