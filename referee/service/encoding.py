"""The application's JSON-ready values as the API's typed messages: the table a caller sees,
the facts of an action, rule values, times. What every game shares becomes typed fields;
what only one game (or one kind of fact) has goes into a ``google.protobuf.Struct``
(docs/api.md lists its keys)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from google.protobuf.struct_pb2 import Struct
from google.protobuf.timestamp_pb2 import Timestamp

from referee.api.v1 import referee_pb2 as pb
from referee.domain.errors import InvalidRulesError
from referee.domain.facts import (
    ACTION_WITHDRAWN,
    ANNOUNCED,
    CLAIM_ACCEPTED,
    CLAIM_ANSWERED,
    CLAIM_PROPOSED,
    CLOCK_PAUSED,
    CLOCK_RESUMED,
    HAND_CANCELLED,
    HAND_DEALT,
    HAND_ENDED,
    MATCH_ABANDONED,
    MATCH_CONCEDED,
    MATCH_ENDED,
    SEAT_SUBSTITUTED,
    TIMED_OUT,
    TRICK_TAKEN,
    UNDO_ANSWERED,
    UNDO_REQUESTED,
)
from referee.rules.game import side_of
from referee.rules.registry import GAMES

FACT_KINDS = {
    TRICK_TAKEN: pb.FACT_KIND_TRICK_TAKEN,
    ANNOUNCED: pb.FACT_KIND_ANNOUNCED,
    HAND_ENDED: pb.FACT_KIND_HAND_ENDED,
    MATCH_ENDED: pb.FACT_KIND_MATCH_ENDED,
    HAND_DEALT: pb.FACT_KIND_HAND_DEALT,
    TIMED_OUT: pb.FACT_KIND_TIMED_OUT,
    CLOCK_PAUSED: pb.FACT_KIND_CLOCK_PAUSED,
    CLOCK_RESUMED: pb.FACT_KIND_CLOCK_RESUMED,
    CLAIM_ACCEPTED: pb.FACT_KIND_CLAIM_ACCEPTED,
    MATCH_CONCEDED: pb.FACT_KIND_MATCH_CONCEDED,
    SEAT_SUBSTITUTED: pb.FACT_KIND_SEAT_SUBSTITUTED,
    UNDO_REQUESTED: pb.FACT_KIND_UNDO_REQUESTED,
    UNDO_ANSWERED: pb.FACT_KIND_UNDO_ANSWERED,
    ACTION_WITHDRAWN: pb.FACT_KIND_ACTION_WITHDRAWN,
    MATCH_ABANDONED: pb.FACT_KIND_MATCH_ABANDONED,
    CLAIM_PROPOSED: pb.FACT_KIND_CLAIM_PROPOSED,
    CLAIM_ANSWERED: pb.FACT_KIND_CLAIM_ANSWERED,
    HAND_CANCELLED: pb.FACT_KIND_HAND_CANCELLED,
}

POLICY_PB = {"auto": pb.TIMEOUT_POLICY_AUTO, "forfeit": pb.TIMEOUT_POLICY_FORFEIT,
             "pause": pb.TIMEOUT_POLICY_PAUSE}
"""Timeout policies by name, as the clocks keep them."""

TABLE_KEYS = frozenset({"game", "phase", "dealer", "to_act", "seat", "hand", "hands",
                        "hand_sizes", "trick", "tricks"})
"""Keys of a game's view that are typed fields (of :class:`pb.Table` or of the view around
it); every other key is game-specific and goes into ``Table.detail``."""

_FACT_KEYS = frozenset({"kind", "seat", "number", "plays", "winner", "points", "what", "hand",
                        "dealer", "commitment", "scores", "deadline", "result", "data"})


def struct_of(data: Mapping[str, Any]) -> Struct:
    """A JSON-ready mapping as a ``Struct`` (its numbers become doubles)."""
    out = Struct()
    out.update(_plain(data))
    return out


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def timestamp_of(when: str | datetime) -> Timestamp:
    """An aware datetime, or its ISO 8601 text, as a ``Timestamp``."""
    out = Timestamp()
    out.FromDatetime(datetime.fromisoformat(when) if isinstance(when, str) else when)
    return out


def play_list(plays: Sequence[Mapping[str, Any]]) -> list[pb.Play]:
    return [pb.Play(seat=p["seat"], card=p["card"]) for p in plays]


def trick_pb(trick: Mapping[str, Any]) -> pb.Trick:
    """A trick as the games' views and facts write it: ``number``, ``plays``, ``winner``,
    ``points``."""
    out = pb.Trick(number=trick["number"], plays=play_list(trick["plays"]),
                   points=trick.get("points") or 0)
    if trick.get("winner") is not None:
        out.winner = trick["winner"]
    return out


def sides_by_seat(game: str) -> list[int]:
    """The side that scores a trick each seat of ``game`` takes."""
    g = GAMES[game]
    return [side_of(g, s) for s in range(g.num_seats)]


def table_pb(state: Mapping[str, Any], side_of: Sequence[int]) -> pb.Table:
    """A game's (redacted or audit) view as a :class:`pb.Table`; ``side_of[seat]`` is the
    side that scores a trick the seat takes."""
    tricks = state.get("tricks") or []
    taken = [0] * (max(side_of, default=-1) + 1)
    for t in tricks:
        if t.get("winner") is not None:
            taken[side_of[t["winner"]]] += 1
    return pb.Table(
        phase=state.get("phase") or "",
        hand_sizes=state.get("hand_sizes") or [],
        hand=state.get("hand") or [],
        hands=[pb.Cards(cards=h) for h in state.get("hands") or []],
        trick=pb.Trick(number=len(tricks) + 1, plays=play_list(state.get("trick") or [])),
        tricks=[trick_pb(t) for t in tricks],
        tricks_taken=taken,
        detail=struct_of({k: v for k, v in state.items() if k not in TABLE_KEYS}),
    )


def fact_pb(fact: Mapping[str, Any]) -> pb.Fact:
    """One fact (``referee.domain.facts``) as a :class:`pb.Fact`."""
    kind = fact["kind"]
    out = pb.Fact(kind=FACT_KINDS.get(kind, pb.FACT_KIND_UNSPECIFIED))
    detail = {k: v for k, v in fact.items() if k not in _FACT_KEYS}
    if kind == TRICK_TAKEN:
        out.trick.CopyFrom(trick_pb(fact))
    else:
        if fact.get("seat") is not None:
            out.seat = fact["seat"]
        if fact.get("winner") is not None:
            out.winner = fact["winner"]
    if kind == ANNOUNCED:
        out.what = fact["what"]
        detail.update(fact.get("data") or {})
    if kind == HAND_ENDED:
        result = dict(fact.get("result") or {})
        out.points.extend(result.pop("points", []))
        detail.update(result)
    out.hand = fact.get("hand") or 0
    if fact.get("dealer") is not None:
        out.dealer = fact["dealer"]
    out.commitment = fact.get("commitment") or ""
    out.scores.extend(fact.get("scores") or [])
    if fact.get("deadline"):
        out.deadline.CopyFrom(timestamp_of(fact["deadline"]))
    out.detail.CopyFrom(struct_of(detail))
    return out


def rule_value_pb(value: bool | int | str) -> pb.RuleValue:
    """A rule parameter's value as a :class:`pb.RuleValue`."""
    if isinstance(value, bool):
        return pb.RuleValue(bool_value=value)
    if isinstance(value, int):
        return pb.RuleValue(int_value=value)
    return pb.RuleValue(string_value=value)


def rules_of(rules: Mapping[str, pb.RuleValue]) -> dict[str, bool | int | str]:
    """``CreateMatchRequest.rules`` as the plain values the rules check.

    :raises InvalidRulesError: a parameter with no value set."""
    out: dict[str, bool | int | str] = {}
    for name, value in rules.items():
        which = value.WhichOneof("value")
        if which is None:
            raise InvalidRulesError(f"rules[{name!r}] has no value (set bool_value, int_value "
                                    "or string_value)", field=f"rules[{name}]")
        out[name] = getattr(value, which)
    return out
