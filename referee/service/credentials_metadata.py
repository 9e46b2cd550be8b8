"""Credentials in call metadata: ``authorization: Bearer <token>``, read by one interceptor.

No request message carries a token (a seat, spectator, organiser or auditor token): the
caller sends it as call metadata, as HTTP APIs do, so that it stays out of request dumps and
logs of request bodies. :class:`BearerTokenInterceptor` reads it once per call, checks its
form and size, and keeps it for the call's handler: :func:`caller_token`.
"""

from __future__ import annotations

import contextvars
from typing import Any

import grpc

from referee.domain.errors import LimitExceededError, MalformedRequestError
from referee.limits import MAX_TOKEN
from referee.service.errors import abort
from referee.service.interception import NOT_OURS, HandlerRewriter, Stream, Unary, rebuilt

SCHEME = "bearer "

_CALLER: contextvars.ContextVar[str] = contextvars.ContextVar("caller_token", default="")


def caller_token() -> str:
    """The credential of the call being handled ("" without one): its ``authorization:
    Bearer`` metadata, as :class:`BearerTokenInterceptor` read it."""
    return _CALLER.get()


def bearer(context: grpc.aio.ServicerContext) -> str:
    """The token of the call's ``authorization: Bearer ...`` metadata ("" without one).

    :raises MalformedRequestError: an ``authorization`` that is not ``Bearer <token>``.
    :raises LimitExceededError: a token longer than any the referee issues."""
    for key, value in context.invocation_metadata() or ():
        if key != "authorization":
            continue
        if not (isinstance(value, str) and value[:len(SCHEME)].lower() == SCHEME):
            raise MalformedRequestError(
                "the authorization metadata must be 'Bearer <token>'", field="authorization")
        token = value[len(SCHEME):].strip()
        if len(token) > MAX_TOKEN:
            raise LimitExceededError(
                f"the bearer token is {len(token)} characters long; the limit is {MAX_TOKEN}",
                field="authorization", limit=MAX_TOKEN, size=len(token))
        return token
    return ""


class BearerTokenInterceptor(HandlerRewriter):
    """Reads ``authorization: Bearer`` metadata into the call's :func:`caller_token`."""

    def rewrite(self, method: str, handler: Any) -> Any:
        if method.startswith(NOT_OURS):  # health and reflection take no token
            return handler

        def unary(old: Unary) -> Unary:
            async def call(request: Any, context: grpc.aio.ServicerContext) -> Any:
                try:
                    _CALLER.set(bearer(context))
                except (MalformedRequestError, LimitExceededError) as exc:
                    await abort(context, exc)
                return await old(request, context)
            return call

        def stream(old: Stream) -> Stream:
            async def call(request: Any, context: grpc.aio.ServicerContext) -> Any:
                try:
                    _CALLER.set(bearer(context))
                except (MalformedRequestError, LimitExceededError) as exc:
                    await abort(context, exc)
                async for item in old(request, context):
                    yield item
            return call

        return rebuilt(handler, unary, stream)
