"""Request bytes that do not decode: INVALID_ARGUMENT (``MALFORMED_REQUEST``), not UNKNOWN.

``grpc.aio`` runs a method's request deserializer itself, before any handler code: a
``DecodeError`` there (corrupt wire format, a string field that is not UTF-8) ended the call
UNKNOWN, with no ``ErrorInfo``, and logged a traceback per request (a fuzz run logged 15,054 of
them). :class:`DecodeErrorInterceptor` wraps each handler's deserializer so that it returns an
:class:`Undecodable` marker instead of raising, and the handler's behaviour ends the call
through the error table when it gets one (one debug line, no traceback). Every service on the
port goes through it, health and reflection included.

Only async behaviours are guarded (every handler of this server is async); a stream-request
handler is guarded through its request iterator, not ``context.read()``.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any

import grpc
from google.protobuf.message import DecodeError

from referee.domain.errors import MalformedRequestError
from referee.service.errors import abort
from referee.service.interception import HandlerRewriter

log = logging.getLogger("referee.service")

Behaviour = Callable[[Any, grpc.aio.ServicerContext], Any]


class Undecodable:
    """What a guarded deserializer returns for bytes that do not decode."""

    __slots__ = ("error",)

    def __init__(self, error: MalformedRequestError) -> None:
        self.error = error


def _deserializer(method: str, deserialize: Callable[[bytes], Any]) -> Callable[[bytes], Any]:
    owner = getattr(deserialize, "__self__", None)
    descriptor = getattr(owner, "DESCRIPTOR", None)
    type_name = str(getattr(descriptor, "full_name", "the request message"))

    def guarded(data: bytes) -> Any:
        try:
            return deserialize(data)
        except DecodeError as exc:
            log.debug("%s: undecodable request (%s)", method, exc)
            cause = str(exc).rsplit("': ", 1)[-1]  # upb: "Error parsing message with type ..."
            return Undecodable(MalformedRequestError(
                f"the request does not decode as {type_name}: {cause}",
                method=method, messageType=type_name, error=cause,
            ))

    return guarded


async def _checked(requests: AsyncIterator[Any], context: grpc.aio.ServicerContext
                   ) -> AsyncIterator[Any]:
    async for request in requests:
        if isinstance(request, Undecodable):
            await abort(context, request.error)
        yield request


def _unary_request(behaviour: Behaviour) -> Behaviour | None:
    """``behaviour`` (unary request) refusing an :class:`Undecodable` request."""
    if inspect.isasyncgenfunction(behaviour):
        async def stream(request: Any, context: grpc.aio.ServicerContext
                         ) -> AsyncIterator[Any]:
            if isinstance(request, Undecodable):
                await abort(context, request.error)
            async for item in behaviour(request, context):
                yield item

        return stream
    if inspect.iscoroutinefunction(behaviour):
        async def call(request: Any, context: grpc.aio.ServicerContext) -> Any:
            if isinstance(request, Undecodable):
                await abort(context, request.error)
            return await behaviour(request, context)

        return call
    return None


def _stream_request(behaviour: Behaviour) -> Behaviour | None:
    """``behaviour`` (request stream) refusing the first :class:`Undecodable` request."""
    if inspect.isasyncgenfunction(behaviour):
        async def stream(requests: AsyncIterator[Any], context: grpc.aio.ServicerContext
                         ) -> AsyncIterator[Any]:
            async for item in behaviour(_checked(requests, context), context):
                yield item

        return stream
    if inspect.iscoroutinefunction(behaviour):
        async def call(requests: AsyncIterator[Any], context: grpc.aio.ServicerContext) -> Any:
            return await behaviour(_checked(requests, context), context)

        return call
    return None


_KINDS: tuple[tuple[str, Callable[..., Any], Callable[[Behaviour], Behaviour | None]], ...] = (
    ("unary_unary", grpc.unary_unary_rpc_method_handler, _unary_request),
    ("unary_stream", grpc.unary_stream_rpc_method_handler, _unary_request),
    ("stream_unary", grpc.stream_unary_rpc_method_handler, _stream_request),
    ("stream_stream", grpc.stream_stream_rpc_method_handler, _stream_request),
)


def guard(method: str, handler: grpc.RpcMethodHandler) -> grpc.RpcMethodHandler:
    """``handler`` with its deserializer and behaviour guarded (unchanged when it has no
    deserializer or a blocking behaviour)."""
    if handler.request_deserializer is None:
        return handler
    for kind, make, wrap in _KINDS:
        behaviour = getattr(handler, kind)
        if behaviour is None:
            continue
        guarded = wrap(behaviour)
        if guarded is None:
            return handler
        return make(guarded,
                    request_deserializer=_deserializer(method, handler.request_deserializer),
                    response_serializer=handler.response_serializer)
    return handler


class DecodeErrorInterceptor(HandlerRewriter):
    """Guards every method's handler (see the module docstring). Install it last
    (innermost), so that other interceptors see the refusal as any other."""

    def rewrite(self, method: str, handler: Any) -> Any:
        return guard(method, handler)
