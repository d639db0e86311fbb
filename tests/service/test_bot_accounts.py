"""Bot accounts, as an operator makes them and a bot developer uses them: `genial players
create-bot` prints an API key once; the key acts for the bot account over both transports
(marked as a bot in its ratings), plays rated games with the SDK's `run_bot`; a wrong key is
refused, and a revoked one by the worker within a second or so."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time

import pytest

from genial.bots import make_bot
from genial.client.bot import run_bot
from genial.v1 import game_service_pb2 as api
from genial.v1 import match_service_pb2 as mm
from genial.v1 import player_service_pb2 as pb
from genial.v1 import types_pb2 as types
from tests.service.clients import ApiClient, CallError, GrpcClient, RestClient
from tests.service.conftest import Worker


def genial(*args: str) -> str:
    return subprocess.run(
        [sys.executable, "-m", "genial.service.cli", *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout


def create_bot(redis_url: str, name: str) -> tuple[str, str]:
    said = genial("players", "create-bot", name, "--redis-url", redis_url).splitlines()
    player = said[0].split()[2]
    key = said[1].rsplit(" ", 1)[1]
    return player, key


def refused_now(client: ApiClient, key: str) -> tuple[str, str] | None:
    try:
        client.call("GetPlayer", pb.GetPlayerRequest(), key)
    except CallError as err:
        return err.code, err.reason
    return None


@pytest.mark.parametrize("transport", ["grpc", "rest"])
def test_a_bot_account_acts_with_its_key_until_it_is_revoked(
    redis_url: str, redis_worker: Worker, transport: str
) -> None:
    player, key = create_bot(redis_url, "Deep Thought")
    assert key.startswith("gbk_")
    client: ApiClient = (
        GrpcClient(redis_worker.grpc_port)
        if transport == "grpc"
        else RestClient(redis_worker.http_port)
    )
    me = client.call("GetPlayer", pb.GetPlayerRequest(), key).player
    assert (me.player_id, me.display_name) == (player, "Deep Thought")
    ratings = client.call("GetRatings", mm.GetRatingsRequest(player_id=player))
    assert ratings.bot
    ask = mm.FindMatchRequest(kind=types.GAME_KIND_CARDS, min_seats=4, max_seats=4, rated=True)
    ticket = client.call("FindMatch", ask, key).ticket
    assert ticket.status == mm.TICKET_STATUS_WAITING
    cancel = mm.CancelMatchRequest(ticket_id=ticket.ticket_id)
    assert client.call("CancelMatch", cancel, key).ticket.status == mm.TICKET_STATUS_CANCELLED
    # At a table it joins, every view marks its seat as a bot account's (a person's is not).
    game = client.call("CreateGame", api.CreateGameRequest(kind=types.GAME_KIND_CARDS, seats=2))
    joined = client.call("JoinGame", api.JoinGameRequest(game_id=game.game_id), key)
    person = client.call("JoinGame", api.JoinGameRequest(game_id=game.game_id, display_name="Ada"))
    players = client.call("GetGame", api.GetGameRequest(game_id=game.game_id)).view.players
    assert [p.bot_account for p in players] == [s == joined.seat for s in range(2)]
    assert players[person.seat].display_name == "Ada"
    for wrong in (key[:-1] + ("A" if key[-1] != "A" else "B"), "gbk_nothing.atall", "gbk_."):
        with pytest.raises(CallError) as refused:
            client.call("GetPlayer", pb.GetPlayerRequest(), wrong)
        assert (refused.value.code, refused.value.reason) == ("UNAUTHENTICATED", "API_KEY_UNKNOWN")
    assert genial("players", "revoke-bot-key", key, "--redis-url", redis_url).startswith("revoked")
    deadline = time.monotonic() + 3
    while refused_now(client, key) is None:
        assert time.monotonic() < deadline, "the revoked key still works"
        time.sleep(0.1)
    assert refused_now(client, key) == ("UNAUTHENTICATED", "TOKEN_REVOKED")
    client.close()


def test_a_bot_account_plays_rated_games_with_run_bot(redis_url: str, redis_worker: Worker) -> None:
    player, key = create_bot(redis_url, "Greedy account")
    bot = make_bot("dice", "greedy", seed=1)
    stats = asyncio.run(
        asyncio.wait_for(
            run_bot(
                bot.choose,
                api_key=key,
                target=f"127.0.0.1:{redis_worker.grpc_port}",
                kinds=("dice",),
                min_seats=2,
                max_seats=2,
                options=types.GameOptions(rounds=1, variant_e=True),
                accept_bots=True,
                games=1,
            ),
            120,
        )
    )
    assert stats.games == 1
    client = GrpcClient(redis_worker.grpc_port)
    ratings = client.call("GetRatings", mm.GetRatingsRequest(player_id=player))
    assert ratings.bot
    assert [(r.kind, r.games) for r in ratings.ratings] == [(types.GAME_KIND_DICE, 1)]
    # The matchmaker seated it as a bot account, beside a built-in bot.
    (mine,) = client.call("ListMyGames", pb.ListMyGamesRequest(), key).games
    players = client.call("GetGame", api.GetGameRequest(game_id=mine.game_id)).view.players
    assert sorted((p.bot_account, p.HasField("bot")) for p in players) == [
        (False, True),
        (True, False),
    ]
    client.close()
