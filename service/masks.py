"""Read masks (AIP-157): which fields of an answer the caller wants.

A request's `read_mask` names fields of the response by path ("version", "view.dice"); the
use case builds only what the mask keeps (a `MakeMove` with "version,events" builds no
view at all) and trims the rest. A mask only ever leaves out: it applies to the answer the
caller gets anyway, so it cannot show more than the caller's view.

Paths are the proto's snake_case names; the JSON mapping's lowerCamelCase is read too (a
REST client writes `readMask=view.toMove`). A path goes through singular message fields
only, as FieldMask has it; "*", or no path at all, keeps everything.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TypeVar, cast

from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.field_mask_pb2 import FieldMask
from google.protobuf.message import Message

from .errors import ApiError, Reason

M = TypeVar("M", bound=Message)
MAX_PATHS = 64
"""More paths than any answer has fields worth naming: a longer mask is refused."""
_CAMEL = re.compile(r"(?<=[a-z0-9])([A-Z])")

Tree = dict[str, "Tree | None"]
"""The fields kept, by name: the sub-fields kept, or None for the whole field."""


@dataclass(frozen=True, slots=True)
class ReadMask:
    """A valid mask on one message type, as a tree of field names."""

    tree: Tree

    def wants(self, name: str) -> bool:
        """Whether the field is kept, wholly or in part."""
        return name in self.tree

    def part(self, name: str) -> ReadMask | None:
        """The mask on a kept message field's own fields; None: all of them."""
        sub = self.tree.get(name)
        return None if sub is None else ReadMask(sub)

    def trim(self, message: M) -> M:
        """`message` with the fields the mask leaves out cleared (in place)."""
        _trim(message, self.tree)
        return message


def _trim(message: Message, tree: Tree) -> None:
    for field, value in message.ListFields():
        if field.name not in tree:
            message.ClearField(field.name)
        elif (sub := tree[field.name]) is not None:
            _trim(value, sub)
            if not value.ListFields() and not _names_a_value(value, sub):
                message.ClearField(field.name)


def _names_a_value(message: Message, tree: Tree) -> bool:
    """Whether `tree` names a field of `message` that is not a message: an emptied message
    stays when it does (its fields are there, at their defaults), as FieldMask has it."""
    fields = message.DESCRIPTOR.fields_by_name
    return any(
        sub is None and (fields[name].message_type is None or fields[name].is_repeated)
        for name, sub in tree.items()
    )


def of(mask: FieldMask, response: type[Message], always: tuple[str, ...] = ()) -> ReadMask | None:
    """What `mask` (a request's) keeps of a `response` (and the fields in `always`); None:
    everything. Raises `ApiError` (BAD_READ_MASK) for a path `response` has not."""
    if not mask.paths:
        return None
    return _parse((*mask.paths, *always), cast(Descriptor, response.DESCRIPTOR))


def requested(
    request: Message, response: type[Message], always: tuple[str, ...] = ()
) -> ReadMask | None:
    """The read mask of a request, if its type has one (`of`)."""
    if "read_mask" not in request.DESCRIPTOR.fields_by_name:
        return None
    return of(request.read_mask, response, always)  # type: ignore[attr-defined]


@lru_cache(maxsize=512)
def _parse(paths: tuple[str, ...], response: Descriptor) -> ReadMask | None:
    if len(paths) > MAX_PATHS:
        raise ApiError(Reason.BAD_READ_MASK, f"a read mask has at most {MAX_PATHS} paths")
    if "*" in paths:
        return None
    tree: Tree = {}
    for path in paths:
        _add(tree, path, response)
    return ReadMask(tree)


def _add(tree: Tree, path: str, response: Descriptor) -> None:
    names = [snake_case(name) for name in path.split(".")]
    message: Descriptor | None = response
    node: Tree | None = tree
    for depth, name in enumerate(names):
        field = message.fields_by_name.get(name) if message is not None else None
        if field is None:
            raise ApiError(
                Reason.BAD_READ_MASK,
                f"{response.name} has no field {'.'.join(names[: depth + 1])!r}",
                {"path": path[:200]},
            )
        last = depth == len(names) - 1
        if not last and (field.type != FieldDescriptor.TYPE_MESSAGE or field.is_repeated):
            raise ApiError(
                Reason.BAD_READ_MASK,
                f"a read mask path goes through singular messages only, not {name!r}",
                {"path": path[:200]},
            )
        if node is not None:  # else a shorter path keeps the whole field already
            if last:
                node[name] = None
            else:
                node = node.setdefault(name, {})
        message = field.message_type


def snake_case(name: str) -> str:
    """A field's proto name from its JSON name (or from itself)."""
    return _CAMEL.sub(r"_\1", name).lower()
