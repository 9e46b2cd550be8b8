"""Prometheus metrics for the gRPC server: one interceptor, one HTTP endpoint.

The call metrics have the names and labels of go-grpc-prometheus / py-grpc-prometheus (labels
``grpc_type`` ``unary``/``server_stream``, ``grpc_service`` ``referee.api.v1.RefereeService``,
``grpc_method`` ``SubmitAction``, ``grpc_code`` ``OK``), so their dashboards and alerts work:

- ``grpc_server_started_total{grpc_type, grpc_service, grpc_method}``: calls started; minus
  the handled ones, the calls running now (a stream: open streams);
- ``grpc_server_handled_total{grpc_type, grpc_service, grpc_method, grpc_code}``: calls
  finished, by status code;
- ``grpc_server_handling_seconds{grpc_type, grpc_service, grpc_method}``: how long calls took,
  a stream from its start to its end (select ``grpc_type="unary"`` for latency);
- ``grpc_server_msg_received_total`` / ``grpc_server_msg_sent_total`` (same labels as started):
  request messages received, response messages sent (a stream's updates one by one).

And the referee's own:

- ``referee_grpc_rejections_total{grpc_service, grpc_method, grpc_code, reason}``: refused
  calls by the ``google.rpc.ErrorInfo`` reason of the error table (``NOT_YOUR_TURN``,
  ``ILLEGAL_ACTION``, ...);
- ``referee_projection_lag_events{view}``: notification-log positions a view is behind the
  head, set by whatever follows the views (the in-process worker of ``referee serve``,
  ``referee_projections.runner.ProjectionWorker``, or a ``referee projections`` process);
- ``referee_projection_events_total{view}``: events a ``referee projections`` process applied;
- ``referee_commit_batch_size``: aggregates written per group-commit transaction
  (``REFEREE_COMMIT_BATCH`` caps it), observed through ``Referee.on_commit_batch``;
- ``referee_chain_breaks_total``: matches refused because their stored hash chain does not
  verify, each match and position once per process (``Referee.on_chain_broken``; every
  refused call is also in the rejections, reason ``CHAIN_BROKEN``).

Health checking and reflection are not counted. Metrics go to ``prometheus_client``'s default
registry, served by :func:`start` on ``--metrics-port`` (0 disables).
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any
from uuid import UUID

import grpc
from google.rpc import error_details_pb2, status_pb2
from prometheus_client import Counter, Histogram, start_http_server

from referee.service.interception import CallInterceptor

log = logging.getLogger("referee.service")

DEFAULT_PORT = 9464
PORT_ENV = "REFEREE_METRICS_PORT"
STATUS_DETAILS_KEY = "grpc-status-details-bin"
_CALL = ["grpc_type", "grpc_service", "grpc_method"]

STARTED = Counter("grpc_server_started", "Total number of RPCs started on the server.", _CALL)
HANDLED = Counter(
    "grpc_server_handled",
    "Total number of RPCs completed on the server, regardless of success or failure.",
    [*_CALL, "grpc_code"],
)
HANDLING = Histogram(
    "grpc_server_handling_seconds",
    "Histogram of response latency (seconds) of gRPC that had been application-level "
    "handled by the server.",
    _CALL,
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0),
)
RECEIVED = Counter("grpc_server_msg_received",
                   "Total number of RPC stream messages received on the server.", _CALL)
SENT = Counter("grpc_server_msg_sent",
               "Total number of gRPC stream messages sent by the server.", _CALL)
REJECTIONS = Counter(
    "referee_grpc_rejections",
    "Refused gRPC calls by ErrorInfo reason (the error table)",
    ["grpc_service", "grpc_method", "grpc_code", "reason"],
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
    was the interceptor's main cost. The OK counter and the histogram exist from their first
    observation, the other codes' counters are looked up when they happen."""

    __slots__ = ("labels", "latency", "ok", "received", "sent", "started")

    def __init__(self, kind: str, method: str) -> None:
        service, _, name = method.lstrip("/").rpartition("/")
        self.labels = (kind, service, name)
        self.started = STARTED.labels(*self.labels)
        self.received = RECEIVED.labels(*self.labels)
        self.sent = SENT.labels(*self.labels)
        self.ok: Any = None
        self.latency: Any = None


def call_code(context: grpc.aio.ServicerContext, error: BaseException | None
              ) -> grpc.StatusCode:
    """The status a finished call ended with (``error``: what its handler raised, if it did;
    a stream whose client went away is closed or cancelled: CANCELLED)."""
    code = context.code()
    if isinstance(code, grpc.StatusCode):
        return code
    if error is None:
        return grpc.StatusCode.OK
    if isinstance(error, asyncio.CancelledError | GeneratorExit) or context.cancelled():
        return grpc.StatusCode.CANCELLED
    return grpc.StatusCode.UNKNOWN


def _record(series: _Series, context: grpc.aio.ServicerContext, error: BaseException | None,
            started: float) -> None:
    code = call_code(context, error)
    if code is grpc.StatusCode.OK:
        if series.ok is None:
            series.ok = HANDLED.labels(*series.labels, code.name)
        series.ok.inc()
    else:
        name = code.name
        HANDLED.labels(*series.labels, name).inc()
        REJECTIONS.labels(*series.labels[1:], name, error_reason(context) or name).inc()
    if series.latency is None:
        series.latency = HANDLING.labels(*series.labels)
    series.latency.observe(time.perf_counter() - started)


class MetricsInterceptor(CallInterceptor):
    """Counts and times every call to the referee's own services (health and reflection
    are not counted)."""

    def prepare(self, method: str, kind: str) -> _Series:
        return _Series(kind, method)

    def begin(self, prepared: _Series, request: Any, context: grpc.aio.ServicerContext
              ) -> tuple[_Series, float]:
        prepared.started.inc()
        prepared.received.inc()
        return prepared, time.perf_counter()

    def message_sent(self, call: tuple[_Series, float]) -> None:
        call[0].sent.inc()

    def end(self, call: tuple[_Series, float], context: grpc.aio.ServicerContext,
            error: BaseException | None) -> None:
        _record(call[0], context, error, call[1])


def serve_http(host: str, port: int) -> bool:
    """Serve ``/metrics`` on ``host:port`` (a thread); ``port`` 0 disables it. A port already
    taken is logged, not fatal. Whether it serves."""
    if port <= 0:
        return False
    bind = host.strip("[]") or "0.0.0.0"
    try:
        start_http_server(port, addr=bind)
    except OSError as exc:
        log.warning("metrics disabled: cannot listen on %s:%d (%s)", bind, port, exc)
        return False
    log.warning("metrics on http://%s:%d/metrics", bind, port)
    return True


def start(host: str, port: int) -> list[grpc.aio.ServerInterceptor]:
    """Serve ``/metrics`` on ``host:port`` and return the interceptors to install; ``port``
    0 disables metrics (no interceptor)."""
    return [MetricsInterceptor()] if serve_http(host, port) else []
