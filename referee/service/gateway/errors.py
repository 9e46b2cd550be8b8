"""gRPC errors as the Connect protocol writes them over HTTP: a JSON body
``{"code", "message", "details"}`` and the HTTP status the protocol gives each code
(https://connectrpc.com/docs/protocol#error-codes). Each detail keeps its type, its bytes
(base64) and, for the types we send (``google.rpc.ErrorInfo``, ``BadRequest``, ``RetryInfo``),
its JSON form under ``debug``."""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping, Sequence
from typing import Any

import grpc
from google.protobuf import descriptor_pool, json_format, message_factory
from google.rpc import error_details_pb2, status_pb2  # noqa: F401  (registers the detail types)

#: gRPC code -> (Connect code, HTTP status)
CODES: Mapping[grpc.StatusCode, tuple[str, int]] = {
    grpc.StatusCode.CANCELLED: ("canceled", 499),
    grpc.StatusCode.UNKNOWN: ("unknown", 500),
    grpc.StatusCode.INVALID_ARGUMENT: ("invalid_argument", 400),
    grpc.StatusCode.DEADLINE_EXCEEDED: ("deadline_exceeded", 504),
    grpc.StatusCode.NOT_FOUND: ("not_found", 404),
    grpc.StatusCode.ALREADY_EXISTS: ("already_exists", 409),
    grpc.StatusCode.PERMISSION_DENIED: ("permission_denied", 403),
    grpc.StatusCode.RESOURCE_EXHAUSTED: ("resource_exhausted", 429),
    grpc.StatusCode.FAILED_PRECONDITION: ("failed_precondition", 400),
    grpc.StatusCode.ABORTED: ("aborted", 409),
    grpc.StatusCode.OUT_OF_RANGE: ("out_of_range", 400),
    grpc.StatusCode.UNIMPLEMENTED: ("unimplemented", 501),
    grpc.StatusCode.INTERNAL: ("internal", 500),
    grpc.StatusCode.UNAVAILABLE: ("unavailable", 503),
    grpc.StatusCode.DATA_LOSS: ("data_loss", 500),
    grpc.StatusCode.UNAUTHENTICATED: ("unauthenticated", 401),
}
_DETAILS_KEY = "grpc-status-details-bin"


def connect_error(code: grpc.StatusCode, message: str,
                  trailing: Sequence[tuple[str, str | bytes]] = ()) -> tuple[int, dict[str, Any]]:
    """The HTTP status and the Connect error body of a gRPC status with its trailers."""
    name, status = CODES.get(code, ("unknown", 500))
    body: dict[str, Any] = {"code": name, "message": message}
    details = [_detail(any_) for any_ in _status_details(trailing)]
    if details:
        body["details"] = details
    return status, body


def retry_after(body: Mapping[str, Any]) -> str | None:
    """Whole seconds to wait, from a ``google.rpc.RetryInfo`` detail (for ``Retry-After``)."""
    for detail in body.get("details", ()):
        delay = detail.get("debug", {}).get("retryDelay") if detail["type"].endswith(
            "RetryInfo") else None
        if isinstance(delay, str) and delay.endswith("s"):
            return str(max(1, round(float(delay[:-1]))))
    return None


def error_json(status_body: Mapping[str, Any]) -> bytes:
    return json.dumps(status_body, separators=(",", ":")).encode()


def _status_details(trailing: Sequence[tuple[str, str | bytes]]) -> list[Any]:
    for key, value in trailing:
        if key == _DETAILS_KEY and isinstance(value, bytes):
            status = status_pb2.Status()
            status.ParseFromString(value)
            return list(status.details)
    return []


def _detail(any_: Any) -> dict[str, Any]:
    type_name = any_.type_url.rsplit("/", 1)[-1]
    out: dict[str, Any] = {
        "type": type_name,
        "value": base64.b64encode(any_.value).decode().rstrip("="),
    }
    try:
        descriptor = descriptor_pool.Default().FindMessageTypeByName(type_name)
    except KeyError:  # a type this process does not know: its bytes only
        return out
    message = message_factory.GetMessageClass(descriptor)()
    message.ParseFromString(any_.value)
    out["debug"] = json_format.MessageToDict(message)
    return out
