"""An OpenAPI 3.1 document of the HTTP gateway, generated from the proto descriptors: one
path per RPC, one schema per message in protobuf's JSON mapping (lowerCamelCase names, 64-bit
integers as strings, enums by name, well-known types as their JSON forms).
``python -m referee.service.gateway.openapi`` prints it (``docs/openapi.json`` is that output)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor

from referee import __version__
from referee.service.gateway.methods import public_methods

_F = FieldDescriptor
_SCALARS: dict[int, dict[str, Any]] = {
    **{t: {"type": "integer", "format": "int32"} for t in (
        _F.TYPE_INT32, _F.TYPE_SINT32, _F.TYPE_SFIXED32)},
    **{t: {"type": "integer", "format": "uint32", "minimum": 0} for t in (
        _F.TYPE_UINT32, _F.TYPE_FIXED32)},
    **{t: {"type": "string", "format": "int64"} for t in (
        _F.TYPE_INT64, _F.TYPE_SINT64, _F.TYPE_SFIXED64, _F.TYPE_UINT64, _F.TYPE_FIXED64)},
    _F.TYPE_DOUBLE: {"type": "number"},
    _F.TYPE_FLOAT: {"type": "number"},
    _F.TYPE_BOOL: {"type": "boolean"},
    _F.TYPE_STRING: {"type": "string"},
    _F.TYPE_BYTES: {"type": "string", "contentEncoding": "base64"},
}
#: The well-known types' JSON forms (https://protobuf.dev/programming-guides/json/).
_WELL_KNOWN: dict[str, dict[str, Any]] = {
    "google.protobuf.Timestamp": {"type": "string", "format": "date-time"},
    "google.protobuf.Duration": {"type": "string", "pattern": "^-?[0-9]+(\\.[0-9]+)?s$"},
    "google.protobuf.Struct": {"type": "object"},
    "google.protobuf.Value": {},
    "google.protobuf.ListValue": {"type": "array"},
    "google.protobuf.Empty": {"type": "object"},
    "google.protobuf.Any": {"type": "object", "properties": {"@type": {"type": "string"}}},
    "google.protobuf.FieldMask": {"type": "string"},
    **{f"google.protobuf.{w}Value": {"type": t} for w, t in (
        ("Bool", "boolean"), ("String", "string"), ("Bytes", "string"), ("Double", "number"),
        ("Float", "number"), ("Int32", "integer"), ("UInt32", "integer"), ("Int64", "string"),
        ("UInt64", "string"))},
}
_ERROR = {
    "description": "A Connect error: the gRPC status code by name, a message, and the "
                   "google.rpc details (ErrorInfo with the referee's reason, BadRequest, "
                   "RetryInfo).",
    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
}


def openapi_document() -> dict[str, Any]:
    """The whole document (deterministic: the same proto gives the same bytes)."""
    paths: dict[str, Any] = {}
    messages: dict[str, Descriptor] = {}
    enums: dict[str, EnumDescriptor] = {}
    for method in public_methods().values():
        d = method.descriptor
        for m in (d.input_type, d.output_type):
            for found in _reachable(m):
                messages.setdefault(found.full_name, found)
        request, response = _ref(d.input_type), _ref(d.output_type)
        service = d.containing_service.name
        if method.streaming:
            paths[method.path] = {"get": {
                "operationId": f"{service}.{d.name}", "tags": [service],
                "summary": f"{d.name} as Server-Sent Events",
                "parameters": [{"name": "message", "in": "query", "required": False,
                                "description": f"The {d.input_type.name} as JSON.",
                                "content": {"application/json": {"schema": request}}}],
                "responses": {"200": {
                    "description": f"A stream of events; each `data:` is a {d.output_type.name}"
                                   " (the `id:` its version); an `end` or `error` event ends it.",
                    "content": {"text/event-stream": {"schema": {"type": "string"},
                                                      "x-item-schema": response}}},
                    "default": _ERROR}}}
        else:
            paths[method.path] = {"post": {
                "operationId": f"{service}.{d.name}", "tags": [service],
                "requestBody": {"required": True,
                                "content": {"application/json": {"schema": request}}},
                "responses": {"200": {"description": d.output_type.name,
                                      "content": {"application/json": {"schema": response}}},
                              "default": _ERROR}}}
    schemas: dict[str, Any] = {"Error": _error_schema()}
    for name in sorted(messages):
        schemas[name] = _message_schema(messages[name], enums)
    for name in sorted(enums):
        schemas[name] = {"type": "string", "enum": [v.name for v in enums[name].values]}
    return {
        "openapi": "3.1.0",
        "info": {"title": "Trick Referee", "version": __version__,
                 "description": "The referee's gRPC API as JSON over HTTP (the Connect "
                                "protocol's unary form; server streams as Server-Sent Events). "
                                "Credentials: `Authorization: Bearer <token>`."},
        "paths": dict(sorted(paths.items())),
        "components": {
            "schemas": schemas,
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
        "security": [{}, {"bearer": []}],
    }


def _reachable(message: Descriptor) -> Iterator[Descriptor]:
    seen: set[str] = set()
    todo = [message]
    while todo:
        m = todo.pop()
        if m.full_name in seen or m.full_name in _WELL_KNOWN:
            continue
        seen.add(m.full_name)
        if not m.GetOptions().map_entry:
            yield m
        todo.extend(f.message_type for f in m.fields if f.message_type is not None)


def _ref(message: Descriptor) -> dict[str, Any]:
    if message.full_name in _WELL_KNOWN:
        return dict(_WELL_KNOWN[message.full_name])
    return {"$ref": f"#/components/schemas/{message.full_name}"}


def _message_schema(message: Descriptor, enums: dict[str, EnumDescriptor]) -> dict[str, Any]:
    return {"type": "object", "properties": {
        f.json_name: _field_schema(f, enums) for f in message.fields}}


def _field_schema(field: FieldDescriptor, enums: dict[str, EnumDescriptor]) -> dict[str, Any]:
    if field.message_type is not None and field.message_type.GetOptions().map_entry:
        value = field.message_type.fields_by_name["value"]
        return {"type": "object", "additionalProperties": _single(value, enums)}
    one = _single(field, enums)
    if field.is_repeated:
        return {"type": "array", "items": one}
    return one


def _single(field: FieldDescriptor, enums: dict[str, EnumDescriptor]) -> dict[str, Any]:
    if field.message_type is not None:
        return _ref(field.message_type)
    if field.enum_type is not None:
        enums.setdefault(field.enum_type.full_name, field.enum_type)
        return {"$ref": f"#/components/schemas/{field.enum_type.full_name}"}
    return dict(_SCALARS[field.type])


def _error_schema() -> dict[str, Any]:
    return {"type": "object", "required": ["code"], "properties": {
        "code": {"type": "string", "enum": sorted({
            "canceled", "unknown", "invalid_argument", "deadline_exceeded", "not_found",
            "already_exists", "permission_denied", "resource_exhausted",
            "failed_precondition", "aborted", "out_of_range", "unimplemented", "internal",
            "unavailable", "data_loss", "unauthenticated"})},
        "message": {"type": "string"},
        "details": {"type": "array", "items": {"type": "object", "properties": {
            "type": {"type": "string"}, "value": {"type": "string"},
            "debug": {"type": "object"}}}},
    }}


if __name__ == "__main__":
    print(json.dumps(openapi_document(), indent=1))
