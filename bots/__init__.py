"""Built-in bots for the three games: pure like the engine, and given only a seat's view.

>>> from genial import bots, engine
>>> game = engine.new_game("dice", seats=2, seed=bytes(16))
>>> bot = bots.make_bot("dice", "greedy", seed=1)
>>> move = bot.choose(game.view(game.to_move), game.legal_moves())
>>> move["type"]
'roll'

Three strengths per game: `random` (any legal move), `greedy` (the best immediate
outcome by the game's rules of thumb), `strong` (a Monte Carlo search over states
the engine deals from the view in the card game; in the dice and tile games, which
hide nothing but chance, the best move by the exact expectation over the turn's rolls
or draws). `genial arena` plays them against each other. The rules and the chance are
the engine's: the bots search through its public API and restate none of it.
"""

from __future__ import annotations

from genial.engine import Rng

from . import cards, dice, tiles
from .base import Bot, Kit, RandomBot, RankBot, Search, derive_seed
from .search import SearchBot

KITS: dict[str, Kit] = {"cards": cards.KIT, "dice": dice.KIT, "tiles": tiles.KIT}
"""Per game kind, what the generic bots need to know of it."""
STRENGTHS: tuple[str, ...] = ("random", "greedy", "strong")


def make_bot(kind: str, strength: str, seed: int | bytes, budget: int | None = None) -> Bot:
    """A bot of `strength` for game `kind`, deterministic given `seed`.

    `budget` is the strong bot's number of search iterations per move in the card
    game, by default the game's own (the other bots, and the exact strong bots of the
    dice and tile games, ignore it). Raises ValueError for an unknown kind or strength.
    """
    if kind not in KITS:
        raise ValueError(f"unknown game {kind!r}; one of {sorted(KITS)}")
    rng = Rng(derive_seed("bot", kind, strength, seed))
    if strength == "random":
        return RandomBot(rng)
    if strength == "greedy":
        return RankBot(KITS[kind].rank)
    if strength == "strong":
        kit = KITS[kind]
        if not isinstance(kit.strong, Search):
            return RankBot(kit.strong)
        return SearchBot(kit, kit.strong, rng, kit.strong.budget if budget is None else budget)
    raise ValueError(f"unknown strength {strength!r}; one of {STRENGTHS}")


__all__ = ["KITS", "STRENGTHS", "Bot", "make_bot"]
