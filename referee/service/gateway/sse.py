"""Server-Sent Events for the server-streaming RPCs: each answer is one ``data:`` line of
JSON; an answer with a ``version`` field gives it as the event ``id``, and a request with an
``after_version`` field takes the ``Last-Event-ID`` a reconnecting ``EventSource`` sends, so a
browser resumes where it left off. A stream that ends says so with an ``end`` event, or an
``error`` event holding the Connect error (then the client decides whether to reconnect)."""

from __future__ import annotations

from google.protobuf.message import Message

VERSION, AFTER = "version", "after_version"


def event(data: bytes, message: Message | None = None, *, name: str = "") -> bytes:
    """One SSE event: ``event:`` (when named), ``id:`` (the message's version), ``data:``.
    ``data`` is compact JSON: one line."""
    head = f"event: {name}\n" if name else ""
    if message is not None and VERSION in message.DESCRIPTOR.fields_by_name:
        head += f"id: {getattr(message, VERSION)}\n"
    return head.encode() + b"data: " + data + b"\n\n"


def resume_from(request: Message, last_event_id: str | None) -> None:
    """Set the request's ``after_version`` from ``Last-Event-ID`` (a version number), when
    the request has that field and the header is a number later than the one asked."""
    if (last_event_id and last_event_id.isdigit() and len(last_event_id) < 19
            and AFTER in request.DESCRIPTOR.fields_by_name):
        setattr(request, AFTER, max(getattr(request, AFTER), int(last_event_id)))
