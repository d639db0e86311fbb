"""Messages to proto3 JSON and back as the gateway needs them, at a fraction of json_format's
cost.

`json_format.MessageToDict` walks every field through generic reflection and was a
third of a REST move's CPU. This builds, once per message type, a plan of its
fields (name, JSON name, presence, how to write the value) and follows it; the
output equals `MessageToDict(message, always_print_fields_with_no_presence=True)`
(the test suite compares the two on every answer of many games). A type with a
field the plan does not cover (maps, bytes, floating point, well-known types other
than Timestamp) is written by json_format itself.

Requests are read the same way (`parse`), from a plan of each type's fields by both their
names: the plain cases, a known field given a value of its own JSON type, are read by the
plan, and anything else (null, a number as a string, an enum by number, a field twice, a
well-known type) is left to json_format, which reads it or refuses it with its own error.
json_format's `ParseDict` was 5% of a REST move.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from google.protobuf import json_format
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message
from google.protobuf.timestamp_pb2 import Timestamp

from .masks import Tree

Value = Callable[[Any], Any]
Plan = list[tuple[str, str, int, Any]]
"""Per field: its name, its JSON name, its kind (`_ONE`, `_OPTIONAL`, `_LIST`) and how to
write one value (None: as it is, with no call per value). A oneof is one entry of kind
`_ONEOF` where its first member stands: its name, "", and each member's own entry by name,
so that the set member is found in one call rather than one per member (an event's union
has up to a dozen)."""
_ONE, _OPTIONAL, _LIST, _ONEOF = range(4)

_INT64 = {
    FieldDescriptor.TYPE_INT64,
    FieldDescriptor.TYPE_UINT64,
    FieldDescriptor.TYPE_SINT64,
    FieldDescriptor.TYPE_FIXED64,
    FieldDescriptor.TYPE_SFIXED64,
}
_AS_IS = {
    FieldDescriptor.TYPE_INT32,
    FieldDescriptor.TYPE_UINT32,
    FieldDescriptor.TYPE_SINT32,
    FieldDescriptor.TYPE_FIXED32,
    FieldDescriptor.TYPE_SFIXED32,
    FieldDescriptor.TYPE_BOOL,
    FieldDescriptor.TYPE_STRING,
}

_plans: dict[Descriptor, Plan | None] = {}


class _Unplanned(Exception):
    """A field this module leaves to json_format."""


Reader = Callable[[Message, str, Any], None]
"""Sets a field (by name) of a message from its JSON value; raises _Unplanned for a value
that is not the plain case."""
_readers: dict[Descriptor, dict[str, tuple[str, str | None, Reader]]] = {}
"""Per message type, by JSON name and by field name: the field's name, its oneof's, and
its reader."""


def to_dict(message: Message) -> dict[str, Any]:
    """The JSON object of `message`, fields without presence printed at their defaults."""
    descriptor = cast(Descriptor, message.DESCRIPTOR)
    plan = _plans[descriptor] if descriptor in _plans else _plan(descriptor)
    if plan is None:
        return json_format.MessageToDict(message, always_print_fields_with_no_presence=True)
    return _write(plan, message)


def masked_dict(message: Message, tree: Tree) -> dict[str, Any]:
    """The JSON object of the fields of `message` that a read mask keeps (`masks.Tree`):
    those left out are not printed at their defaults either."""
    whole = to_dict(message)
    out: dict[str, Any] = {}
    for field in cast(Descriptor, message.DESCRIPTOR).fields:
        if field.name not in tree or field.json_name not in whole:
            continue
        sub = tree[field.name]
        if sub is None:
            out[field.json_name] = whole[field.json_name]
        else:  # a singular message field, set
            out[field.json_name] = masked_dict(getattr(message, field.name), sub)
    return out


def parse(value: dict[str, Any], message: Message) -> None:
    """`json_format.ParseDict(value, message)`, with its results and its errors."""
    scratch = type(message)()
    try:
        _read(value, scratch)
    except _Unplanned:
        json_format.ParseDict(value, message)
    else:
        # Read aside, then merged: when the plan hands over halfway, json_format starts on
        # the message as it was. A merge does not copy a field set to its default, which
        # the gateway never needs: only the path's values are read after the body, and a
        # path's values are never empty.
        message.MergeFrom(scratch)


def _read(value: dict[str, Any], message: Message) -> None:
    fields = _reader_plan(cast(Descriptor, message.DESCRIPTOR))
    seen: set[str] = set()
    for key, item in value.items():
        known = fields.get(key)
        if known is None:
            raise _Unplanned
        name, oneof, read = known
        if name in seen or (oneof is not None and oneof in seen):
            raise _Unplanned
        seen.add(name)
        if oneof is not None:
            seen.add(oneof)
        read(message, name, item)


def _reader_plan(descriptor: Descriptor) -> dict[str, tuple[str, str | None, Reader]]:
    if descriptor not in _readers:
        fields: dict[str, tuple[str, str | None, Reader]] = {}
        for field in descriptor.fields:
            oneof = field.containing_oneof
            entry = (field.name, oneof.name if oneof is not None else None, _reader(field))
            fields[field.name] = fields[field.json_name] = entry
        _readers[descriptor] = fields
    return _readers[descriptor]


def _reader(field: FieldDescriptor) -> Reader:
    one = _one_reader(field)
    if field.is_repeated:
        return lambda message, name, items: _read_list(message, name, items, one)
    return lambda message, name, item: _set(message, name, one(message, name, item))


def _set(message: Message, name: str, value: Any) -> None:
    if value is not _IN_PLACE:
        try:
            setattr(message, name, value)
        except (TypeError, ValueError):  # out of range: json_format says so
            raise _Unplanned from None


def _read_list(message: Message, name: str, items: Any, one: Callable[..., Any]) -> None:
    if type(items) is not list:
        raise _Unplanned
    target = getattr(message, name)
    for item in items:
        value = one(message, name, item, target)
        if value is not _IN_PLACE:
            try:
                target.append(value)
            except (TypeError, ValueError):
                raise _Unplanned from None


_IN_PLACE = object()
"""A message value: read into its place, nothing to set."""


def _one_reader(field: FieldDescriptor) -> Callable[..., Any]:
    """Reads one value: (message, field name, item[, the repeated container]) to the value to
    set, or _IN_PLACE for a message read into its place."""
    if field.type == FieldDescriptor.TYPE_MESSAGE:
        sub = field.message_type
        assert sub is not None  # a message field has its message
        if sub.full_name.startswith("google.protobuf.") or sub.GetOptions().map_entry:
            return _refuse

        def message_value(message: Message, name: str, item: Any, into: Any = None) -> object:
            if type(item) is not dict:
                raise _Unplanned
            target = into.add() if into is not None else getattr(message, name)
            target.SetInParent()
            _read(item, target)
            return _IN_PLACE

        return message_value
    if field.type == FieldDescriptor.TYPE_ENUM:
        enum = field.enum_type
        assert enum is not None  # an enum field has its enum
        numbers = {v.name: v.number for v in enum.values}

        def enum_value(message: Message, name: str, item: Any, into: Any = None) -> int:
            number = numbers.get(item) if type(item) is str else None
            if number is None:
                raise _Unplanned
            return number

        return enum_value
    python_type = _JSON_TYPES.get(field.type)
    if python_type is None:
        return _refuse

    def scalar(message: Message, name: str, item: Any, into: Any = None) -> Any:
        if type(item) is not python_type:
            raise _Unplanned
        return item

    return scalar


def _refuse(message: Message, name: str, item: Any, into: Any = None) -> Any:
    raise _Unplanned


_JSON_TYPES: dict[int, type] = {
    **dict.fromkeys(_AS_IS - {FieldDescriptor.TYPE_BOOL, FieldDescriptor.TYPE_STRING}, int),
    **dict.fromkeys(_INT64, int),
    FieldDescriptor.TYPE_BOOL: bool,
    FieldDescriptor.TYPE_STRING: str,
}
"""The JSON value's Python type a scalar field reads as is (bytes and floating point are
json_format's: base64, "NaN")."""


def _write(plan: Plan, message: Message) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for entry in plan:
        name, json_name, kind, value = entry
        if kind == _ONEOF:
            member = message.WhichOneof(name)
            if member is None:
                continue
            name, json_name, kind, value = value[member]
        elif kind == _OPTIONAL and not message.HasField(name):
            continue
        raw = getattr(message, name)
        if kind == _LIST:
            out[json_name] = list(raw) if value is None else [value(v) for v in raw]
        else:
            out[json_name] = raw if value is None else value(raw)
    return out


def _plan(descriptor: Descriptor) -> Plan | None:
    if descriptor not in _plans:
        try:
            _plans[descriptor] = _entries(descriptor)
        except _Unplanned:
            _plans[descriptor] = None
    return _plans[descriptor]


def _entries(descriptor: Descriptor) -> Plan:
    plan: Plan = []
    oneofs: dict[str, dict[str, tuple[str, str, int, Value | None]]] = {}
    for field in descriptor.fields:
        value = None if field.type in _AS_IS else _value(field)
        oneof = field.containing_oneof
        # A oneof of one member (as protoc makes for `optional`) is a field with presence.
        if oneof is not None and len(oneof.fields) > 1:
            if oneof.name not in oneofs:
                oneofs[oneof.name] = {}
                plan.append((oneof.name, "", _ONEOF, oneofs[oneof.name]))
            oneofs[oneof.name][field.name] = (field.name, field.json_name, _ONE, value)
            continue
        kind = _LIST if field.is_repeated else _OPTIONAL if field.has_presence else _ONE
        plan.append((field.name, field.json_name, kind, value))
    return plan


class _EnumNames(dict[int, Any]):
    """An enum's value names by number; a number the enum does not know is written as it
    is, as json_format does."""

    def __missing__(self, number: int) -> int:
        return number


def _value(field: FieldDescriptor) -> Value:
    """How to write a value of a field whose values are not written as they are."""
    if field.type in _INT64:
        return str
    if field.type == FieldDescriptor.TYPE_ENUM:
        enum = field.enum_type
        assert enum is not None  # an enum field has its enum
        return _EnumNames({v.number: v.name for v in enum.values}).__getitem__
    if field.type == FieldDescriptor.TYPE_MESSAGE:
        sub = field.message_type
        assert sub is not None  # a message field has its message
        if sub.GetOptions().map_entry:
            raise _Unplanned
        if sub.full_name == Timestamp.DESCRIPTOR.full_name:
            return Timestamp.ToJsonString
        if sub.full_name.startswith("google.protobuf."):
            raise _Unplanned
        return to_dict
    raise _Unplanned  # floating point and bytes: json_format's rules
