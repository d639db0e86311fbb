"""Engine dicts to genial.v1 messages and back, by rules read off the messages' descriptors.

The engine speaks plain dicts; the proto (proto/genial/v1) was written so that one set of
rules, with no code per game, maps every move, event and table:

- a key is the field of the same name, a list a repeated field, a dict a message;
- an enum field takes the engine's lowercase string: the value's name is the enum's name in
  UPPER_SNAKE_CASE, "_", then the string upper-cased ("red_blue" is CARD_RED_BLUE of Card);
  the zero value (..._UNSPECIFIED) is no string at all;
- None is a field with presence (proto3 `optional`) left unset;
- a message made of one oneof of messages is a tagged union: its dict names the member in
  "type" and holds the member's fields beside it (CardsMove: {"type": "play", "card": ...}).
  When the member is itself a union (Event.cards is a CardsEvent), the engine's dict is the
  inner one: the game's kind picks the outer member, so the helpers below take the kind;
- a message whose only field is repeated is a list wrapper: a list of lists fills a repeated
  field of such messages, one per inner list (the dice of each seat).

`to_proto` and `from_proto` are inverses on every engine move, event and table. The plan for
each message type is built once, since conversion runs on every move.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar, cast

from google.protobuf.message import Message

from genial.v1 import types_pb2

from .shapes import BadMessage, ShapeError, enum_strings, fill, read

__all__ = [
    "BadMessage",
    "ShapeError",
    "bot_strength",
    "engine_move",
    "from_proto",
    "kind_enum",
    "kind_name",
    "options",
    "proto_event",
    "proto_move",
    "table_to_proto",
    "to_proto",
]

M = TypeVar("M", bound=Message)
Setter = Callable[[Message, Any], None]
Getter = Callable[[Message], Any]


# ---- the two directions -------------------------------------------------------------------


def to_proto(data: Mapping[str, Any], message: M) -> M:
    """Fill `message` (fresh, or a sub-message got with getattr) from an engine dict.

    The message is marked as set even when `data` leaves every field at its default.
    Raises ShapeError for an unknown key or a value of the wrong shape.
    """
    message.SetInParent()
    fill(data, message)
    return message


def from_proto(message: Message) -> dict[str, Any]:
    """The engine dict of `message`: the inverse of `to_proto`.

    Raises BadMessage for an unset union or an enum value the engine has no string for.
    """
    return read(message)


# ---- the unions over the games, picked by the game's kind -----------------------------------

_SHARED_EVENTS = frozenset(types_pb2.Event.DESCRIPTOR.fields_by_name) - frozenset(
    field.name for field in types_pb2.Move.DESCRIPTOR.fields
)
"""Event members that are not a game's own (round_over, game_over, ...)."""


def engine_move(kind: str, move: types_pb2.Move) -> dict[str, Any]:
    """A client's move for a game of `kind`, in the form the engine's `legal_moves()` lists."""
    member = move.WhichOneof("move")
    if member != kind:
        given = f"Move.{member}" if member else "an empty Move"
        raise BadMessage(f"a {kind} game takes a Move with {kind} set, not {given}")
    return from_proto(getattr(move, kind))


def proto_move(kind: str, move: Mapping[str, Any]) -> types_pb2.Move:
    """An engine move of a game of `kind` as a Move."""
    message = types_pb2.Move()
    to_proto(move, getattr(message, kind))
    return message


def proto_event(kind: str, event: Mapping[str, Any]) -> types_pb2.Event:
    """An engine event of a game of `kind` as an Event (`from_proto` reads it back)."""
    message = types_pb2.Event()
    if event.get("type") in _SHARED_EVENTS:
        return to_proto(event, message)
    to_proto(event, getattr(message, kind))
    return message


def table_to_proto(kind: str, table: Mapping[str, Any], view: types_pb2.GameView) -> None:
    """Set the `table` of `view` from the engine view's "table" of a game of `kind`."""
    to_proto(table, getattr(view, kind))


VIEW_KEYS = ("kind", "seats", "viewer", "to_move", "round", "first_seat", "points", "standings")
"""The keys of an engine view that a GameView holds under the same name."""


def engine_view(message: types_pb2.GameView) -> dict[str, Any]:
    """The engine's view (`GameState.view(seat)`) a GameView was made from: what the built-in
    bots' `choose(view, legal_moves)` takes (with `engine_move` of each legal move). The
    inverse of the service's views, for the fields the engine's view has.

    Raises BadMessage for a view without a table.
    """
    data = from_proto(message)
    table = message.WhichOneof("table")
    if table is None:
        raise BadMessage("a GameView without a table")
    return {
        **{key: data.get(key) for key in VIEW_KEYS},
        "finished": data["status"] == "finished",
        "options": options(message.options),
        "last_events": data["last_events"],
        "table": data[table],
    }


def options(message: types_pb2.GameOptions) -> dict[str, Any]:
    """The options a client set, for `engine.new_game`.

    Unset ones (None, or no sections) are left out for the engine's defaults, and the engine
    refuses the ones its game does not have. On a view's options (`to_proto(view["options"],
    ...)`) this gives the engine's dict back exactly.
    """
    return {key: value for key, value in from_proto(message).items() if value not in (None, [])}


# The stubs type an enum's values as a class of its own; at run time they are ints.
_KIND_NUMBERS = cast(dict[str, types_pb2.GameKind], enum_strings(types_pb2.GameKind.DESCRIPTOR))
_KIND_NAMES: dict[int, str] = {number: kind for kind, number in _KIND_NUMBERS.items()}


def kind_enum(kind: str) -> types_pb2.GameKind:
    """The GameKind of an engine kind ("cards" is GAME_KIND_CARDS)."""
    return _KIND_NUMBERS[kind]


_STRENGTH_NUMBERS = cast(
    dict[str, types_pb2.BotStrength], enum_strings(types_pb2.BotStrength.DESCRIPTOR)
)


def bot_strength(strength: str) -> types_pb2.BotStrength:
    """The BotStrength of a built-in bot's strength ("greedy" is BOT_STRENGTH_GREEDY)."""
    return _STRENGTH_NUMBERS[strength]


def kind_name(kind: int) -> str | None:
    """The engine kind of a client's GameKind; None for GAME_KIND_UNSPECIFIED (no game named).

    Raises BadMessage for a number the enum does not have.
    """
    if kind == types_pb2.GAME_KIND_UNSPECIFIED:
        return None
    try:
        return _KIND_NAMES[kind]
    except KeyError:
        raise BadMessage(f"genial.v1.GameKind has no value {kind}") from None
