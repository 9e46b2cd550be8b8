"""``referee serve --http PORT``: the same API as JSON over HTTP, beside gRPC.

Every RPC of the public services is served at its gRPC path (``POST
/referee.api.v1.RefereeService/GetView`` with the request as JSON), following the Connect
protocol's unary form, so a Connect client or plain ``curl`` can call it; the server-streaming
RPCs (``WatchMatch``, ``WatchScoreboard``, ``ExportTournament``) answer as Server-Sent Events
(``GET`` with the request as the ``message`` query parameter, or ``POST``). Nothing is routed by
hand: the methods come from the proto descriptors (:mod:`.methods`) and the JSON from
protobuf's own mapping. ``GET /openapi.json`` describes it all (:mod:`.openapi`); ``GET
/live?match=ID`` is a small page that follows a public match.

The gateway is a client of the gRPC server of its own process, over a private Unix socket:
every call takes the same checks, limits and errors as a gRPC call. It says which HTTP client
it calls for (``x-referee-client``), so the per-peer limits count that client, not the gateway.
"""

from __future__ import annotations

import asyncio
import json
import os
import tempfile
import threading
from collections.abc import Mapping, Sequence
from importlib import resources
from typing import Any

import grpc
from aiohttp import web
from google.protobuf import json_format
from google.protobuf.message import Message

from referee.limits import MAX_REQUEST_BYTES
from referee.service.gateway.errors import connect_error, error_json, retry_after
from referee.service.gateway.methods import Method, public_methods
from referee.service.gateway.openapi import openapi_document
from referee.service.gateway.sse import event, resume_from
from referee.service.peers import CLIENT_HEADER

JSON = "application/json"
#: Longest unary call the gateway waits for, and the default (``connect-timeout-ms`` asks less).
MAX_TIMEOUT_S = 60.0
#: Reconnection delay a browser's ``EventSource`` is told to use after a stream ends.
SSE_RETRY_MS = 2000


def private_socket_path() -> str:
    """A path for the gRPC server's private Unix socket, in a new directory only this user
    may enter (remove the directory when the server stops)."""
    return os.path.join(tempfile.mkdtemp(prefix="referee-"), "grpc.sock")


class Gateway:
    """The HTTP side of one server process, on a thread and event loop of its own.
    ``target``: the gRPC server's address (its private Unix socket)."""

    def __init__(self, target: str, host: str, port: int, *, reuse_port: bool = False) -> None:
        self._methods = public_methods()
        self._openapi = json.dumps(openapi_document(), indent=1).encode()
        self._live = resources.files(__package__).joinpath("live.html").read_bytes()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="referee-http",
                                        daemon=True)
        self._thread.start()
        self.port = asyncio.run_coroutine_threadsafe(
            self._start(target, host, port, reuse_port), self._loop).result()

    async def _start(self, target: str, host: str, port: int, reuse_port: bool) -> int:
        self._channel = grpc.aio.insecure_channel(
            target, options=[("grpc.max_receive_message_length", 64 << 20)])
        app = web.Application(client_max_size=MAX_REQUEST_BYTES)
        app.router.add_get("/openapi.json", self._document)
        app.router.add_get("/live", self._live_page)
        app.router.add_route("*", "/{service}/{method}", self._call)
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False,
                                     handler_cancellation=True)
        await self._runner.setup()
        site = web.TCPSite(self._runner, host, port, reuse_port=reuse_port)
        await site.start()
        bound: int = self._runner.addresses[0][1]
        return bound

    def stop(self) -> None:
        """Close the listener and every open call (streams end; their clients reconnect)."""
        async def stopping() -> None:
            await self._runner.cleanup()
            await self._channel.close()

        try:
            asyncio.run_coroutine_threadsafe(stopping(), self._loop).result(timeout=10)
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join()
            self._loop.close()

    async def _document(self, request: web.Request) -> web.Response:
        return web.Response(body=self._openapi, content_type=JSON)

    async def _live_page(self, request: web.Request) -> web.Response:
        """``/live?match=ID``: a page that follows a public match over SSE (a spectator's
        window, and the example of ``EventSource`` against this gateway)."""
        return web.Response(body=self._live, content_type="text/html", charset="utf-8")

    async def _call(self, request: web.Request) -> web.StreamResponse:
        method = self._methods.get(request.path)
        if method is None:
            return _error(404, "not_found", f"no method {request.path}: GET /openapi.json lists "
                          "them all (POST /<service>/<method>)")
        allowed = ("GET", "POST") if method.streaming else ("POST",)
        if request.method not in allowed:
            return _error(405, "invalid_argument", f"{method.path} takes {' or '.join(allowed)}",
                          headers={"Allow": ", ".join(allowed)})
        message = await _request_message(request, method)
        if isinstance(message, web.Response):
            return message
        metadata = _metadata(request)
        if metadata is None:
            return _error(401, "unauthenticated", "the bearer token is not printable ASCII: "
                          "not one the referee issued")
        if method.streaming:
            return await self._stream(request, method, message, metadata)
        call = self._channel.unary_unary(
            method.path, request_serializer=_serialize,
            response_deserializer=method.response.FromString)
        try:
            reply = await call(message, metadata=metadata, timeout=_timeout(request))
        except grpc.aio.AioRpcError as exc:
            return _rpc_error(exc)
        return web.Response(body=_json(reply), content_type=JSON)

    async def _stream(self, request: web.Request, method: Method, message: Message,
                      metadata: Sequence[tuple[str, str]]) -> web.StreamResponse:
        resume_from(message, request.headers.get("Last-Event-ID"))
        call = self._channel.unary_stream(
            method.path, request_serializer=_serialize,
            response_deserializer=method.response.FromString)(message, metadata=metadata)
        try:
            first = await call.read()
        except grpc.aio.AioRpcError as exc:  # refused before anything was sent: a plain error
            return _rpc_error(exc)
        response = web.StreamResponse(headers={
            "Content-Type": "text/event-stream", "Cache-Control": "no-cache",
            "X-Accel-Buffering": "no"})
        await response.prepare(request)
        await response.write(f"retry: {SSE_RETRY_MS}\n\n".encode())
        try:
            reply = first
            while reply is not grpc.aio.EOF:
                await response.write(event(_json(reply), reply))
                reply = await call.read()
            await response.write(event(b"{}", name="end"))
        except grpc.aio.AioRpcError as exc:  # the stream ended early: say why, then close
            _, body = connect_error(exc.code(), exc.details() or "",
                                    tuple(exc.trailing_metadata() or ()))
            await response.write(event(error_json(body), name="error"))
        finally:
            call.cancel()
        return response


async def _request_message(request: web.Request, method: Method) -> Message | web.Response:
    """The request message from the JSON body (or the ``message`` query parameter of a
    ``GET``), or the error response that says what is wrong with it."""
    if request.method == "GET":
        text = request.query.get("message", "{}")
    else:
        if request.content_type not in (JSON, "application/octet-stream") and request.can_read_body:
            return _error(415, "invalid_argument",
                          f"send the request as {JSON}, not {request.content_type}")
        try:
            text = (await request.read()).decode() or "{}"
        except web.HTTPRequestEntityTooLarge:
            return _error(413, "resource_exhausted",
                          f"the request is over {MAX_REQUEST_BYTES} bytes")
        except UnicodeDecodeError:
            return _error(400, "invalid_argument", "the request body is not UTF-8")
    try:
        return json_format.Parse(text, method.request())
    except json_format.ParseError as exc:
        return _error(400, "invalid_argument",
                      f"not a JSON {method.request.DESCRIPTOR.name}: {exc}")


def _metadata(request: web.Request) -> list[tuple[str, str]] | None:
    """The call's credential and the HTTP client it is made for (per-peer limits); None for
    an ``Authorization`` gRPC metadata cannot carry (not printable ASCII)."""
    remote = request.remote or "unknown"
    client = f"ipv6:[{remote}]:0" if ":" in remote else f"ipv4:{remote}:0"
    metadata = [(CLIENT_HEADER, client)]
    auth = request.headers.get("Authorization")
    if auth:
        if not (auth.isascii() and auth.isprintable()):
            return None
        metadata.append(("authorization", auth))
    return metadata


def _timeout(request: web.Request) -> float:
    """``connect-timeout-ms`` (Connect's deadline header), at most :data:`MAX_TIMEOUT_S`."""
    asked = request.headers.get("Connect-Timeout-Ms", "")
    if asked.isdigit() and 0 < int(asked) <= MAX_TIMEOUT_S * 1000:
        return int(asked) / 1000
    return MAX_TIMEOUT_S


def _serialize(message: Message) -> bytes:
    data: bytes = message.SerializeToString()
    return data


def _json(message: Message) -> bytes:
    text: str = json_format.MessageToJson(
        message, indent=None, always_print_fields_with_no_presence=True, ensure_ascii=False)
    return text.encode()


def _rpc_error(exc: grpc.aio.AioRpcError) -> web.Response:
    status, body = connect_error(exc.code(), exc.details() or "",
                                 tuple(exc.trailing_metadata() or ()))
    wait = retry_after(body)
    return web.Response(status=status, body=error_json(body), content_type=JSON,
                        headers={"Retry-After": wait} if wait else None)


def _error(status: int, code: str, message: str,
           headers: Mapping[str, str] | None = None) -> web.Response:
    body: dict[str, Any] = {"code": code, "message": message}
    return web.Response(status=status, body=error_json(body), content_type=JSON,
                        headers=headers)
