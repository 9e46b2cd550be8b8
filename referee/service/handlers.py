"""How every servicer method of the port is run: the decorators that admit a request (field
limits, the peer's anonymous budget), run it on the event loop or the executor, and end the
call through the one error table.

``grpc.aio`` is the server: a coroutine or async generator runs on the event loop; a plain
(blocking) function or generator on the loop's executor.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import inspect
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any, TypeVar

import grpc
from google.protobuf import descriptor_pb2

from referee.api.v1 import referee_pb2 as pb
from referee.service.credentials_metadata import caller_token
from referee.service.peers import PeerLimits, peer_of
from referee.service.request_limits import check_request

F = TypeVar("F", bound=Callable[..., Any])


def admit(servicer: Any, request: Any, context: grpc.aio.ServicerContext) -> None:
    """Before any handler: every field within its size limit, and a call without a token
    drawn from its peer's anonymous budget (``servicer.peers``, when it has one).

    :raises LimitExceededError, RateLimitedError:"""
    check_request(request)
    peers: PeerLimits | None = getattr(servicer, "peers", None)
    if peers is None or not _names_a_caller(request.DESCRIPTOR):
        return
    if isinstance(request, pb.CreateMatchRequest):  # any token but a credential is none
        anonymous = not servicer.app.tokens.is_organiser(caller_token())
    else:
        anonymous = not caller_token()
    if anonymous:
        peers.anonymous_call(peer_of(context))


@functools.cache
def _names_a_caller(message: Any) -> bool:
    """Whether requests of this type name a caller (their token field, now reserved, went to
    the ``authorization`` metadata): those without a credential count as anonymous."""
    proto = descriptor_pb2.DescriptorProto()
    message.CopyToProto(proto)
    return "token" in proto.reserved_name


@contextlib.contextmanager
def stream_place(servicer: Any, context: grpc.aio.ServicerContext) -> Iterator[None]:
    """One of the peer's stream places, held while the stream is open."""
    peers: PeerLimits | None = getattr(servicer, "peers", None)
    with peers.stream(peer_of(context)) if peers is not None else contextlib.nullcontext():
        yield


def unary_handler(method: F) -> F:
    """A unary handler for the ``grpc.aio`` server: a coroutine runs on the event loop, a
    plain (blocking) function on the loop's executor; exceptions go through the error table
    (the access log, ``referee.service.logs``, has one line per call)."""
    from referee.service.errors import abort

    async def blocking(self: Any, request: Any, context: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(  # with the call's credential
            None, contextvars.copy_context().run, method, self, request, context
        )

    call = method if inspect.iscoroutinefunction(method) else blocking

    @functools.wraps(method)
    async def unary(self: Any, request: Any, context: grpc.aio.ServicerContext) -> Any:
        try:
            admit(self, request, context)
            return await call(self, request, context)
        except Exception as exc:
            await abort(context, exc)

    return unary  # type: ignore[return-value]


class Stopping:
    """The server's stop, as its handlers see it: call it (``stopping()``, any thread) for
    whether the server is stopping; ``await wait()`` on the server's loop. :meth:`set` runs on
    that loop (``RefereeServer.stop``)."""

    def __init__(self) -> None:
        self._flag = threading.Event()
        self._event: asyncio.Event | None = None

    def __call__(self) -> bool:
        return self._flag.is_set()

    def _loop_event(self) -> asyncio.Event:
        if self._event is None:
            self._event = asyncio.Event()
            if self._flag.is_set():
                self._event.set()
        return self._event

    def set(self) -> None:
        self._flag.set()
        self._loop_event().set()

    async def wait(self) -> None:
        await self._loop_event().wait()


class StreamContext:
    """What a blocking stream body may ask of its call from a worker thread: whether the
    call is still on (the client has not gone, the server is not stopping)."""

    def __init__(self, ended: threading.Event) -> None:
        self._ended = ended

    def is_active(self) -> bool:
        return not self._ended.is_set()


_END = object()


class Encoded:
    """A response message encoded once and sent as is by many streams (the watchers of one
    audience, ``referee.application.fanout``); ``version``: the match version it brings."""

    __slots__ = ("data", "version")

    def __init__(self, data: bytes, version: int) -> None:
        self.data, self.version = data, version


def _serializer(serialize: Callable[[Any], bytes]) -> Callable[[Any], bytes]:
    def serialized(item: Any) -> bytes:
        return item.data if type(item) is Encoded else serialize(item)

    return serialized


class _Capture:
    """A stand-in server that keeps what a generated ``add_*_to_server`` registers."""

    def __init__(self) -> None:
        self.service = ""
        self.handlers: dict[str, Any] = {}

    def add_generic_rpc_handlers(self, handlers: Any) -> None:
        pass

    def add_registered_method_handlers(self, service: str, handlers: dict[str, Any]) -> None:
        self.service, self.handlers = service, dict(handlers)


def add_servicer(add: Callable[[Any, Any], None], servicer: Any, server: Any,
                 shared: tuple[str, ...] = ()) -> None:
    """``add(servicer, server)`` (a generated ``add_*_to_server``), the streaming methods
    named in ``shared`` also sending :class:`Encoded` messages as they are."""
    captured = _Capture()
    add(servicer, captured)
    for name in shared:
        old = captured.handlers[name]
        captured.handlers[name] = grpc.unary_stream_rpc_method_handler(
            old.unary_stream, request_deserializer=old.request_deserializer,
            response_serializer=_serializer(old.response_serializer))
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler(captured.service, captured.handlers),))
    server.add_registered_method_handlers(captured.service, captured.handlers)


def stream_handler(method: F) -> F:
    """A server-streaming handler for the ``grpc.aio`` server, exceptions going through the
    error table. An async generator runs on the loop. A blocking generator gets each item
    produced on the loop's executor (its waits hold a thread) and a :class:`StreamContext`.

    A stream never ends OK because the server stops: once the servicer's ``stopping()`` is
    true, the stream ends UNAVAILABLE / ``SERVER_STOPPING`` ("server shutting down; resume
    from version N", N the last version sent, or the request's ``after_version``), so that a
    client cannot take a shutdown for the end of its match; it resumes from N."""
    from referee.service.errors import abort

    @functools.wraps(method)
    async def native(self: Any, request: Any, context: grpc.aio.ServicerContext
                     ) -> AsyncIterator[Any]:
        sent = _Sent(request)
        try:
            admit(self, request, context)
            items = method(self, request, context)
            if not getattr(method, "ends_on_stop", False):
                items = _until_stopped(self, items)
            with stream_place(self, context):
                async for item in items:
                    sent.note(item)
                    yield item
            if _stopping(self):  # ended by the shutdown, not by its subject: retryable
                raise sent.stopping()
        except Exception as exc:
            await abort(context, _stopped(self, sent, exc))

    @functools.wraps(method)
    async def blocking(self: Any, request: Any, context: grpc.aio.ServicerContext
                       ) -> AsyncIterator[Any]:
        loop = asyncio.get_running_loop()
        ended = threading.Event()
        context.add_done_callback(lambda _: ended.set())
        items = method(self, request, StreamContext(ended))
        call = contextvars.copy_context()  # the call's credential, in the executor's threads
        pending: asyncio.Future[Any] | None = None
        place = contextlib.ExitStack()
        sent = _Sent(request)
        try:
            admit(self, request, context)
            place.enter_context(stream_place(self, context))
            while True:
                if _stopping(self):  # the shutdown ends it: retryable
                    raise sent.stopping()
                pending = loop.run_in_executor(None, functools.partial(call.run, next, items, _END))
                item = await pending
                if item is _END:
                    return
                sent.note(item)
                yield item
        except Exception as exc:
            await abort(context, _stopped(self, sent, exc))
        finally:
            place.close()
            ended.set()
            _close_after(pending, items, loop)

    return (native if inspect.isasyncgenfunction(method) else blocking)  # type: ignore[return-value]


def ends_on_stop(method: F) -> F:
    """Mark an async streaming method that ends by itself once the server stops (it looks
    at ``stopping()`` after every wake, and the stop wakes it), so that
    :func:`stream_handler` need not race each of its steps against the stop (a task per
    message)."""
    method.ends_on_stop = True  # type: ignore[attr-defined]
    return method


async def _until_stopped(servicer: Any, items: AsyncIterator[Any]) -> AsyncIterator[Any]:
    """``items`` until they end or the server stops, whichever is first: a body waiting for
    a change that no wake reaches (one that began to wait after the stop's wake) is not left
    to the end of the grace period."""
    stop: Stopping | None = getattr(servicer, "stopping", None)
    if not isinstance(stop, Stopping):
        async for item in items:
            yield item
        return
    stopped = asyncio.ensure_future(stop.wait())
    step: asyncio.Future[Any] | None = None
    try:
        while not stop():
            step = asyncio.ensure_future(anext(items))
            await asyncio.wait((step, stopped), return_when=asyncio.FIRST_COMPLETED)
            if not step.done():
                return  # the stop came first (the step is cancelled below)
            try:
                item = step.result()
            except StopAsyncIteration:
                return
            yield item
    finally:
        stopped.cancel()
        if step is not None and not step.done():  # the stop, or the call cancelled
            step.cancel()
            await asyncio.wait((step,))  # its cancel is ours; a cancel of this call is not
            if not step.cancelled():
                step.exception()  # retrieved: the stop decides how the stream ends
        aclose = getattr(items, "aclose", None)
        if aclose is not None:
            with contextlib.suppress(Exception):
                await aclose()


def _stopping(servicer: Any) -> bool:
    stopping: Callable[[], bool] | None = getattr(servicer, "stopping", None)
    return stopping is not None and stopping()


class _Sent:
    """Where a stream is: the last ``version`` it sent (from the request's ``after_version``
    on), or, for a stream of unversioned items, how many it sent."""

    def __init__(self, request: Any) -> None:
        self.versioned = "after_version" in request.DESCRIPTOR.fields_by_name
        self.position = int(request.after_version) if self.versioned else 0

    def note(self, item: Any) -> None:
        if type(item) is Encoded:
            self.position = max(self.position, item.version)
        elif not self.versioned:
            self.position += 1
        elif "version" in item.DESCRIPTOR.fields_by_name:
            self.position = max(self.position, int(item.version))

    def stopping(self) -> Exception:
        from referee.service.errors import ServerStoppingError

        return ServerStoppingError(self.position, "version" if self.versioned else "item")


def _stopped(servicer: Any, sent: _Sent, exc: Exception) -> Exception:
    """A failure caused by the shutdown (a store closed under the stream) is the shutdown's
    retryable end; any other, the error it is."""
    from referee.domain.errors import RefereeError

    if _stopping(servicer) and not isinstance(exc, RefereeError):
        return sent.stopping()
    return exc


def _close_after(pending: asyncio.Future[Any] | None, items: Iterator[Any],
                 loop: asyncio.AbstractEventLoop) -> None:
    """Close a blocking generator on the executor once its running step (if any) is over
    (a generator cannot be closed while another thread runs it)."""
    close = getattr(items, "close", None)
    if close is None:
        return
    if pending is None or pending.done():
        loop.run_in_executor(None, close)
    else:
        pending.add_done_callback(lambda _: loop.run_in_executor(None, close))


def call_ended(context: grpc.aio.ServicerContext) -> asyncio.Future[None]:
    """A future of the running loop, done when the call ends (the client went away)."""
    loop = asyncio.get_running_loop()
    ended: asyncio.Future[None] = loop.create_future()

    def done() -> None:
        if not ended.done():
            ended.set_result(None)

    context.add_done_callback(lambda _: loop.call_soon_threadsafe(done))
    return ended
