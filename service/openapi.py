"""The OpenAPI 3.1 document of the HTTP/JSON API, derived from the proto.

Paths come from the routes (the `google.api.http` annotations), schemas from every message
and enum, descriptions from the proto's comments. The generated Python modules drop the
comments, so `make generate` also writes the descriptors with their source info
(`descriptors.binpb` beside the modules) and the document is built from those: the service
serves it at /openapi.json, and `python -m genial.service.openapi FILE` writes it
(`make generate` writes clients/openapi.json).
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from google.protobuf.descriptor import Descriptor
from google.protobuf.descriptor_pb2 import (
    DescriptorProto,
    EnumDescriptorProto,
    FieldDescriptorProto,
    FileDescriptorProto,
    FileDescriptorSet,
)

from genial.v1 import types_pb2

from .errors import Code, error_schemas
from .invoke import SERVICE, SERVICES
from .routes import ROUTES, Route

DESCRIPTORS = Path(types_pb2.__file__).with_name("descriptors.binpb")
REF = "#/components/schemas/"
RESPONSES = "#/components/responses/"
ERROR = "Error"

# Field numbers in descriptor.proto, which make up the paths of source_code_info.
FILE_MESSAGE, FILE_ENUM, FILE_SERVICE = 4, 5, 6
MESSAGE_FIELD, MESSAGE_NESTED, MESSAGE_ENUM = 2, 3, 4
ENUM_VALUE = 2
SERVICE_METHOD = 2

F = FieldDescriptorProto
INT32 = {"type": "integer", "format": "int32", "minimum": -(2**31), "maximum": 2**31 - 1}
UINT32 = {"type": "integer", "format": "uint32", "minimum": 0, "maximum": 2**32 - 1}
INT64 = {"type": "string", "format": "int64", "pattern": "^-?[0-9]+$"}
UINT64 = {"type": "string", "format": "uint64", "pattern": "^[0-9]+$"}
SCALARS: dict[int, dict[str, Any]] = {
    F.TYPE_DOUBLE: {"type": "number", "format": "double"},
    F.TYPE_FLOAT: {"type": "number", "format": "float"},
    F.TYPE_INT32: INT32,
    F.TYPE_SINT32: INT32,
    F.TYPE_SFIXED32: INT32,
    F.TYPE_UINT32: UINT32,
    F.TYPE_FIXED32: UINT32,
    F.TYPE_INT64: INT64,
    F.TYPE_SINT64: INT64,
    F.TYPE_SFIXED64: INT64,
    F.TYPE_UINT64: UINT64,
    F.TYPE_FIXED64: UINT64,
    F.TYPE_BOOL: {"type": "boolean"},
    F.TYPE_STRING: {"type": "string"},
    F.TYPE_BYTES: {"type": "string", "contentEncoding": "base64"},
}
"""Scalars as the protobuf JSON mapping writes them: 64-bit integers are strings."""
WELL_KNOWN = {
    ".google.protobuf.Timestamp": {"type": "string", "format": "date-time"},
    # A read mask: comma-separated field paths, lowerCamelCase (or the proto's snake_case).
    ".google.protobuf.FieldMask": {"type": "string", "pattern": r"^[A-Za-z0-9_.,*]*$"},
}
"""Messages of google.protobuf that the JSON mapping writes as a scalar."""

JSON_MAPPING = """\
## JSON

Messages are JSON as the protobuf JSON mapping has them: fields by their lowerCamelCase
names (the proto's snake_case names are accepted too), 64-bit integers as decimal strings,
enums by value name, timestamps as RFC 3339 strings. Answers print every field without
presence, default values included; an unset optional field or message is left out.
Requests are refused with 400 when a field is unknown.

## Errors

Every answer that is not 2xx has the same body (schema `Error`): the gRPC code, the HTTP
status, a message for people, a stable `reason` and `details`, as the gRPC API's
google.rpc.ErrorInfo carries them.
"""

STREAM = """\
Server-Sent Events: one event for each answer of the stream, its `data` the answer as JSON.
A move's event is `event: move` with `id:` its version; a seat taken before the first move
is `event: join` with `id: 0-<n>`, the n-th seat taken; a seat resigned is `event: resign`,
without an id. Send the last id received as the `Last-Event-ID` header to resume exactly
after it (it takes precedence over `from_version`).
An idle stream gets a `: keep-alive` comment now and then; an error after the stream has
started is an `event: error` with the `Error` body as data, and ends it. The schema is that
of one event, as OpenAPI 3.2 has it.
"""
CURSOR_STREAM = """\
Server-Sent Events: one event for each answer of the stream, its `data` the answer as JSON,
its `id:` the answer's cursor. The first is `event: games` (the live games), then one
`event: player` per event. Send the last id received as the `Last-Event-ID` header to resume
after it, on any worker (it takes precedence over `cursor`). An idle stream gets a
`: keep-alive` comment now and then; an error after the stream has started is an
`event: error` with the `Error` body as data, and ends it. The schema is that of one event,
as OpenAPI 3.2 has it.
"""
EVENT_ID = "0-([0-9]{1,9})|([0-9]{1,18})"
"""An SSE event's id: 0-<n> for the n-th seat taken (all at version 0), or a move's version."""
CURSOR = "[0-9]{1,18}"
"""An SSE event's id on a stream resumed by a cursor."""


def load_descriptors(path: Path = DESCRIPTORS) -> FileDescriptorSet:
    return FileDescriptorSet.FromString(path.read_bytes())


def document(files: FileDescriptorSet) -> dict[str, Any]:
    """The OpenAPI document of the routes, with the schemas and comments of `files`."""
    schemas: dict[str, Any] = {}
    for file in files.file:
        schemas.update(_schemas(file))
    errors = error_schemas(REF + "{name}")
    if hidden := set(errors) & set(schemas):
        raise ValueError(f"messages named {sorted(hidden)} would hide the error schema")
    schemas.update(errors)
    comments = {file.name: _comments(file) for file in files.file}
    texts = {
        service.name: comments[service.file.name].get((FILE_SERVICE, service.index), "")
        for service in SERVICES
    }
    paths: dict[str, dict[str, Any]] = {}
    for route in ROUTES:
        paths.setdefault(route.template, {})[route.verb.lower()] = _operation(
            route, comments[route.method.containing_service.file.name], schemas
        )
    return {
        "openapi": "3.1.0",
        "info": {
            "title": f"{SERVICE.file.package} API",
            "version": SERVICE.file.package.rsplit(".", 1)[-1],
            "description": "\n\n".join([*texts.values(), JSON_MAPPING]),
            "license": {"name": "MIT", "identifier": "MIT"},
        },
        # Relative: the API is served where the document is, whatever the host.
        "servers": [{"url": "/", "description": "the server that serves this document"}],
        "tags": [{"name": name, "description": text} for name, text in texts.items()],
        "paths": paths,
        "components": {
            "schemas": _used(schemas, paths),
            "responses": _error_responses(),
            "securitySchemes": {
                "bearer": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": (
                        "A seat's player token, as JoinGame returned it; or a player's access "
                        "token (PlayerService.CreateSession, or the identity provider's)."
                    ),
                }
            },
        },
    }


def render(doc: dict[str, Any]) -> str:
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


# ---- schemas --------------------------------------------------------------------------


def _comments(file: FileDescriptorProto) -> dict[tuple[int, ...], str]:
    """The comment of each element of the file, by its source_code_info path."""
    found = {}
    for location in file.source_code_info.location:
        text = location.leading_comments or location.trailing_comments
        if text:
            lines = text.strip("\n").split("\n")
            found[tuple(location.path)] = "\n".join(line.removeprefix(" ") for line in lines)
    return found


def _schemas(file: FileDescriptorProto) -> Iterator[tuple[str, dict[str, Any]]]:
    comments = _comments(file)
    prefix = f".{file.package}."

    def walk(
        messages: Sequence[DescriptorProto],
        enums: Sequence[EnumDescriptorProto],
        path: tuple[int, ...],
        numbers: tuple[int, int],
        scope: str,
    ) -> Iterator[tuple[str, dict[str, Any]]]:
        for i, enum in enumerate(enums):
            yield scope + enum.name, _enum(enum, comments, (*path, numbers[1], i))
        for i, message in enumerate(messages):
            where = (*path, numbers[0], i)
            if message.options.map_entry:
                raise ValueError(f"{scope}{message.name}: map fields are not supported")
            yield scope + message.name, _message(message, comments, where, prefix)
            yield from walk(
                message.nested_type,
                message.enum_type,
                where,
                (MESSAGE_NESTED, MESSAGE_ENUM),
                f"{scope}{message.name}.",
            )

    return walk(file.message_type, file.enum_type, (), (FILE_MESSAGE, FILE_ENUM), "")


def _enum(
    enum: EnumDescriptorProto, comments: dict[tuple[int, ...], str], path: tuple[int, ...]
) -> dict[str, Any]:
    lines = [comments.get(path, ""), ""]
    for i, value in enumerate(enum.value):
        text = " ".join(comments.get((*path, ENUM_VALUE, i), "").split())
        lines.append(f"- `{value.name}`: {text}")
    return {
        "description": "\n".join(lines).strip(),
        "type": "string",
        "enum": [value.name for value in enum.value],
    }


def _message(
    message: DescriptorProto,
    comments: dict[tuple[int, ...], str],
    path: tuple[int, ...],
    prefix: str,
) -> dict[str, Any]:
    properties = {}
    for i, field in enumerate(message.field):
        properties[field.json_name] = _field(field, prefix)
        if text := comments.get((*path, MESSAGE_FIELD, i)):
            properties[field.json_name]["description"] = text
    description = comments.get(path, "")
    for k in range(len(message.oneof_decl)):
        members = [
            f"`{field.json_name}`"
            for field in message.field
            if field.HasField("oneof_index")
            and field.oneof_index == k
            and not field.proto3_optional
        ]
        if members:  # a oneof of its own, not the one proto3 makes for an optional field
            description += f"\n\nAt most one of {', '.join(members)} is set."
    schema: dict[str, Any] = {"description": description.strip()} if description else {}
    schema.update(type="object", properties=properties, additionalProperties=False)
    return schema


def _field(field: FieldDescriptorProto, prefix: str) -> dict[str, Any]:
    if field.type in (F.TYPE_MESSAGE, F.TYPE_ENUM):
        if field.type_name in WELL_KNOWN:
            item = dict(WELL_KNOWN[field.type_name])
        elif field.type_name.startswith(prefix):
            item = {"$ref": REF + field.type_name.removeprefix(prefix)}
        else:
            raise ValueError(f"no JSON schema for {field.type_name}")
    else:
        item = dict(SCALARS[field.type])
    if field.label == F.LABEL_REPEATED:
        return {"type": "array", "items": item}
    return item


def _used(schemas: dict[str, Any], paths: dict[str, Any]) -> dict[str, Any]:
    """The schemas that the paths refer to, directly or through other schemas (a request
    whose fields all go in the path or query has no schema of its own), and Error."""
    found: set[str] = set()
    pending = [paths, schemas[ERROR]]
    while pending:
        text = json.dumps(pending.pop())
        for name in re.findall(f'"{re.escape(REF)}([^"]+)"', text):
            if name not in found:
                found.add(name)
                pending.append(schemas[name])
    return {name: schema for name, schema in schemas.items() if name in found | {ERROR}}


# ---- operations -----------------------------------------------------------------------


def _operation(
    route: Route, comments: dict[tuple[int, ...], str], schemas: dict[str, Any]
) -> dict[str, Any]:
    method = route.method
    service = method.containing_service
    text = comments.get((FILE_SERVICE, service.index, SERVICE_METHOD, method.index), method.name)
    request = schemas[_name(method.input_type)]
    parameters = [
        _parameter(field.name, "path", request["properties"][field.json_name], minLength=1)
        for field in route.path_fields
    ]
    parameters += [
        _parameter(field.name, "query", request["properties"][field.json_name])
        for field in route.query_fields
    ]
    if method.server_streaming:
        by_cursor = "cursor" in method.input_type.fields_by_name
        event_id = CURSOR if by_cursor else EVENT_ID
        parameters.append(
            {
                "name": "Last-Event-ID",
                "in": "header",
                "required": False,
                "description": "The id of the last event received, to resume after it.",
                "schema": {"type": "string", "pattern": f"^({event_id})$"},
            }
        )
        names = ["games", "player"] if by_cursor else ["join", "move", "resign"]
        events = {"schema": _event_schema(_name(method.output_type), names, event_id)}
        description = CURSOR_STREAM if by_cursor else STREAM
        ok = {"description": description, "content": {"text/event-stream": events}}
    else:
        answer = _name(method.output_type)
        ok = {
            "description": schemas[answer].get("description", "OK"),
            "content": {"application/json": {"schema": {"$ref": REF + answer}}},
        }
    flat = " ".join(text.split())
    summary = re.split(r"(?<=\.)\s", flat, maxsplit=1)[0]
    operation: dict[str, Any] = {"operationId": method.name, "tags": [service.name]}
    operation["summary"] = summary
    if summary != flat:  # the whole comment, when there is more than its first sentence
        operation["description"] = text
    operation["parameters"] = parameters
    if route.body:
        operation["requestBody"] = {
            "required": True,
            "content": {"application/json": {"schema": _body(route, request)}},
        }
    operation["responses"] = {"200": ok} | {
        name.removeprefix(ERROR): {"$ref": RESPONSES + name} for name in _error_responses()
    }
    # A token is optional to the document: which calls need one is the service's business.
    operation["security"] = [{}, {"bearer": []}]
    return operation


def _event_schema(answer: str, names: list[str], event_id: str) -> dict[str, Any]:
    """One event of a stream: its fields, and its data (JSON) by schema."""

    def data(schema: str) -> dict[str, Any]:
        return {
            "type": "string",
            "contentMediaType": "application/json",
            "contentSchema": {"$ref": REF + schema},
        }

    answered = {
        "type": "object",
        "required": ["event", "data"],
        "properties": {
            "id": {"type": "string", "pattern": f"^({event_id})$"},
            "event": {"enum": names},
            "data": data(answer),
        },
    }
    failed = {
        "type": "object",
        "required": ["event", "data"],
        "properties": {"event": {"const": "error"}, "data": data(ERROR)},
    }
    return {"oneOf": [answered, failed]}


def _name(message: Descriptor) -> str:
    """A message's schema name: its name within the package, as `_schemas` gives it."""
    return message.full_name.removeprefix(f"{message.file.package}.")


def _parameter(name: str, where: str, field: dict[str, Any], **extra: Any) -> dict[str, Any]:
    schema = {k: v for k, v in field.items() if k != "description"} | extra
    parameter = {"name": name, "in": where, "required": where == "path"}
    if "description" in field:
        parameter["description"] = field["description"]
    return parameter | {"schema": schema}


def _body(route: Route, request: dict[str, Any]) -> dict[str, Any]:
    """The request message, less the fields the path gives."""
    if not route.path_fields:
        return {"$ref": REF + _name(route.method.input_type)}
    in_path = {field.json_name for field in route.path_fields}
    properties = {k: v for k, v in request["properties"].items() if k not in in_path}
    return request | {"properties": properties}


def _error_responses() -> dict[str, Any]:
    """The error answers by HTTP status, each described by the gRPC codes it stands for."""
    codes: dict[int, list[str]] = {}
    for code in Code:
        codes.setdefault(code.http, []).append(code.grpc.name)
    return {
        f"{ERROR}{status}": {
            "description": ", ".join(names),
            "content": {"application/json": {"schema": {"$ref": REF + ERROR}}},
        }
        for status, names in sorted(codes.items())
    }


def main(argv: Sequence[str]) -> int:
    Path(argv[0]).write_text(render(document(load_descriptors())))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
