"""How many games the ladder needs to tell two players apart, by simulation.

Two players alone play `--games` games; the stronger wins each with a fixed chance. Their
ratings go through OpenSkill's Plackett-Luce model as the service rates (`--tau` is the
dynamics factor added to each sigma before a game: the service's is the model's default,
25/300; 0 is a model in which nobody's skill drifts, as for a program that does not change).
Over `--runs` runs it prints the mean gap between the two mus, its spread over the runs,
the stronger's mean sigma, and in how many runs the gap was more than both sigmas together
("apart", what `genial ladder` checks):

    python scripts/rating_separation.py --chance 0.6 --games 150,400,1000 --tau 0
"""

from __future__ import annotations

import argparse
import random
import statistics

from openskill.models import PlackettLuce


def separation(
    model: PlackettLuce, chance: float, games: int, seed: int
) -> tuple[float, float, float]:
    """The stronger's mu less the other's, and both sigmas, after `games` games."""
    draw = random.Random(seed)
    stronger, other = model.rating(), model.rating()
    for _ in range(games):
        ranks = [1.0, 2.0] if draw.random() < chance else [2.0, 1.0]
        [[stronger], [other]] = model.rate([[stronger], [other]], ranks=ranks)
    return stronger.mu - other.mu, stronger.sigma, other.sigma


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chance", type=float, default=0.6, help="the stronger's win chance")
    parser.add_argument("--games", default="150,400,1000", help="game counts, comma-separated")
    parser.add_argument("--tau", type=float, default=None, help="dynamics factor (the model's)")
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    model = PlackettLuce() if args.tau is None else PlackettLuce(tau=args.tau)
    for games in (int(n) for n in args.games.split(",")):
        found = [separation(model, args.chance, games, seed) for seed in range(args.runs)]
        gaps = [gap for gap, _, _ in found]
        apart = sum(gap > mine + theirs for gap, mine, theirs in found)
        print(
            f"{games:5} games: gap {statistics.mean(gaps):5.2f}"
            f" (spread {statistics.pstdev(gaps):4.2f}),"
            f" sigma {statistics.mean(mine for _, mine, _ in found):4.2f},"
            f" apart {apart}/{args.runs}"
        )


if __name__ == "__main__":
    main()
