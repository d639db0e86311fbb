"""A first game with the Python SDK: a dice game against the service's greedy bot.

Run a server (`genial serve`), then `python examples/first_move.py`; GENIAL_TARGET names
another server (host:port).
"""

import asyncio
import os
import random

from genial.client import GenialClient


async def main() -> None:
    async with GenialClient.connect(os.environ.get("GENIAL_TARGET", "localhost:50051")) as client:
        game = await client.create("dice", seats=2, bots={1: "greedy"})
        seat = await client.join(game.game_id, "Ada")
        print(f"game {game.game_id}: you are seat {seat.seat}")

        # Follow the game (the watch replays it from the start, then goes on live, and ends
        # with the game); on your turn, as the game is now, pick one of the legal moves.
        async for update in seat.watch(from_version=0):
            if update.view.to_move != seat.seat or update.version < seat.version:
                continue
            if moves := await seat.legal_moves():
                made = await seat.move(random.choice(moves))
                print(f"move {made.version}: {len(made.events)} events")

        for standing in (await seat.view()).standings:
            print(f"seat {standing.seat}: rank {standing.rank}, {standing.points} points")


if __name__ == "__main__":
    asyncio.run(main())
