"""The HTTP route of every RPC, read from its `google.api.http` annotation.

The REST gateway serves these routes, the OpenAPI document describes them and the tests'
REST client calls them: no route is written by hand. Only what the proto uses is supported
(one binding a method, `{field}` variables naming string fields, a body of "*" or none,
query parameters of scalar fields); a rule beyond that fails at import, not at a request.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import cast

from google.api.annotations_pb2 import http as http_rule
from google.api.http_pb2 import HttpRule
from google.protobuf.descriptor import FieldDescriptor, MethodDescriptor
from google.protobuf.message import Message

from .invoke import message_class, methods

VARIABLE = re.compile(r"\{([^}]*)\}")
QUERY_TYPES = {
    FieldDescriptor.TYPE_STRING,
    FieldDescriptor.TYPE_ENUM,
    FieldDescriptor.TYPE_INT32,
    FieldDescriptor.TYPE_INT64,
    FieldDescriptor.TYPE_UINT32,
    FieldDescriptor.TYPE_UINT64,
}
"""Fields a query parameter can fill: their JSON form is a string or parses from one."""
QUERY_MESSAGES = {"google.protobuf.FieldMask"}
"""Message fields a query parameter can fill: their JSON form is a string."""


@dataclass(frozen=True, slots=True)
class Route:
    method: MethodDescriptor
    verb: str
    """GET, POST, PUT, PATCH or DELETE."""
    template: str
    """The path, with `{field}` for each path variable."""
    path_fields: tuple[FieldDescriptor, ...]
    query_fields: tuple[FieldDescriptor, ...]
    """Without a body, every field not in the path comes from the query string."""
    query_names: dict[str, str]
    """A query parameter's field name by the parameter's name: the proto's or the JSON's,
    as in bodies (Google's HTTP transcoding takes both; clients often build URLs from the
    JSON names)."""
    body: bool
    """With a body (`body: "*"`), every field not in the path comes from it, as JSON."""
    mask_fields: tuple[FieldDescriptor, ...]
    """The request's read masks (google.protobuf.FieldMask), from the query or the body."""

    @property
    def request_class(self) -> type[Message]:
        return message_class(self.method.input_type)

    @property
    def response_class(self) -> type[Message]:
        return message_class(self.method.output_type)


def route_of(method: MethodDescriptor) -> Route:
    # The stubs type the extension as a plain field descriptor; it is google.api.http.
    rule = cast(HttpRule, method.GetOptions().Extensions[http_rule])  # type: ignore[index]
    verb = rule.WhichOneof("pattern")
    if verb in (None, "custom") or rule.additional_bindings or rule.response_body:
        raise ValueError(f"{method.full_name}: unsupported google.api.http rule")
    if rule.body not in ("", "*"):
        raise ValueError(f"{method.full_name}: unsupported body {rule.body!r}")
    template = getattr(rule, verb)
    fields = method.input_type.fields_by_name
    path_fields = []
    for name in VARIABLE.findall(template):
        field = fields.get(name)
        if field is None or field.type != FieldDescriptor.TYPE_STRING or field.is_repeated:
            raise ValueError(f"{method.full_name}: path variable {name!r} is no string field")
        path_fields.append(field)
    query_fields = []
    if not rule.body:
        for field in method.input_type.fields:
            if field in path_fields:
                continue
            if field.is_repeated or (field.type not in QUERY_TYPES and not _query_message(field)):
                raise ValueError(f"{method.full_name}: {field.name} cannot be a query parameter")
            query_fields.append(field)
    masks = tuple(field for field in method.input_type.fields if _is_mask(field))
    return Route(
        method,
        verb.upper(),
        template,
        tuple(path_fields),
        tuple(query_fields),
        {key: f.name for f in query_fields for key in (f.name, f.json_name)},
        bool(rule.body),
        masks,
    )


def _query_message(field: FieldDescriptor) -> bool:
    sub = field.message_type
    return sub is not None and sub.full_name in QUERY_MESSAGES


def _is_mask(field: FieldDescriptor) -> bool:
    sub = field.message_type
    return sub is not None and sub.full_name == "google.protobuf.FieldMask"


ROUTES = tuple(route_of(method) for method in methods())
