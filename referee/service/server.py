"""Server bootstrap: the referee service, health checking and reflection on one port.

The server is ``grpc.aio`` on an event loop of its own thread: ``SubmitAction`` runs as a
coroutine that awaits its group commit (no thread parked per call, one loop wake-up per
commit batch), the watch streams wait for changes as coroutines, and every other method runs
on the loop's executor, a thread pool of ``REFEREE_GRPC_WORKERS`` threads.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Coroutine, Sequence
from concurrent import futures
from typing import Any, TypeVar

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from referee.api.v1 import referee_pb2 as pb
from referee.api.v1 import referee_pb2_grpc as pbg
from referee.application import Referee
from referee.limits import MAX_REQUEST_BYTES
from referee.service.capacity import capacity_options
from referee.service.credentials_metadata import BearerTokenInterceptor
from referee.service.decoding import DecodeErrorInterceptor
from referee.service.handlers import Stopping, add_servicer
from referee.service.health_service import HealthServicer
from referee.service.keepalive import keepalive_options
from referee.service.peers import PeerLimits
from referee.service.servicer import RefereeServicer
from referee.service.store_gate import StoreGate, follow_store
from referee.store_health import StoreMonitor

SERVICE_NAME = pb.DESCRIPTOR.services_by_name["RefereeService"].full_name
#: A health name for liveness probes: SERVING while the process serves, also while the store is
#: down (restarting the pod would not bring the database back); NOT_SERVING once it drains.
LIVENESS_NAME = "liveness"
log = logging.getLogger("referee.service")
T = TypeVar("T")


class RefereeServer:
    """A bound, not yet started server for one application (see the module docstring).
    ``start()`` serves, ``stop(grace)`` stops gracefully: health NOT_SERVING, watch streams
    ended, calls in flight given ``grace`` seconds to finish."""

    def __init__(
        self, app: Referee, address: str, *, max_workers: int,
        interceptors: Sequence[grpc.aio.ServerInterceptor], reuse_port: bool,
        private_socket: str | None = None,
    ) -> None:
        self._stopping = Stopping()
        self._executor = futures.ThreadPoolExecutor(max_workers, thread_name_prefix="referee")
        self._loop = asyncio.new_event_loop()
        self._loop.set_default_executor(self._executor)
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="referee-grpc", daemon=True
        )
        self._thread.start()
        try:
            self.port = self._run(self._build(app, address, interceptors, reuse_port,
                                              private_socket))
        except BaseException:
            self._close_loop()
            raise

    async def _build(self, app: Referee, address: str,
                     interceptors: Sequence[grpc.aio.ServerInterceptor], reuse_port: bool,
                     private_socket: str | None) -> int:
        # PostgreSQL: while the store is down, refuse at once and say NOT_SERVING.
        self._store_monitor = StoreMonitor.for_app(app, app.settings.store_ping)
        gate = () if self._store_monitor is None else (StoreGate(self._store_monitor),)
        server = grpc.aio.server(
            # innermost: see decoding
            interceptors=(*interceptors, *gate, BearerTokenInterceptor(),
                          DecodeErrorInterceptor()),
            options=[
                ("grpc.so_reuseport", 1 if reuse_port else 0),
                # Bounded requests (referee.limits); answers may be larger (match records).
                ("grpc.max_receive_message_length", MAX_REQUEST_BYTES),
                ("grpc.max_send_message_length", 64 << 20),
                # Keepalive and connection age (REFEREE_KEEPALIVE_*, REFEREE_MAX_CONNECTION_*).
                *keepalive_options(),
                # Calls waiting to be taken up, streams per connection (many watchers).
                *capacity_options(),
            ],
        )
        stopping = self._stopping
        self._app = app
        peers = PeerLimits.from_settings(app.settings)
        add_servicer(pbg.add_RefereeServiceServicer_to_server,
                     RefereeServicer(app, stopping=stopping, peers=peers), server,
                     shared=("WatchMatch",))  # one encoded update for many streams
        from referee.service.read_side import add_to_server  # the read side, same port

        read_side = add_to_server(server, app, stopping, peers)
        self._health = HealthServicer()  # grpcio's, with List
        health_pb2_grpc.add_HealthServicer_to_server(self._health, server)
        for name in ("", SERVICE_NAME, *read_side, LIVENESS_NAME):
            await self._health.set(name, health_pb2.HealthCheckResponse.SERVING)
        if self._store_monitor is not None:
            follow_store(self._store_monitor, self._health, ("", SERVICE_NAME, *read_side),
                         asyncio.get_running_loop(), app.notices)
        reflection.enable_server_reflection(
            (SERVICE_NAME, *read_side, health.SERVICE_NAME, reflection.SERVICE_NAME), server
        )
        try:
            port: int = server.add_insecure_port(address)
        except RuntimeError as exc:  # grpc's says only "Failed to bind"
            raise OSError(f"cannot listen on {address}: the port is in use, or the host is "
                          "not an address of this machine") from exc
        if port == 0:
            raise OSError(f"cannot bind {address}")
        if private_socket is not None:  # the HTTP gateway's way in (referee.service.peers)
            server.add_insecure_port(f"unix:{private_socket}")
        self._server = server
        return port

    def _run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result()

    def start(self) -> None:
        self._run(self._server.start())
        if self._store_monitor is not None:
            self._store_monitor.start()

    def stop(self, grace: float = 5.0) -> None:
        async def stopping() -> None:
            await self._health.enter_graceful_shutdown()
            self._stopping.set()
            self._app.changes.wake_all()  # watch streams see the stop and end
            await self._server.stop(grace)

        try:
            self._run(stopping())
        finally:
            if self._store_monitor is not None:
                self._store_monitor.stop()
            self._close_loop()

    def _close_loop(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join()
        self._executor.shutdown(wait=True)  # blocking calls see the stop within ~0.5 s
        self._loop.close()


def build_server(
    app: Referee, address: str = "127.0.0.1:50051", *, max_workers: int = 32,
    interceptors: Sequence[grpc.aio.ServerInterceptor] = (), reuse_port: bool = False,
    private_socket: str | None = None,
) -> tuple[RefereeServer, int]:
    """A bound, not started server for ``app`` on ``address``, and the bound port (use port
    0 in tests). ``max_workers``: threads for the blocking methods. ``reuse_port``: share the
    port with the other workers of ``referee serve --workers N`` (else binding a used port
    fails). ``private_socket``: also listen on this Unix socket path, the HTTP gateway's
    (``referee.service.gateway``), whose calls say which HTTP client they are made for."""
    server = RefereeServer(app, address, max_workers=max_workers, interceptors=interceptors,
                           reuse_port=reuse_port, private_socket=private_socket)
    return server, server.port
