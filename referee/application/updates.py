"""What the watch fan-out (:mod:`referee.application.fanout`) needs to encode updates: the
:class:`Encoder` port, and :class:`PlainEncoder` for callers in Python."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, TypeVar

from referee.application.answers import PublicEvent, View

E = TypeVar("E")


class Encoder(Protocol[E]):
    """How updates are encoded (a port: the service encodes protobuf). Encoded events of
    consecutive versions must join by :meth:`update` into one update, in order."""

    def events(self, events: Sequence[PublicEvent]) -> E:
        """The events of one version as an audience may see them."""
        ...

    def view(self, view: View) -> E:
        """An audience's view (and its version)."""
        ...

    def update(self, parts: Sequence[E], version: int) -> Any:
        """One update: encoded events in order, then one encoded view, as one message."""
        ...

    def heartbeat(self, version: int) -> Any:
        """A heartbeat at ``version``."""
        ...


class PlainEncoder:
    """Updates as ``(events, view, version)`` tuples (heartbeats: ``([], None, version)``),
    for callers in Python (and the tests)."""

    def events(self, events: Sequence[PublicEvent]) -> Any:
        return list(events)

    def view(self, view: View) -> Any:
        return view

    def update(self, parts: Sequence[Any], version: int) -> Any:
        return [e for part in parts[:-1] for e in part], parts[-1], version

    def heartbeat(self, version: int) -> Any:
        return [], None, version
