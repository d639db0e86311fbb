"""The SDK's `run_bot` against a real worker: two outside bots (the built-in bots' `choose`
unchanged) meet on the ladder and play rated games to the end, and the example bot plays
the built-in bots; their ratings count the games."""

from __future__ import annotations

import asyncio
import os
import secrets
import subprocess
import sys
from pathlib import Path

from genial.bots import make_bot
from genial.client import GenialClient
from genial.client.bot import run_bot
from genial.v1 import match_service_pb2 as mm
from genial.v1 import match_service_pb2_grpc as mm_grpc
from genial.v1 import types_pb2 as types

EXAMPLE = Path(__file__).resolve().parents[2] / "clients/python/examples/online_bot.py"


async def test_two_outside_bots_play_rated_games(target: str) -> None:
    devices = {strength: secrets.token_urlsafe(24) for strength in ("greedy", "random")}
    # Options of their own: the two bots meet each other only.
    options = types.GameOptions(rounds=1, line_length=4)

    async def one(strength: str) -> int:
        bot = make_bot("tiles", strength, seed=1)
        stats = await run_bot(
            bot.choose,
            device_id=devices[strength],
            name=f"Outside {strength}",
            target=target,
            kinds=("tiles",),
            min_seats=2,
            max_seats=2,
            options=options,
            games=2,
        )
        return stats.games

    played = await asyncio.wait_for(asyncio.gather(one("greedy"), one("random")), 120)
    assert played == [2, 2]
    async with GenialClient.connect(target) as client:
        stub = mm_grpc.MatchServiceStub(client.channel)  # type: ignore[no-untyped-call]
        for device_id in devices.values():
            me = await client.sign_in_as_guest(device_id)
            got = await stub.GetRatings(
                mm.GetRatingsRequest(),
                metadata=(("authorization", f"Bearer {await me.access_token()}"),),
            )
            assert [(r.kind, r.games) for r in got.ratings] == [(types.GAME_KIND_TILES, 2)]


def test_the_online_bot_example_plays_the_built_in_bots(target: str) -> None:
    done = subprocess.run(
        [sys.executable, str(EXAMPLE)],
        env={
            **os.environ,
            "GENIAL_TARGET": target,
            "GENIAL_GAMES": "2",
            "GENIAL_DEVICE_ID": secrets.token_urlsafe(24),
        },
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert done.stdout.startswith("played 2 games")
