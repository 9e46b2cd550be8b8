"""The gRPC adapter: decode the request, call the application, encode the reply."""

from referee.service.server import build_server

__all__ = ["build_server"]
