"""The API's typed table and facts as plain Python values.

A ``Table`` (what every game shares: phase, hands, the trick in progress, the tricks taken)
and a ``Fact`` keep the typed fields of their messages; what is game-specific arrives as a
``google.protobuf.Struct`` and is a dict here, its whole numbers ints again. ``state`` and
``data`` give each as one dict in the shape the games and the event log write it (what the
CLI prints and the bots read)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from google.protobuf import json_format
from google.protobuf.struct_pb2 import Struct

from trick_referee_client.api.v1 import referee_pb2 as pb

FACT_KINDS = {
    pb.FACT_KIND_TRICK_TAKEN: "trick_taken",
    pb.FACT_KIND_ANNOUNCED: "announced",
    pb.FACT_KIND_HAND_ENDED: "hand_ended",
    pb.FACT_KIND_MATCH_ENDED: "match_ended",
    pb.FACT_KIND_HAND_DEALT: "hand_dealt",
    pb.FACT_KIND_TIMED_OUT: "timed_out",
    pb.FACT_KIND_CLOCK_PAUSED: "clock_paused",
    pb.FACT_KIND_CLOCK_RESUMED: "clock_resumed",
    pb.FACT_KIND_CLAIM_ACCEPTED: "claim_accepted",
    pb.FACT_KIND_MATCH_CONCEDED: "match_conceded",
    pb.FACT_KIND_SEAT_SUBSTITUTED: "seat_substituted",
    pb.FACT_KIND_UNDO_REQUESTED: "undo_requested",
    pb.FACT_KIND_UNDO_ANSWERED: "undo_answered",
    pb.FACT_KIND_ACTION_WITHDRAWN: "action_withdrawn",
    pb.FACT_KIND_MATCH_ABANDONED: "match_abandoned",
    pb.FACT_KIND_CLAIM_PROPOSED: "claim_proposed",
    pb.FACT_KIND_CLAIM_ANSWERED: "claim_answered",
    pb.FACT_KIND_HAND_CANCELLED: "hand_cancelled",
}


def _whole(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {k: _whole(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_whole(v) for v in value]
    return value


def struct_dict(struct: Struct) -> dict[str, Any]:
    """A ``Struct`` as a dict (whole numbers as ints: a Struct keeps every number a double)."""
    out: dict[str, Any] = _whole(json_format.MessageToDict(struct))
    return out


@dataclass(frozen=True)
class Trick:
    """A trick: its number, the ``(seat, card)`` plays, who took it (None: in progress) and
    its card points."""

    number: int
    plays: list[tuple[int, str]]
    winner: int | None = None
    points: int = 0

    @classmethod
    def from_pb(cls, t: pb.Trick) -> Trick:
        return cls(t.number, [(p.seat, p.card) for p in t.plays],
                   t.winner if t.HasField("winner") else None, t.points)

    def to_json(self) -> dict[str, Any]:
        return {"number": self.number, "plays": [{"seat": s, "card": c} for s, c in self.plays],
                "winner": self.winner, "points": self.points}


@dataclass(frozen=True)
class Table:
    """The hand in play as the caller may see it; ``detail`` is what only its game has."""

    phase: str = ""
    hand_sizes: list[int] = field(default_factory=list)
    hand: list[str] = field(default_factory=list)
    hands: list[list[str]] = field(default_factory=list)
    trick: Trick = Trick(1, [])
    tricks: list[Trick] = field(default_factory=list)
    tricks_taken: list[int] = field(default_factory=list)
    detail: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_pb(cls, t: pb.Table) -> Table:
        return cls(t.phase, list(t.hand_sizes), list(t.hand), [list(h.cards) for h in t.hands],
                   Trick.from_pb(t.trick), [Trick.from_pb(x) for x in t.tricks],
                   list(t.tricks_taken), struct_dict(t.detail))

    def state(self) -> dict[str, Any]:
        """The table as one dict, as the game's view writes it (``hand``, ``trick`` as a list
        of ``{seat, card}``, ``tricks``, ``hand_sizes``... and the game's own keys)."""
        out = dict(self.detail)
        out.update(phase=self.phase, hand_sizes=self.hand_sizes,
                   trick=[{"seat": s, "card": c} for s, c in self.trick.plays],
                   tricks=[t.to_json() for t in self.tricks], tricks_taken=self.tricks_taken)
        if self.hand:
            out["hand"] = self.hand
        if self.hands:
            out["hands"] = self.hands
        return out


@dataclass(frozen=True)
class Fact:
    """Something an action (or an event of the match) caused: its ``kind``
    (``trick_taken``, ``hand_ended``, ...), the typed fields its kind sets, and ``detail``."""

    kind: str
    seat: int | None = None
    trick: Trick | None = None
    what: str = ""
    hand: int = 0
    dealer: int | None = None
    commitment: str = ""
    points: list[int] = field(default_factory=list)
    scores: list[int] = field(default_factory=list)
    winner: int | None = None
    deadline: datetime | None = None
    detail: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_pb(cls, f: pb.Fact) -> Fact:
        return cls(
            kind=FACT_KINDS.get(f.kind, "unspecified"),
            seat=f.seat if f.HasField("seat") else None,
            trick=Trick.from_pb(f.trick) if f.HasField("trick") else None,
            what=f.what, hand=f.hand, dealer=f.dealer if f.HasField("dealer") else None,
            commitment=f.commitment, points=list(f.points), scores=list(f.scores),
            winner=f.winner if f.HasField("winner") else None,
            deadline=f.deadline.ToDatetime(tzinfo=UTC) if f.HasField("deadline") else None,
            detail=struct_dict(f.detail),
        )

    @property
    def data(self) -> dict[str, Any]:
        """The fact as one dict, as the event log writes it (without ``kind``)."""
        if self.trick is not None:
            return self.trick.to_json()
        if self.kind == "announced":
            return {"what": self.what, "data": self.detail}
        out: dict[str, Any] = {}
        for key in ("seat", "hand", "dealer", "commitment", "winner"):
            value = getattr(self, key)
            if value not in (None, "", 0) or (key in ("seat", "dealer") and value == 0):
                out[key] = value
        if self.kind == "hand_ended":
            out["result"] = {"points": self.points, **self.detail}
        else:
            out.update(self.detail)
        if self.scores:
            out["scores"] = self.scores
        if self.deadline is not None:
            out["deadline"] = self.deadline.isoformat()
        if self.kind in ("match_ended", "match_conceded", "timed_out"):
            out.setdefault("winner", self.winner)
        return out
