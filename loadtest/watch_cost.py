"""What watchers cost a worker (for docs/capacity.md): `python -m loadtest.watch_cost`.

One worker on a private Redis; the same moves are played twice over the same games, first
with nobody watching, then with `--watchers` gRPC WatchGame streams spread over the games
(read by this process as they come). The worker's CPU time of the second pass less the
first's, over the events delivered, is the worker CPU a watcher costs per move it hears of;
its resident memory with the streams open, less before, over the streams, what a watcher
holds. The moves go one at a time (ListLegalMoves, then MakeMove), so the worker is never
saturated and its CPU is the work of the calls.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import grpc
import uvloop

from genial.v1 import game_service_pb2 as api
from genial.v1 import game_service_pb2_grpc as api_grpc
from genial.v1 import types_pb2

from .cluster import running
from .probe import cpu_seconds, rss_bytes
from .slots import Game, Games, bearer

RESULTS = Path(__file__).parent / "results"
STREAMS_PER_CHANNEL = 50
"""Under the worker's streams a connection (max_streams_per_connection, 100), with room
for the channel's other calls."""
OWN_CONNECTION = [("grpc.use_local_subchannel_pool", 1)]
"""A channel's own connection: grpc's channels to one target share one within a process
by default, and 100 streams on it made every later call wait (why this tool once hung)."""


async def play(stub: Any, games: list[Game], moves: int, seed: int) -> int:
    """`moves` moves, one at a time, round-robin over the games; the moves made."""
    rnd = random.Random(seed)
    made = 0
    while made < moves:
        for game in games:
            game_id = game.game_id
            view = (await stub.GetGame(api.GetGameRequest(game_id=game_id))).view
            if view.status == types_pb2.GAME_STATUS_FINISHED:
                continue
            auth = bearer(game.tokens[view.to_move])
            legal = await stub.ListLegalMoves(
                api.ListLegalMovesRequest(game_id=game_id), metadata=auth
            )
            await stub.MakeMove(
                api.MakeMoveRequest(game_id=game_id, move=rnd.choice(legal.moves)), metadata=auth
            )
            made += 1
    return made


async def measure(watchers: int, games: int, moves: int, log_dir: Path) -> dict[str, float]:
    settings = {
        "GENIAL_MAX_STREAMS_PER_ADDRESS": str(watchers + 10),
        "GENIAL_MAX_STREAMS": str(watchers + 10),
    }
    with running(1, log_dir=log_dir, settings=settings) as deployment:
        worker = deployment.workers[0]
        pid = worker.proc.pid
        async with grpc.aio.insecure_channel(worker.grpc_target) as channel:
            stub = api_grpc.GameServiceStub(channel)  # type: ignore[no-untyped-call]
            tables = await Games(channel).many(games)
            await play(stub, tables, games, 0)  # warm up
            before = sum(cpu_seconds(pid))
            alone = await play(stub, tables, moves, 1)
            cpu_alone = sum(cpu_seconds(pid)) - before
            # Each watch from its game's version now: it hears live moves, not a replay.
            versions = [
                (await stub.GetGame(api.GetGameRequest(game_id=game.game_id))).view.version
                for game in tables
            ]
            rss_before = rss_bytes(pid)
            channels = [
                grpc.aio.insecure_channel(worker.grpc_target, options=OWN_CONNECTION)
                for _ in range(-(-watchers // STREAMS_PER_CHANNEL))
            ]
            stubs = [api_grpc.GameServiceStub(c) for c in channels]  # type: ignore[no-untyped-call]
            calls = [
                stubs[i // STREAMS_PER_CHANNEL].WatchGame(
                    api.WatchGameRequest(
                        game_id=tables[i % games].game_id, from_version=versions[i % games]
                    )
                )
                for i in range(watchers)
            ]
            await asyncio.gather(*(call.read() for call in calls))  # each past its first answer
            rss_with = rss_bytes(pid)
            heard = 0

            async def hear(call: Any) -> None:
                nonlocal heard
                while True:  # (read() and `async for` may not be mixed on one call)
                    answer = await call.read()
                    if answer is grpc.aio.EOF:
                        return
                    heard += bool(answer.events)

            readers = [asyncio.create_task(hear(call)) for call in calls]
            before = sum(cpu_seconds(pid))
            watched = await play(stub, tables, moves, 2)
            await asyncio.sleep(1.0)  # the last moves reach every watcher
            cpu_watched = sum(cpu_seconds(pid)) - before
            for task in readers:
                task.cancel()
            await asyncio.gather(*readers, return_exceptions=True)
            for each in channels:
                await each.close()
    per_move_alone = cpu_alone / alone
    extra = cpu_watched - per_move_alone * watched
    return {
        "watchers": watchers,
        "games": games,
        "moves": watched,
        "events_heard": heard,
        "worker_cpu_ms_a_move_unwatched": round(per_move_alone * 1000, 3),
        "worker_cpu_ms_a_move_watched": round(cpu_watched / watched * 1000, 3),
        "worker_cpu_us_a_watcher_a_move": round(extra / max(heard, 1) * 1e6, 2),
        "worker_kib_a_watcher": round((rss_with - rss_before) / watchers / 1024, 1),
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--watchers", type=int, default=1000)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--moves", type=int, default=400)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    started = time.time()
    figures = uvloop.run(measure(args.watchers, args.games, args.moves, args.out))
    for name, value in figures.items():
        print(f"{name}: {value}")
    print(f"({time.time() - started:.0f} s)")


if __name__ == "__main__":
    main()
