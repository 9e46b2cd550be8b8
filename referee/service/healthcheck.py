"""``referee health``: ask a server's ``grpc.health.v1`` service (for container health checks)."""

from __future__ import annotations

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc


def check(address: str, service: str = "", timeout: float = 3.0) -> int:
    """0 when ``service`` at ``address`` answers SERVING, 1 otherwise (printing why)."""
    target = address.replace("0.0.0.0", "127.0.0.1", 1)
    try:
        with grpc.insecure_channel(target) as channel:
            stub = health_pb2_grpc.HealthStub(channel)
            reply = stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=timeout)
    except grpc.RpcError as exc:
        details = exc.details() or ""  # the server's text: no raw control characters
        print(f"unhealthy: {exc.code().name} "
              f"{details if details.isprintable() else ascii(details)}")
        return 1
    name = health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)
    print(name)
    return 0 if reply.status == health_pb2.HealthCheckResponse.SERVING else 1
