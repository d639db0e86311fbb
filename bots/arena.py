"""`genial arena`: bots play many games against each other; win rates with 95% intervals.

The seats rotate: the games come in sets of one deal (one game seed) played once
with each rotation of the bots round the table, so every bot plays every seat
equally often and meets the same luck from every seat. Every game and every
bot's seed is derived from `--seed` and the game's number, and the results are
gathered in game order, so the same command prints the same results with any
number of worker processes (only the timing figures differ).

A bot is a built-in strength (`random`, `greedy`, `strong`) or `module:attribute`,
a callable `factory(kind, seed) -> Bot` (a class with that constructor will do)
importable by the worker processes.
"""

from __future__ import annotations

import argparse
import importlib
import math
import multiprocessing
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from genial import engine

from . import STRENGTHS, make_bot
from .base import Bot, derive_seed

Z95 = 1.959964
"""The normal quantile of a two-sided 95% interval."""
CHUNK = 8
"""Games per task sent to a worker: big enough to hide the cost of the hand-over."""
MAX_MOVES = 10_000
"""A game still running after this many moves is stopped and counted as a tie of all
seats: bots can go round in circles (in the tile game, one player may keep taking the
only tiles another needs, and every one of them goes back to the reserve)."""


@dataclass(frozen=True)
class Match:
    """What to play: one game kind, one bot per seat (by spec), how many games."""

    game: str
    bots: tuple[str, ...]
    games: int
    seed: int
    budget: int | None = None
    """The card game's strong bot's search iterations per move; None: its default. The
    strong bots of the dice and tile games compute exactly and have no budget."""


@dataclass(frozen=True)
class GameResult:
    shares: tuple[float, ...]
    """Per bot position in `Match.bots`, its share of the win (ties split)."""
    moves: int
    finished: bool = True


@dataclass(frozen=True)
class Row:
    bot: str
    games: int
    """Seat-games: a bot in two seats plays two per game."""
    wins: float

    @property
    def rate(self) -> float:
        return self.wins / self.games

    def interval(self) -> tuple[float, float]:
        return wilson(self.wins, self.games)


@dataclass(frozen=True)
class Report:
    match: Match
    rows: list[Row]
    moves: int
    seconds: float
    unfinished: int

    def lines(self) -> list[str]:
        m = self.match
        out = [
            f"{m.game}, {len(m.bots)} seats, {m.games} games, seed {m.seed}, "
            f"budget {m.budget or 'default'}: {','.join(m.bots)}",
            f"{'bot':<24} {'games':>7} {'wins':>9} {'win rate':>9}  95% interval",
        ]
        for row in self.rows:
            low, high = row.interval()
            out.append(
                f"{row.bot:<24} {row.games:>7} {row.wins:>9.1f} {row.rate:>8.1%}"
                f"  [{low:.1%}, {high:.1%}]"
            )
        out.append(
            f"mean game length {self.moves / m.games:.1f} moves; "
            f"{self.moves / self.seconds:,.0f} moves/s ({self.seconds:.1f} s)"
        )
        if self.unfinished:
            out.append(f"{self.unfinished} games stopped at {MAX_MOVES} moves, counted as ties")
        return out


def wilson(wins: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion: sound near 0 and 1, unlike p +- z*se."""
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def bot_factory(spec: str, budget: int | None) -> Callable[[str, bytes], Bot]:
    """A built-in strength, or `module:attribute` naming a `factory(kind, seed)`."""
    if spec in STRENGTHS:
        return lambda kind, seed: make_bot(kind, spec, seed, budget)
    module, sep, attribute = spec.partition(":")
    if not sep or not module or not attribute:
        raise ValueError(f"a bot is one of {STRENGTHS} or module:attribute, not {spec!r}")
    factory: Callable[[str, bytes], Bot] = getattr(importlib.import_module(module), attribute)
    return factory


def play(match: Match, index: int) -> GameResult:
    """Game `index` of a match: its deal and its rotation of the bots round the table."""
    n = len(match.bots)
    deal, rotation = divmod(index, n)
    # Seat s holds the bot at position (s - rotation) % n of the list.
    positions = [(s - rotation) % n for s in range(n)]
    bots = [
        bot_factory(match.bots[p], match.budget)(match.game, derive_seed(match.seed, index, s))
        for s, p in enumerate(positions)
    ]
    game = engine.new_game(match.game, n, derive_seed("game", match.seed, deal))
    moves = 0
    while not game.is_over():
        seat = game.to_move
        assert seat is not None
        legal = game.legal_moves()
        # The bot gets what a player gets over the API: its view and the legal moves.
        move = bots[seat].choose(game.view(seat), legal)
        game, _ = game.apply(seat, move)  # an illegal move raises: the arena stops on it
        moves += 1
        if moves == MAX_MOVES:
            return GameResult(tuple([1 / n] * n), moves, finished=False)
    winners = [row["seat"] for row in game.standings() if row["rank"] == 1]
    shares = [0.0] * n
    for seat in winners:
        shares[positions[seat]] += 1 / len(winners)
    return GameResult(tuple(shares), moves)


def play_chunk(task: tuple[Match, range]) -> list[GameResult]:
    match, indices = task
    return [play(match, i) for i in indices]


def run(match: Match, workers: int = 1) -> Report:
    """Play the match on `workers` processes (1: in this process)."""
    if not 2 <= len(match.bots) <= 4:
        raise ValueError("a match has 2-4 bots, one per seat")
    if match.games < 1 or match.games % len(match.bots):
        raise ValueError("the number of games is a positive multiple of the number of seats")
    for spec in set(match.bots):
        bot_factory(spec, match.budget)  # a bad spec fails here, not in a worker
    tasks = [(match, range(i, min(i + CHUNK, match.games))) for i in range(0, match.games, CHUNK)]
    start = time.perf_counter()
    if workers == 1:
        chunks = [play_chunk(task) for task in tasks]
    else:
        with multiprocessing.get_context().Pool(workers) as pool:
            chunks = pool.map(play_chunk, tasks)  # in task order, whatever finishes first
    seconds = time.perf_counter() - start
    results = [r for chunk in chunks for r in chunk]
    rows = []
    for spec in dict.fromkeys(match.bots):  # each bot kind once, in the order given
        positions = [p for p, s in enumerate(match.bots) if s == spec]
        wins = sum(r.shares[p] for r in results for p in positions)
        rows.append(Row(spec, len(positions) * match.games, wins))
    unfinished = sum(not r.finished for r in results)
    return Report(match, rows, sum(r.moves for r in results), seconds, unfinished)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--game", choices=sorted(engine.GAMES), default="cards")
    parser.add_argument(
        "--bots",
        default="strong,greedy",
        help="one bot per seat, comma-separated: random, greedy, strong or module:attribute",
    )
    parser.add_argument(
        "--games", type=int, default=200, help="rounded up to a multiple of the seats"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument(
        "--budget",
        type=int,
        default=None,
        help="search iterations per move of the card game's strong bot (default: 8)",
    )


def main(args: argparse.Namespace) -> int:
    bots = tuple(b.strip() for b in args.bots.split(","))
    seats = len(bots)
    games = -(-args.games // seats) * seats if seats else args.games
    match = Match(args.game, bots, games, args.seed, args.budget)
    report = run(match, max(1, args.workers))
    print("\n".join(report.lines()))
    return 0


def entry(argv: Sequence[str] | None = None) -> int:
    """`python -m genial.bots.arena ...`, the same as `genial arena ...`."""
    parser = argparse.ArgumentParser(prog="genial arena", description=__doc__)
    add_arguments(parser)
    return main(parser.parse_args(argv))


if __name__ == "__main__":
    raise SystemExit(entry())
