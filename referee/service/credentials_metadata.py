"""Credentials in call metadata: ``authorization: Bearer <token>``, read by one interceptor.

Every request that names a caller has a ``token`` field (a seat, spectator, organiser or
auditor token). A client may leave it empty and send the token as call metadata instead, as
HTTP APIs do (it then stays out of request dumps and logs of request bodies); this interceptor
puts it where the handlers read it. A request with a different token in both places is
refused (MALFORMED_REQUEST): the caller must say who it is once.
"""

from __future__ import annotations

from typing import Any

import grpc

from referee.domain.errors import MalformedRequestError
from referee.service.errors import abort
from referee.service.interception import NOT_OURS, HandlerRewriter, Stream, Unary, rebuilt

SCHEME = "bearer "


def bearer(context: grpc.aio.ServicerContext) -> str:
    """The token of the call's ``authorization: Bearer ...`` metadata ("" without one)."""
    for key, value in context.invocation_metadata() or ():
        if (key == "authorization" and isinstance(value, str)
                and value[:len(SCHEME)].lower() == SCHEME):
            return value[len(SCHEME):].strip()
    return ""


def _with_token(request: Any, context: grpc.aio.ServicerContext) -> str | None:
    """Fill ``request.token`` from the metadata; return an error message, or None."""
    token = bearer(context)
    if not token or not hasattr(request, "DESCRIPTOR"):
        return None
    if "token" not in request.DESCRIPTOR.fields_by_name:
        return None
    if request.token and request.token != token:
        return ("two different credentials: the request's token field and the "
                "authorization metadata; send the token once")
    request.token = token
    return None


class BearerTokenInterceptor(HandlerRewriter):
    """Reads ``authorization: Bearer`` metadata into the request's ``token`` field."""

    def rewrite(self, method: str, handler: Any) -> Any:
        if method.startswith(NOT_OURS):  # health and reflection take no token
            return handler

        def unary(old: Unary) -> Unary:
            async def call(request: Any, context: grpc.aio.ServicerContext) -> Any:
                problem = _with_token(request, context)
                if problem:
                    await abort(context, MalformedRequestError(problem, field="token"))
                return await old(request, context)
            return call

        def stream(old: Stream) -> Stream:
            async def call(request: Any, context: grpc.aio.ServicerContext) -> Any:
                problem = _with_token(request, context)
                if problem:
                    await abort(context, MalformedRequestError(problem, field="token"))
                async for item in old(request, context):
                    yield item
            return call

        return rebuilt(handler, unary, stream)
