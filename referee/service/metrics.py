"""Prometheus metrics for the gRPC server: one interceptor, one HTTP endpoint.

- ``referee_grpc_requests_total{method, code}``: finished calls by method and status code;
- ``referee_grpc_rejections_total{method, code, reason}``: refused calls by the
  ``google.rpc.ErrorInfo`` reason of the error table (``NOT_YOUR_TURN``, ``ILLEGAL_ACTION``, ...);
- ``referee_grpc_request_seconds{method}``: latency of unary calls (streams are counted, not timed);
- ``referee_grpc_in_flight{method}``: calls running now (drain watch);
- ``referee_projection_lag_events{view}``: notification-log positions a view is behind the
  head, set by the in-process projection worker (``projections.runner.ProjectionWorker``);
- ``referee_commit_batch_size``: aggregates written per group-commit transaction
  (``REFEREE_COMMIT_BATCH`` caps it), observed through ``Referee.on_commit_batch``;
- ``referee_chain_breaks_total``: matches refused because their stored hash chain does not
  verify, each match and position once per process (``Referee.on_chain_broken``; every
  refused call is also in the rejections, reason ``CHAIN_BROKEN``).

Metrics go to ``prometheus_client``'s default registry, served by :func:`start` on
``--metrics-port`` (0 disables).
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any
from uuid import UUID

import grpc
from google.rpc import error_details_pb2, status_pb2
from prometheus_client import Counter, Gauge, Histogram, start_http_server

log = logging.getLogger("referee.service")

DEFAULT_PORT = 9464
PORT_ENV = "REFEREE_METRICS_PORT"
STATUS_DETAILS_KEY = "grpc-status-details-bin"

REQUESTS = Counter(
    "referee_grpc_requests", "Finished gRPC calls by method and status code", ["method", "code"]
)
REJECTIONS = Counter(
    "referee_grpc_rejections",
    "Refused gRPC calls by ErrorInfo reason (the error table)",
    ["method", "code", "reason"],
)
LATENCY = Histogram(
    "referee_grpc_request_seconds",
    "Latency of unary gRPC calls",
    ["method"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0),
)
IN_FLIGHT = Gauge("referee_grpc_in_flight", "gRPC calls running now", ["method"])
PROJECTION_LAG = Gauge(
    "referee_projection_lag_events",
    "Notification-log positions a projection view is behind the head",
    ["view"],
)
COMMIT_BATCH = Histogram(
    "referee_commit_batch_size",
    "Aggregates written per group-commit transaction",
    buckets=(1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024),
)
CHAIN_BREAKS = Counter(
    "referee_chain_breaks",
    "Matches refused because their stored hash chain does not verify (once per match and "
    "position in a process)",
)


def chain_broken(match_id: UUID, version: int) -> None:
    """The ``Referee.on_chain_broken`` hook: count the broken chain (the application logs it)."""
    CHAIN_BREAKS.inc()


def error_reason(context: grpc.aio.ServicerContext) -> str:
    """The ErrorInfo reason in the call's rich status (``""`` when there is none)."""
    for key, value in context.trailing_metadata() or ():
        if key == STATUS_DETAILS_KEY and isinstance(value, bytes):
            status = status_pb2.Status.FromString(value)
            for detail in status.details:
                info = error_details_pb2.ErrorInfo()
                if detail.Unpack(info):
                    return str(info.reason)
    return ""


class _Series:
    """One method's labelled series, looked up once: ``Metric.labels()`` builds a key and
    takes the metric's lock on every call, which under load (hundreds of server threads)
    was the interceptor's main cost. The in-flight gauge exists from the first call (as
    before); the OK counter and the latency histogram from their first observation."""

    __slots__ = ("in_flight", "latency", "method", "ok")

    def __init__(self, method: str) -> None:
        self.method = method
        self.in_flight = IN_FLIGHT.labels(method)
        self.ok: Any = None
        self.latency: Any = None


def _record(series: _Series, context: grpc.aio.ServicerContext, failed: bool,
            started: float | None) -> None:
    code = context.code()
    if code is None:
        if not failed:
            code = grpc.StatusCode.OK
        else:
            code = grpc.StatusCode.CANCELLED if context.cancelled() else grpc.StatusCode.UNKNOWN
    if code is grpc.StatusCode.OK:
        if series.ok is None:
            series.ok = REQUESTS.labels(series.method, code.name)
        series.ok.inc()
    else:
        name = code.name
        REQUESTS.labels(series.method, name).inc()
        REJECTIONS.labels(series.method, name, error_reason(context) or name).inc()
    if started is not None:
        if series.latency is None:
            series.latency = LATENCY.labels(series.method)
        series.latency.observe(time.perf_counter() - started)


class MetricsInterceptor(grpc.aio.ServerInterceptor):  # type: ignore[misc]
    """Counts and times every call to the referee's own services (health and reflection
    are not counted). The wrapped handler of each method is built once and reused while
    the server hands out the same handler for it."""

    def __init__(self) -> None:
        self._wrapped: dict[str, tuple[Any, Any]] = {}

    async def intercept_service(
        self, continuation: Callable[[Any], Awaitable[Any]], details: grpc.HandlerCallDetails
    ) -> Any:
        handler = await continuation(details)
        method: str = details.method
        cached = self._wrapped.get(method)
        if cached is not None and cached[0] is handler:
            return cached[1]
        wrapped = self._wrap(method, handler)
        if handler is not None:
            self._wrapped[method] = (handler, wrapped)
        return wrapped

    @staticmethod
    def _wrap(method: str, handler: Any) -> Any:
        if handler is None or method.startswith(("/grpc.health.", "/grpc.reflection.")):
            return handler
        short = method.rsplit("/", 1)[-1]
        if handler.unary_unary is not None:
            return grpc.unary_unary_rpc_method_handler(
                _unary(_Series(short), handler.unary_unary),
                request_deserializer=handler.request_deserializer,
                response_serializer=handler.response_serializer,
            )
        if handler.unary_stream is not None:
            return grpc.unary_stream_rpc_method_handler(
                _stream(_Series(short), handler.unary_stream),
                request_deserializer=handler.request_deserializer,
                response_serializer=handler.response_serializer,
            )
        return handler  # the API has no client-streaming methods


def _unary(series: _Series, behavior: Callable[[Any, Any], Awaitable[Any]]
           ) -> Callable[[Any, Any], Awaitable[Any]]:
    async def wrapper(request: Any, context: grpc.aio.ServicerContext) -> Any:
        started = time.perf_counter()
        failed = True
        gauge = series.in_flight
        gauge.inc()
        try:
            response = await behavior(request, context)
            failed = False
            return response
        finally:
            gauge.dec()
            _record(series, context, failed, started)

    return wrapper


def _stream(series: _Series, behavior: Callable[[Any, Any], AsyncIterator[Any]]
            ) -> Callable[[Any, Any], AsyncIterator[Any]]:
    async def wrapper(request: Any, context: grpc.aio.ServicerContext) -> AsyncIterator[Any]:
        failed = True
        gauge = series.in_flight
        gauge.inc()
        try:
            async for item in behavior(request, context):
                yield item
            failed = False
        finally:
            gauge.dec()
            _record(series, context, failed, None)

    return wrapper


def start(host: str, port: int) -> list[grpc.aio.ServerInterceptor]:
    """Serve ``/metrics`` on ``host:port`` and return the interceptors to install; ``port``
    0 disables metrics (no interceptor). A port already taken is logged, not fatal."""
    if port <= 0:
        return []
    bind = host.strip("[]") or "0.0.0.0"
    try:
        start_http_server(port, addr=bind)
    except OSError as exc:
        log.warning("metrics disabled: cannot listen on %s:%d (%s)", bind, port, exc)
        return []
    log.warning("metrics on http://%s:%d/metrics", bind, port)
    return [MetricsInterceptor()]
