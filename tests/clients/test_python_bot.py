"""The SDK's `run_bot` against a real worker: two outside bots (the built-in bots' `choose`
unchanged) meet on the ladder and play rated games to the end, and the example bot plays
the built-in bots; their ratings count the games."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import random
import secrets
import subprocess
import sys
from pathlib import Path
from typing import Any

import grpc
import pytest

from genial import engine
from genial.bots import make_bot
from genial.client import GenialClient
from genial.client import bot as online
from genial.client.bot import run_bot
from genial.client.errors import RATE_LIMITED, GenialError
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


@pytest.mark.parametrize("kind", sorted(engine.GAMES))
def test_the_legal_moves_worked_out_from_a_view_are_the_games(kind: str) -> None:
    """What lets a bot move with one call: on every position of random games, the moves
    `legal_moves` finds in the seat's view (plain data, as the SDK converts it) are the
    game's own, in the same order."""
    checked = 0
    for seats in range(2, 5):
        for number in range(2):
            rnd = random.Random(f"{kind} {seats} {number}")
            game = engine.new_game(kind, seats, rnd.randbytes(16))
            while not game.is_over():
                seat = game.to_move
                assert seat is not None
                view = json.loads(json.dumps(game.view(seat)))
                assert online.legal_moves(view) == game.legal_moves()
                checked += 1
                game, _ = game.apply(seat, rnd.choice(game.legal_moves()))
    assert checked > 100


async def test_a_move_the_server_refuses_is_chosen_again_from_its_list(
    target: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Should the engine here and the server's ever disagree (another version of the rules),
    the bot still plays: the server refuses the move, and the bot chooses again from the
    legal moves the server lists."""
    wrong: list[dict[str, Any]] = [{"type": "take"}]  # never legal before a success
    monkeypatch.setattr(online, "legal_moves", lambda view: wrong)
    offered: list[list[dict[str, Any]]] = []

    def first(view: dict[str, Any], moves: list[dict[str, Any]]) -> dict[str, Any]:
        offered.append(moves)
        return moves[0]

    options = types.GameOptions(rounds=1, line_length=3)
    devices = [secrets.token_urlsafe(24) for _ in range(2)]
    played = await asyncio.wait_for(
        asyncio.gather(
            *(
                run_bot(
                    first,
                    device_id=device,
                    target=target,
                    kinds=("tiles",),
                    rated=False,
                    min_seats=2,
                    max_seats=2,
                    options=options,
                    games=1,
                )
                for device in devices
            )
        ),
        120,
    )
    assert [stats.games for stats in played] == [1, 1]
    assert any(moves == wrong for moves in offered)
    assert any(moves != wrong for moves in offered)  # the server's lists


def test_a_rate_limit_is_one_line_of_log_and_a_fault_a_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A game's loop that stopped on a rate limit waits as long as the service asked, and
    says so in one line; anything else is logged with its traceback."""
    limited = GenialError(
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        RATE_LIMITED,
        "too many requests; retry in 4 s",
        {"retry_after": "4"},
    )
    fault = GenialError(grpc.StatusCode.UNAVAILABLE, "", "connection reset")
    with caplog.at_level(logging.WARNING, logger=online.log.name):
        assert online._logged("g1", limited) == 4.0
        assert online._logged("g2", fault) is None
    first, second = caplog.records
    assert "g1" in first.getMessage()
    assert RATE_LIMITED in first.getMessage()
    assert first.exc_info is None
    assert second.exc_info is not None
    assert second.exc_info[1] is fault


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
