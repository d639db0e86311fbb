"""The gateway's JSON writer gives exactly what json_format gives, on every answer of
whole games of each kind, and leaves to json_format what it does not cover."""

from __future__ import annotations

import random

import pytest
from google.protobuf import json_format, struct_pb2
from google.protobuf.message import Message

from genial.service import json_codec
from genial.service.app import GameApp
from genial.service.credentials import ANONYMOUS
from genial.service.settings import Settings
from genial.service.store import MemoryStore
from genial.v1 import game_service_pb2 as api
from genial.v1 import types_pb2


def same_as_json_format(message: Message) -> None:
    expected = json_format.MessageToDict(message, always_print_fields_with_no_presence=True)
    assert json_codec.to_dict(message) == expected


@pytest.mark.parametrize("kind", ["cards", "dice", "tiles"])
@pytest.mark.parametrize("seats", [2, 4])
async def test_every_answer_of_a_game(kind: str, seats: int) -> None:
    app = GameApp(MemoryStore(), Settings(rate_limit_token=0, rate_limit_address=0))
    rng = random.Random(f"{kind}{seats}")
    created = await app.games.create_game(
        api.CreateGameRequest(
            kind=types_pb2.GameKind.Value(f"GAME_KIND_{kind.upper()}"),
            seats=seats,
            turn_seconds=3600,
            bots=[api.SeatBot(seat=seats - 1, strength=types_pb2.BOT_STRENGTH_GREEDY)],
        ),
        ANONYMOUS,
    )
    same_as_json_format(created)
    game_id = created.game_id
    tokens = []
    for seat in range(seats - 1):
        joined = await app.games.join_game(
            api.JoinGameRequest(game_id=game_id, display_name=f"player {seat}"), ANONYMOUS
        )
        same_as_json_format(joined)
        tokens.append(await app.credentials.principal(f"Bearer {joined.player_token}"))
    same_as_json_format(await app.lobby.list_games(api.ListGamesRequest(), ANONYMOUS))
    view = joined.view
    while view.status != types_pb2.GAME_STATUS_FINISHED:
        if view.to_move == seats - 1:  # the bot's turn: play it here, no turn loop runs
            await app.moves.play_automatic_turn(game_id)
            view = (await app.games.get_game(api.GetGameRequest(game_id=game_id), tokens[0])).view
            continue
        caller = tokens[view.to_move]
        legal = await app.games.list_legal_moves(api.ListLegalMovesRequest(game_id=game_id), caller)
        same_as_json_format(legal)
        moved = await app.moves.make_move(
            api.MakeMoveRequest(game_id=game_id, move=rng.choice(legal.moves)), caller
        )
        same_as_json_format(moved)
        view = moved.view
    same_as_json_format(await app.games.get_game(api.GetGameRequest(game_id=game_id), ANONYMOUS))
    same_as_json_format(
        await app.history.get_history(api.GetHistoryRequest(game_id=game_id), ANONYMOUS)
    )


def test_what_it_does_not_cover_goes_to_json_format() -> None:
    value = struct_pb2.Value(number_value=1.5)
    same_as_json_format(value)
    same_as_json_format(struct_pb2.ListValue(values=[value, struct_pb2.Value(string_value="x")]))
