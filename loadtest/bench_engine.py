"""Engine benchmark: random full games per second, moves per second, and state size.

Not a timed test: it prints what this machine does now. Run with `make bench-engine`.
Each figure is also given as a ratio to a baseline measured in the same run (one
`json.loads` + `json.dumps` of the state, the cheapest thing a stored move can do),
so that runs on different or busy machines can be compared.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import time

from genial import engine


def play(kind: str, seats: int, rnd: random.Random) -> tuple[int, int]:
    """One random game: (moves, largest encoded state seen in play)."""
    game = engine.new_game(kind, seats, rnd.randbytes(16))
    moves = 0
    largest = 0
    while not game.is_over():
        seat = game.to_move
        assert seat is not None
        game, _ = game.apply(seat, rnd.choice(game.legal_moves()))
        moves += 1
        if moves % 8 == 0:
            largest = max(largest, len(game.encode()))
    return moves, largest


def stored_move(kind: str, seats: int, rnd: random.Random, repeats: int) -> tuple[float, float]:
    """Per-move seconds of what a worker does on the move path: decode, apply, encode, view;
    and of the JSON round trip alone (the baseline)."""
    game = engine.new_game(kind, seats, rnd.randbytes(16))
    for _ in range(10):
        game, _ = game.apply(game.to_move or 0, rnd.choice(game.legal_moves()))
    blob = game.encode()
    seat = game.to_move or 0
    move = game.legal_moves()[0]
    start = time.perf_counter()
    for _ in range(repeats):
        state = engine.decode(blob)
        new, _ = state.apply(seat, move)
        new.encode()
        new.view(seat)
    full = (time.perf_counter() - start) / repeats
    start = time.perf_counter()
    for _ in range(repeats):
        json.dumps(json.loads(blob), separators=(",", ":"))
    base = (time.perf_counter() - start) / repeats
    return full, base


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=2.0, help="time per game and seat count")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(
        f"# genial engine benchmark on {platform.python_implementation()} "
        f"{platform.python_version()}, {platform.machine()}"
    )
    header = (
        f"{'game':6} {'seats':>5} {'games/s':>9} {'moves/s':>10} {'moves/game':>10} "
        f"{'max state B':>11} {'move path us':>12} {'/ json rt':>9}"
    )
    print(header)
    for kind in sorted(engine.GAMES):
        for seats in (2, 3, 4):
            rnd = random.Random(args.seed)
            games = moves = 0
            sizes: list[int] = []
            start = time.perf_counter()
            while time.perf_counter() - start < args.seconds:
                m, largest = play(kind, seats, rnd)
                games += 1
                moves += m
                sizes.append(largest)
            elapsed = time.perf_counter() - start
            full, base = stored_move(kind, seats, rnd, 2000)
            print(
                f"{kind:6} {seats:>5} {games / elapsed:>9.1f} {moves / elapsed:>10.0f} "
                f"{moves / games:>10.1f} {max(sizes):>11} {full * 1e6:>12.1f} {full / base:>9.1f}"
            )
    print(
        "max state B: the largest encoded state seen in play; move path: decode + apply + "
        "encode + view of one move; / json rt: that time over a bare JSON round trip of the state."
    )


if __name__ == "__main__":
    main()
