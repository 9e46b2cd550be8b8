"""The server's ``grpc.health.v1`` service: grpcio's asyncio servicer, plus ``List``.

grpcio's asyncio ``HealthServicer`` answers ``List`` with UNIMPLEMENTED; this one answers it
with every registered name and its status (``""``, each service, ``liveness``), so
``grpcurl ... grpc.health.v1.Health/List`` shows what the probes can ask for.
"""

from __future__ import annotations

import grpc
from grpc_health.v1 import health, health_pb2


class HealthServicer(health.aio.HealthServicer):  # type: ignore[misc]
    """``health.aio.HealthServicer`` with ``List``."""

    async def List(self, request: health_pb2.HealthListRequest,
                   context: grpc.aio.ServicerContext) -> health_pb2.HealthListResponse:
        return health_pb2.HealthListResponse(statuses={
            name: health_pb2.HealthCheckResponse(status=status)
            for name, status in self._server_status.items()})
