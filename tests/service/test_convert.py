"""Engine dicts to genial.v1 messages and back (service/convert.py).

Random games of every kind, seat count and a few option sets: every legal move, every event
and every view (each seat's and a spectator's) must come back exactly, through the messages
and through their JSON form, which is what the REST gateway sends.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator, Mapping
from typing import Any, TypeVar

import pytest
from google.protobuf import json_format
from google.protobuf.message import Message

from genial import engine
from genial.engine.cards import CARD_NAMES
from genial.service import convert
from genial.service.convert import (
    VIEW_KEYS,
    BadMessage,
    ShapeError,
    engine_move,
    engine_view,
    from_proto,
    proto_event,
    proto_move,
    table_to_proto,
    to_proto,
)
from genial.service.games import new_meta
from genial.service.views import game_view
from genial.v1 import cards_pb2, color_pb2, dice_pb2, tiles_pb2, types_pb2

M = TypeVar("M", bound=Message)

KINDS = sorted(engine.GAMES)
OPTIONS: dict[str, list[dict[str, Any]]] = {
    "cards": [{}, {"rounds": 2}],
    "dice": [{}, {"rounds": 2, "variant_e": True, "sections": [2, 1]}],
    # Long lines empty the reserve, which is the only way to see a seat pass.
    "tiles": [{}, {"rounds": 2, "line_length": 3}, {"line_length": 15}],
}
GAMES_PER_SETUP = 1

RARE_EVENTS: dict[str, list[dict[str, Any]]] = {
    # A bonus play lapses only when a marker reaches the last column with the last card in
    # hand, which random play all but never does; the shape is the one cards.py emits.
    "cards": [{"type": "bonus_lapsed", "seat": 1, "count": 2}],
    "dice": [],
    "tiles": [],
}
SERVICE_EVENTS: list[dict[str, Any]] = [
    {"type": "player_joined", "seat": 2, "display_name": "Ada"},
    {"type": "game_started"},
    {"type": "turn_timed_out", "seat": 1},
    {"type": "seat_reclaimed", "seat": 1},
    {"type": "seat_resigned", "seat": 0},
]


def through_json(message: M) -> M:
    """The message after a trip through JSON text, as the REST gateway makes it."""
    text = json.dumps(json_format.MessageToDict(message))
    back = json_format.ParseDict(json.loads(text), type(message)())
    assert back == message
    return back


def view_message(kind: str, view: Mapping[str, Any]) -> types_pb2.GameView:
    """A GameView of an engine view, filled as the service fills it (less its own fields)."""
    message = to_proto({key: view[key] for key in VIEW_KEYS}, types_pb2.GameView())
    finished = view["finished"]
    message.status = types_pb2.GAME_STATUS_FINISHED if finished else types_pb2.GAME_STATUS_PLAYING
    to_proto(view["options"], message.options)
    message.last_events.extend(proto_event(kind, event) for event in view["last_events"])
    table_to_proto(kind, view["table"], message)
    return message


def check_move(kind: str, move: Mapping[str, Any]) -> None:
    message = proto_move(kind, move)
    assert engine_move(kind, message) == move
    assert engine_move(kind, through_json(message)) == move


def check_event(kind: str, event: Mapping[str, Any]) -> None:
    message = proto_event(kind, event)
    assert from_proto(message) == event
    assert from_proto(through_json(message)) == event


def check_views(kind: str, game: engine.GameState) -> None:
    for seat in [*range(game.seats), None]:
        view = game.view(seat)
        message = view_message(kind, view)
        assert engine_view(message) == view
        assert engine_view(through_json(message)) == view


def random_games(kind: str) -> Iterator[engine.GameState]:
    """Every state of random games of `kind`, for each seat count and option set."""
    for seats in range(2, 5):
        for options in OPTIONS[kind]:
            for number in range(GAMES_PER_SETUP):
                rnd = random.Random(f"{kind} {seats} {options} {number}")
                game = engine.new_game(kind, seats, rnd.randbytes(16), options)
                yield game
                while not game.is_over():
                    seat = game.to_move
                    assert seat is not None
                    game, _ = game.apply(seat, rnd.choice(game.legal_moves()))
                    yield game


def union_members(message: type[Message], oneof: str) -> set[str]:
    return {field.name for field in message.DESCRIPTOR.oneofs_by_name[oneof].fields}


@pytest.mark.parametrize("kind", KINDS)
def test_random_games_round_trip(kind: str) -> None:
    moves_seen: set[str] = set()
    events_seen: set[str] = set()
    for game in random_games(kind):
        for move in game.legal_moves():
            check_move(kind, move)
            moves_seen.add(move["type"])
        # The events of the last move, or of the setup: every event shows up here once.
        for event in game.last_events:
            check_event(kind, event)
            events_seen.add(event["type"])
        check_views(kind, game)
    for event in RARE_EVENTS[kind] + SERVICE_EVENTS:
        check_event(kind, event)
        events_seen.add(event["type"])

    # Every member of the game's unions was carried, so none is wrongly shaped unnoticed.
    move_type = type(getattr(types_pb2.Move(), kind))
    event_type = type(getattr(types_pb2.Event(), kind))
    assert moves_seen == union_members(move_type, "move")
    shared = union_members(types_pb2.Event, "event") - set(KINDS)
    assert events_seen == union_members(event_type, "event") | shared


def test_the_unions_are_named_after_the_engines_kinds() -> None:
    assert union_members(types_pb2.Move, "move") == set(KINDS)
    assert union_members(types_pb2.Event, "event") >= set(KINDS)
    assert union_members(types_pb2.GameView, "table") == set(KINDS)


def test_enums_follow_the_engines_order() -> None:
    colors = [f"COLOR_{color.upper()}" for color in engine.COLORS]
    assert color_pb2.Color.keys() == ["COLOR_UNSPECIFIED", *colors]
    cards = [f"CARD_{card.upper()}" for card in CARD_NAMES]
    assert cards_pb2.Card.keys() == ["CARD_UNSPECIFIED", *cards]


def test_kinds() -> None:
    for kind in KINDS:
        assert convert.kind_name(convert.kind_enum(kind)) == kind
    assert convert.kind_enum("dice") == types_pb2.GAME_KIND_DICE
    assert convert.kind_name(types_pb2.GAME_KIND_UNSPECIFIED) is None
    with pytest.raises(BadMessage, match="GameKind has no value 9"):
        convert.kind_name(9)


def test_options_unset_take_the_games_defaults() -> None:
    assert convert.options(types_pb2.GameOptions()) == {}
    options = convert.options(types_pb2.GameOptions(rounds=3))
    assert engine.new_game("tiles", 4, options=options).options == {"rounds": 3, "line_length": 5}


def test_an_option_the_game_does_not_have_is_refused_by_the_engine() -> None:
    options = convert.options(types_pb2.GameOptions(variant_e=False))
    assert options == {"variant_e": False}
    with pytest.raises(engine.IllegalMove) as refused:
        engine.new_game("cards", 2, options=options)
    assert refused.value.reason == engine.Reason.BAD_OPTION


Move, Player = types_pb2.Move, types_pb2.Player
CardsMove, CardsPlay = cards_pb2.CardsMove, cards_pb2.CardsPlay


@pytest.mark.parametrize(
    ("kind", "move", "complaint"),
    [
        ("cards", Move(), "not an empty Move"),
        ("cards", Move(dice=dice_pb2.DiceMove(roll=dice_pb2.DiceRoll())), "not Move.dice"),
        ("cards", Move(cards=CardsMove()), "CardsMove has no move set"),
        (
            "cards",
            Move(cards=CardsMove(play=CardsPlay(first=color_pb2.COLOR_RED))),
            "CardsPlay.card is unset (CARD_UNSPECIFIED)",
        ),
        (
            "cards",
            Move(cards=CardsMove(play=CardsPlay(card=cards_pb2.CARD_RED_BLUE))),
            "CardsPlay.first is unset (COLOR_UNSPECIFIED)",
        ),
        (
            "dice",
            Move(
                dice=dice_pb2.DiceMove(
                    score=dice_pb2.DiceScore(jokers=[dice_pb2.DiceJoker(group=color_pb2.COLOR_RED)])
                )
            ),
            "DiceJoker.color is unset (COLOR_UNSPECIFIED)",
        ),
        (
            "tiles",
            Move(tiles=tiles_pb2.TilesMove(alternative=tiles_pb2.TilesAlternative())),
            "TilesAlternative.color is unset (COLOR_UNSPECIFIED)",
        ),
    ],
)
def test_bad_client_moves_are_refused(kind: str, move: types_pb2.Move, complaint: str) -> None:
    with pytest.raises(BadMessage, match=re.escape(complaint)):
        engine_move(kind, move)
    with pytest.raises(BadMessage, match=re.escape(complaint)):
        engine_move(kind, through_json(move))


def test_an_enum_number_from_a_newer_client_is_refused() -> None:
    # Enums are open in proto3: JSON and the wire both carry numbers the enum lacks.
    move = json_format.ParseDict({"cards": {"play": {"card": 99, "first": "COLOR_RED"}}}, Move())
    with pytest.raises(BadMessage, match=re.escape("CardsPlay.card has an unknown value 99")):
        engine_move("cards", move)


def test_bad_message_is_a_value_error() -> None:
    assert issubclass(BadMessage, ValueError)


@pytest.mark.parametrize(
    ("data", "message", "complaint"),
    [
        (
            {"type": "play", "card": "red_blue", "first": "red", "last": "blue"},
            CardsMove,
            "CardsPlay has no field 'last'",
        ),
        ({"type": "fly"}, CardsMove, "CardsMove takes a 'type' of"),
        ({"card": "red_blue"}, CardsMove, "not None"),
        ({"type": "play", "card": "blue_red"}, CardsMove, "not 'blue_red'"),
        ({"type": "play", "card": "unspecified"}, CardsMove, "not 'unspecified'"),
        ({"type": "play", "card": 2}, CardsMove, "CardsPlay.card takes one of"),
        ({"seat": True, "count": 1}, cards_pb2.CardsDrawEvent, "seat takes int, not True"),
        ({"seat": "1"}, cards_pb2.CardsDrawEvent, "seat takes int, not '1'"),
        ({"seat": None}, cards_pb2.CardsDrawEvent, "seat takes int, not None"),
        ({"to_move": "0"}, types_pb2.GameView, "to_move takes int or None"),
        ({"seat": 0, "markers": (0, 1)}, cards_pb2.CardsPlayer, "markers takes a list of int"),
        ({"seat": 0, "markers": [0, 1.0]}, cards_pb2.CardsPlayer, "markers takes a list of int"),
        ({"dice": [["red"], "blue"]}, dice_pb2.DiceSetupEvent, "takes a list of strings"),
        ({"players": {"seat": 0}}, cards_pb2.CardsView, "players takes a list"),
        ({"players": [[0]]}, cards_pb2.CardsView, "CardsPlayer takes a dict"),
        ({"type": "deal", "round": 0}, types_pb2.Event, "Event takes a 'type' of"),
        ({"type": "cards"}, types_pb2.Event, "Event.cards is a union too"),
    ],
)
def test_engine_data_of_the_wrong_shape_is_refused(
    data: dict[str, Any], message: type[Message], complaint: str
) -> None:
    with pytest.raises(ShapeError, match=re.escape(complaint)):
        to_proto(data, message())


def test_none_leaves_an_optional_field_unset() -> None:
    player = to_proto(
        {"seat": 1, "display_name": "", "joined": True, "bot": None, "away": False}, Player()
    )
    assert not player.HasField("bot")
    assert from_proto(player) == {
        "seat": 1,
        "display_name": "",
        "joined": True,
        "bot": None,
        "away": False,
        "resigned": False,
        "bot_account": False,
    }
    player = to_proto({"bot": "greedy"}, Player())
    assert player.bot == types_pb2.BOT_STRENGTH_GREEDY


@pytest.mark.parametrize("kind", KINDS)
def test_the_services_views_convert_back_to_the_engines(kind: str) -> None:
    """`engine_view` of a view as the service sends it is the seat's engine view: what the
    SDK's `run_bot` hands the built-in bots."""
    for number, game in enumerate(random_games(kind)):
        if number % 10:
            continue
        meta = new_meta(kind, [None] * game.seats, None, 0.0)
        meta.names = [f"p{seat}" for seat in range(game.seats)]
        meta.finished = game.is_over()
        for seat in range(game.seats):
            sent = through_json(game_view("g" * 16, meta, number, game, seat))
            assert engine_view(sent) == game.view(seat)
