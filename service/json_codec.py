"""Messages to proto3 JSON as the gateway answers them, at a fraction of json_format's cost.

`json_format.MessageToDict` walks every field through generic reflection and was a
third of a REST move's CPU. This builds, once per message type, a plan of its
fields (name, JSON name, presence, how to write the value) and follows it; the
output equals `MessageToDict(message, always_print_fields_with_no_presence=True)`
(the test suite compares the two on every answer of many games). A type with a
field the plan does not cover (maps, bytes, floating point, well-known types other
than Timestamp) is written by json_format itself.
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
Plan = list[tuple[str, str, bool, bool, Value]]
"""Per field: its name, its JSON name, whether it has presence, whether it repeats,
and how to write one value."""

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

_plans: dict[str, Plan | None] = {}


class _Unplanned(Exception):
    """A field this module leaves to json_format."""


def to_dict(message: Message) -> dict[str, Any]:
    """The JSON object of `message`, fields without presence printed at their defaults."""
    plan = _plan(cast(Descriptor, message.DESCRIPTOR))
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


def _write(plan: Plan, message: Message) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, json_name, presence, repeated, value in plan:
        if presence and not message.HasField(name):
            continue
        raw = getattr(message, name)
        out[json_name] = [value(v) for v in raw] if repeated else value(raw)
    return out


def _plan(descriptor: Descriptor) -> Plan | None:
    name = descriptor.full_name
    if name not in _plans:
        try:
            _plans[name] = [_field(f) for f in descriptor.fields]
        except _Unplanned:
            _plans[name] = None
    return _plans[name]


def _field(field: FieldDescriptor) -> tuple[str, str, bool, bool, Value]:
    return field.name, field.json_name, field.has_presence, field.is_repeated, _value(field)


def _value(field: FieldDescriptor) -> Value:
    if field.type in _AS_IS:
        return _same
    if field.type in _INT64:
        return str
    if field.type == FieldDescriptor.TYPE_ENUM:
        enum = field.enum_type
        assert enum is not None  # an enum field has its enum
        names = {v.number: v.name for v in enum.values}
        return lambda number: names.get(number, number)
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


def _same(value: Any) -> Any:
    return value
