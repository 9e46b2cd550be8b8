"""The server's side of the store monitor (``referee.store_health``): while the store is down,
calls that need it are refused at once with UNAVAILABLE ``STORE_UNAVAILABLE`` (with a
``RetryInfo``), and the health service says NOT_SERVING; SERVING again when it is back.

Calls that need no store pass: ``ListGames``, health checking and reflection. Streams already
open are not cut by the gate; their next read of the store fails on its own.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any

import grpc
from grpc_health.v1 import health, health_pb2

from referee.api.v1 import referee_pb2 as pb
from referee.domain.errors import StoreUnavailableError
from referee.service.errors import to_status
from referee.service.interception import NOT_OURS, HandlerRewriter, rebuilt
from referee.store_health import StoreMonitor

if TYPE_CHECKING:
    from referee.notices import Notices

_REFEREE = pb.DESCRIPTOR.services_by_name["RefereeService"].full_name
NO_STORE_NEEDED = frozenset({f"/{_REFEREE}/ListGames"})


class StoreGate(HandlerRewriter):
    """Refuses the calls that need the store while ``monitor`` says it is down. While it is
    up, a call costs one attribute read here."""

    def __init__(self, monitor: StoreMonitor) -> None:
        super().__init__()
        self._monitor = monitor

    async def intercept_service(
        self, continuation: Callable[[Any], Awaitable[Any]], details: grpc.HandlerCallDetails
    ) -> Any:
        handler = await continuation(details)
        if self._monitor.available:
            return handler
        return self.rewritten(details.method, handler)

    def rewrite(self, method: str, handler: Any) -> Any:
        if method in NO_STORE_NEEDED or method.startswith(NOT_OURS):
            return handler
        return rebuilt(handler, lambda _: _refuse, lambda _: _refuse_stream)


def _status() -> grpc.Status:
    return to_status(StoreUnavailableError("the event store is unavailable; retry"))


async def _refuse(request: Any, context: grpc.aio.ServicerContext) -> Any:
    await context.abort_with_status(_status())


async def _refuse_stream(request: Any, context: grpc.aio.ServicerContext
                         ) -> AsyncIterator[Any]:
    await context.abort_with_status(_status())
    yield None  # never reached: abort_with_status raises


def follow_store(monitor: StoreMonitor, servicer: health.aio.HealthServicer,
                 names: Sequence[str], loop: asyncio.AbstractEventLoop,
                 notices: Notices | None = None) -> None:
    """Keep ``names`` of ``servicer`` SERVING while the store is up (and, with ``notices``
    listening, while the other replicas' notifications reach this one: its watchers would
    miss their commits), NOT_SERVING while not (after a graceful shutdown began, the
    servicer ignores both)."""

    def up() -> bool:
        listening = notices is None or notices.connected or not notices.started
        return monitor.available and listening

    async def update() -> None:
        status = (health_pb2.HealthCheckResponse.SERVING if up()
                  else health_pb2.HealthCheckResponse.NOT_SERVING)
        for name in names:
            await servicer.set(name, status)

    def changed(available: bool) -> None:
        with contextlib.suppress(RuntimeError):  # the loop is closed: the server stopped
            asyncio.run_coroutine_threadsafe(update(), loop)

    monitor.add_listener(changed)
    if notices is not None:
        notices.add_listener(changed)
