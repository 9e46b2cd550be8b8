"""Composition: ``referee serve`` assembles the application, its views, the gRPC server and
the metrics (the one place that knows every layer; see docs/architecture.md)."""

from __future__ import annotations

import gc
import logging
import os
import shutil

from referee.application import Referee
from referee.service.gateway.app import Gateway, private_socket_path
from referee.service.server import build_server
from referee.service.signals import stop_event

log = logging.getLogger("referee.service")


def tune_gc() -> None:
    """Fewer, cheaper garbage collections for a long-running server: what start-up created
    (modules, the application, the server) is frozen out of every collection, and the
    youngest generation is collected every 20,000 container allocations instead of 700, so
    short-lived request objects die before a collection promotes them. With the default
    thresholds ~38 us of CPU per action went to collections under the service benchmark
    (9 full collections of ~60 ms each in 25 s, holding the GIL), ~4 us with these."""
    gc.freeze()
    gc.set_threshold(20_000, 50, 100)


def serve(address: str, grace: float = 5.0, metrics_port: int = 0, http_port: int = 0) -> int:
    """Run until SIGTERM or SIGINT; acknowledged actions are already committed, and calls
    in flight get ``grace`` seconds to finish. Prometheus metrics on ``metrics_port`` (0: off);
    the same API as JSON over HTTP on ``http_port`` (0: off; ``referee.service.gateway``).

    :raises referee.config.SettingsError: for a placeholder or short credential, or a bad
        ``OTEL_*`` value (traces: :mod:`referee.service.tracing`)."""
    from referee.config import StartupError, one_line, settings_from_env
    from referee.service import metrics, tracing
    from referee.service.credentials import check_credentials
    from referee_projections import webhook_delivery
    from referee_projections.runner import start_in_process  # the views, unless run separately

    check_credentials()  # before anything starts: no server with a template's secret
    webhook_policy = webhook_delivery.RetryPolicy.from_env()  # REFEREE_WEBHOOK_*
    tracers, stop_tracing = tracing.start(os.environ)  # OTEL_*: none unless asked for

    settings = settings_from_env()
    try:
        app = Referee(settings)
        app.start_timers()  # every open timed match's deadline, recovered from the log
        app.listen()  # PostgreSQL: the other replicas' commits wake this one's watchers
        views = start_in_process(app.event_log)
        webhooks = webhook_delivery.start_in_process(app.event_log, webhook_policy)
    except Exception as exc:  # the store cannot be opened: one line for the operator
        raise StartupError(f"cannot open the event store ({settings.store_location}): "
                           f"{one_line(exc)}") from exc
    hooks = tuple(metrics.start(address.rsplit(":", 1)[0], metrics_port))
    if hooks:
        app.on_commit_batch(metrics.COMMIT_BATCH.observe)
        app.on_chain_broken(metrics.chain_broken)
    from referee.service.logs import AccessLogInterceptor, access_log_on
    from referee.service.workers import REUSE_PORT_ENV

    if access_log_on():  # --access-log, or --log-level DEBUG
        hooks = (*hooks, AccessLogInterceptor())
    hooks = (*tracers, *hooks)  # outermost: a span covers the other interceptors too

    reuse_port = os.environ.get(REUSE_PORT_ENV) == "1"
    socket = private_socket_path() if http_port else None
    server, port = build_server(
        app, address, interceptors=hooks, max_workers=app.settings.grpc_workers,
        reuse_port=reuse_port, private_socket=socket,
    )
    host = address.rsplit(":", 1)[0]
    try:  # the HTTP port bound before anything serves: a port in use is one line, nothing runs
        gateway = None if socket is None else Gateway(f"unix:{socket}", host, http_port,
                                                      reuse_port=reuse_port)
    except OSError as exc:
        server.stop(0)
        app.close()
        shutil.rmtree(os.path.dirname(str(socket)), ignore_errors=True)
        raise OSError(f"cannot serve HTTP on {host}:{http_port}: {exc.strerror or exc}") from exc
    tune_gc()
    stopping = stop_event()  # before "listening on": a SIGTERM right after it stops gracefully
    server.start()
    log.warning("referee serving on %s:%d (store: %s)", host, port, settings.store_location)
    http = "" if gateway is None else f", HTTP on {host}:{gateway.port}"
    print(f"listening on {host}:{port} ({settings.store_location}){http}", flush=True)
    stopping.wait()
    log.warning("stopping (grace %.1fs)", grace)
    server.stop(grace)  # streams end first, their SSE clients told to reconnect elsewhere
    if gateway is not None:
        gateway.stop()
        shutil.rmtree(os.path.dirname(str(socket)), ignore_errors=True)
    if views is not None:
        views.stop()
    if webhooks is not None:
        webhooks.stop()
    app.close()
    stop_tracing()  # the last spans exported
    return 0
