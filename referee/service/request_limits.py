"""Size limits of every request field, checked on each decoded request before its handler.

One table by field name (the names mean the same thing in every message of the API); a field
not in it gets the defaults of :mod:`referee.limits`. Strings are counted in characters,
bytes in bytes, repeated fields in items; nested messages are checked the same way.
"""

from __future__ import annotations

from typing import Any

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from referee import limits as lim
from referee.domain.errors import LimitExceededError

#: field name -> (most characters or bytes of one value, most items of a repeated field)
FIELD_LIMITS: dict[str, tuple[int, int]] = {
    "token": (lim.MAX_TOKEN, 1),
    "match_id": (64, 1),
    "tournament_id": (64, 1),
    "game": (32, 1),
    "action": (lim.MAX_ACTION, 1),
    "command_id": (lim.MAX_COMMAND_ID, 1),
    "rules": (64, 64),
    "string_value": (64, 1),
    "page_token": (256, 1),
    "players": (lim.MAX_PLAYER_NAME, 16),
    "player": (lim.MAX_PLAYER_NAME, 1),
    "seed_entropy": (lim.MAX_BYTES, 1),
    "fixed_deals": (0, lim.MAX_FIXED_DEALS),
    "cards": (8, lim.MAX_CARDS),
    "reason": (lim.MAX_REASON, 1),
    "kind": (32, 1),
    "points": (0, 16),
    "name": (lim.MAX_TITLE, 1),
    "entrant": (lim.MAX_TITLE, 1),
    "members": (lim.MAX_PLAYER_NAME, 16),
    "sides": (128, 16),
    "board": (128, 1),
    "anchor_head": (128, 1),
    "undo": (16, 1),
    "unchecked_claims": (16, 1),
    "abandonment": (16, 1),
    "url": (lim.MAX_WEBHOOK_URL, 1),
    "secret": (lim.MAX_WEBHOOK_SECRET, 1),
    "event_types": (32, 8),
    "endpoint_id": (64, 1),
}

_TEXT = (FieldDescriptor.TYPE_STRING, FieldDescriptor.TYPE_BYTES)


def check_request(message: Message, path: str = "") -> None:
    """:raises LimitExceededError: for the first field of ``message`` over its limit."""
    for field, value in message.ListFields():
        name = f"{path}{field.name}"
        size, items = FIELD_LIMITS.get(field.name, (_default_size(field), lim.MAX_ITEMS))
        repeated = _is_repeated(field)
        if repeated and field.message_type is not None and field.message_type.GetOptions(
        ).map_entry:  # a map: its keys are text, its values checked like fields
            lim.check_length(name, list(value), items, "items")
            for key, item in value.items():
                if len(str(key)) > size:
                    raise LimitExceededError(
                        f"{name} has a key of {len(str(key))} characters; the limit is {size}",
                        field=name, limit=size, size=len(str(key)))
                if isinstance(item, Message):
                    check_request(item, f"{name}[{key}].")
            continue
        values: Any = value if repeated else (value,)
        if repeated:
            lim.check_length(name, list(value), items, "items")
        for i, item in enumerate(values):
            where = f"{name}[{i}]" if repeated else name
            if field.type in _TEXT:
                unit = "characters" if field.type == FieldDescriptor.TYPE_STRING else "bytes"
                lim.check_length(where, item, size, unit)
            elif field.type == FieldDescriptor.TYPE_MESSAGE:
                check_request(item, f"{where}.")


def _is_repeated(field: FieldDescriptor) -> bool:
    flag = getattr(field, "is_repeated", None)  # protobuf >= 6; ``label`` is gone in 7
    return bool(flag) if flag is not None else field.label == FieldDescriptor.LABEL_REPEATED


def _default_size(field: FieldDescriptor) -> int:
    return lim.MAX_STRING if field.type == FieldDescriptor.TYPE_STRING else lim.MAX_BYTES
