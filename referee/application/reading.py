"""Reading a match: views, the events and views the watch fan-out sends
(:mod:`referee.application.fanout`), hand and match records, deal checks and the rejection
trail. Every read goes through the token authority; nothing shows a seat
another seat's unplayed cards unless the caller is the auditor or the hand is over."""

from __future__ import annotations

import hmac
from collections.abc import Iterable, Mapping
from copy import deepcopy
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

from referee import limits
from referee.application.answers import DealCheck, PublicEvent, View
from referee.application.boards import Boards
from referee.application.live import LiveMatches
from referee.application.ports import MatchStore, RejectionTrail
from referee.application.principals import Principal, Role, Tokens
from referee.changes import ChangeWaiters
from referee.domain.deal import commitment
from referee.domain.errors import HandNotFinishedError, HandNotFoundError
from referee.domain.facts import (
    ACTION_WITHDRAWN,
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
    UNDO_ANSWERED,
    UNDO_REQUESTED,
)
from referee.domain.match import HandLog, Match
from referee.domain.result import cancellation, match_result, record_rulings
from referee.rejections import Rejection
from referee.rules.cards import parse_card
from referee.rules.game import JSON, is_public
from referee.rules.handrecord import CancelledDeal, HandRecord, MatchRecord

Update = tuple[list[PublicEvent], View | None, int]


class Reading:
    """The queries of the write side (the projections answer the others)."""

    def __init__(self, live: LiveMatches, store: MatchStore, tokens: Tokens,
                 rejections: RejectionTrail, changes: ChangeWaiters, boards: Boards) -> None:
        self._live, self._store, self._tokens = live, store, tokens
        self._rejections, self._changes, self._boards = rejections, changes, boards

    def get_match(self, match_id: UUID) -> Match:
        """A private copy of the match as committed (safe to mutate)."""
        with self._live.reading(match_id) as match:
            return deepcopy(match)

    def get_view(self, match_id: UUID, token: str) -> View:
        with self._live.reading(match_id) as match:
            return view_of(match, self._tokens.authorize(match, token))

    def events_after(self, match: Match, who: Principal, after: int) -> list[PublicEvent]:
        """The stored events after version ``after``, redacted for ``who``."""
        return _redacted(match, who, after, self._store.events(match.id, after, match.version))

    def hand_record(self, match_id: UUID, hand: int, token: str) -> tuple[dict[str, JSON], bool]:
        """One hand as a ``referee.hand/v1`` record: finished hands for anyone with access,
        any hand for the auditor."""
        with self._live.reading(match_id) as match:
            who = self._tokens.authorize(match, token)
            log = _hand(match, hand, who)
            self._boards.check(match, hand, who.role is Role.AUDITOR)
            return _hand_record(match, log).to_json(), log.result is not None

    def match_record(self, match_id: UUID, token: str) -> tuple[dict[str, JSON], bool]:
        """The match as a ``referee.match/v1`` record (finished hands, and the one a forfeit
        ended; the auditor also gets the running one)."""
        with self._live.reading(match_id) as match:
            who = self._tokens.authorize(match, token)
            for hand in self._boards.hidden(match) if who.role is not Role.AUDITOR else ():
                self._boards.check(match, hand, False)
            ended = match.forfeit or match.abandoned  # the hand it ended is in the record
            forfeited = ended["hand"] if ended is not None else None
            hands = [
                _hand_record(match, h) for h in match.hands
                if h.result is not None or who.role is Role.AUDITOR or h.number == forfeited
            ]
            result = match_result(match.match_state.scores, match.match_state.winner, True,
                                  match.rulings, match.forfeit,
                                  match.abandoned) if match.over else None
            record = MatchRecord(
                game=match.game_name, rules=match.rules, players=tuple(match.players),
                hands=tuple(hands), result=result, match_id=str(match.id),
                rulings=record_rulings(match.rulings),
                substitutions=tuple({k: v for k, v in r.items() if k != "version"}
                                    for r in match.substitutions),
                cancelled=tuple(_cancelled_deal(match, h) for h in match.cancelled_hands),
            )
            return record.to_json(), match.over

    def verify_deal(self, match_id: UUID, hand: int, token: str) -> DealCheck:
        """Reveal a finished hand's pack and nonce and check them against its commitment."""
        with self._live.reading(match_id) as match:
            who = self._tokens.authorize(match, token)
            log = _hand(match, hand, who)
            self._boards.check(match, hand, who.role is Role.AUDITOR)
        ok = hmac.compare_digest(commitment(log.nonce, log.cards), log.commitment)
        return DealCheck(log.commitment, log.nonce, list(log.cards), ok)

    def list_rejections(self, token: str, match_id: str = "", limit: int = 0) -> list[Rejection]:
        """Rejected attempts, for the auditor only: the newest ``limit`` (at most, and by
        default, :data:`referee.limits.MAX_LIST_LIMIT`), oldest first."""
        self._tokens.require_auditor(token, "list rejections")
        cap = limits.MAX_LIST_LIMIT
        return self._rejections.list(match_id, min(limit, cap) if limit > 0 else cap)

    def watcher(self, match_id: UUID, token: str) -> Principal:
        """Who a watch stream's ``token`` is in the match (it may watch: else it raises)."""
        with self._live.reading(match_id) as match:
            return self._tokens.authorize(match, token)

    def snapshot(self, match_id: UUID, wants: Mapping[Principal, int]
                 ) -> tuple[int, dict[Principal, tuple[list[PublicEvent], View]]]:
        """For the fan-out (``referee.application.fanout``): the match's version and, for
        each audience of ``wants``, its events after the version given and its view; one
        read of the match under its lock and one of the store for them all."""
        with self._live.reading(match_id) as match:
            version = match.version
            after = min(wants.values(), default=version)
            stored = list(self._store.events(match_id, after, version)) if after < version else []
            return version, {
                who: (_redacted(match, who, since, stored), view_of(match, who))
                for who, since in wants.items()
            }

    def alone(self, match_id: UUID, who: Principal, after: int
              ) -> tuple[list[PublicEvent], View]:
        """The events after ``after`` and the view, for one stream alone (one further behind
        than the fan-out keeps)."""
        with self._live.reading(match_id) as match:
            return self.events_after(match, who, after), view_of(match, who)


def view_of(match: Match, who: Principal) -> View:
    """The redacted view of ``who``: the rules core's ``view``, never raw state."""
    game, state = match.game, match.hand_state
    if who.role is Role.AUDITOR:
        shown = game.audit_view(state)
    else:
        shown = game.view(state, who.seat if who.role is Role.SEAT else None)
    to_act = None if match.over else game.current_seat(state)
    legal: list[str] = []
    undo = match.undo_json(who.seat if who.role is Role.SEAT else None,
                           who.role is Role.AUDITOR)
    claim = match.claim_json()
    if (to_act is not None and who.role is Role.SEAT and who.seat == to_act and undo is None
            and claim is None):
        legal = [game.format_action(a) for a in game.legal_actions(state)]
    result = match_result(match.match_state.scores, match.match_state.winner, match.over,
                          match.rulings, match.forfeit, match.abandoned)
    return View(
        match_id=match.id, version=match.version, game=match.game_name, principal=who,
        hand=match.hand.number, dealer=match.hand.dealer, to_act=to_act,
        legal_actions=legal, scores=result["scores"],
        match_over=match.over, winner=result["winner"], state=shown,
        players=list(match.players), commitment=match.hand.commitment,
        clock=match.clock_json(datetime.now(UTC)), undo=undo, claim=claim,
    )


def _redacted(match: Match, who: Principal, after: int, stored: Iterable[Any]
              ) -> list[PublicEvent]:
    """The stored events (``stored``) after version ``after``, as ``who`` may see them."""
    out: list[PublicEvent] = []
    hand = 0  # the hand running at version ``after + 1`` (its deal may be that version)
    for hand_log in match.hands:
        if hand_log.first_version <= after + 1:
            hand = hand_log.number
    for e in stored:
        v = e.originator_version
        if v <= after:
            continue
        if isinstance(e, Match.HandDealt):
            hand = e.hand
            fact = {"kind": HAND_DEALT, "hand": hand, "dealer": e.dealer,
                    "commitment": e.commitment}
            out.append(PublicEvent(v, hand, None, "", [fact]))
        elif isinstance(e, Match.ActionTaken | Match.ClaimLineAction):
            text = e.action
            if not is_public(match.game, text) and who.role is not Role.AUDITOR and not (
                who.role is Role.SEAT and who.seat == e.seat
            ):
                text = "hidden"
            out.append(PublicEvent(v, hand, e.seat, text, list(e.facts)))
        elif isinstance(e, Match.ClaimAccepted):
            fact = {"kind": CLAIM_ACCEPTED, "seat": e.seat, "claim": e.kind,
                    "tricks": e.tricks, "actions": e.actions}
            out.append(PublicEvent(v, hand, e.seat, "", [fact]))
        elif isinstance(e, Match.MatchAbandoned):
            fact = {"kind": MATCH_ABANDONED, "faults": e.faults, "policy": e.policy,
                    "reason": e.reason, "winner": e.winner}
            out.append(PublicEvent(v, hand, None, "", [fact]))
        elif isinstance(e, Match.MatchConceded):
            fact = {"kind": MATCH_CONCEDED, "seat": e.seat, "winner": e.winner}
            out.append(PublicEvent(v, hand, e.seat, "", [fact]))
        elif isinstance(e, Match.SeatSubstituted):
            fact = {"kind": SEAT_SUBSTITUTED, "seat": e.seat, "player": e.player,
                    "previous": e.previous}
            out.append(PublicEvent(v, hand, e.seat, "", [fact]))
        elif isinstance(e, Match.HandCancelled):
            fact = {"kind": HAND_CANCELLED, "hand": e.hand, "hands": list(e.hands),
                    "reason": e.reason, "rule": e.rule, "scores": list(e.scores),
                    "dealer": e.dealer}
            out.append(PublicEvent(v, e.hand, None, "", [fact]))
        elif isinstance(e, Match.UndoRequested | Match.ActionWithdrawn):
            text = e.action
            if not is_public(match.game, text) and who.role is not Role.AUDITOR and not (
                who.role is Role.SEAT and who.seat == e.seat
            ):
                text = "hidden"
            kind = UNDO_REQUESTED if isinstance(e, Match.UndoRequested) else ACTION_WITHDRAWN
            out.append(PublicEvent(v, hand, e.seat, text,
                                   [{"kind": kind, "seat": e.seat, "index": e.index}]))
        elif isinstance(e, Match.ClaimProposed):
            out.append(PublicEvent(v, hand, e.seat, "", [
                {"kind": CLAIM_PROPOSED, "seat": e.seat, "tricks": -1}]))
        elif isinstance(e, Match.ClaimAnswered):
            out.append(PublicEvent(v, hand, e.seat, "", [
                {"kind": CLAIM_ANSWERED, "seat": e.seat, "accept": e.accept}]))
        elif isinstance(e, Match.UndoAnswered):
            out.append(PublicEvent(v, hand, e.seat, "", [
                {"kind": UNDO_ANSWERED, "seat": e.seat, "agree": e.agree}]))
        elif isinstance(e, Match.HandScored):
            fact = {"kind": HAND_ENDED, "hand": e.hand, "result": e.result,
                    "scores": e.scores}
            out.append(PublicEvent(v, hand, None, "", [fact]))
        elif isinstance(e, Match.MatchEnded):
            fact = {"kind": MATCH_ENDED, "scores": e.scores, "winner": e.winner}
            out.append(PublicEvent(v, hand, None, "", [fact]))
        elif isinstance(e, Match.TimedOut):
            fact = {"kind": TIMED_OUT, "seat": e.seat, "policy": e.policy,
                    "deadline": e.deadline, "winner": e.winner}
            out.append(PublicEvent(v, hand, e.seat, "", [fact]))
        elif isinstance(e, Match.ClockPaused):
            out.append(PublicEvent(v, hand, None, "", [
                {"kind": CLOCK_PAUSED, "by": e.by, "reason": e.reason}]))
        elif isinstance(e, Match.ClockResumed):
            out.append(PublicEvent(v, hand, None, "", [
                {"kind": CLOCK_RESUMED, "by": e.by, "add_ms": e.add_ms}]))
    return out


def _hand(match: Match, hand: int, who: Principal) -> HandLog:
    if not 1 <= hand <= len(match.hands):
        raise HandNotFoundError(
            f"hand {hand} does not exist (hands 1..{len(match.hands)})", hand=hand
        )
    log = match.hands[hand - 1]
    if log.result is None and who.role is not Role.AUDITOR:
        raise HandNotFinishedError(f"hand {hand} is not over yet", hand=hand)
    return log


def _cancelled_deal(match: Match, log: HandLog) -> CancelledDeal:
    """A deal a ``redeal`` ruling cancelled, as the match record lists it: over, so shown
    like any finished hand (a duplicate board's stays hidden while other tables play it)."""
    ruling = log.cancelled
    assert ruling is not None
    replay = ruling.get("replay") if log.number == ruling["hand"] else None
    return CancelledDeal(log.number, _hand_record(match, log), cancellation(
        log.cards, log.commitment, log.nonce, ruling["reason"], ruling["rule"],
        None if replay is None else replay["commitment"]))


def _hand_record(match: Match, log: HandLog) -> HandRecord:
    deal = match.game.deal([parse_card(c) for c in log.cards], log.dealer)
    return HandRecord(
        game=match.game_name, rules=match.rules, dealer=log.dealer, deal=deal,
        actions=tuple(log.actions), result=log.result, timeouts=tuple(log.timeouts),
        claimed=tuple(log.claimed),
        withdrawn=tuple({k: v for k, v in w.items() if k != "version"} for w in log.withdrawn),
    )
