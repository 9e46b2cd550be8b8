"""The projections: scoreboard, hands (history, exports, replay source) and standings.

Each is an eventsourcing ``Projection`` whose ``process_event`` single-dispatches on the
``Match`` and ``Tournament`` event classes, stages documents in its view and ends with
``view.commit(tracking)`` (rows and position in one transaction, or one per batch). They read
the facts the events carry and never run the rules.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any, Protocol
from uuid import UUID

from eventsourcing.dispatch import singledispatchmethod
from eventsourcing.domain import Aggregate
from eventsourcing.persistence import Tracking
from eventsourcing.projection import Projection

from referee.domain.chain import event_hash
from referee.domain.clock import Clock, TimeControl
from referee.domain.match import Match
from referee.domain.result import REDEAL, match_result
from referee.domain.tournament import Tournament
from referee.rules.game import side_of, sides_of
from referee.rules.registry import find_game
from referee_projections.standings import compute_standings
from referee_projections.store import Doc, DocView


def _event_class(aggregate: type[Aggregate], name: str) -> type[Aggregate.Event]:
    """The event class eventsourcing generates for ``@event(name)`` when the aggregate class
    is created (so the type checker cannot see it as an attribute)."""
    cls = getattr(aggregate, name)
    assert isinstance(cls, type) and issubclass(cls, aggregate.Event), (aggregate, name)
    return cls


MATCH_CREATED = _event_class(Match, "Created")
HAND_DEALT = _event_class(Match, "HandDealt")
ACTION_TAKEN = _event_class(Match, "ActionTaken")
HAND_SCORED = _event_class(Match, "HandScored")
MATCH_ENDED = _event_class(Match, "MatchEnded")
RULING_RECORDED = _event_class(Match, "RulingRecorded")
TIME_CONTROLLED = Match.TimeControlled
TIMED_OUT = Match.TimedOut
CLOCK_PAUSED = Match.ClockPaused
CLOCK_RESUMED = Match.ClockResumed
CLAIM_ACCEPTED = Match.ClaimAccepted
MATCH_CONCEDED = Match.MatchConceded
SEAT_SUBSTITUTED = Match.SeatSubstituted
HAND_CANCELLED = Match.HandCancelled
MATCH_ABANDONED = Match.MatchAbandoned
CLAIM_LINE_ACTION = Match.ClaimLineAction  # an ActionTaken's fields: read by its handlers
POLICIES_SET = Match.PoliciesSet
UNDO_REQUESTED = Match.UndoRequested
UNDO_ANSWERED = Match.UndoAnswered
ACTION_WITHDRAWN = Match.ActionWithdrawn
CLAIM_PROPOSED = Match.ClaimProposed
CLAIM_ANSWERED = Match.ClaimAnswered
TOURNAMENT_CREATED = _event_class(Tournament, "Created")
ENTRANT_REGISTERED = _event_class(Tournament, "EntrantRegistered")
MATCH_ATTACHED = _event_class(Tournament, "MatchAttached")
TOURNAMENT_FINALIZED = _event_class(Tournament, "ResultsFinalized")
MATCH_FINALIZED = Match.ResultsFinalized
MATCH_EVENTS = (MATCH_CREATED, HAND_DEALT, ACTION_TAKEN, HAND_SCORED, MATCH_ENDED,
                RULING_RECORDED, TIME_CONTROLLED, TIMED_OUT, CLOCK_PAUSED, CLOCK_RESUMED,
                HAND_CANCELLED)
TOURNAMENT_EVENTS = (TOURNAMENT_CREATED, ENTRANT_REGISTERED, MATCH_ATTACHED)


# -- what the projections read from each event (the arguments of its ``@event`` method) -------
class StoredEvent(Protocol):
    originator_id: UUID
    originator_version: int
    timestamp: datetime


class MatchCreated(StoredEvent, Protocol):
    game: str
    rules: dict[str, Any]
    players: list[str]
    seat_token_hashes: list[str]
    spectator_token_hash: str
    public_spectators: bool
    first_dealer: int
    fixed_deals: list[list[str]]


class HandDealt(StoredEvent, Protocol):
    hand: int
    dealer: int
    cards: list[str]
    nonce: str
    commitment: str


class ActionTaken(StoredEvent, Protocol):
    seat: int
    action: str
    facts: list[dict[str, Any]]


class HandScored(StoredEvent, Protocol):
    hand: int
    result: dict[str, Any]
    scores: list[int]


class MatchEnded(StoredEvent, Protocol):
    scores: list[int]
    winner: int | None


class RulingRecorded(StoredEvent, Protocol):
    hand: int
    kind: str
    adjust: list[int]
    reason: str
    by: str


class HandCancelled(StoredEvent, Protocol):
    hand: int
    hands: list[int]
    reason: str
    rule: str
    by: str
    scores: list[int]
    dealer: int


def _redeal(e: HandCancelled) -> Doc:
    """The ``redeal`` ruling a ``HandCancelled`` event records, as the views keep rulings
    (it adjusts no score: ``referee.domain.result``)."""
    return {"hand": e.hand, "kind": REDEAL, "adjust": [0] * len(e.scores), "reason": e.reason,
            "by": e.by, "version": e.originator_version, "time": _ts(e), "rule": e.rule,
            "ref": 0, "hands": list(e.hands)}


class TournamentCreated(StoredEvent, Protocol):
    name: str
    game: str


class EntrantRegistered(StoredEvent, Protocol):
    entrant: str
    members: list[str]


class MatchAttached(StoredEvent, Protocol):
    match_id: str
    sides: list[str]
    board: str


def _ts(event: StoredEvent) -> str:
    return str(event.timestamp.isoformat())


def _sides(game: str) -> int:
    return sides_of(find_game(game))  # the Game contract's static shape, not the rules


def _auth(e: MatchCreated) -> Doc:
    return {"seat_token_hashes": list(e.seat_token_hashes),
            "spectator_token_hash": e.spectator_token_hash,
            "public_spectators": bool(e.public_spectators)}


def _substituted(doc: Doc, e: Any) -> None:
    """A seat given to another player: the new name, and the new token (the old one stops
    working on the read side too)."""
    doc["players"][e.seat] = e.player
    doc["auth"]["seat_token_hashes"][e.seat] = e.token_hash


class ScoreboardProjection(Projection[DocView]):
    """Per match: state, whose turn, running score hand by hand, rulings applied."""

    name = "scoreboard"
    topics = ()  # every event, so the position reaches the log head (read-your-writes)

    @singledispatchmethod
    def process_event(self, domain_event: Any, tracking: Tracking) -> None:
        self.view.commit(tracking)

    def _doc(self, e: StoredEvent) -> Doc:
        doc = self.view.get("match", str(e.originator_id))
        assert doc is not None, f"no Created event seen for {e.originator_id}"
        doc["version"] = e.originator_version
        doc["updated"] = _ts(e)
        doc["head"] = event_hash(e)
        return doc

    def _save(self, doc: Doc, tracking: Tracking) -> None:
        result = match_result(doc["scores"], doc["winner"], doc["state"] == "over",
                              doc["rulings"], doc.get("forfeit"), doc.get("abandoned"))
        doc["adjusted_scores"] = result["scores"]
        doc["result"] = result
        self.view.put("match", doc["match_id"], doc)
        self.view.commit(tracking)

    @process_event.register(MATCH_CREATED)
    def _(self, e: MatchCreated, tracking: Tracking) -> None:
        n = _sides(e.game)
        doc: Doc = {
            "match_id": str(e.originator_id), "game": e.game, "players": list(e.players),
            "state": "playing", "version": e.originator_version, "created": _ts(e),
            "updated": _ts(e), "hand": 0, "dealer": e.first_dealer, "to_act": None,
            "scores": [0] * n, "winner": None, "hands": [], "rulings": [], "auth": _auth(e),
            "head": event_hash(e),
        }
        self._save(doc, tracking)

    @process_event.register(HAND_DEALT)
    def _(self, e: HandDealt, tracking: Tracking) -> None:
        doc = self._doc(e)
        if doc.pop("redealing", False):  # the replay of a cancelled hand: its commitment
            doc["rulings"][-1]["commitment"] = e.commitment
        doc.update(hand=e.hand, dealer=e.dealer, to_act=getattr(e, "to_act", None),
                   tricks=0, hand_state="playing")
        _tick(doc, e, lambda clock: clock.turn_begins(e.timestamp))
        self._save(doc, tracking)

    @process_event.register(ACTION_TAKEN)
    @process_event.register(CLAIM_LINE_ACTION)
    def _(self, e: ActionTaken, tracking: Tracking) -> None:
        doc = self._doc(e)
        doc["to_act"] = getattr(e, "to_act", None)
        taken = sum(f["kind"] == "trick_taken" for f in e.facts)
        doc["tricks"] = doc.get("tricks", 0) + taken
        doc["last_tricks"] = taken  # taken back if the action is withdrawn
        if not isinstance(e, CLAIM_LINE_ACTION):  # a claim's line is on no one's clock
            _tick(doc, e, lambda clock: clock.acted(e.seat, e.timestamp))
        self._save(doc, tracking)

    @process_event.register(CLAIM_ACCEPTED)
    def _(self, e: Any, tracking: Tracking) -> None:
        doc = self._doc(e)
        if e.kind == "unchecked":  # carried by the other sides: the clocks run again
            _answered(doc, "claim", e)
        to_act = doc.get("to_act")
        if to_act is not None:  # the turn to act ends with the claim (as the aggregate's)
            _tick(doc, e, lambda clock: clock.acted(to_act, e.timestamp))
        self._save(doc, tracking)

    @process_event.register(SEAT_SUBSTITUTED)
    def _(self, e: Any, tracking: Tracking) -> None:
        doc = self._doc(e)
        _substituted(doc, e)
        self._save(doc, tracking)

    # Undo by consent (docs/undo.md): a request stops the clocks, its answer restarts them.
    @process_event.register(POLICIES_SET)
    def _(self, e: Any, tracking: Tracking) -> None:
        doc = self._doc(e)
        doc["policies"] = dict(e.policies)
        self._save(doc, tracking)

    @process_event.register(CLAIM_PROPOSED)
    def _(self, e: Any, tracking: Tracking) -> None:
        doc = self._doc(e)  # an unchecked claim put to the other sides stops the clocks
        doc["claim"] = {"seat": e.seat, "version": e.originator_version}
        _tick(doc, e, lambda clock: clock.pause(e.timestamp))
        self._save(doc, tracking)

    @process_event.register(CLAIM_ANSWERED)
    def _(self, e: Any, tracking: Tracking) -> None:
        doc = self._doc(e)
        if not e.accept:  # rejected: the clocks run again (carried: see CLAIM_ACCEPTED)
            _answered(doc, "claim", e)
        self._save(doc, tracking)

    @process_event.register(UNDO_REQUESTED)
    def _(self, e: Any, tracking: Tracking) -> None:
        doc = self._doc(e)
        doc["undo"] = {"seat": e.seat, "index": e.index, "version": e.originator_version,
                       "agreed": []}
        _tick(doc, e, lambda clock: clock.pause(e.timestamp))
        self._save(doc, tracking)

    @process_event.register(UNDO_ANSWERED)
    def _(self, e: Any, tracking: Tracking) -> None:
        doc = self._doc(e)
        if e.agree:
            doc["undo"]["agreed"].append(side_of(find_game(doc["game"]), e.seat))
        else:
            _answered(doc, "undo", e)
        self._save(doc, tracking)

    @process_event.register(ACTION_WITHDRAWN)
    def _(self, e: Any, tracking: Tracking) -> None:
        doc = self._doc(e)
        doc.update(undo=None, to_act=e.seat,
                   tricks=doc.get("tricks", 0) - doc.pop("last_tricks", 0))
        _tick(doc, e, lambda clock: clock.restart(e.timestamp))
        self._save(doc, tracking)

    @process_event.register(MATCH_CONCEDED)
    def _(self, e: Any, tracking: Tracking) -> None:
        doc = self._doc(e)
        doc["forfeit"] = {"seat": e.seat, "hand": doc["hand"], "conceded": True}
        self._save(doc, tracking)

    @process_event.register(MATCH_ABANDONED)
    def _(self, e: Any, tracking: Tracking) -> None:
        doc = self._doc(e)
        doc["abandoned"] = _abandoned(e, doc["hand"])
        self._save(doc, tracking)

    # The clock, kept as the aggregate keeps it (``referee.domain.clock``), from the same
    # events and their timestamps; the scoreboard query adds the deadline and time left.
    @process_event.register(TIME_CONTROLLED)
    def _(self, e: Any, tracking: Tracking) -> None:
        doc = self._doc(e)
        seats = len(doc["players"])
        doc["clock"] = Clock.start(TimeControl(**e.control), seats).to_state()
        doc["timeouts"] = []
        self._save(doc, tracking)

    @process_event.register(TIMED_OUT)
    def _(self, e: Any, tracking: Tracking) -> None:
        doc = self._doc(e)
        if e.policy == "forfeit":
            doc["forfeit"] = {"seat": e.seat, "hand": doc["hand"]}
        doc["timeouts"].append({"seat": e.seat, "policy": e.policy, "deadline": e.deadline,
                                "hand": doc["hand"], "version": e.originator_version,
                                "time": _ts(e)})
        _tick(doc, e, lambda clock: clock.timed_out(e.seat, e.policy, e.timestamp))
        self._save(doc, tracking)

    @process_event.register(CLOCK_PAUSED)
    def _(self, e: Any, tracking: Tracking) -> None:
        doc = self._doc(e)
        _tick(doc, e, lambda clock: clock.pause(e.timestamp))
        self._save(doc, tracking)

    @process_event.register(Match.BoardAssigned)
    def _(self, e: Any, tracking: Tracking) -> None:
        doc = self._doc(e)
        doc["board"] = e.board  # reads of its hands are checked while other tables play it
        self._save(doc, tracking)

    @process_event.register(CLOCK_RESUMED)
    def _(self, e: Any, tracking: Tracking) -> None:
        doc = self._doc(e)
        _tick(doc, e, lambda clock: clock.resume(e.timestamp, e.add_ms))
        self._save(doc, tracking)

    @process_event.register(HAND_SCORED)
    def _(self, e: HandScored, tracking: Tracking) -> None:
        doc = self._doc(e)
        result = dict(e.result)
        before = doc["scores"]
        doc["hands"].append({
            "hand": e.hand, "dealer": doc["dealer"], "points": result.pop("points"),
            "detail": result, "scores_before": before, "scores_after": list(e.scores),
            "rulings": [],
        })
        doc.update(scores=list(e.scores), to_act=None, hand_state="scored")
        self._save(doc, tracking)

    @process_event.register(MATCH_ENDED)
    def _(self, e: MatchEnded, tracking: Tracking) -> None:
        doc = self._doc(e)
        doc.update(state="over", scores=list(e.scores), winner=e.winner, to_act=None)
        self._save(doc, tracking)

    @process_event.register(RULING_RECORDED)
    def _(self, e: RulingRecorded, tracking: Tracking) -> None:
        doc = self._doc(e)
        ruling = {"hand": e.hand, "kind": e.kind, "adjust": list(e.adjust), "reason": e.reason,
                  "by": e.by, "version": e.originator_version, "time": _ts(e),
                  "rule": getattr(e, "rule", ""), "ref": getattr(e, "ref", 0)}
        doc["rulings"].append(ruling)
        for h in doc["hands"]:
            if h["hand"] == e.hand:
                h["rulings"].append(ruling)
        self._save(doc, tracking)

    @process_event.register(HAND_CANCELLED)
    def _(self, e: HandCancelled, tracking: Tracking) -> None:
        doc = self._doc(e)
        doc["hands"] = [h for h in doc["hands"] if h["hand"] not in e.hands]
        doc["rulings"].append(_redeal(e))
        doc.update(scores=list(e.scores), dealer=e.dealer, to_act=None, redealing=True)
        self._save(doc, tracking)


def _answered(doc: Doc, key: str, e: Any) -> None:
    """A proposal (``undo``, ``claim``) ended by its answer: the clocks run again."""
    doc[key] = None
    _tick(doc, e, lambda clock: clock.resume(e.timestamp, 0))


def _abandoned(e: Any, hand: int) -> Doc:
    """A ``MatchAbandoned`` event as the views keep it (``referee.domain.result``)."""
    return {"faults": list(e.faults), "policy": e.policy, "hand": hand, "reason": e.reason}


def _tick(doc: Doc, e: Any, change: Callable[[Clock], None]) -> None:
    """Apply ``change`` to the clock a scoreboard document keeps (if the match is timed)."""
    state = doc.get("clock")
    if state is not None:
        clock = Clock.from_state(state)
        change(clock)
        doc["clock"] = clock.to_state()


class HandsProjection(Projection[DocView]):
    """One row per hand (deal, timed actions, result), one per match: the source of the
    hand history, the exports and the dispute replay."""

    name = "hands"
    topics = ()  # every event, so the position reaches the log head (read-your-writes)

    @singledispatchmethod
    def process_event(self, domain_event: Any, tracking: Tracking) -> None:
        self.view.commit(tracking)

    @staticmethod
    def _key(match_id: UUID | str, hand: int) -> str:
        return f"{match_id}:{hand:05d}"

    def _match(self, e: StoredEvent) -> Doc:
        doc = self.view.get("match", str(e.originator_id))
        assert doc is not None, f"no Created event seen for {e.originator_id}"
        return doc

    @process_event.register(MATCH_CREATED)
    def _(self, e: MatchCreated, tracking: Tracking) -> None:
        self.view.put("match", str(e.originator_id), {
            "match_id": str(e.originator_id), "game": e.game, "rules": dict(e.rules),
            "players": list(e.players), "fixed_deals": len(e.fixed_deals), "hands": 0,
            "over": False, "result": None, "auth": _auth(e), "created": _ts(e),
        })
        self.view.commit(tracking)

    @process_event.register(HAND_DEALT)
    def _(self, e: HandDealt, tracking: Tracking) -> None:
        m = self._match(e)
        m["hands"] = e.hand
        redeal = m.pop("redealing", None)  # the replay of a cancelled hand
        if redeal is not None:
            redeal["commitment"] = e.commitment
            m["rulings"][-1] = redeal  # the HandCancelled's, just before
            m["cancelled"][-len(redeal["hands"])]["replay"] = e.commitment
        self.view.put("match", m["match_id"], m)
        self.view.put("hand", self._key(e.originator_id, e.hand), {
            "match_id": m["match_id"], "hand": e.hand, "dealer": e.dealer,
            "cards": list(e.cards), "nonce": e.nonce, "commitment": e.commitment,
            "actions": [], "result": None, "scores": None, "finished": False,
            "started": _ts(e), "ended": None, "rulings": [] if redeal is None else [redeal],
        }, parent=m["match_id"])
        self.view.commit(tracking)

    @process_event.register(HAND_CANCELLED)
    def _(self, e: HandCancelled, tracking: Tracking) -> None:
        """The hands of a ``redeal`` ruling are void: their rows move to the match's
        ``cancelled`` deals (the record lists them apart); the replay gets a new row."""
        m = self._match(e)
        ruling = _redeal(e)
        for n in e.hands:
            key = self._key(e.originator_id, n)
            doc = self.view.get("hand", key)
            if doc is not None:
                doc.update(reason=e.reason, rule=e.rule, cancelled=e.originator_version)
                m.setdefault("cancelled", []).append(doc)
                self.view.delete("hand", key)
        m.setdefault("rulings", []).append(ruling)
        m.update(hands=e.hand - 1, redealing=ruling)
        self.view.put("match", m["match_id"], m)
        self.view.commit(tracking)

    def _hand(self, e: StoredEvent, hand: int | None = None) -> Doc:
        if hand is None:
            m = self._match(e)
            hand = int(m["hands"])
        doc = self.view.get("hand", self._key(e.originator_id, hand))
        assert doc is not None
        return doc

    def _put_hand(self, doc: Doc, tracking: Tracking) -> None:
        self.view.put("hand", self._key(doc["match_id"], doc["hand"]), doc,
                      parent=doc["match_id"])
        self.view.commit(tracking)

    @process_event.register(MATCH_CONCEDED)
    def _(self, e: Any, tracking: Tracking) -> None:
        m = self._match(e)
        m["forfeit"] = {"seat": e.seat, "hand": int(m["hands"]), "conceded": True}
        self.view.put("match", m["match_id"], m)
        self.view.commit(tracking)

    @process_event.register(MATCH_ABANDONED)
    def _(self, e: Any, tracking: Tracking) -> None:
        m = self._match(e)
        m["abandoned"] = _abandoned(e, int(m["hands"]))
        self.view.put("match", m["match_id"], m)
        self.view.commit(tracking)

    @process_event.register(SEAT_SUBSTITUTED)
    def _(self, e: Any, tracking: Tracking) -> None:
        m = self._match(e)
        _substituted(m, e)
        hand = self.view.get("hand", self._key(e.originator_id, int(m["hands"]))) \
            if m["hands"] else None
        m.setdefault("substitutions", []).append({
            "seat": e.seat, "player": e.player, "previous": e.previous,
            "hand": int(m["hands"]), "action": len(hand["actions"]) if hand else 0})
        self.view.put("match", m["match_id"], m)
        self.view.commit(tracking)

    @process_event.register(UNDO_REQUESTED)
    @process_event.register(UNDO_ANSWERED)
    @process_event.register(CLAIM_PROPOSED)
    @process_event.register(CLAIM_ANSWERED)
    def _(self, e: Any, tracking: Tracking) -> None:
        doc = self._hand(e)  # what the seats put to each other, for the replay's timeline
        item = {"seat": e.seat, "version": e.originator_version, "time": _ts(e)}
        if isinstance(e, UNDO_REQUESTED):
            item.update(type="undo_request", index=e.index, action=e.action)
        elif isinstance(e, UNDO_ANSWERED):
            item.update(type="undo_answer", agree=e.agree)
        elif isinstance(e, CLAIM_PROPOSED):
            item.update(type="claim_proposal")
        else:
            item.update(type="claim_answer", accept=e.accept)
        doc.setdefault("proposals", []).append(item)
        self._put_hand(doc, tracking)

    @process_event.register(ACTION_WITHDRAWN)
    def _(self, e: Any, tracking: Tracking) -> None:
        doc = self._hand(e)
        del doc["actions"][e.index:]
        doc.setdefault("withdrawn", []).append({
            "index": e.index, "seat": e.seat, "action": e.action,
            "version": e.originator_version, "time": _ts(e)})
        self._put_hand(doc, tracking)

    @process_event.register(ACTION_TAKEN)
    @process_event.register(CLAIM_LINE_ACTION)
    def _(self, e: ActionTaken, tracking: Tracking) -> None:
        doc = self._hand(e)
        if isinstance(e, CLAIM_LINE_ACTION):
            doc.setdefault("claimed", []).append(len(doc["actions"]))
        doc["actions"].append([e.seat, e.action, _ts(e)])
        self._put_hand(doc, tracking)

    @process_event.register(HAND_SCORED)
    def _(self, e: HandScored, tracking: Tracking) -> None:
        doc = self._hand(e, e.hand)
        doc.update(result=dict(e.result), scores=list(e.scores), finished=True, ended=_ts(e))
        self._put_hand(doc, tracking)

    @process_event.register(MATCH_ENDED)
    def _(self, e: MatchEnded, tracking: Tracking) -> None:
        m = self._match(e)
        m.update(over=True, result={"scores": list(e.scores), "winner": e.winner, "over": True})
        if m.get("forfeit") is not None:
            m["result"]["forfeit"] = m["forfeit"]
        if m.get("abandoned") is not None:
            m["result"]["abandoned"] = m["abandoned"]
        self.view.put("match", m["match_id"], m)
        self.view.commit(tracking)

    @process_event.register(TIMED_OUT)
    def _(self, e: Any, tracking: Tracking) -> None:
        doc = self._hand(e)
        doc.setdefault("timeouts", []).append({
            "seat": e.seat, "policy": e.policy, "deadline": e.deadline,
            "version": e.originator_version, "time": _ts(e),
            # the referee's action for the seat is the next one (auto)
            "index": len(doc["actions"]) if e.policy == "auto" else None})
        if e.policy == "forfeit":
            m = self._match(e)
            m["forfeit"] = {"seat": e.seat, "hand": doc["hand"]}
            self.view.put("match", m["match_id"], m)
        self._put_hand(doc, tracking)

    @process_event.register(RULING_RECORDED)
    def _(self, e: RulingRecorded, tracking: Tracking) -> None:
        doc = self._hand(e, e.hand)
        ruling = {"kind": e.kind, "adjust": list(e.adjust), "reason": e.reason,
                  "by": e.by, "version": e.originator_version, "time": _ts(e)}
        doc["rulings"].append(ruling)
        m = self._match(e)
        m.setdefault("rulings", []).append({"hand": e.hand, **ruling})
        self.view.put("match", m["match_id"], m)
        self._put_hand(doc, tracking)


class StandingsProjection(Projection[DocView]):
    """Tournaments: entrants, attached matches, per-match summaries, and the standings with
    the duplicate comparison per board (recomputed once per commit for changed tournaments)."""

    name = "standings"
    topics = ()

    def __init__(self, view: DocView) -> None:
        super().__init__(view)
        self._dirty: set[str] = set()
        view.before_flush = self._recompute

    @singledispatchmethod
    def process_event(self, domain_event: Any, tracking: Tracking) -> None:
        self.view.commit(tracking)

    # -- matches: compact summaries --------------------------------------------------------
    def _summary(self, e: StoredEvent) -> Doc:
        doc = self.view.get("match", str(e.originator_id))
        assert doc is not None
        return doc

    def _save_summary(self, doc: Doc, tracking: Tracking) -> None:
        self.view.put("match", doc["match_id"], doc, parent=doc.get("tournament", ""))
        if doc.get("tournament"):
            self._dirty.add(doc["tournament"])
        self.view.commit(tracking)

    @process_event.register(MATCH_CREATED)
    def _(self, e: MatchCreated, tracking: Tracking) -> None:
        self.view.put("match", str(e.originator_id), {
            "match_id": str(e.originator_id), "game": e.game, "players": list(e.players),
            "sides": _sides(e.game), "fixed_deals": len(e.fixed_deals), "hands": {},
            "scores": [0] * _sides(e.game), "over": False, "winner": None, "rulings": [],
            "tournament": "",
        })
        self.view.commit(tracking)

    @process_event.register(HAND_SCORED)
    def _(self, e: HandScored, tracking: Tracking) -> None:
        doc = self._summary(e)
        doc["hands"][str(e.hand)] = list(e.result["points"])
        doc["scores"] = list(e.scores)
        self._save_summary(doc, tracking)

    @process_event.register(MATCH_ENDED)
    def _(self, e: MatchEnded, tracking: Tracking) -> None:
        doc = self._summary(e)
        doc.update(over=True, winner=e.winner, scores=list(e.scores))
        self._save_summary(doc, tracking)

    @process_event.register(RULING_RECORDED)
    def _(self, e: RulingRecorded, tracking: Tracking) -> None:
        doc = self._summary(e)
        doc["rulings"].append({"hand": e.hand, "kind": e.kind, "adjust": list(e.adjust),
                               "reason": e.reason})
        self._save_summary(doc, tracking)

    @process_event.register(HAND_CANCELLED)
    def _(self, e: HandCancelled, tracking: Tracking) -> None:
        doc = self._summary(e)
        for n in e.hands:  # void; dealt anew, off the board's cards (no comparison)
            doc["hands"].pop(str(n), None)
        doc["redealt"] = sorted({*doc.get("redealt", []), *e.hands})
        doc["scores"] = list(e.scores)
        self._save_summary(doc, tracking)

    @process_event.register(TIMED_OUT)
    def _(self, e: Any, tracking: Tracking) -> None:
        if e.policy != "forfeit":
            self.view.commit(tracking)
            return
        doc = self._summary(e)
        doc["forfeit"] = {"seat": e.seat}
        self._save_summary(doc, tracking)

    @process_event.register(MATCH_CONCEDED)
    def _(self, e: Any, tracking: Tracking) -> None:
        doc = self._summary(e)
        doc["forfeit"] = {"seat": e.seat}
        self._save_summary(doc, tracking)

    @process_event.register(MATCH_ABANDONED)
    def _(self, e: Any, tracking: Tracking) -> None:
        doc = self._summary(e)
        doc["abandoned"] = _abandoned(e, len(doc["hands"]))
        self._save_summary(doc, tracking)

    @process_event.register(SEAT_SUBSTITUTED)
    def _(self, e: Any, tracking: Tracking) -> None:
        doc = self._summary(e)  # standings and exports name the player who sits there now
        doc["players"][e.seat] = e.player
        self._save_summary(doc, tracking)

    # -- tournaments -----------------------------------------------------------------------
    @process_event.register(TOURNAMENT_CREATED)
    def _(self, e: TournamentCreated, tracking: Tracking) -> None:
        tid = str(e.originator_id)
        self.view.put("tournament", tid, {"tournament_id": tid, "name": e.name, "game": e.game,
                                          "entrants": {}, "matches": {}, "created": _ts(e),
                                          "abandonment": getattr(e, "abandonment", "forfeit")})
        self._dirty.add(tid)
        self.view.commit(tracking)

    def _tournament(self, e: StoredEvent) -> Doc:
        doc = self.view.get("tournament", str(e.originator_id))
        assert doc is not None
        return doc

    @process_event.register(ENTRANT_REGISTERED)
    def _(self, e: EntrantRegistered, tracking: Tracking) -> None:
        doc = self._tournament(e)
        doc["entrants"][e.entrant] = list(e.members)
        self.view.put("tournament", doc["tournament_id"], doc)
        self._dirty.add(doc["tournament_id"])
        self.view.commit(tracking)

    @process_event.register(MATCH_ATTACHED)
    def _(self, e: MatchAttached, tracking: Tracking) -> None:
        doc = self._tournament(e)
        doc["matches"][e.match_id] = {"sides": list(e.sides), "board": e.board}
        self.view.put("tournament", doc["tournament_id"], doc)
        summary = self.view.get("match", e.match_id)
        if summary is not None:
            summary["tournament"] = doc["tournament_id"]
            self.view.put("match", e.match_id, summary, parent=doc["tournament_id"])
        self._dirty.add(doc["tournament_id"])
        self.view.commit(tracking)

    @process_event.register(TOURNAMENT_FINALIZED)
    def _(self, e: Any, tracking: Tracking) -> None:
        doc = self._tournament(e)
        doc["final"] = True
        self.view.put("tournament", doc["tournament_id"], doc)
        self._dirty.add(doc["tournament_id"])
        self.view.commit(tracking)

    @process_event.register(MATCH_FINALIZED)
    def _(self, e: Any, tracking: Tracking) -> None:
        doc = self._summary(e)
        doc["final"] = True
        self._save_summary(doc, tracking)

    def _recompute(self) -> None:
        for tid in sorted(self._dirty):
            t = self.view.get("tournament", tid)
            if t is None:
                continue
            summaries = {mid: self.view.get("match", mid) for mid in t["matches"]}
            self.view.put("standings", tid, compute_standings(t, summaries))
        self._dirty.clear()


PROJECTIONS: dict[str, type[Projection[Any]]] = {
    p.name: p for p in (ScoreboardProjection, HandsProjection, StandingsProjection)
}
