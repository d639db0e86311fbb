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

import re
import threading
from collections.abc import Callable, Mapping
from operator import attrgetter
from typing import Any, TypeVar, cast

from google.protobuf.descriptor import (
    Descriptor,
    EnumDescriptor,
    FieldDescriptor,
    OneofDescriptor,
)
from google.protobuf.descriptor_pb2 import DescriptorProto
from google.protobuf.message import Message

from genial.v1 import types_pb2

M = TypeVar("M", bound=Message)
Setter = Callable[[Message, Any], None]
Getter = Callable[[Message], Any]


class BadMessage(ValueError):
    """A client's message no engine move can come from: an empty oneof, an unspecified or
    unknown enum value, a move of another game. The transports answer INVALID_ARGUMENT."""


class ShapeError(ValueError):
    """An engine dict that does not fit its message. The engine's data is the server's own,
    so this is a mismatch between the engine and the proto: a bug, not the client's fault."""


class _Field:
    """How one field converts: `set` checks and stores a dict value, `get` reads it back."""

    __slots__ = ("get", "set", "shape")

    def __init__(self, set_: Setter, get: Getter, shape: _Shape | None) -> None:
        self.set = set_
        self.get = get
        self.shape = shape
        """The field's message type, for message fields."""


class _Shape:
    """How one message type converts: its fields by name and the form its dict takes."""

    __slots__ = ("fields", "name", "union", "wrapped")

    def __init__(self, name: str) -> None:
        self.name = name
        self.fields: dict[str, _Field] = {}
        self.union: str | None = None
        """The oneof's name, when the message is a tagged union."""
        self.wrapped: _Field | None = None
        """The only field, when the message is a list wrapper."""


_SHAPES: dict[Descriptor, _Shape] = {}
_BUILDING = threading.Lock()
_F = FieldDescriptor
_PYTHON_TYPES: dict[int, type] = {
    **dict.fromkeys(
        (_F.TYPE_INT32, _F.TYPE_SINT32, _F.TYPE_SFIXED32, _F.TYPE_UINT32, _F.TYPE_FIXED32), int
    ),
    **dict.fromkeys(
        (_F.TYPE_INT64, _F.TYPE_SINT64, _F.TYPE_SFIXED64, _F.TYPE_UINT64, _F.TYPE_FIXED64), int
    ),
    _F.TYPE_BOOL: bool,
    _F.TYPE_STRING: str,
    _F.TYPE_BYTES: bytes,
    _F.TYPE_FLOAT: float,
    _F.TYPE_DOUBLE: float,
}
"""The Python type of each scalar field type, by FieldDescriptor.type."""


def _enum_strings(enum: EnumDescriptor) -> dict[str, int]:
    """The engine's string of each value but the zero one: COLOR_RED is "red"."""
    prefix = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", enum.name).upper() + "_"
    strings: dict[str, int] = {}
    for value in enum.values:
        if value.number == 0:
            continue
        if not value.name.startswith(prefix):
            raise TypeError(f"{enum.full_name}.{value.name} does not start with {prefix}")
        strings[value.name.removeprefix(prefix).lower()] = value.number
    return strings


# ---- the two directions -------------------------------------------------------------------


def to_proto(data: Mapping[str, Any], message: M) -> M:
    """Fill `message` (fresh, or a sub-message got with getattr) from an engine dict.

    The message is marked as set even when `data` leaves every field at its default.
    Raises ShapeError for an unknown key or a value of the wrong shape.
    """
    message.SetInParent()
    _fill_record(_shape_of(message), data, message)
    return message


def from_proto(message: Message) -> dict[str, Any]:
    """The engine dict of `message`: the inverse of `to_proto`.

    Raises BadMessage for an unset union or an enum value the engine has no string for.
    """
    return _read_record(_shape_of(message), message)


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


def options(message: types_pb2.GameOptions) -> dict[str, Any]:
    """The options a client set, for `engine.new_game`.

    Unset ones (None, or no sections) are left out for the engine's defaults, and the engine
    refuses the ones its game does not have. On a view's options (`to_proto(view["options"],
    ...)`) this gives the engine's dict back exactly.
    """
    return {key: value for key, value in from_proto(message).items() if value not in (None, [])}


# The stubs type an enum's values as a class of its own; at run time they are ints.
_KIND_NUMBERS = cast(dict[str, types_pb2.GameKind], _enum_strings(types_pb2.GameKind.DESCRIPTOR))
_KIND_NAMES: dict[int, str] = {number: kind for kind, number in _KIND_NUMBERS.items()}


def kind_enum(kind: str) -> types_pb2.GameKind:
    """The GameKind of an engine kind ("cards" is GAME_KIND_CARDS)."""
    return _KIND_NUMBERS[kind]


_STRENGTH_NUMBERS = cast(
    dict[str, types_pb2.BotStrength], _enum_strings(types_pb2.BotStrength.DESCRIPTOR)
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


# ---- the plans --------------------------------------------------------------------------------


def _shape_of(message: Message) -> _Shape:
    # The stubs type DESCRIPTOR as either protobuf backend's class; both read the same.
    return _shape(cast(Descriptor, message.DESCRIPTOR))


def _shape(descriptor: Descriptor) -> _Shape:
    shape = _SHAPES.get(descriptor)
    if shape is None:
        # Shapes are published only once complete, so a reader in another thread never sees
        # one half built; the lock only keeps two threads from building the same one.
        with _BUILDING:
            building: dict[Descriptor, _Shape] = {}
            shape = _build(descriptor, building)
            _SHAPES.update(building)
    return shape


def _build(descriptor: Descriptor, building: dict[Descriptor, _Shape]) -> _Shape:
    known = _SHAPES.get(descriptor) or building.get(descriptor)
    if known is not None:
        return known
    # Registered before its fields are built, so that a message type containing itself works.
    shape = building[descriptor] = _Shape(descriptor.full_name)
    for field in descriptor.fields:
        sub = _build(field.message_type, building) if field.message_type else None
        shape.fields[field.name] = _field(field, sub)
    fields = descriptor.fields
    oneofs = _real_oneofs(descriptor)
    if (
        len(oneofs) == 1
        and len(oneofs[0].fields) == len(fields)
        and all(field.message_type for field in fields)
    ):
        shape.union = oneofs[0].name
    elif len(fields) == 1 and fields[0].is_repeated:
        shape.wrapped = shape.fields[fields[0].name]
    return shape


def _real_oneofs(descriptor: Descriptor) -> list[OneofDescriptor]:
    """The oneofs written in the proto, without those protoc makes for `optional` fields."""
    proto = DescriptorProto()
    descriptor.CopyToProto(proto)
    synthetic = {field.oneof_index for field in proto.field if field.proto3_optional}
    return [oneof for oneof in descriptor.oneofs if oneof.index not in synthetic]


def _field(field: FieldDescriptor, sub: _Shape | None) -> _Field:
    if sub is not None:
        return _message_field(field, sub)
    if field.enum_type is not None:
        return _enum_field(field, field.enum_type)
    return _scalar_field(field)


def _scalar_field(field: FieldDescriptor) -> _Field:
    name, where = field.name, field.full_name
    python_type = _PYTHON_TYPES[field.type]
    wanted = python_type.__name__
    if field.is_repeated:

        def set_list(message: Message, value: Any) -> None:
            # `type(...) is` so that a bool is not taken for an int.
            if type(value) is not list or any(type(v) is not python_type for v in value):
                raise ShapeError(f"{where} takes a list of {wanted}, not {_show(value)}")
            getattr(message, name).extend(value)

        def get_list(message: Message) -> list[Any]:
            return list(getattr(message, name))

        return _Field(set_list, get_list, None)

    optional = field.has_presence

    def set_one(message: Message, value: Any) -> None:
        if type(value) is not python_type:
            if value is None and optional:
                return
            wanted_here = f"{wanted} or None" if optional else wanted
            raise ShapeError(f"{where} takes {wanted_here}, not {_show(value)}")
        setattr(message, name, value)

    def get_optional(message: Message) -> Any:
        return getattr(message, name) if message.HasField(name) else None

    return _Field(set_one, get_optional if optional else attrgetter(name), None)


def _enum_field(field: FieldDescriptor, enum: EnumDescriptor) -> _Field:
    name, where = field.name, field.full_name
    numbers = _enum_strings(enum)
    strings = {number: string for string, number in numbers.items()}
    optional = field.has_presence

    def number(value: Any) -> int:
        try:
            return numbers[value]
        except (KeyError, TypeError):
            raise ShapeError(
                f"{where} takes one of {sorted(numbers)}, not {_show(value)}"
            ) from None

    def string(value: int) -> str:
        try:
            return strings[value]
        except KeyError:
            known = enum.values_by_number.get(value)
            what = f"is unset ({known.name})" if known else f"has an unknown value {value}"
            raise BadMessage(f"{where} {what}") from None

    if field.is_repeated:

        def set_list(message: Message, value: Any) -> None:
            if type(value) is not list:
                raise ShapeError(f"{where} takes a list of strings, not {_show(value)}")
            getattr(message, name).extend([number(v) for v in value])

        def get_list(message: Message) -> list[str]:
            return [string(v) for v in getattr(message, name)]

        return _Field(set_list, get_list, None)

    def set_one(message: Message, value: Any) -> None:
        if value is None and optional:
            return
        setattr(message, name, number(value))

    def get_one(message: Message) -> str | None:
        if optional and not message.HasField(name):
            return None
        return string(getattr(message, name))

    return _Field(set_one, get_one, None)


def _message_field(field: FieldDescriptor, sub: _Shape) -> _Field:
    name, where = field.name, field.full_name
    if field.is_repeated:

        def set_list(message: Message, value: Any) -> None:
            if type(value) is not list:
                raise ShapeError(f"{where} takes a list, not {_show(value)}")
            container = getattr(message, name)
            for item in value:
                _fill(sub, item, container.add())

        def get_list(message: Message) -> list[Any]:
            return [_read(sub, item) for item in getattr(message, name)]

        return _Field(set_list, get_list, sub)

    def set_one(message: Message, value: Any) -> None:
        if value is None:  # a message field always has presence
            return
        child = getattr(message, name)
        child.SetInParent()
        _fill(sub, value, child)

    def get_one(message: Message) -> Any:
        return _read(sub, getattr(message, name)) if message.HasField(name) else None

    return _Field(set_one, get_one, sub)


# ---- filling and reading ----------------------------------------------------------------------


def _fill(shape: _Shape, data: Any, message: Message) -> None:
    if shape.wrapped is not None:
        shape.wrapped.set(message, data)
    else:
        _fill_record(shape, data, message)


def _fill_record(shape: _Shape, data: Any, message: Message) -> None:
    # `type(...) is dict` first: the engine's dicts are plain, and the ABC check is slow.
    if type(data) is not dict and not isinstance(data, Mapping):
        raise ShapeError(f"{shape.name} takes a dict, not {_show(data)}")
    if shape.union is None:
        _fill_fields(shape, data, message, None)
        return
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in shape.fields:
        raise ShapeError(f"{shape.name} takes a 'type' of {sorted(shape.fields)}, not {kind!r}")
    member = shape.fields[kind]
    assert member.shape is not None  # a union's members are messages
    if member.shape.union is not None:
        raise ShapeError(
            f"{shape.name}.{kind} is a union too: fill it with to_proto(data, message.{kind})"
        )
    child = getattr(message, kind)
    child.SetInParent()
    _fill_fields(member.shape, data, child, "type")


def _fill_fields(
    shape: _Shape, data: Mapping[str, Any], message: Message, skip: str | None
) -> None:
    fields = shape.fields
    for key, value in data.items():
        field = fields.get(key)
        if field is not None:
            field.set(message, value)
        elif key != skip:
            raise ShapeError(f"{shape.name} has no field {key!r}; its fields: {sorted(fields)}")


def _read(shape: _Shape, message: Message) -> Any:
    if shape.wrapped is not None:
        return shape.wrapped.get(message)
    return _read_record(shape, message)


def _read_record(shape: _Shape, message: Message) -> dict[str, Any]:
    if shape.union is None:
        return {name: field.get(message) for name, field in shape.fields.items()}
    kind = message.WhichOneof(shape.union)
    if kind is None:
        raise BadMessage(f"{shape.name} has no {shape.union} set")
    member = shape.fields[kind].shape
    assert member is not None  # a union's members are messages
    child = getattr(message, kind)
    if member.union is not None:
        return _read_record(member, child)
    record: dict[str, Any] = {"type": kind}
    record.update((name, field.get(child)) for name, field in member.fields.items())
    return record


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
