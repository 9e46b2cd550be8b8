"""Server bootstrap: the referee service, health checking and reflection on one port."""

from __future__ import annotations

import gc
import logging
import os
import threading
from concurrent import futures

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from referee.api.v1 import referee_pb2 as pb
from referee.api.v1 import referee_pb2_grpc as pbg
from referee.application import Referee
from referee.service.servicer import RefereeServicer
from referee.service.signals import stop_event

SERVICE_NAME = pb.DESCRIPTOR.services_by_name["RefereeService"].full_name
log = logging.getLogger("referee.service")


class _Stopping:
    def __init__(self) -> None:
        self.event = threading.Event()

    def __call__(self) -> bool:
        return self.event.is_set()


def build_server(
    app: Referee, address: str = "127.0.0.1:50051", *, max_workers: int = 32,
    interceptors: tuple[grpc.ServerInterceptor, ...] = (), reuse_port: bool = False,
) -> tuple[grpc.Server, int]:
    """A started-ready (not started) server for ``app`` bound to ``address``; returns it and
    the bound port (use port 0 in tests). ``reuse_port``: share the port with the other
    workers of ``referee serve --workers N`` (else binding a used port fails)."""
    server = grpc.server(
        futures.ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="referee"),
        options=[("grpc.so_reuseport", 1 if reuse_port else 0)],
        interceptors=interceptors,
    )
    stopping = _Stopping()
    servicer = RefereeServicer(app, stopping=stopping)
    pbg.add_RefereeServiceServicer_to_server(servicer, server)  # type: ignore[no-untyped-call]
    from projections.service import add_to_server  # the read side, on the same port

    read_side = add_to_server(server, app, stopping)
    health_servicer = health.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    for name in ("", SERVICE_NAME):
        health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    reflection.enable_server_reflection(
        (SERVICE_NAME, *read_side, health.SERVICE_NAME, reflection.SERVICE_NAME), server
    )
    port = server.add_insecure_port(address)
    if port == 0:
        raise OSError(f"cannot bind {address}")
    server._referee_health = health_servicer
    server._referee_stopping = stopping
    return server, port


def stop(server: grpc.Server, grace: float = 5.0) -> None:
    """Stop gracefully: report NOT_SERVING, end watch streams, let running calls finish."""
    server._referee_health.enter_graceful_shutdown()
    server._referee_stopping.event.set()
    server.stop(grace).wait()


def tune_gc() -> None:
    """Fewer, cheaper garbage collections for a long-running server: what start-up created
    (modules, the application, the server) is frozen out of every collection, and the
    youngest generation is collected every 20,000 container allocations instead of 700, so
    short-lived request objects die before a collection promotes them. With the default
    thresholds ~38 us of CPU per action went to collections under the service benchmark
    (9 full collections of ~60 ms each in 25 s, holding the GIL), ~4 us with these."""
    gc.freeze()
    gc.set_threshold(20_000, 50, 100)


def serve(address: str, grace: float = 5.0, metrics_port: int = 0) -> int:
    """Run until SIGTERM or SIGINT; acknowledged actions are already committed, and calls
    in flight get ``grace`` seconds to finish. Prometheus metrics on ``metrics_port`` (0: off)."""
    from referee.service import metrics

    app = Referee()
    from projections.runner import start_in_process  # the views, for the embedded default

    views = start_in_process(app)
    hooks = tuple(metrics.start(address.rsplit(":", 1)[0], metrics_port))
    if hooks:
        app.on_commit_batch(metrics.COMMIT_BATCH.observe)
    from referee.service.workers import REUSE_PORT_ENV

    server, port = build_server(
        app, address, interceptors=hooks, max_workers=app.settings.grpc_workers,
        reuse_port=os.environ.get(REUSE_PORT_ENV) == "1",
    )
    tune_gc()
    server.start()
    host = address.rsplit(":", 1)[0]
    log.warning("referee serving on %s:%d (store: %s)", host, port, app.settings.backend)
    print(f"listening on {host}:{port}", flush=True)
    stop_event().wait()
    log.warning("stopping (grace %.1fs)", grace)
    stop(server, grace)
    if views is not None:
        views.stop()
    app.close()
    return 0
