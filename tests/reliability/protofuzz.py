"""Hypothesis strategies for any protobuf message, built from its descriptor, and raw wire
bytes that no message parser should choke on: random, oversized and deeply nested.

The strategies know nothing of the genial API: the fields, their types, enums, oneofs and
nesting come from the descriptor; `strings` lets a test mix real values (a game id that
exists) into the string fields it names.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass
from hypothesis import strategies as st

F = FieldDescriptor
INT_RANGES = {
    F.TYPE_INT32: (-(2**31), 2**31 - 1),
    F.TYPE_SINT32: (-(2**31), 2**31 - 1),
    F.TYPE_SFIXED32: (-(2**31), 2**31 - 1),
    F.TYPE_INT64: (-(2**63), 2**63 - 1),
    F.TYPE_SINT64: (-(2**63), 2**63 - 1),
    F.TYPE_SFIXED64: (-(2**63), 2**63 - 1),
    F.TYPE_UINT32: (0, 2**32 - 1),
    F.TYPE_FIXED32: (0, 2**32 - 1),
    F.TYPE_UINT64: (0, 2**64 - 1),
    F.TYPE_FIXED64: (0, 2**64 - 1),
}
MAX_REPEATED = 6


def scalar(field: FieldDescriptor, strings: Mapping[str, st.SearchStrategy[str]]) -> Any:
    """A strategy for one value of a scalar or enum field."""
    if field.type in INT_RANGES:
        low, high = INT_RANGES[field.type]
        # Mostly the small numbers a schema means (seats, versions), sometimes anything.
        return st.one_of(st.integers(max(low, -3), 12), st.integers(low, high))
    if field.type == F.TYPE_BOOL:
        return st.booleans()
    if field.type in (F.TYPE_FLOAT, F.TYPE_DOUBLE):
        return st.floats(width=32 if field.type == F.TYPE_FLOAT else 64)
    if field.type == F.TYPE_STRING:
        text = st.text(max_size=80)
        return st.one_of(strings[field.name], text) if field.name in strings else text
    if field.type == F.TYPE_BYTES:
        return st.binary(max_size=80)
    if field.type == F.TYPE_ENUM:
        known = [value.number for value in field.enum_type.values]
        # proto3 enums are open: unknown numbers parse, and must be refused properly.
        return st.one_of(st.sampled_from(known), st.integers(-(2**31), 2**31 - 1))
    raise AssertionError(f"no strategy for {field.full_name}")


def messages(
    descriptor: Descriptor,
    strings: Mapping[str, st.SearchStrategy[str]] | None = None,
    depth: int = 6,
    base: Message | None = None,
) -> st.SearchStrategy[Message]:
    """Messages of `descriptor`'s type with any subset of fields set to any values; with a
    `base`, half of them start from it (a valid request, so that cases get past the first
    check more often)."""
    strings = strings or {}
    cls = GetMessageClass(descriptor)

    @st.composite
    def build(draw: Callable[..., Any]) -> Message:
        message = cls()
        if base is not None and draw(st.booleans()):
            message.CopyFrom(base)
        for field in descriptor.fields:
            if not draw(st.booleans()):
                continue
            if field.type == F.TYPE_MESSAGE:
                if depth <= 0:
                    continue
                sub = messages(field.message_type, strings, depth - 1)
                if field.is_repeated:
                    if field.message_type.GetOptions().map_entry:
                        continue  # no map fields in requests
                    for value in draw(st.lists(sub, max_size=MAX_REPEATED // 2)):
                        getattr(message, field.name).add().CopyFrom(value)
                else:
                    getattr(message, field.name).CopyFrom(draw(sub))
            elif field.is_repeated:
                getattr(message, field.name).extend(
                    draw(st.lists(scalar(field, strings), max_size=MAX_REPEATED))
                )
            else:
                setattr(message, field.name, draw(scalar(field, strings)))
        return message

    return build()


# ---- raw wire bytes -----------------------------------------------------------------------


def varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def tag(number: int, wire_type: int) -> bytes:
    return varint(number << 3 | wire_type)


def nested_groups(depth: int, number: int = 1000) -> bytes:
    """An unknown field made of `depth` groups, one inside the other."""
    return tag(number, 3) * depth + tag(number, 4) * depth


def nested_messages(depth: int, number: int = 1000) -> bytes:
    """An unknown length-delimited field holding itself `depth` times over."""
    payload = b""
    for _ in range(depth):
        payload = tag(number, 2) + varint(len(payload)) + payload
    return payload


def wire_bytes(valid: list[bytes]) -> st.SearchStrategy[bytes]:
    """Random bytes, mutations of valid requests, and nested unknown fields."""
    flip = st.tuples(st.sampled_from(valid), st.integers(0, 10_000), st.integers(0, 255)).map(
        lambda t: t[0][: t[1] % (len(t[0]) + 1)] + bytes([t[2]]) + t[0][t[1] % (len(t[0]) + 1) :]
    )
    truncated = st.tuples(st.sampled_from(valid), st.integers(0, 10_000)).map(
        lambda t: t[0][: t[1] % (len(t[0]) + 1)]
    )
    return st.one_of(
        st.binary(max_size=512),
        flip,
        truncated,
        st.integers(1, 400).map(nested_groups),
        st.integers(1, 400).map(nested_messages),
        st.tuples(st.sampled_from(valid), st.integers(1, 400)).map(
            lambda t: t[0] + nested_groups(t[1], 2)
        ),
    )
