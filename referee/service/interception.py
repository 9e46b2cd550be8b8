"""The one scaffold of the interceptors that hand the server other handlers: each method's
handler is rewritten once and reused while the server hands out the same one
(:class:`HandlerRewriter`: the store gate, the decode guard), and :class:`CallInterceptor`
wraps every call of the referee's services (metrics, the access log, traces); health and
reflection pass through it."""

from __future__ import annotations

import contextlib
import functools
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc

Unary = Callable[[Any, Any], Awaitable[Any]]
Stream = Callable[[Any, Any], AsyncIterator[Any]]
NOT_OURS = ("/grpc.health.", "/grpc.reflection.")


class HandlerRewriter(grpc.aio.ServerInterceptor):  # type: ignore[misc]
    """An interceptor that hands the server another handler for a method: :meth:`rewrite`
    runs once per method, and its result is reused while the server hands out the same
    handler for it (an unknown method stays unknown: UNIMPLEMENTED)."""

    def __init__(self) -> None:
        self._rewritten: dict[str, tuple[Any, Any]] = {}

    async def intercept_service(
        self, continuation: Callable[[Any], Awaitable[Any]], details: grpc.HandlerCallDetails
    ) -> Any:
        return self.rewritten(details.method, await continuation(details))

    def rewritten(self, method: str, handler: Any) -> Any:
        if handler is None:
            return None
        cached = self._rewritten.get(method)
        if cached is not None and cached[0] is handler:
            return cached[1]
        new = self.rewrite(method, handler)
        self._rewritten[method] = (handler, new)
        return new

    def rewrite(self, method: str, handler: Any) -> Any:
        raise NotImplementedError


def rebuilt(handler: Any, unary: Callable[[Unary], Unary],
            stream: Callable[[Stream], Stream]) -> Any:
    """A handler of the same kind and serializers as ``handler`` whose behaviour is
    ``unary(old)`` or ``stream(old)`` (the API has no client-streaming methods)."""
    if handler.unary_unary is not None:
        return grpc.unary_unary_rpc_method_handler(
            unary(handler.unary_unary), request_deserializer=handler.request_deserializer,
            response_serializer=handler.response_serializer)
    if handler.unary_stream is not None:
        return grpc.unary_stream_rpc_method_handler(
            stream(handler.unary_stream), request_deserializer=handler.request_deserializer,
            response_serializer=handler.response_serializer)
    return handler


class CallInterceptor(HandlerRewriter):
    """Subclasses say what to do around each call: :meth:`prepare` (once per method;
    ``method`` is the full name, ``/package.Service/Method``), :meth:`begin`, :meth:`active`,
    :meth:`message_sent` and :meth:`end`."""

    def rewrite(self, method: str, handler: Any) -> Any:
        if method.startswith(NOT_OURS):
            return handler
        return rebuilt(handler, functools.partial(self.wrap_unary, method),
                       functools.partial(self.wrap_stream, method))

    # -- what a subclass says ---------------------------------------------------------------
    def prepare(self, method: str, kind: str) -> Any:
        """Per-method state, made once (``kind``: ``unary`` or ``server_stream``)."""
        return method

    def begin(self, prepared: Any, request: Any, context: grpc.aio.ServicerContext) -> Any:
        """At the start of a call: the call's state."""
        return prepared

    def active(self, call: Any) -> contextlib.AbstractContextManager[Any]:
        """A context the unary behaviour runs in (e.g. the call's trace span)."""
        return contextlib.nullcontext()

    def message_sent(self, call: Any) -> None:
        """After each response message."""

    def end(self, call: Any, context: grpc.aio.ServicerContext,
            error: BaseException | None) -> None:
        """At the end of the call, however it ended (``error``: what the behaviour raised)."""

    # -- the wrappers ------------------------------------------------------------------------
    def wrap_unary(self, method: str, behavior: Unary) -> Unary:
        prepared = self.prepare(method, "unary")

        async def unary(request: Any, context: grpc.aio.ServicerContext) -> Any:
            call = self.begin(prepared, request, context)
            error: BaseException | None = None
            try:
                with self.active(call):
                    response = await behavior(request, context)
                self.message_sent(call)
                return response
            except BaseException as exc:
                error = exc
                raise
            finally:
                self.end(call, context, error)

        return unary

    def wrap_stream(self, method: str, behavior: Stream) -> Stream:
        prepared = self.prepare(method, "server_stream")

        async def stream(request: Any, context: grpc.aio.ServicerContext) -> AsyncIterator[Any]:
            call = self.begin(prepared, request, context)
            error: BaseException | None = None
            try:
                async for item in behavior(request, context):
                    self.message_sent(call)
                    yield item
            except BaseException as exc:
                error = exc
                raise
            finally:
                self.end(call, context, error)

        return stream
