"""`genial ladder`: the built-in bots on a server's ladder, as outside bots would go there.

Each strength named plays as a player of its own (a guest, over the SDK's `run_bot`),
rated, at tables of two, until the bots together finished `--games-per-bot` games per bot
and kind; then the ratings of the ladder's players are printed per kind, best first, each
with its uncertainty, and whether each strength and the next named (`--bots`, strongest
first) are apart: mu further apart than their two sigmas together. The matchmaker seats
players of close ratings together, so a bot far below the others (random) waits longer for
each game and plays fewer; its uncertainty says so:

    dice
      1. strong bot   mu  35.93 ± 3.19  shown  26.34  (54 games)
      2. greedy bot   mu  29.32 ± 3.15  shown  19.87  (62 games)
      3. random bot   mu   8.54 ± 6.05  shown  -9.60  (16 games)
      strong - greedy: mu +6.61, uncertainty 6.34 (sigma + sigma): apart
      greedy - random: mu +20.78, uncertainty 9.20 (sigma + sigma): apart

Players are new for each run unless `--id` names a run to continue (the same device ids).
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import secrets
import time
from collections.abc import Mapping, Sequence
from typing import Any

from genial.bots import STRENGTHS, make_bot
from genial.v1 import match_service_pb2 as mm
from genial.v1 import match_service_pb2_grpc as mm_grpc

from .bot import BotStats, run_bot
from .client import DEFAULT_TARGET, GenialClient, Kind, kind_name

KINDS: tuple[Kind, ...] = ("cards", "dice", "tiles")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--target", default=DEFAULT_TARGET, help="the server's gRPC address")
    parser.add_argument(
        "--bots", default="strong,greedy,random", help="the strengths that play, comma-separated"
    )
    parser.add_argument(
        "--kinds", default=",".join(KINDS), help="the games they play, comma-separated"
    )
    parser.add_argument(
        "--games-per-bot", type=int, default=10, help="games each bot plays of each kind"
    )
    parser.add_argument(
        "--budget", type=int, default=None, help="the strong card bot's search iterations a move"
    )
    parser.add_argument("--id", default="", help="a run to continue (its players' device ids)")


def _split(raw: str, known: Sequence[str], what: str) -> list[str]:
    names = [name.strip() for name in raw.split(",") if name.strip()]
    unknown = sorted(set(names) - set(known))
    if unknown or not names:
        raise SystemExit(f"{what}: one or more of {', '.join(known)} (not {unknown})")
    return names


def main(args: argparse.Namespace) -> int:
    strengths = _split(args.bots, STRENGTHS, "--bots")
    kinds: list[Any] = _split(args.kinds, KINDS, "--kinds")
    run = args.id or secrets.token_hex(6)
    started = time.monotonic()
    ratings = asyncio.run(
        _ladder(args.target, strengths, kinds, args.games_per_bot, args.budget, run)
    )
    print(f"ladder {run}: {len(strengths)} bots, {time.monotonic() - started:.0f} s")
    for kind in kinds:
        print(kind)
        rows = sorted(ratings[kind].items(), key=lambda row: -row[1].displayed)
        for place, (strength, rating) in enumerate(rows, 1):
            print(
                f"  {place}. {strength + ' bot':12} mu {rating.mu:6.2f} ± {rating.sigma:4.2f}"
                f"  shown {rating.displayed:6.2f}  ({rating.games} games)"
            )
        for line in verdicts(strengths, ratings[kind]):
            print(f"  {line}")
    return 0


def verdicts(strengths: Sequence[str], ratings: Mapping[str, mm.Rating]) -> list[str]:
    """For each strength and the next in `strengths` (the order expected, strongest first):
    whether the ladder tells them apart, their mu further apart than the sum of their
    uncertainties (sigma), so that a reader need not work it out."""
    lines = []
    for upper, lower in itertools.pairwise(strengths):
        if upper not in ratings or lower not in ratings:
            continue  # one of them finished no rated game of this kind
        gap = ratings[upper].mu - ratings[lower].mu
        margin = ratings[upper].sigma + ratings[lower].sigma
        if gap > margin:
            verdict = "apart"
        elif gap > 0:
            verdict = "in order, not apart yet"
        else:
            verdict = "out of order"
        lines.append(
            f"{upper} - {lower}: mu {gap:+.2f}, uncertainty {margin:.2f} (sigma + sigma): {verdict}"
        )
    return lines


async def _ladder(
    target: str,
    strengths: list[str],
    kinds: list[Kind],
    games: int,
    budget: int | None,
    run: str,
) -> dict[str, dict[str, mm.Rating]]:
    devices = {strength: f"ladder-{run}-{strength}-bot" for strength in strengths}
    stats = {strength: BotStats() for strength in strengths}
    finish = asyncio.Event()

    async def play(strength: str) -> None:
        bots = {
            kind: make_bot(kind, strength, seed=f"{run} {strength}".encode(), budget=budget)
            for kind in kinds
        }

        def choose(view: dict[str, Any], moves: list[dict[str, Any]]) -> Mapping[str, Any]:
            return bots[view["kind"]].choose(view, moves)

        await run_bot(
            choose,
            device_id=devices[strength],
            name=f"{strength} bot {run}",
            target=target,
            kinds=kinds,
            min_seats=2,
            max_seats=2,
            finish=finish,
            stats=stats[strength],
        )

    async def referee() -> None:
        """Every bot stops asking for games once they played theirs together (one that
        stopped alone would leave the others waiting), and finishes the games it is in."""
        while sum(s.games for s in stats.values()) < games * len(kinds) * len(stats):
            await asyncio.sleep(0.5)
        finish.set()

    await asyncio.gather(referee(), *(play(strength) for strength in strengths))
    found: dict[str, dict[str, mm.Rating]] = {kind: {} for kind in kinds}
    async with GenialClient.connect(target) as client:
        stub = mm_grpc.MatchServiceStub(client.channel)  # type: ignore[no-untyped-call]
        for strength, device_id in devices.items():
            me = await client.sign_in_as_guest(device_id)
            got: mm.GetRatingsResponse = await client._unary(
                stub.GetRatings, mm.GetRatingsRequest(), me
            )
            for rating in got.ratings:
                if (kind := kind_name(rating.kind)) in found:
                    found[kind][strength] = rating
    return found
