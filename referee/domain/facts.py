"""The rules' facts as JSON-ready dicts, as stored in events and sent to clients."""

from __future__ import annotations

from typing import Any

from referee.rules.cards import CARD_NAMES
from referee.rules.game import Announced, Fact, HandEnded, TrickTaken

TRICK_TAKEN = "trick_taken"
ANNOUNCED = "announced"
HAND_ENDED = "hand_ended"
MATCH_ENDED = "match_ended"
HAND_DEALT = "hand_dealt"
TIMED_OUT = "timed_out"
CLOCK_PAUSED = "clock_paused"
CLOCK_RESUMED = "clock_resumed"
CLAIM_ACCEPTED = "claim_accepted"
SEAT_SUBSTITUTED = "seat_substituted"
MATCH_CONCEDED = "match_conceded"
HAND_CANCELLED = "hand_cancelled"
UNDO_REQUESTED = "undo_requested"
MATCH_ABANDONED = "match_abandoned"
CLAIM_PROPOSED = "claim_proposed"
CLAIM_ANSWERED = "claim_answered"
UNDO_ANSWERED = "undo_answered"
ACTION_WITHDRAWN = "action_withdrawn"


def fact_json(fact: Fact) -> dict[str, Any]:
    """One fact as a JSON-ready dict with a ``kind`` key."""
    if isinstance(fact, TrickTaken):
        return {
            "kind": TRICK_TAKEN,
            "number": fact.number,
            "plays": [{"seat": s, "card": CARD_NAMES[c]} for s, c in fact.plays],
            "winner": fact.winner,
            "points": fact.points,
        }
    if isinstance(fact, Announced):
        return {"kind": ANNOUNCED, "what": fact.what, "data": dict(fact.data)}
    if isinstance(fact, HandEnded):
        return {"kind": HAND_ENDED, "result": fact.result.to_json()}
    raise TypeError(f"not a fact: {fact!r}")
