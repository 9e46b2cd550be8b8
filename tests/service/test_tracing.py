"""OpenTelemetry traces (issue 23, item 8): one SERVER span per call with the rpc.* attributes
and the status, exported over OTLP by ``referee serve`` when the OTEL_* environment asks; and
nothing of OpenTelemetry imported when it does not. The ``[otel]`` extra is part of ``dev``."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from concurrent import futures
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2 as collector_pb
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2_grpc as collector_grpc
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

from referee.api.v1 import referee_pb2 as pb
from referee.api.v1 import referee_pb2_grpc as pbg
from referee.application import Referee
from referee.config import SettingsError, settings_from_env
from referee.service.otel import TracingInterceptor
from referee.service.tracing import exporter_from_env
from tests.service.helpers import create, serving
from trick_referee_client.sdk import bearer

REFEREE = "referee.api.v1.RefereeService"


@pytest.fixture
def spans() -> Iterator[tuple[InMemorySpanExporter, grpc.Channel]]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    app = Referee(settings_from_env({"PERSISTENCE_MODULE": "eventsourcing.popo"}))
    try:
        with serving(app, [TracingInterceptor(provider)]) as channel:
            yield exporter, channel
    finally:
        app.close()
        provider.shutdown()


def _finished(exporter: InMemorySpanExporter, count: int) -> list[ReadableSpan]:
    deadline = time.monotonic() + 10
    while len(exporter.get_finished_spans()) < count and time.monotonic() < deadline:
        time.sleep(0.02)  # a cancelled stream's span ends when the server sees the cancel
    return list(exporter.get_finished_spans())


def test_a_server_span_per_call_with_the_rpc_attributes_and_status(
        spans: tuple[InMemorySpanExporter, grpc.Channel]) -> None:
    exporter, channel = spans
    stub = pbg.RefereeServiceStub(channel)
    table = create(stub)
    stub.GetView(pb.GetViewRequest(match_id=table.match_id), metadata=bearer(table.spectator))
    with pytest.raises(grpc.RpcError) as refused:
        stub.GetView(pb.GetViewRequest(match_id=table.match_id), metadata=bearer("not-a-token"))
    assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED  # type: ignore[attr-defined]
    with pytest.raises(grpc.RpcError):
        stub.GetView(pb.GetViewRequest(match_id=str(uuid.uuid4())),
                     metadata=bearer(table.spectator))
    health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest())  # not traced
    stream = stub.WatchMatch(pb.WatchMatchRequest(match_id=table.match_id), timeout=30,
                             metadata=bearer(table.spectator))
    next(stream)
    stream.cancel()

    got = _finished(exporter, 5)
    assert [s.name for s in got] == [f"{REFEREE}/{m}" for m in (
        "CreateMatch", "GetView", "GetView", "GetView", "WatchMatch")]
    assert all(s.kind is SpanKind.SERVER for s in got)
    for span in got:
        attrs = dict(span.attributes or {})
        assert attrs["rpc.system"] == "grpc"
        assert attrs["rpc.service"] == REFEREE
        assert attrs["rpc.method"] == span.name.rsplit("/", 1)[1]
    created, ok, bad_token, missing, watch = (dict(s.attributes or {}) for s in got)
    assert created["rpc.grpc.status_code"] == 0 and "referee.match_id" not in created
    assert ok["rpc.grpc.status_code"] == 0 and ok["referee.match_id"] == table.match_id
    assert bad_token["rpc.grpc.status_code"] == grpc.StatusCode.UNAUTHENTICATED.value[0]
    assert bad_token["referee.error.reason"] == "BAD_TOKEN"
    assert bad_token["referee.match_id"] == table.match_id
    assert missing["rpc.grpc.status_code"] == grpc.StatusCode.NOT_FOUND.value[0]
    assert watch["rpc.grpc.status_code"] == grpc.StatusCode.CANCELLED.value[0]
    assert watch["referee.match_id"] == table.match_id
    # A client's mistake is not the server's error (RPC semantic conventions).
    assert {s.status.status_code for s in got} == {StatusCode.UNSET}


def test_a_callers_trace_context_makes_the_span_its_child(
        spans: tuple[InMemorySpanExporter, grpc.Channel]) -> None:
    exporter, channel = spans
    trace_id, parent_id = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
    pbg.RefereeServiceStub(channel).ListGames(
        pb.ListGamesRequest(), metadata=[("traceparent", f"00-{trace_id}-{parent_id}-01")])
    (span,) = _finished(exporter, 1)
    assert span.context is not None and span.parent is not None
    assert format(span.context.trace_id, "032x") == trace_id
    assert format(span.parent.span_id, "016x") == parent_id


@pytest.mark.parametrize(("env", "expected"), [
    ({}, None),
    ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4317"}, "otlp"),
    ({"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://collector:4317"}, "otlp"),
    ({"OTEL_TRACES_EXPORTER": "otlp"}, "otlp"),
    ({"OTEL_TRACES_EXPORTER": "Console"}, "console"),
    ({"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4317"}, None),
    ({"OTEL_SDK_DISABLED": "true", "OTEL_TRACES_EXPORTER": "otlp"}, None),
])
def test_tracing_is_on_when_the_otel_environment_asks(env: dict[str, str],
                                                      expected: str | None) -> None:
    assert exporter_from_env(env) == expected


@pytest.mark.parametrize(("env", "message"), [
    ({"OTEL_TRACES_EXPORTER": "jaeger"},
     "OTEL_TRACES_EXPORTER=jaeger: must be one of otlp, console, none (default none)"),
    ({"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf"},
     "OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf: must be one of grpc (default grpc)"),
    ({"OTEL_SDK_DISABLED": "maybe"}, "OTEL_SDK_DISABLED=maybe: must be y or n"),
])
def test_a_bad_otel_setting_is_one_line(env: dict[str, str], message: str) -> None:
    with pytest.raises(SettingsError) as bad:
        exporter_from_env(env)
    assert str(bad.value).startswith(message) and "\n" not in str(bad.value)


NO_OTEL = """
import sys
from referee.service import tracing
import referee.composition, referee.service.server
assert tracing.start({}) [0] == []
loaded = sorted(m for m in sys.modules if m.startswith("opentelemetry"))
assert not loaded, loaded
"""


def test_tracing_off_imports_nothing_of_opentelemetry() -> None:
    subprocess.run([sys.executable, "-c", NO_OTEL], check=True, timeout=60)


class _Collector(collector_grpc.TraceServiceServicer):  # type: ignore[misc]
    """An OTLP/gRPC trace collector that keeps the span names it receives."""

    def __init__(self) -> None:
        self.names: list[str] = []
        self.services: list[str] = []
        self.got = threading.Event()

    def Export(self, request: collector_pb.ExportTraceServiceRequest,
               context: grpc.ServicerContext) -> collector_pb.ExportTraceServiceResponse:
        for resource_spans in request.resource_spans:
            self.services += [a.value.string_value for a in resource_spans.resource.attributes
                              if a.key == "service.name"]
            for scope in resource_spans.scope_spans:
                self.names += [span.name for span in scope.spans]
        self.got.set()
        return collector_pb.ExportTraceServiceResponse()


def test_referee_serve_exports_spans_over_otlp(tmp_path: Path) -> None:
    collector = _Collector()
    server = grpc.server(futures.ThreadPoolExecutor(2))
    collector_grpc.add_TraceServiceServicer_to_server(collector, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("POSTGRES_", "REFEREE_", "PERSISTENCE_MODULE", "OTEL_"))}
    env.update(REFEREE_DATA_DIR=str(tmp_path), PYTHONUNBUFFERED="1",
               OTEL_EXPORTER_OTLP_ENDPOINT=f"http://127.0.0.1:{port}",
               OTEL_EXPORTER_OTLP_INSECURE="true")
    proc = subprocess.Popen(
        [sys.executable, "-m", "referee", "serve", "--address", "127.0.0.1:0",
         "--metrics-port", "0", "--grace", "1"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert proc.stdout is not None
        found = re.search(r"listening on (\S+)", proc.stdout.readline())
        assert found
        with grpc.insecure_channel(found.group(1)) as channel:
            create(pbg.RefereeServiceStub(channel))
    finally:
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(30)
        server.stop(None)
    assert code == 0
    assert collector.got.is_set()  # flushed when the server stopped
    assert collector.names == [f"{REFEREE}/CreateMatch"]
    assert collector.services == ["trick-referee"]
