"""`make bench-match`: the matchmaker's figures with 2 workers on a Redis of its own.

1. Throughput: `--burst` players open casual tickets (dice, 2-4 seats) all at once through
   both workers; tickets matched per second, from the first ticket to the last matched.
2. Waits: rated tickets (dice, exactly 2 seats, no bots) arrive at `--rate` a second for
   `--seconds`, through both workers, from players whose ratings are spread as people's
   are (mu drawn around 25 with a spread of 3, settled: sigma 2, written to the ratings
   before the run); the median and p99 wait from FindMatch to matched, and the rating
   spread within matched games (the difference of the two players' mu: median and p90),
   against the window (`--rating-window` 2, widening 0.5 a second, plus both sigmas).

Matched is when GetMatchTicket first says so (polled every 0.05 s), so waits include up to
that much of polling. The workers run with the test suites' settings (no quotas).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import secrets
import statistics
import tempfile
import time
from pathlib import Path

import grpc.aio
import redis

from genial.v1 import match_service_pb2 as mm
from genial.v1 import match_service_pb2_grpc as mm_grpc
from genial.v1 import player_service_pb2 as pb
from genial.v1 import player_service_pb2_grpc as pb_grpc
from genial.v1 import types_pb2 as types
from loadtest.processes import start_redis, start_worker, stop, stop_worker

SETTINGS = {
    "GENIAL_LOG_LEVEL": "WARNING",
    "GENIAL_RATE_LIMIT_TOKEN": "0",
    "GENIAL_RATE_LIMIT_ADDRESS": "0",
    "GENIAL_GAMES_PER_MINUTE": "0",
    "GENIAL_WAITING_GAMES": "0",
}
POLL = 0.05
IN_FLIGHT = 64
"""Calls in flight at once (a worker takes a bounded number of streams a connection)."""
LIMIT: asyncio.Semaphore


class Player:
    def __init__(self, channel: grpc.aio.Channel, token: str, player_id: str) -> None:
        self.stub = mm_grpc.MatchServiceStub(channel)  # type: ignore[no-untyped-call]
        self.metadata = (("authorization", f"Bearer {token}"),)
        self.player_id = player_id

    async def find(self, ask: mm.FindMatchRequest) -> str:
        async with LIMIT:
            made = await self.stub.FindMatch(ask, metadata=self.metadata)
        return str(made.ticket.ticket_id)

    async def matched(self, ticket_id: str) -> mm.MatchTicket:
        while True:
            async with LIMIT:
                got = await self.stub.GetMatchTicket(
                    mm.GetMatchTicketRequest(ticket_id=ticket_id), metadata=self.metadata
                )
            if got.ticket.status != mm.TICKET_STATUS_WAITING:
                return got.ticket  # type: ignore[no-any-return]
            await asyncio.sleep(POLL)


async def sign_in(channels: list[grpc.aio.Channel], count: int) -> list[Player]:
    async def one(i: int) -> Player:
        channel = channels[i % len(channels)]
        stub = pb_grpc.PlayerServiceStub(channel)  # type: ignore[no-untyped-call]
        async with LIMIT:
            made = await stub.CreateSession(
                pb.CreateSessionRequest(device_id=secrets.token_urlsafe(24))
            )
        return Player(channel, made.session.access_token, made.session.player.player_id)

    return list(await asyncio.gather(*(one(i) for i in range(count))))


async def burst(players: list[Player]) -> tuple[int, float]:
    options = types.GameOptions(rounds=7)
    ask = mm.FindMatchRequest(kind=types.GAME_KIND_DICE, min_seats=2, max_seats=4, options=options)
    started = time.monotonic()
    tickets = await asyncio.gather(*(p.find(ask) for p in players))
    found = await asyncio.gather(*(p.matched(t) for p, t in zip(players, tickets, strict=True)))
    took = time.monotonic() - started
    matched = sum(t.status == mm.TICKET_STATUS_MATCHED for t in found)
    return matched, took


async def arrivals(
    players: list[Player], rate: float, seconds: float, mus: dict[str, float]
) -> tuple[list[float], list[float], int]:
    ask = mm.FindMatchRequest(kind=types.GAME_KIND_DICE, min_seats=2, max_seats=2, rated=True)
    rnd = random.Random(1)
    waits: list[float] = []
    games: dict[str, list[str]] = {}

    async def arrive(player: Player, at: float) -> None:
        await asyncio.sleep(at)
        opened = time.monotonic()
        ticket = await player.matched(await player.find(ask))
        waits.append(time.monotonic() - opened)
        games.setdefault(ticket.game_id, []).append(player.player_id)

    times, at = [], 0.0
    for _ in players:
        at += rnd.expovariate(rate)
        times.append(at)
    count = sum(t < seconds for t in times)
    tasks = [
        asyncio.create_task(arrive(p, t)) for p, t in zip(players[:count], times, strict=False)
    ]
    _, pending = await asyncio.wait(tasks, timeout=seconds + 60)
    for task in pending:
        task.cancel()
    spreads = [abs(mus[a] - mus[b]) for a, b in (g for g in games.values() if len(g) == 2)]
    return waits, spreads, len(pending)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


async def run(args: argparse.Namespace, targets: list[str], redis_url: str) -> None:
    global LIMIT
    LIMIT = asyncio.Semaphore(IN_FLIGHT)
    channels = [grpc.aio.insecure_channel(t) for t in targets]
    try:
        players = await sign_in(channels, args.burst)
        matched, took = await burst(players)
        print(
            f"burst: {matched}/{args.burst} tickets matched in {took:.2f} s by 2 workers: "
            f"{matched / took:.0f} tickets/s"
        )
        rated = await sign_in(channels, int(args.rate * args.seconds * 1.5) + 10)
        rnd = random.Random(2)
        mus = {p.player_id: rnd.gauss(25, 3) for p in rated}
        store = redis.Redis.from_url(redis_url)
        store.hset(
            "genial:{r:dice}:ratings",
            mapping={p: f"{mu!r} 2.0 30" for p, mu in mus.items()},
        )
        store.close()
        waits, spreads, left = await arrivals(rated, args.rate, args.seconds, mus)
        print(
            f"rated arrivals at {args.rate:g}/s for {args.seconds:g} s (mu ~ N(25, 3)): "
            f"{len(waits)} matched, {left} still waiting; "
            f"wait median {statistics.median(waits):.2f} s, p99 {percentile(waits, 0.99):.2f} s; "
            "mu spread in a game median "
            f"{statistics.median(spreads):.2f}, p90 {percentile(spreads, 0.9):.2f}"
        )
    finally:
        for channel in channels:
            await channel.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--burst", type=int, default=1000)
    parser.add_argument("--rate", type=float, default=10.0)
    parser.add_argument("--seconds", type=float, default=20.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        proc, port = start_redis(Path(folder))
        url = f"redis://127.0.0.1:{port}/0"
        workers = [start_worker(redis_url=url, env=SETTINGS) for _ in range(2)]
        try:
            asyncio.run(run(args, [w.grpc_target for w in workers], url))
        finally:
            for worker in workers:
                stop_worker(worker)
            stop(proc)


if __name__ == "__main__":
    main()
