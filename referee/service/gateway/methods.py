"""The public API's methods as the HTTP gateway serves them, found from the proto
descriptors: every RPC of every public service, none routed by hand."""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil
from collections.abc import Mapping

from google.protobuf import message_factory
from google.protobuf.descriptor import MethodDescriptor, ServiceDescriptor
from google.protobuf.message import Message

from referee.api import v1


@dataclasses.dataclass(frozen=True)
class Method:
    """One RPC: its gRPC path (``/referee.api.v1.RefereeService/GetView``, also its HTTP
    path), its message classes, and whether the server streams its answers."""

    path: str
    request: type[Message]
    response: type[Message]
    streaming: bool
    descriptor: MethodDescriptor


def services() -> tuple[ServiceDescriptor, ...]:
    """The public services: every service of every file of ``referee.api.v1`` (a service
    added to the proto is served over HTTP with nothing else to do)."""
    files = [importlib.import_module(f"{v1.__name__}.{m.name}").DESCRIPTOR
             for m in sorted(pkgutil.iter_modules(v1.__path__), key=lambda m: m.name)
             if m.name.endswith("_pb2")]
    return tuple(s for f in files for s in f.services_by_name.values())


def public_methods() -> Mapping[str, Method]:
    """Every RPC of :func:`services` by its path. No public RPC streams requests."""
    found: dict[str, Method] = {}
    for service in services():
        for m in service.methods:
            assert not m.client_streaming, m.full_name
            path = f"/{service.full_name}/{m.name}"
            found[path] = Method(
                path, message_factory.GetMessageClass(m.input_type),
                message_factory.GetMessageClass(m.output_type), m.server_streaming, m,
            )
    return found
