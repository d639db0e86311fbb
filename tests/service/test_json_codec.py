"""The gateway's JSON writer gives exactly what json_format gives, on every answer of
whole games of each kind, and leaves to json_format what it does not cover."""

from __future__ import annotations

import random
from typing import cast

import pytest
from google.protobuf import json_format, struct_pb2
from google.protobuf.message import Message

from genial.service import json_codec
from genial.service.app import GameApp
from genial.service.credentials import ANONYMOUS
from genial.service.settings import Settings
from genial.service.store import MemoryStore
from genial.v1 import dice_pb2, types_pb2
from genial.v1 import game_service_pb2 as api


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


def test_an_unknown_enum_number_and_an_empty_oneof_as_json_format_writes_them() -> None:
    same_as_json_format(types_pb2.GameView(kind=cast(types_pb2.GameKind.ValueType, 99)))
    same_as_json_format(types_pb2.Event())  # no member of its union set
    same_as_json_format(types_pb2.Event(dice=dice_pb2.DiceEvent()))  # a member set, empty


# ---- reading requests ---------------------------------------------------------------------

REQUESTS = [api.MakeMoveRequest, api.CreateGameRequest, api.JoinGameRequest, api.GetGameRequest]
PLAIN = [
    {"move": {"dice": {"roll": {}}}, "requestId": "m1"},
    {"move": {"dice": {"score": {}}}, "game_id": "g", "expectedVersion": 0},
    {"move": {"cards": {"play": {"card": "CARD_RED_BLUE", "first": "COLOR_RED"}}}},
    {"kind": "GAME_KIND_TILES", "seats": 3, "options": {"rounds": 2, "variantE": True}},
    {"bots": [{"seat": 1, "strength": "BOT_STRENGTH_STRONG"}], "turnSeconds": 30},
    {"gameId": "abc", "displayName": "Ann", "seat": 2},
]
ODD = [
    {"requestId": None},
    {"expectedVersion": "12"},
    {"seats": "3"},
    {"seats": 2**40},
    {"seats": True},
    {"seats": 2.0},
    {"kind": 3},
    {"kind": "GAME_KIND_CHESS"},
    {"move": {"cards": {"play": {"card": "CARD_A"}}}},
    {"gameId": "a", "game_id": "b"},
    {"move": {"dice": {"roll": {}}, "cards": {}}},
    {"move": []},
    {"bots": {}},
    {"bots": [None]},
    {"nope": 1},
    {"options": {"sections": [1, "2"]}},
]


def parsed(make: type[Message], value: dict[str, object], by_codec: bool) -> Message | str:
    message = make()
    try:
        if by_codec:
            json_codec.parse(value, message)
        else:
            json_format.ParseDict(value, message)
    except json_format.ParseError as err:
        return f"ParseError: {err}"
    return message


@pytest.mark.parametrize("value", PLAIN + ODD)
@pytest.mark.parametrize("make", REQUESTS)
def test_requests_read_as_json_format_reads_them(
    make: type[Message], value: dict[str, object]
) -> None:
    """The same message, or the same error, for plain bodies and odd ones alike."""
    assert parsed(make, value, True) == parsed(make, value, False)


def test_plain_requests_are_read_by_the_plan() -> None:
    """Plain bodies never reach json_format (else the plan would save nothing)."""
    for value in PLAIN[:3]:
        message = api.MakeMoveRequest()
        json_codec._read(value, message)  # raises _Unplanned where it would hand over
        assert message == parsed(api.MakeMoveRequest, value, False)


def test_a_read_merges_into_what_the_message_holds() -> None:
    """The gateway reads the body, then the path's variables into the same message."""
    message = api.MakeMoveRequest(request_id="r")
    message.read_mask.paths.append("version")
    json_codec.parse({"gameId": "g", "move": {"tiles": {"reveal": {}}}}, message)
    expected = api.MakeMoveRequest(request_id="r")
    expected.read_mask.paths.append("version")
    json_format.ParseDict({"gameId": "g", "move": {"tiles": {"reveal": {}}}}, expected)
    assert message == expected
