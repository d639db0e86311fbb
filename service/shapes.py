"""How engine dicts and genial.v1 messages convert, read off the messages' descriptors: a
plan (a `_Shape`) per message type, built once, since conversion runs on every move. The
rules it follows are `convert`'s docstring; `convert` is what the service calls.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Mapping
from operator import attrgetter
from typing import Any, cast

from google.protobuf.descriptor import (
    Descriptor,
    EnumDescriptor,
    FieldDescriptor,
    OneofDescriptor,
)
from google.protobuf.descriptor_pb2 import DescriptorProto
from google.protobuf.message import Message

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


def enum_strings(enum: EnumDescriptor) -> dict[str, int]:
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
    numbers = enum_strings(enum)
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


def fill(data: Any, message: Message) -> None:
    """Fill `message` from an engine dict (its shape's plan)."""
    _fill_record(_shape_of(message), data, message)


def read(message: Message) -> dict[str, Any]:
    """The engine dict of `message` (its shape's plan)."""
    return _read_record(_shape_of(message), message)
