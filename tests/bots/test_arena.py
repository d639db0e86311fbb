"""The arena: reproducible from its seed, fair seats, sound intervals, user bots."""

from __future__ import annotations

import argparse

import pytest

from genial.bots import arena
from genial.bots.arena import Match, run, wilson


def test_the_same_seed_gives_the_same_results_on_any_number_of_workers() -> None:
    match = Match("tiles", ("strong", "greedy", "random"), 6, seed=3, budget=2)
    first, again, parallel = run(match), run(match), run(match, workers=2)
    assert first.rows == again.rows == parallel.rows
    assert first.moves == again.moves == parallel.moves
    other = run(Match("tiles", ("strong", "greedy", "random"), 6, seed=4, budget=2))
    assert (other.rows, other.moves) != (first.rows, first.moves)


def test_each_bot_counts_its_seat_games_and_the_wins_add_up() -> None:
    match = Match("cards", ("greedy", "random", "random"), 9, seed=1)
    report = run(match)
    assert [(r.bot, r.games) for r in report.rows] == [("greedy", 9), ("random", 18)]
    assert sum(r.wins for r in report.rows) == pytest.approx(9)


def test_a_bot_from_user_code_plays_by_its_import_path() -> None:
    report = run(Match("dice", ("tests.bots.example_bot:LookaheadBot", "random"), 4, seed=2))
    assert [r.bot for r in report.rows] == ["tests.bots.example_bot:LookaheadBot", "random"]


def test_bad_matches_are_refused() -> None:
    with pytest.raises(ValueError, match="module:attribute"):
        run(Match("cards", ("greedy", "clever"), 2, seed=1))
    with pytest.raises(ValueError, match="multiple"):
        run(Match("cards", ("greedy", "random", "random"), 4, seed=1))
    with pytest.raises(ValueError, match="2-4 bots"):
        run(Match("cards", ("greedy",), 2, seed=1))


def test_wilson_interval() -> None:
    low, high = wilson(50, 100)
    assert (round(low, 4), round(high, 4)) == (0.4038, 0.5962)
    assert wilson(0, 10)[0] == 0.0
    assert wilson(10, 10)[1] == pytest.approx(1.0)


def test_the_command_prints_a_table(capsys: pytest.CaptureFixture[str]) -> None:
    parser = argparse.ArgumentParser()
    arena.add_arguments(parser)
    args = parser.parse_args(["--game", "cards", "--bots", "greedy,random", "--games", "3"])
    args.workers = 1
    assert arena.main(args) == 0
    out = capsys.readouterr().out
    assert "cards, 2 seats, 4 games, seed 1" in out  # 3 games rounded up to a multiple of 2
    assert "moves/s" in out


def test_the_seats_rotate_over_one_deal(monkeypatch: pytest.MonkeyPatch) -> None:
    """Games 3k, 3k+1, 3k+2 share a deal and put the first bot in seats 0, 1, 2."""
    made: list[tuple[str, bytes]] = []
    real = arena.engine.new_game

    def new_game(kind: str, seats: int, seed: bytes) -> arena.engine.GameState:
        made.append((kind, seed))
        return real(kind, seats, seed)

    monkeypatch.setattr(arena.engine, "new_game", new_game)
    seats_of_first: list[int] = []
    real_factory = arena.bot_factory

    def factory(spec: str, budget: int | None) -> arena.Callable[[str, bytes], arena.Bot]:
        make = real_factory(spec, budget)

        def build(kind: str, seed: bytes) -> arena.Bot:
            if spec == "greedy":
                seats_of_first.append(len(seats_of_built))
            seats_of_built.append(spec)
            return make(kind, seed)

        return build

    seats_of_built: list[str] = []
    monkeypatch.setattr(arena, "bot_factory", factory)
    for i in range(3):
        seats_of_built.clear()
        arena.play(Match("cards", ("greedy", "random", "random"), 3, seed=1), i)
    assert seats_of_first == [0, 1, 2]
    assert len({seed for _, seed in made}) == 1
