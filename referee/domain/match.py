"""The ``Match`` aggregate: one table, all its hands, one event stream.

Command methods validate through the pure rules core, then trigger private ``@event`` methods
whose bodies only re-apply what was validated (they run again on every replay, so they are
deterministic: no clock, no randomness, no I/O). Replaying the stream re-applies every action
through the rules and so rebuilds the exact rules state. Live, a command hands the state it has
just computed to the body it triggers (``_trigger_computed``), so an accepted action goes
through the rules once, not twice; the rules core is pure, so both paths give the same state.
"""

from __future__ import annotations

import dataclasses
from datetime import datetime
from functools import cached_property
from typing import Any

from eventsourcing.domain import Aggregate, event

from referee.domain.chain import GENESIS, event_hash
from referee.domain.clock import Clock, TimeControl
from referee.domain.deal import commitment
from referee.domain.errors import (
    ClaimNotAllowedError,
    ClaimPendingError,
    ClaimRefusedError,
    ClockPausedError,
    ClockStateError,
    HandNotFoundError,
    InvalidRulingError,
    MatchOverError,
    UndoNotAllowedError,
    UndoPendingError,
)
from referee.domain.facts import (
    ACTION_WITHDRAWN,
    CLAIM_ACCEPTED,
    CLAIM_ANSWERED,
    CLAIM_PROPOSED,
    HAND_DEALT,
    HAND_ENDED,
    MATCH_CONCEDED,
    MATCH_ENDED,
    UNDO_ANSWERED,
    UNDO_REQUESTED,
    fact_json,
)
from referee.domain.policies import TablePolicies
from referee.domain.proposals import answering_side, carried
from referee.domain.result import REDEAL, abandoned_winner
from referee.rules.cards import parse_card
from referee.rules.claims import (
    ALL,
    ClaimError,
    check_claim,
    claim_sides,
    concession_line,
    in_trick_play,
)
from referee.rules.game import (
    Game,
    HandEnded,
    MatchState,
    default_action,
    forfeit_winner,
    is_public,
    side_of,
    sides_of,
)
from referee.rules.handrecord import replay_to
from referee.rules.params import RuleSet
from referee.rules.registry import find_game

#: The most positions a claim's check searches before it gives up (about 5 to 10 seconds;
#: the claim is then refused as not decided, and play goes on).
CLAIM_BUDGET = 400_000


@dataclasses.dataclass
class HandLog:
    """One hand as the aggregate keeps it."""

    number: int
    dealer: int
    cards: list[str]
    nonce: str
    commitment: str
    first_version: int
    actions: list[tuple[int, str]] = dataclasses.field(default_factory=list)
    result: dict[str, Any] | None = None
    timeouts: list[int] = dataclasses.field(default_factory=list)
    """Indices of the actions the referee took for a seat whose time ran out."""
    claimed: list[int] = dataclasses.field(default_factory=list)
    """Indices of the actions played out by an accepted claim or a concession."""
    claim: dict[str, Any] | None = None
    """The accepted claim or concession that ended the hand: ``{"seat", "kind", "tricks",
    "version"}``."""
    before: MatchState | None = None
    """The match state when the hand was dealt (what a cancellation steps back to)."""
    cancelled: dict[str, Any] | None = None
    """The ``redeal`` ruling that cancelled this deal (its hand was dealt anew)."""
    withdrawn: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    """Actions withdrawn by consent (undo policy), in order: ``{"index", "seat", "action",
    "version"}`` (``index``: how many of the hand's actions came before it)."""


@dataclasses.dataclass
class Outcome:
    """What one accepted action caused: the answer to its command (and to its retries)."""

    seat: int
    action: str
    command_id: str
    facts: list[dict[str, Any]]
    version: int


class Match(Aggregate):
    """One match at one table."""

    _event_at: datetime  # the timestamp of the event being applied (set by Event.mutate)

    class Event(Aggregate.Event):
        """Every match event links to the one before it (``referee.domain.chain``)."""

        prev_hash: str

        def mutate(self, aggregate: Any) -> Any:
            if aggregate is not None:  # event bodies read when it happened (clocks)
                aggregate._event_at = self.timestamp
            agg = super().mutate(aggregate)
            assert agg is not None
            agg._last_event = self  # hashed lazily, only when a new event is triggered
            return agg

    # The events, declared so that readers dispatch on their types (same names, topics and
    # attributes as when ``@event`` made them from the method signatures: stored logs and
    # their hashes are unchanged).
    class HandDealt(Event):
        """A hand dealt: its pack (``cards``, revealed to seats when the hand is over), the
        nonce and the published commitment."""

        hand: int
        dealer: int
        cards: list[str]
        nonce: str
        commitment: str
        to_act: int | None

    class ActionTaken(Event):
        """One accepted action (record notation) and what it caused."""

        seat: int
        action: str
        command_id: str
        facts: list[dict[str, Any]]
        to_act: int | None

    class ClaimLineAction(ActionTaken):
        """An action of the line an accepted claim or concession plays out: the fields of
        an ``ActionTaken``, marked. (Readers test for both classes: eventsourcing's
        ``@event`` makes each its own class, so this is no subclass of ``Match.ActionTaken``
        as readers see it.)"""

    class ClaimAccepted(Event):
        """A claim stood (``kind`` ``claim``: ``seat``'s side takes ``tricks`` more tricks,
        -1 all of them) or a side conceded (``kind`` ``concession``, ``tricks`` -1): the
        next ``actions`` events are the line the hand is played out along (``ActionTaken``
        events with ``claim`` true; docs/claims.md)."""

        seat: int
        kind: str
        tricks: int
        command_id: str
        actions: int

    class MatchConceded(Event):
        """``seat``'s side conceded the match (resigned): ``winner`` wins it, as a forfeit
        does (``referee.rules.game.forfeit_winner``); a ``MatchEnded`` follows."""

        seat: int
        winner: int | None
        command_id: str

    class MatchAbandoned(Event):
        """The arbiter ended the match as abandoned: ``faults`` says for each side whether it
        was at fault, ``policy`` (the tournament's, ``referee.domain.result``) how the match
        is scored; ``winner`` the winner it gives on the scores as played. A ``MatchEnded``
        follows."""

        faults: list[bool]
        policy: str
        reason: str
        by: str
        winner: int | None
        command_id: str

    class SeatSubstituted(Event):
        """The auditor replaced the player of ``seat``: ``player`` (after ``previous``) plays
        it from now on, with a new seat token (``token_hash``); the old token stops working
        at once. The hand goes on."""

        seat: int
        player: str
        previous: str
        token_hash: str
        by: str

    class PoliciesSet(Event):
        """The match's table policies (``referee.domain.policies``), right after its
        creation (a match without this event has the defaults)."""

        policies: dict[str, Any]

    class UndoRequested(Event):
        """``seat`` asks to withdraw its last action (``action``, after ``index`` actions of
        the hand): the clocks stop until the other sides answer."""

        seat: int
        action: str
        index: int
        command_id: str

    class UndoAnswered(Event):
        """``seat`` answered the pending undo request for its side: ``agree``. A refusal
        ends the request and the clocks run again; once every other side has agreed, an
        ``ActionWithdrawn`` follows."""

        seat: int
        agree: bool
        command_id: str

    class ActionWithdrawn(Event):
        """``seat``'s action ``action`` (after ``index`` actions of the hand) is withdrawn by
        consent: the hand's state is rebuilt from its deal and the actions before it (the
        one replay loop, ``referee.rules.handrecord.replay``), and ``seat`` is to act
        again, on a fresh turn. The action stays in the log, marked withdrawn."""

        seat: int
        action: str
        index: int

    class ClaimProposed(Event):
        """``seat`` put a claim of all the remaining tricks to the other sides, unchecked
        (the unchecked claims policy ``consent``): the clocks stop until they answer."""

        seat: int
        command_id: str

    class ClaimAnswered(Event):
        """``seat`` answered the pending unchecked claim for its side: ``accept``. A
        rejection ends it and the clocks run again; once every other side has accepted, the
        claim is played out (``ClaimAccepted`` with ``kind`` ``unchecked``, then its line)."""

        seat: int
        accept: bool
        command_id: str

    class HandScored(Event):
        hand: int
        result: dict[str, Any]
        scores: list[int]

    class MatchEnded(Event):
        scores: list[int]
        winner: int | None

    class RulingRecorded(Event):
        """An arbiter's ruling: ``adjust`` added to each side's score, the ``rule`` or
        regulation cited, ``ref`` the version of the ruling it withdraws or amends (0: none),
        ``command_id`` its idempotency key (empty: none)."""

        hand: int
        kind: str
        adjust: list[int]
        reason: str
        by: str
        command_id: str
        rule: str
        ref: int

    class HandCancelled(Event):
        """The arbiter's ``redeal`` ruling: the deals of ``hands`` (``hand`` and, when it was
        the last scored hand, the one dealt after it) are void; the match steps back to
        before ``hand`` (``scores``, and ``dealer`` deals it again); the next event deals the
        replay, with a new commitment."""

        hand: int
        hands: list[int]
        reason: str
        rule: str
        by: str
        command_id: str
        scores: list[int]
        dealer: int

    class BoardAssigned(Event):
        """The match plays duplicate board ``board`` of tournament ``tournament_id``: its
        fixed deals are played at other tables too."""

        tournament_id: str
        board: str

    class ResultsFinalized(Event):
        """The tournament's correction window is closed: later rulings are appeals."""

        by: str
        tournament_id: str

    class TimeControlled(Event):
        """The match's time control (``referee.domain.clock.TimeControl``), right after
        its creation."""

        control: dict[str, Any]

    class TimedOut(Event):
        """A seat's deadline passed and the policy applied: ``auto`` (the next event is the
        referee's action for the seat), ``forfeit`` (``winner`` wins the match) or
        ``pause`` (the table waits for an arbiter)."""

        seat: int
        policy: str
        deadline: str
        winner: int | None

    class ClockPaused(Event):
        by: str
        reason: str

    class ClockResumed(Event):
        """The clocks run again; ``add_ms`` more for the seat to act's turn. After a timeout
        that paused the table, that seat's turn begins afresh."""

        by: str
        add_ms: int

    @classmethod
    def _create(cls, event_class: Any, **kwargs: Any) -> Any:
        kwargs["prev_hash"] = GENESIS
        return super()._create(event_class, **kwargs)

    def trigger_event(self, event_class: Any, **kwargs: Any) -> None:
        kwargs["prev_hash"] = self.chain_head
        super().trigger_event(event_class, **kwargs)

    @property
    def chain_head(self) -> str:
        """The hash of the latest event (the next event's ``prev_hash``)."""
        last = getattr(self, "_last_event", None)
        return GENESIS if last is None else event_hash(last)

    @event("Created")
    def __init__(
        self,
        game: str,
        rules: dict[str, Any],
        players: list[str],
        seat_token_hashes: list[str],
        spectator_token_hash: str,
        public_spectators: bool,
        first_dealer: int,
        fixed_deals: list[list[str]],
        rules_version: int,
    ) -> None:
        self.game_name = game
        self.rules_dict = rules
        self.players = players
        self.seat_token_hashes = seat_token_hashes
        self.spectator_token_hash = spectator_token_hash
        self.public_spectators = public_spectators
        self.fixed_deals = fixed_deals
        self.rules_version = rules_version
        self.match_state: MatchState = self.game.new_match(self.rules, first_dealer)
        self.hands: list[HandLog] = []
        self.hand_state: Any = None
        self.outcomes: dict[str, Outcome] = {}
        self.last_outcome: Outcome | None = None
        self.rulings: list[dict[str, Any]] = []
        #: The rulings recorded with an idempotency key, by key (a retry is answered from it).
        self.ruling_commands: dict[str, dict[str, Any]] = {}
        #: True once a tournament closed the correction window (``ResultsFinalized``).
        self.results_final = False
        #: ``(tournament_id, board)`` when the match plays a duplicate board.
        self.board: tuple[str, str] | None = None
        self.clock: Clock | None = None
        #: The latest timeout ``{"seat", "version", "policy", "deadline"}`` until that seat
        #: acts again (a late action is refused naming it).
        self.last_timeout: dict[str, Any] | None = None
        #: ``{"seat", "hand"}`` when the match was forfeited on time.
        self.forfeit: dict[str, int] | None = None
        #: Each substitution: ``{"seat", "player", "previous", "hand", "action", "version"}``
        #: (``action``: how many actions of that hand came before it).
        self.substitutions: list[dict[str, Any]] = []
        #: The deals a ``redeal`` ruling cancelled, in order (their hands were dealt anew).
        self.cancelled_hands: list[HandLog] = []
        self.policies = TablePolicies()
        #: ``{"faults", "policy", "hand", "reason", "command_id"}`` once the arbiter ended
        #: the match as abandoned.
        self.abandoned: dict[str, Any] | None = None
        #: The pending undo request: ``{"seat", "action", "index", "version", "agreed"}``
        #: (``agreed``: the sides that agreed so far).
        self.undo_request: dict[str, Any] | None = None
        #: The pending unchecked claim: ``{"seat", "version", "agreed"}``.
        self.claim_proposal: dict[str, Any] | None = None

    # -- derived ---------------------------------------------------------------------------
    @cached_property
    def game(self) -> Game[Any]:
        return find_game(self.game_name)

    @cached_property
    def rules(self) -> RuleSet:
        return self.game.rules_class.from_dict(self.rules_dict)

    @property
    def over(self) -> bool:
        return self.match_state.over

    @property
    def hand(self) -> HandLog:
        return self.hands[-1]

    @property
    def needs_deal(self) -> bool:
        """True when no hand is running and the match goes on."""
        return not self.over and (
            self.hand_state is None or self.game.is_terminal(self.hand_state)
        )

    @staticmethod
    def command_key(seat: int, command_id: str) -> str:
        return f"{seat}:{command_id}"

    @property
    def to_act(self) -> int | None:
        """The seat to act (None when the match is over)."""
        if self.over or self.hand_state is None:
            return None
        return self.game.current_seat(self.hand_state)

    def deadline(self) -> datetime | None:
        """When the seat to act times out (None: no running clock)."""
        return None if self.clock is None else self.clock.deadline(self.to_act)

    def clock_json(self, now: datetime) -> dict[str, Any] | None:
        """The clock as views show it (None: the match has no time control)."""
        return None if self.clock is None else self.clock.to_json(self.to_act, now)

    # -- commands --------------------------------------------------------------------------
    def deal(self, cards: list[str], nonce: str) -> None:
        """Start the next hand with this pack order (shuffled by the application)."""
        assert self.needs_deal, "a hand is running"
        state = self.game.new_hand(
            self.game.deal([parse_card(c) for c in cards], self.match_state.dealer),
            self.match_state.dealer,
            self.rules,
        )
        self._trigger_computed(
            self.HandDealt,
            ("deal", self.match_state.dealer, cards),
            state,
            hand=len(self.hands) + 1,
            dealer=self.match_state.dealer,
            cards=cards,
            nonce=nonce,
            commitment=commitment(nonce, cards),
            to_act=self.game.current_seat(state),
        )

    def take_action(self, seat: int, text: str, command_id: str, claim: bool = False) -> None:
        """Validate one action through the rules and record it with what it caused
        (``claim``: an action of the line an accepted claim or concession plays out).

        :raises MatchOverError: when the match is over.
        :raises InvalidActionError, NotYourTurnError, IllegalActionError: from the rules.
        """
        if self.over or self.hand_state is None:
            raise MatchOverError("the match is over", matchId=self.id)
        self._check_no_undo_pending()
        if self.clock is not None and self.clock.paused:
            raise ClockPausedError("the table's clocks are paused: it waits for the arbiter "
                                   "to resume it", matchId=self.id)
        game = self.game
        action = game.parse_action(text)
        step = game.apply(self.hand_state, seat, action)
        text = game.format_action(action)
        self._trigger_computed(
            self.ClaimLineAction if claim else self.ActionTaken,
            ("action", seat, text),
            step.state,
            seat=seat,
            action=text,
            command_id=command_id,
            facts=[fact_json(f) for f in step.facts if not isinstance(f, HandEnded)],
            to_act=game.current_seat(step.state),
        )
        if game.is_terminal(self.hand_state):
            result = game.result(self.hand_state)
            after = game.after_hand(self.match_state, result, self.rules)
            self._hand_scored(
                hand=self.hand.number, result=result.to_json(), scores=list(after.scores)
            )
            if self.over:
                state = self.match_state
                self._match_ended(scores=list(state.scores), winner=state.winner)

    def claim(self, seat: int, tricks: int, command_id: str) -> None:
        """``seat`` claims for its side ``tricks`` more tricks (:data:`ALL`: all the rest).
        The referee checks it exactly (``referee.rules.claims``): if it holds, the hand is
        played out along the winning line; if not, nothing changes.

        :raises ClaimNotAllowedError: not in trick play, ``seat`` is not to act, or
            ``tricks`` out of range.
        :raises ClaimRefusedError: the claim does not hold (``audit``: the defence)."""
        self._check_playing()
        game, state = self.game, self.hand_state
        if not in_trick_play(game, state):
            raise ClaimNotAllowedError("a claim is made in the trick play of a hand",
                                       matchId=self.id)
        if game.current_seat(state) != seat:
            raise ClaimNotAllowedError(f"only the seat to act may claim; it is seat "
                                       f"{game.current_seat(state)}, not seat {seat}",
                                       seat=seat)
        try:
            check = check_claim(game, state, seat, tricks, CLAIM_BUDGET)
        except ClaimError as exc:
            raise ClaimNotAllowedError(str(exc), tricks=tricks) from None
        what = "all the remaining tricks" if tricks == ALL else f"{tricks} more tricks"
        if not check.holds:
            defence = " ".join(f"{s}:{game.format_action(a)}" for s, a in check.line)
            raise ClaimRefusedError(
                f"the claim of {what} does not hold against every defence",
                audit=f"claim of {what} by seat {seat} refused; a defence that beats it: "
                      f"{defence}",
                seat=seat, tricks=tricks)
        self._play_out(seat, "claim", tricks, command_id, check.line)

    def concede_match(self, seat: int, command_id: str) -> None:
        """``seat``'s side concedes the match: it ends at once, won by the side a forfeit
        by ``seat`` would give it to; the running hand is left as it stands.

        :raises MatchOverError: the match is over."""
        if self.over:
            raise MatchOverError("the match is over", matchId=self.id)
        winner = forfeit_winner(self.game, self.match_state.scores, seat)
        self._match_conceded(seat=seat, winner=winner, command_id=command_id)
        self._match_ended(scores=list(self.match_state.scores), winner=winner)

    def abandon(self, faults: list[bool], policy: str, reason: str, by: str = "auditor",
                command_id: str = "") -> None:
        """End the match as abandoned, with the fault assigned per side (``faults``) and
        scored by ``policy`` (``referee.domain.result.abandoned_winner``); the running hand
        is left as it stands.

        :raises MatchOverError: the match is over."""
        if self.over:
            raise MatchOverError("the match is over", matchId=self.id)
        scores = list(self.match_state.scores)
        winner = abandoned_winner(scores, {"faults": faults, "policy": policy})
        self._match_abandoned(faults=list(faults), policy=policy, reason=reason, by=by,
                              winner=winner, command_id=command_id)
        self._match_ended(scores=scores, winner=winner)

    def concede(self, seat: int, command_id: str) -> None:
        """``seat``'s side concedes the remaining tricks of the hand: it is played out along
        the line that gives the other sides the most tricks the cards allow
        (``referee.rules.claims.concession_line``).

        :raises ClaimNotAllowedError: not in trick play."""
        self._check_playing()
        game, state = self.game, self.hand_state
        try:
            line = concession_line(game, state, seat)
        except ClaimError as exc:
            raise ClaimNotAllowedError(str(exc), matchId=self.id) from None
        self._play_out(seat, "concession", ALL, command_id, line)

    def _check_playing(self) -> None:
        if self.over or self.hand_state is None:
            raise MatchOverError("the match is over", matchId=self.id)
        self._check_no_undo_pending()
        if self.clock is not None and self.clock.paused:
            raise ClockPausedError("the table's clocks are paused: it waits for the arbiter "
                                   "to resume it", matchId=self.id)

    def _play_out(self, seat: int, kind: str, tricks: int, command_id: str,
                  line: tuple[tuple[int, int], ...]) -> None:
        self._claim_accepted(seat=seat, kind=kind, tricks=tricks, command_id=command_id,
                             actions=len(line))
        game = self.game
        for s, a in line:
            self.take_action(s, game.format_action(a), "", claim=True)

    def substitute(self, seat: int, player: str, token_hash: str, by: str = "auditor") -> None:
        """Give ``seat`` to ``player`` with a new token (its ``token_hash``).

        :raises MatchOverError: the match is over."""
        if self.over:
            raise MatchOverError("the match is over", matchId=self.id)
        self._seat_substituted(seat=seat, player=player, previous=self.players[seat],
                               token_hash=token_hash, by=by)

    @staticmethod
    def claim_text(kind: str, tricks: int) -> str:
        """How a claim or concession is named in outcomes: ``claim:all``, ``claim:3``,
        ``concede``."""
        if kind == "concession":
            return "concede"
        return "claim:all" if tricks == ALL else f"claim:{tricks}"

    def set_policies(self, policies: TablePolicies) -> None:
        """Give the match its table policies (right after creation, before the first deal)."""
        assert not self.hands, "table policies are set at creation"
        self._policies_set(policies=policies.to_dict())

    def _check_no_undo_pending(self) -> None:
        """:raises UndoPendingError, ClaimPendingError: the table waits for an answer."""
        request = self.undo_request
        if request is not None:
            raise UndoPendingError(
                f"seat {request['seat']} asked to withdraw its last action: the table waits "
                f"for the other sides to answer (undo policy: consent)",
                seat=request["seat"], policy="undo")
        proposal = self.claim_proposal
        if proposal is not None:
            raise ClaimPendingError(
                f"seat {proposal['seat']} put a claim of all the remaining tricks to the "
                f"other sides: the table waits for their answer (unchecked claims policy: "
                f"consent)", seat=proposal["seat"], policy="unchecked_claims")

    def propose_claim(self, seat: int, command_id: str) -> None:
        """``seat`` (the seat to act, in trick play) puts a claim of all the remaining tricks
        to the other sides, unchecked (docs/claims.md). The clocks stop until they answer.

        :raises ClaimNotAllowedError: the unchecked claims policy is off, not in trick play,
            ``seat`` is not to act."""
        if self.policies.unchecked_claims != "consent":
            raise ClaimNotAllowedError(
                "this match's unchecked claims policy is off: every claim is checked by the "
                "referee", policy="unchecked_claims", value=self.policies.unchecked_claims)
        self._check_playing()
        game, state = self.game, self.hand_state
        if not in_trick_play(game, state):
            raise ClaimNotAllowedError("a claim is made in the trick play of a hand",
                                       policy="unchecked_claims")
        if game.current_seat(state) != seat:
            raise ClaimNotAllowedError(f"only the seat to act may claim; it is seat "
                                       f"{game.current_seat(state)}, not seat {seat}",
                                       seat=seat, policy="unchecked_claims")
        self._claim_proposed(seat=seat, command_id=command_id)

    def answer_claim(self, seat: int, accept: bool, command_id: str) -> None:
        """``seat`` answers the pending unchecked claim for its side. A rejection ends it;
        the last acceptance plays the hand out as the other sides' concession
        (``referee.rules.claims.concession_line``): the claiming side takes every trick the
        cards allow.

        :raises ClaimNotAllowedError: nothing pending, ``seat`` is on the claiming side or
            its side already accepted."""
        if self.over:
            raise MatchOverError("the match is over", matchId=self.id)
        proposal = self.claim_proposal
        if proposal is None:
            raise ClaimNotAllowedError("no unchecked claim is pending (unchecked claims "
                                       f"policy: {self.policies.unchecked_claims})",
                                       policy="unchecked_claims", seat=seat)
        claimer = proposal["seat"]
        sides = list(claim_sides(self.game, self.hand_state))
        answering_side(sides, seat, claimer, proposal["agreed"], ClaimNotAllowedError,
                       "a claim of all the remaining tricks", "unchecked claims policy: "
                       "consent")
        self._claim_answered(seat=seat, accept=accept, command_id=command_id)
        if accept and carried(sides, proposal["agreed"]):
            line = concession_line(self.game, self.hand_state, seat)
            self._play_out(claimer, "unchecked", ALL, "", line)

    def request_undo(self, seat: int, command_id: str) -> None:
        """``seat`` asks to withdraw its last action, which must be the last action of the
        running hand (docs/undo.md). The clocks stop until the other sides answer.

        :raises UndoNotAllowedError: the undo policy is off, or there is no such action."""
        if self.over or self.hand_state is None:
            raise MatchOverError("the match is over", matchId=self.id)
        if self.policies.undo != "consent":
            raise UndoNotAllowedError(
                "this match's undo policy is off: an action once made stands",
                policy="undo", value=self.policies.undo)
        self._check_no_undo_pending()
        if self.clock is not None and self.clock.paused:
            raise ClockPausedError("the table's clocks are paused: it waits for the arbiter "
                                   "to resume it", matchId=self.id)
        hand = self.hand
        if not hand.actions:
            raise UndoNotAllowedError(
                f"hand {hand.number} has no action yet: the undo policy withdraws the last "
                f"action of the running hand, and an action that ended a hand stands",
                policy="undo", seat=seat)
        index = len(hand.actions) - 1
        by, action = hand.actions[index]
        if by != seat:
            raise UndoNotAllowedError(
                f"the undo policy withdraws only the last action, and seat {by} made it, "
                f"not seat {seat}", policy="undo", seat=seat, lastSeat=by)
        if index in hand.timeouts:
            raise UndoNotAllowedError(
                "the last action was the referee's, for a seat whose time ran out: the undo "
                "policy withdraws a player's own action", policy="undo", seat=seat)
        self._undo_requested(seat=seat, action=action, index=index, command_id=command_id)

    def answer_undo(self, seat: int, agree: bool, command_id: str) -> None:
        """``seat`` answers the pending undo request for its side. A refusal ends it; the
        last agreement of the other sides withdraws the action.

        :raises UndoNotAllowedError: no request pending, or ``seat`` is on the asking side
            or its side already answered."""
        if self.over:
            raise MatchOverError("the match is over", matchId=self.id)
        request = self.undo_request
        if request is None:
            raise UndoNotAllowedError(
                "no undo request is pending (undo policy: "
                f"{self.policies.undo})", policy="undo", seat=seat)
        sides = self._match_sides()
        answering_side(sides, seat, request["seat"], request["agreed"], UndoNotAllowedError,
                       "to withdraw its last action", "undo policy: consent")
        self._undo_answered(seat=seat, agree=agree, command_id=command_id)
        if agree and carried(sides, request["agreed"]):
            self._action_withdrawn(seat=request["seat"], action=request["action"],
                                   index=request["index"])

    def _match_sides(self) -> list[frozenset[int]]:
        """The seats of each side that scores (teams, or each seat)."""
        game = self.game
        return [frozenset(s for s in range(game.num_seats) if side_of(game, s) == t)
                for t in range(sides_of(game))]

    def claim_json(self) -> dict[str, Any] | None:
        """The pending unchecked claim as views show it (it names no card)."""
        proposal = self.claim_proposal
        if proposal is None:
            return None
        return {"seat": proposal["seat"], "agreed": sorted(proposal["agreed"]),
                "version": proposal["version"]}

    def undo_json(self, who_seat: int | None, auditor: bool) -> dict[str, Any] | None:
        """The pending undo request as views show it: the asking seat, the index of its
        action, the sides that agreed; the action itself only to those who saw it made."""
        request = self.undo_request
        if request is None:
            return None
        action = request["action"]
        if not (auditor or who_seat == request["seat"] or is_public(self.game, action)):
            action = "hidden"
        return {"seat": request["seat"], "index": request["index"], "action": action,
                "agreed": sorted(request["agreed"]), "version": request["version"]}

    def control_time(self, control: TimeControl) -> None:
        """Give the match its time control (right after creation, before the first deal)."""
        assert self.clock is None and not self.hands, "time control is set at creation"
        self._time_controlled(control=control.to_dict())

    def time_out(self, now: datetime) -> str:
        """The seat to act's deadline has passed at ``now``: apply the match's policy and
        return it (``auto``: the referee then takes the game's default action for the seat;
        the caller deals the next hand if one is due).

        :raises ClockStateError: no running clock, or the deadline has not passed."""
        seat, clock = self.to_act, self.clock
        if clock is None or seat is None or not clock.expired(seat, now):
            raise ClockStateError("no deadline has passed at this table")
        deadline = clock.deadline(seat)
        assert deadline is not None
        policy = clock.control.policy
        winner = (forfeit_winner(self.game, self.match_state.scores, seat)
                  if policy == "forfeit" else None)
        self._timed_out(seat=seat, policy=policy, deadline=deadline.isoformat(),
                        winner=winner)
        if policy == "auto":
            game = self.game
            self.take_action(seat, game.format_action(default_action(game, self.hand_state)),
                             "")
        elif policy == "forfeit":
            self._match_ended(scores=list(self.match_state.scores), winner=winner)
        return policy

    def pause_clock(self, by: str, reason: str) -> None:
        """:raises ClockStateError: no time control, already paused, or the match is over."""
        if self.undo_request is not None or self.claim_proposal is not None:
            raise ClockStateError("the clocks are stopped by a pending undo request or "
                                  "unchecked claim: its answer restarts them")
        if self.clock is None or self.clock.paused or self.over:
            raise ClockStateError(
                "this table has no time control" if self.clock is None else
                "the match is over" if self.over else "the clocks are already paused")
        self._clock_paused(by=by, reason=reason)

    def resume_clock(self, by: str, add_ms: int = 0) -> None:
        """:raises ClockStateError: no time control, or not paused."""
        if self.undo_request is not None or self.claim_proposal is not None:
            raise ClockStateError("the clocks are stopped by a pending undo request or "
                                  "unchecked claim: its answer restarts them")
        if self.clock is None or not self.clock.paused:
            raise ClockStateError("this table has no time control" if self.clock is None
                                  else "the clocks are not paused")
        self._clock_resumed(by=by, add_ms=add_ms)

    def record_ruling(
        self, hand: int, kind: str, adjust: list[int], reason: str, by: str = "auditor",
        command_id: str = "", rule: str = "", ref: int = 0,
    ) -> None:
        """Record an auditor's ruling on a finished hand: ``adjust`` is added to the reported
        scores. History and match flow are unchanged. ``command_id``: the command's
        idempotency key (see :attr:`ruling_commands`); ``rule``: the rule or regulation
        cited; ``ref``: the ruling this one withdraws or amends."""
        self._ruling_recorded(hand=hand, kind=kind, adjust=list(adjust), reason=reason, by=by,
                              command_id=command_id, rule=rule, ref=ref)

    def fixed_pack(self, hand: int) -> list[str] | None:
        """The fixed pack of hand ``hand`` (duplicate play), unless a deal of that hand was
        cancelled: its seats have seen those cards, so its replay is shuffled afresh."""
        if hand > len(self.fixed_deals) or any(h.number == hand for h in self.cancelled_hands):
            return None
        return self.fixed_deals[hand - 1]

    def cancel_hand(self, hand: int, reason: str, rule: str = "", by: str = "auditor",
                    command_id: str = "") -> None:
        """The ``redeal`` ruling: cancel hand ``hand`` so it is played again with a new deal
        (the caller deals it at once). ``hand`` is the hand in progress, or the last scored
        hand while the match goes on: then the hand dealt after it is void too, and the
        scores, the dealer and the hands played come back to what they were before ``hand``.

        :raises MatchOverError: the match is over (an annul or artificial ruling changes
            a finished match's result).
        :raises HandNotFoundError: no such hand.
        :raises InvalidRulingError: an older hand (later hands were scored after it), or the
            hand after it is a duplicate board deal its seats have already seen."""
        if self.over:
            raise MatchOverError(
                "the match is over: its hands can no longer be cancelled and replayed (use an "
                "annul or artificial ruling on a finished match)", matchId=self.id)
        current = len(self.hands)
        if not 1 <= hand <= current:
            raise HandNotFoundError(f"hand {hand} does not exist (hands 1..{current})",
                                    hand=hand)
        if hand < current - 1:
            raise InvalidRulingError(
                f"only the hand in progress ({current}) or the last scored hand "
                f"({current - 1}) can be cancelled and replayed: hands were scored after hand "
                f"{hand} (use an annul or artificial ruling)", hand=hand)
        if hand < current and self.fixed_pack(current) is not None:
            raise InvalidRulingError(
                f"hand {current}, dealt after hand {hand}, is a duplicate board deal its seats "
                f"have already seen: replaying hand {hand} would spoil it (use an annul or "
                "artificial ruling)", hand=hand)
        before = self.hands[hand - 1].before
        assert before is not None
        self._hand_cancelled(hand=hand, hands=list(range(hand, current + 1)), reason=reason,
                             rule=rule, by=by, command_id=command_id,
                             scores=list(before.scores), dealer=before.dealer)

    def assign_board(self, tournament_id: str, board: str) -> None:
        """Record that the match plays this duplicate board (once)."""
        if self.board is None:
            self._board_assigned(tournament_id=tournament_id, board=board)

    def finalize_results(self, by: str, tournament_id: str) -> None:
        """Close the correction window: the result is final; later rulings are appeals."""
        if not self.results_final:
            self._results_finalized(by=by, tournament_id=tournament_id)

    # -- events ----------------------------------------------------------------------------
    def _trigger_computed(
        self, event_class: Any, key: tuple[Any, ...], state: Any, **kwargs: Any
    ) -> None:
        """Trigger ``event_class`` with ``kwargs`` (every argument of its ``@event`` method,
        by name) and hand the rules state a command just computed to the event body, so a
        live action goes through the rules once. The body takes it only if ``key`` matches
        its own arguments; on replay nothing is stashed and the body re-applies the rules.

        The same event as calling the decorated method (``self._action_taken(**kwargs)``),
        without the decorator's generic argument handling on the per-action path."""
        self._live_step = (key, state)
        try:
            self.trigger_event(event_class, **kwargs)
        finally:
            self.__dict__.pop("_live_step", None)

    def _take_computed(self, key: tuple[Any, ...]) -> Any:
        """The state stashed by :meth:`_trigger_computed` for ``key`` (once), else ``None``."""
        stashed = self.__dict__.pop("_live_step", None)
        if stashed is not None and stashed[0] == key:
            return stashed[1]
        return None

    def _caused(self, fact: dict[str, Any]) -> None:
        """Attach a follow-up fact to the action that caused it (inside event bodies)."""
        if self.last_outcome is not None:
            self.last_outcome.facts.append(fact)
            self.last_outcome.version = self.version + 1

    @event(HandDealt)
    def _hand_dealt(
        self, hand: int, dealer: int, cards: list[str], nonce: str, commitment: str,
        to_act: int | None = None,
    ) -> None:
        state = self._take_computed(("deal", dealer, cards))
        if state is None:  # replay: through the rules
            game = self.game
            state = game.new_hand(game.deal([parse_card(c) for c in cards], dealer), dealer,
                                  self.rules)
        self.hand_state = state
        self.hands.append(HandLog(hand, dealer, cards, nonce, commitment, self.version + 1,
                                  before=self.match_state))
        redeal = self.__dict__.pop("_redealing", None)
        if redeal is not None:  # the replay of a cancelled hand: its new commitment
            redeal["replay"] = {"version": self.version + 1, "commitment": commitment}
        if self.clock is not None:
            self.clock.turn_begins(self._event_at)
        self._caused(
            {"kind": HAND_DEALT, "hand": hand, "dealer": dealer, "commitment": commitment}
        )

    @event(HandCancelled)
    def _hand_cancelled(self, hand: int, hands: list[int], reason: str, rule: str, by: str,
                        command_id: str, scores: list[int], dealer: int) -> None:
        ruling = {"hand": hand, "kind": REDEAL, "adjust": [0] * len(scores), "reason": reason,
                  "by": by, "version": self.version + 1, "rule": rule, "ref": 0,
                  "hands": list(hands)}
        before = self.hands[hand - 1].before
        assert before is not None
        for log in self.hands[hand - 1:]:
            log.cancelled = ruling
            self.cancelled_hands.append(log)
        del self.hands[hand - 1:]
        self.match_state, self.hand_state, self.last_timeout = before, None, None
        self.rulings.append(ruling)
        if command_id:
            self.ruling_commands[command_id] = ruling
        self._redealing = ruling
        self.last_outcome = None

    @event(MatchConceded)
    def _match_conceded(self, seat: int, winner: int | None, command_id: str) -> None:
        self.match_state = dataclasses.replace(self.match_state, over=True, winner=winner)
        self.forfeit = {"seat": seat, "hand": len(self.hands), "conceded": True}
        self.undo_request = self.claim_proposal = None
        self._outcome(seat, "concede:match", command_id,
                      {"kind": MATCH_CONCEDED, "seat": seat, "winner": winner})

    @event(MatchAbandoned)
    def _match_abandoned(self, faults: list[bool], policy: str, reason: str, by: str,
                         winner: int | None, command_id: str) -> None:
        self.match_state = dataclasses.replace(self.match_state, over=True, winner=winner)
        self.abandoned = {"faults": list(faults), "policy": policy, "hand": len(self.hands),
                          "reason": reason, "command_id": command_id,
                          "version": self.version + 1}
        self.undo_request = self.claim_proposal = None

    @event(SeatSubstituted)
    def _seat_substituted(self, seat: int, player: str, previous: str, token_hash: str,
                          by: str) -> None:
        self.players = [*self.players]
        self.players[seat] = player
        self.seat_token_hashes = [*self.seat_token_hashes]
        self.seat_token_hashes[seat] = token_hash
        self.substitutions.append({
            "seat": seat, "player": player, "previous": previous, "hand": len(self.hands),
            "action": len(self.hand.actions) if self.hands else 0, "version": self.version + 1})

    @event(ClaimAccepted)
    def _claim_accepted(self, seat: int, kind: str, tricks: int, command_id: str,
                        actions: int) -> None:
        self.hand.claim = {"seat": seat, "kind": kind, "tricks": tricks,
                           "version": self.version + 1}
        if self.clock is not None:  # the turn to act ends; the line takes no one's time
            to_act = self.to_act
            if to_act is not None:
                self.clock.acted(to_act, self._event_at)
        fact = {"kind": CLAIM_ACCEPTED, "seat": seat, "claim": kind, "tricks": tricks}
        if kind == "unchecked":  # part of the answer that carried it
            self._caused(fact)
            return
        self._outcome(seat, self.claim_text(kind, tricks), command_id, fact)

    @event(ClaimLineAction)
    def _claim_line_action(
        self, seat: int, action: str, command_id: str, facts: list[dict[str, Any]],
        to_act: int | None = None,
    ) -> None:
        self._took(seat, action, command_id, facts, claim=True)

    @event(ActionTaken)
    def _action_taken(
        self, seat: int, action: str, command_id: str, facts: list[dict[str, Any]],
        to_act: int | None = None,
    ) -> None:
        self._took(seat, action, command_id, facts)

    def _took(self, seat: int, action: str, command_id: str, facts: list[dict[str, Any]],
              claim: bool = False) -> None:
        """The body of ``ActionTaken`` and ``ClaimLineAction``."""
        state = self._take_computed(("action", seat, action))
        if state is None:  # replay: through the rules
            game = self.game
            state = game.apply(self.hand_state, seat, game.parse_action(action)).state
        self.hand_state = state
        self.hand.actions.append((seat, action))
        if claim:  # a claim's line: part of the claim's outcome, on no one's clock
            self.hand.claimed.append(len(self.hand.actions) - 1)
            if self.last_outcome is not None:
                self.last_outcome.facts.extend(facts)
                self.last_outcome.version = self.version + 1
            return
        if self.__dict__.pop("_referee_acts_for", None) == seat:
            self.hand.timeouts.append(len(self.hand.actions) - 1)
        elif self.last_timeout is not None and self.last_timeout["seat"] == seat:
            self.last_timeout = None
        if self.clock is not None:
            self.clock.acted(seat, self._event_at)
        outcome = Outcome(seat, action, command_id, list(facts), self.version + 1)
        self.last_outcome = outcome
        if command_id:
            self.outcomes[self.command_key(seat, command_id)] = outcome

    @event(HandScored)
    def _hand_scored(self, hand: int, result: dict[str, Any], scores: list[int]) -> None:
        self.hand.result = result
        self.match_state = self.game.after_hand(
            self.match_state, self.game.result(self.hand_state), self.rules
        )
        self._caused({"kind": HAND_ENDED, "hand": hand, "result": result, "scores": scores})

    @event(MatchEnded)
    def _match_ended(self, scores: list[int], winner: int | None) -> None:
        self._caused({"kind": MATCH_ENDED, "scores": scores, "winner": winner})

    @event(BoardAssigned)
    def _board_assigned(self, tournament_id: str, board: str) -> None:
        self.board = (tournament_id, board)

    @event(ResultsFinalized)
    def _results_finalized(self, by: str, tournament_id: str) -> None:
        self.results_final = True

    @event(PoliciesSet)
    def _policies_set(self, policies: dict[str, Any]) -> None:
        self.policies = TablePolicies(**policies)

    def _outcome(self, seat: int, text: str, command_id: str, fact: dict[str, Any]) -> None:
        """The answer to a command that is no action (in event bodies)."""
        outcome = Outcome(seat, text, command_id, [fact], self.version + 1)
        self.last_outcome = outcome
        if command_id:
            self.outcomes[self.command_key(seat, command_id)] = outcome

    @event(ClaimProposed)
    def _claim_proposed(self, seat: int, command_id: str) -> None:
        self.claim_proposal = {"seat": seat, "version": self.version + 1, "agreed": []}
        if self.clock is not None:
            self.clock.pause(self._event_at)
        self._outcome(seat, "claim:unchecked", command_id,
                      {"kind": CLAIM_PROPOSED, "seat": seat, "tricks": ALL})

    @event(ClaimAnswered)
    def _claim_answered(self, seat: int, accept: bool, command_id: str) -> None:
        proposal = self.claim_proposal
        assert proposal is not None
        self._outcome(seat, "claim:accept" if accept else "claim:reject", command_id,
                      {"kind": CLAIM_ANSWERED, "seat": seat, "accept": accept,
                       "claimer": proposal["seat"]})
        sides = claim_sides(self.game, self.hand_state)
        if accept:
            side = next(i for i, s in enumerate(sides) if seat in s)
            proposal["agreed"] = [*proposal["agreed"], side]
            if not carried(sides, proposal["agreed"]):
                return
        self.claim_proposal = None  # rejected, or carried: the line follows
        if self.clock is not None:
            self.clock.resume(self._event_at, 0)

    @event(UndoRequested)
    def _undo_requested(self, seat: int, action: str, index: int, command_id: str) -> None:
        self.undo_request = {"seat": seat, "action": action, "index": index,
                             "version": self.version + 1, "agreed": []}
        if self.clock is not None:
            self.clock.pause(self._event_at)
        self._outcome(seat, "undo", command_id,
                      {"kind": UNDO_REQUESTED, "seat": seat, "index": index})

    @event(UndoAnswered)
    def _undo_answered(self, seat: int, agree: bool, command_id: str) -> None:
        request = self.undo_request
        assert request is not None
        self._outcome(seat, "undo:agree" if agree else "undo:refuse", command_id,
                      {"kind": UNDO_ANSWERED, "seat": seat, "agree": agree,
                       "asked": request["seat"]})
        if agree:
            request["agreed"] = [*request["agreed"], side_of(self.game, seat)]
            return
        self.undo_request = None
        if self.clock is not None:
            self.clock.resume(self._event_at, 0)

    @event(ActionWithdrawn)
    def _action_withdrawn(self, seat: int, action: str, index: int) -> None:
        hand, game = self.hand, self.game
        kept = hand.actions[:index]
        deal = game.deal([parse_card(c) for c in hand.cards], hand.dealer)
        self.hand_state = replay_to(game, deal, hand.dealer, self.rules, kept)
        hand.actions = kept
        hand.withdrawn.append({"index": index, "seat": seat, "action": action,
                               "version": self.version + 1})
        self.undo_request = None
        if self.clock is not None:
            self.clock.restart(self._event_at)
        self._caused({"kind": ACTION_WITHDRAWN, "seat": seat, "index": index})

    @event(TimeControlled)
    def _time_controlled(self, control: dict[str, Any]) -> None:
        self.clock = Clock.start(TimeControl(**control), self.game.num_seats)

    @event(TimedOut)
    def _timed_out(self, seat: int, policy: str, deadline: str, winner: int | None) -> None:
        self.last_timeout = {"seat": seat, "version": self.version + 1, "policy": policy,
                             "deadline": deadline}
        if self.clock is not None:
            self.clock.timed_out(seat, policy, self._event_at)
        if policy == "auto":
            self._referee_acts_for = seat
        elif policy == "forfeit":
            self.match_state = dataclasses.replace(self.match_state, over=True, winner=winner)
            self.forfeit = {"seat": seat, "hand": len(self.hands)}

    @event(ClockPaused)
    def _clock_paused(self, by: str, reason: str) -> None:
        assert self.clock is not None
        self.clock.pause(self._event_at)

    @event(ClockResumed)
    def _clock_resumed(self, by: str, add_ms: int) -> None:
        assert self.clock is not None
        if self.clock.stopped_by_timeout:  # the timed-out seat's turn begins afresh
            self.last_timeout = None
        self.clock.resume(self._event_at, add_ms)

    @event(RulingRecorded)
    def _ruling_recorded(
        self, hand: int, kind: str, adjust: list[int], reason: str, by: str,
        command_id: str = "", rule: str = "", ref: int = 0,
    ) -> None:
        ruling = {"hand": hand, "kind": kind, "adjust": list(adjust), "reason": reason,
                  "by": by, "version": self.version + 1, "rule": rule, "ref": ref}
        self.rulings.append(ruling)
        if command_id:
            self.ruling_commands[command_id] = ruling
