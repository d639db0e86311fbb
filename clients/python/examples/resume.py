"""An app that resumes its games after a restart, with the Python SDK.

It signs in as a guest by a device id it keeps in a file, so that the next run (or another
device with the same id) is the same player; finds its game with `my_games` (or starts one
against the greedy bot); then plays whenever the player's feed says it is its turn, until
the game is over. Stop it at any time (or let `--moves` stop it) and run it again: it
carries on where it was.

Run a server (`genial serve`), then `python examples/resume.py`; GENIAL_TARGET names another
server (host:port).
"""

import argparse
import asyncio
import os
import random
import secrets
from pathlib import Path

from genial.client import GenialClient, Seat
from genial.v1 import player_service_pb2 as pb
from genial.v1 import types_pb2 as types


def device_id(path: Path) -> str:
    """The id this app keeps for its device: made once, then read back."""
    if not path.exists():
        path.write_text(secrets.token_urlsafe(24))
    return path.read_text().strip()


async def my_turn(seat: Seat, rnd: random.Random) -> int:
    """Play the seat's moves while it is its turn; how many were made."""
    made = 0
    while moves := await seat.legal_moves():
        await seat.move(rnd.choice(moves))
        made += 1
    return made


async def main(state: Path, limit: int | None) -> None:
    rnd = random.Random()
    async with GenialClient.connect(os.environ.get("GENIAL_TARGET", "localhost:50051")) as client:
        me = await client.sign_in_as_guest(device_id(state), "Ada")
        live = [g async for g in me.my_games() if g.status != types.GAME_STATUS_FINISHED]
        if live:
            seat = me.seat(live[0])
            print(f"resumed game {seat.game_id} as seat {seat.seat}")
        else:
            game = await client.create("dice", seats=2, bots={1: "greedy"})
            seat = await me.join(game.game_id)
            print(f"new game {seat.game_id} as seat {seat.seat}")
        made = 0
        async for answer in me.watch():
            event = answer.event
            if answer.HasField("games") or (
                event.type == pb.PLAYER_EVENT_TYPE_YOUR_TURN and event.game_id == seat.game_id
            ):
                made += await my_turn(seat, rnd)
            if event.type == pb.PLAYER_EVENT_TYPE_GAME_OVER and event.game_id == seat.game_id:
                for standing in event.standings:
                    print(f"seat {standing.seat}: rank {standing.rank}")
                print("game over")
                return
            if limit is not None and made >= limit:
                print(f"stopping after {made} moves")
                return


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--state", type=Path, default=Path("genial-device-id"))
    parser.add_argument("--moves", type=int, help="stop after this many moves (a restart)")
    args = parser.parse_args()
    asyncio.run(main(args.state, args.moves))
