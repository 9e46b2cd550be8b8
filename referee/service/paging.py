"""``page_size`` / ``page_token`` of the list RPCs: one page of a list the server already
holds in full, and the token of the next one.

A token is opaque to clients: the list's name and the offset of the next page, base64. A
token of another list, or one that does not decode, is refused (``MALFORMED_REQUEST`` with
a field violation on ``page_token``), never read as the first page."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Sequence
from typing import TypeVar

from referee.domain.errors import MalformedRequestError

T = TypeVar("T")

DEFAULT_PAGE_SIZE = 100
MAX_PAGE_SIZE = 1000
"""A larger page_size is answered with this many (as AIP-158 coerces)."""


def _token(kind: str, offset: int) -> str:
    return base64.urlsafe_b64encode(f"{kind}:{offset}".encode()).decode()


def _offset(kind: str, token: str) -> int:
    if not token:
        return 0
    try:
        name, _, number = base64.urlsafe_b64decode(token.encode()).decode().partition(":")
        offset = int(number)
    except (binascii.Error, UnicodeDecodeError, ValueError):
        offset = -1
        name = ""
    if name != kind or offset < 0:
        raise MalformedRequestError(
            f"page_token {token[:64]!r} is not a page token of this list (pass the "
            "next_page_token of the previous page, or nothing for the first)",
            field="page_token")
    return offset


def paged(items: Sequence[T], page_size: int, page_token: str, kind: str
          ) -> tuple[list[T], str]:
    """The page of ``items`` that ``page_token`` points at, and the next page's token
    (empty after the last page).

    :raises MalformedRequestError: a negative ``page_size`` or a bad ``page_token``."""
    if page_size < 0:
        raise MalformedRequestError(f"page_size must be 0 (the default, {DEFAULT_PAGE_SIZE}) "
                                    f"or more, not {page_size}", field="page_size")
    size = min(page_size or DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)
    start = _offset(kind, page_token)
    end = start + size
    return list(items[start:end]), _token(kind, end) if end < len(items) else ""
