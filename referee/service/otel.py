"""OpenTelemetry traces of ``referee serve`` (the ``[otel]`` extra; switched on as
:mod:`referee.service.tracing` says): one SERVER span per call of the referee's services.

A span is named ``referee.api.v1.RefereeService/SubmitAction`` and carries the attributes of
the RPC semantic conventions, ``rpc.system`` (``grpc``), ``rpc.service``, ``rpc.method`` and
``rpc.grpc.status_code`` (the status as a number, 0 for OK), plus ``referee.match_id`` /
``referee.tournament_id`` when the request names one and ``referee.error.reason`` (the
ErrorInfo reason) for an error. As the conventions say for servers, the span's status is
ERROR only for UNKNOWN, DEADLINE_EXCEEDED, UNIMPLEMENTED, INTERNAL, UNAVAILABLE and DATA_LOSS
(a refused move is the client's mistake, not the server's). A caller's ``traceparent``
metadata (W3C trace context, or ``OTEL_PROPAGATORS``) makes the span its child. A stream's
span lasts its whole life. Health checks and reflection are not traced.

opentelemetry-instrumentation-grpc's aio server interceptor is not used: with grpcio 1.85 it
reports every error raised through ``abort_with_status`` (all of the referee's) as status 0,
and names spans with a leading ``/``.
"""

from __future__ import annotations

import contextlib
import time
from typing import Any

import grpc
from opentelemetry import propagate, trace
from opentelemetry.context import Context
from opentelemetry.sdk.resources import SERVICE_NAME, SERVICE_VERSION, Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter, SpanExporter
from opentelemetry.trace import SpanKind, Status, StatusCode

from referee import __version__
from referee.service.interception import CallInterceptor
from referee.service.metrics import call_code, error_reason

#: gRPC codes that are the server's failure (the span's status is ERROR), by the conventions.
SERVER_ERRORS = frozenset({
    grpc.StatusCode.UNKNOWN, grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.UNIMPLEMENTED,
    grpc.StatusCode.INTERNAL, grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DATA_LOSS,
})


def tracer_provider(exporter: str) -> TracerProvider:
    """A provider exporting in batches through ``exporter`` (``otlp``: the OTLP/gRPC exporter,
    configured by its ``OTEL_EXPORTER_OTLP_*`` variables; ``console``: stdout). The service
    is ``trick-referee`` unless ``OTEL_SERVICE_NAME`` or ``OTEL_RESOURCE_ATTRIBUTES`` names it."""
    resource = Resource.create({SERVICE_VERSION: __version__})
    if str(resource.attributes.get(SERVICE_NAME, "")).startswith("unknown_service"):
        resource = resource.merge(Resource({SERVICE_NAME: "trick-referee"}))
    spans: SpanExporter
    if exporter == "otlp":
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter

        spans = OTLPSpanExporter()
    else:
        spans = ConsoleSpanExporter()
    provider = TracerProvider(resource=resource)
    provider.add_span_processor(BatchSpanProcessor(spans))
    return provider


class TracingInterceptor(CallInterceptor):
    """A SERVER span per call of the referee's services (see the module docstring)."""

    def __init__(self, provider: trace.TracerProvider | None = None) -> None:
        super().__init__()
        self._tracer = trace.get_tracer("referee.service", __version__, provider)

    def prepare(self, method: str, kind: str) -> _Call:
        return _Call(self._tracer, method)

    def begin(self, prepared: _Call, request: Any, context: grpc.aio.ServicerContext
              ) -> tuple[_Call, trace.Span]:
        return prepared, prepared.begin(request, context)

    def active(self, call: tuple[_Call, trace.Span]) -> contextlib.AbstractContextManager[Any]:
        return trace.use_span(call[1], end_on_exit=False, record_exception=False,
                              set_status_on_exception=False)

    def end(self, call: tuple[_Call, trace.Span], context: grpc.aio.ServicerContext,
            error: BaseException | None) -> None:
        call[0].end(call[1], context, error)


class _Call:
    """One method's spans: its name and fixed attributes, computed once."""

    def __init__(self, tracer: trace.Tracer, method: str) -> None:
        self.tracer = tracer
        self.name = method.lstrip("/")
        service, _, name = self.name.rpartition("/")
        self.attributes = {"rpc.system": "grpc", "rpc.service": service, "rpc.method": name}

    def begin(self, request: Any, context: grpc.aio.ServicerContext) -> trace.Span:
        parent: Context | None = None
        metadata = context.invocation_metadata()
        if metadata:
            parent = propagate.extract({key: value for key, value in metadata
                                        if isinstance(value, str)})
        span = self.tracer.start_span(self.name, parent, SpanKind.SERVER, self.attributes,
                                      start_time=time.time_ns())
        for field in ("match_id", "tournament_id"):
            value = getattr(request, field, "")
            if value:
                span.set_attribute(f"referee.{field}", str(value)[:64])
        return span

    @staticmethod
    def end(span: trace.Span, context: grpc.aio.ServicerContext,
            error: BaseException | None) -> None:
        code = call_code(context, error)
        span.set_attribute("rpc.grpc.status_code", code.value[0])
        if code is not grpc.StatusCode.OK:
            reason = error_reason(context)
            if reason:
                span.set_attribute("referee.error.reason", reason)
        if code in SERVER_ERRORS:
            if error is not None and not isinstance(error, grpc.aio.AbortError):
                span.record_exception(error)
            span.set_status(Status(StatusCode.ERROR, code.name))
        span.end()
