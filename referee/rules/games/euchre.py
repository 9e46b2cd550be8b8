"""Euchre, as ``rules/euchre-pedro-ulti.md`` §1 defines it (seed 002, Polish).

Seats 0..3 are N, E, S, W; play goes 0 → 1 → 2 → 3. Teams are N–S (0) and E–W (1).
The deal: five cards each; ``stock[0]`` is the upcard, the other three stay hidden (EU-5).

Phases: round-1 bidding, round-2 bidding, the dealer's exchange, the maker's decision to go
alone, each defender's decision (when ``lone_defender`` is on), play, over.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Final

from referee.rules import game, phased
from referee.rules.bowers import LEFT, bower_tables
from referee.rules.cards import (
    ACE,
    CARD_NAMES,
    JACK,
    KING,
    NINE,
    PACK_24,
    QUEEN,
    SUIT_LETTERS,
    SUIT_NAMES,
    SUIT_OF,
    SUITS,
    TEN,
    Card,
    CardSet,
    cards_in,
    mask_of,
    names,
    parse_card,
)
from referee.rules.compiled import mypyc_attr
from referee.rules.dealing import check_deal
from referee.rules.errors import IllegalActionError, InvalidActionError
from referee.rules.games import invariants
from referee.rules.games.euchre_rules import EuchreRules as EuchreRules
from referee.rules.params import RuleSet
from referee.rules.phased import Phase
from referee.rules.seats import Seat
from referee.rules.tricks import ClaimOrder, Trick, claim_order, follow_suit, lead, play

# The phases (``Euchre.PHASES``), ``Final`` so that compiled code reads them as constants.
BID1: Final = 0
BID2: Final = 1
DISCARD: Final = 2
ALONE: Final = 3
DEFEND: Final = 4
PLAY: Final = 5
OVER: Final = 6

# Action codes (cards 0..51 are plays).
PASS: Final = game.VERB_BASE
ORDER_UP: Final = game.VERB_BASE + 1
NAME_BASE: Final = game.VERB_BASE + 2  # + suit
GO_ALONE: Final = game.VERB_BASE + 6
WITH_PARTNER: Final = game.VERB_BASE + 7
DEFEND_ALONE: Final = game.VERB_BASE + 8
DEFEND_PARTNER: Final = game.VERB_BASE + 9
DISCARD_BASE: Final = 2 * game.VERB_BASE  # + card

_VERBS: Final = {
    "pass": PASS,
    "order_up": ORDER_UP,
    "alone": GO_ALONE,
    "partner": WITH_PARTNER,
    "defend_alone": DEFEND_ALONE,
    "defend_partner": DEFEND_PARTNER,
}
_VERB_NAMES: Final = {code: verb for verb, code in _VERBS.items()}
_ACTIONS: Final = (
    "a Euchre action (pass, order_up, name:<suit>, discard:<card>, alone, partner, "
    "defend_alone, defend_partner, play:<card>)"
)
_NOTATION: Final[tuple[phased.Verb, ...]] = (
    ("play", 0, game.VERB_BASE, parse_card, CARD_NAMES.__getitem__),
    ("name", NAME_BASE, NAME_BASE + 4, phased.parse_suit, SUIT_LETTERS.__getitem__),
    ("discard", DISCARD_BASE, 1 << 64, parse_card, CARD_NAMES.__getitem__),
)

# -- trump tables (EU-3, EU-19, EU-20) ------------------------------------------------------

TABLES: Final = bower_tables(
    PACK_24, JACK, range(NINE, ACE + 1), (NINE, TEN, QUEEN, KING, ACE, LEFT, JACK)
)
"""``TABLES[trump]``: the right bower, the left bower (a trump), A K Q 10 9 of trump; the
others A K Q J 10 9, the left bower's suit without its jack (EU-3)."""
EFF_MASK: Final = tuple(t.suit_cards for t in TABLES)
"""``EFF_MASK[trump][suit]``: the cards whose effective suit is ``suit``."""
POWER: Final = tuple(t.power for t in TABLES)
"""``POWER[trump][led][card]``: higher wins the trick (EU-20)."""


@mypyc_attr(serializable=True, acyclic=True)
class EuchreState:
    """One Euchre deal. Treat as immutable: :meth:`Euchre.apply` returns a new one. A new deal
    sets the deal's own fields; the auction's and the play's start at their class defaults."""

    rules: EuchreRules
    dealer: Seat
    stock: tuple[Card, ...]
    """The four cards not dealt, the upcard first (EU-5)."""
    phase: int = BID1
    to_act: Seat
    hands: tuple[CardSet, ...]
    passes: int = 0
    trump: int = -1
    maker: Seat = -1
    alone: bool = False
    defender: Seat = -1
    asked: int = 0
    out: int = 0
    discard: Card = -1
    trick: Trick | None = None
    """The trick in play (``None`` between tricks)."""
    tricks: tuple[game.TrickTaken, ...] = ()
    won: tuple[int, int] = (0, 0)

    def copy(self) -> EuchreState:
        """A shallow copy (every field is immutable)."""
        s = _NEW_STATE(EuchreState)
        s.rules = self.rules
        s.dealer = self.dealer
        s.stock = self.stock
        s.phase = self.phase
        s.to_act = self.to_act
        s.hands = self.hands
        s.passes = self.passes
        s.trump = self.trump
        s.maker = self.maker
        s.alone = self.alone
        s.defender = self.defender
        s.asked = self.asked
        s.out = self.out
        s.discard = self.discard
        s.trick = self.trick
        s.tricks = self.tricks
        s.won = self.won
        return s

    def __repr__(self) -> str:
        return f"<EuchreState phase={Euchre.PHASES[self.phase].name} to_act={self.to_act}>"


_NEW_STATE: Final = EuchreState.__new__
"""``_NEW_STATE(EuchreState)``: a bare state whose fields the caller sets."""

# next active seat after s, for each mask of seats sitting out
_NEXT: Final = tuple(
    tuple(
        next(((s + k) % 4 for k in range(1, 5) if not (out >> ((s + k) % 4)) & 1), s)
        for s in range(4)
    )
    for out in range(16)
)


def _plays(trick: Trick | None, out: int) -> tuple[tuple[Seat, Card], ...]:
    """``(seat, card)`` of ``trick`` in play order, passing over the seats in ``out``."""
    if trick is None:
        return ()
    plays = []
    seat = trick.leader
    for c in trick.cards:
        plays.append((seat, c))
        seat = _NEXT[out][seat]
    return tuple(plays)


_REFUSALS: Final = {
    (BID2, PASS): ("'pass': the dealer is stuck and must name a suit (stick the dealer)", "EU-8"),
    (ALONE, WITH_PARTNER): (
        "'partner': the dealer's partner who ordered up must go alone (canadian)",
        "EU-15",
    ),
}
"""The refusals of one action in one phase, which can be refused for one reason only."""

class Euchre(phased.TeamMatch):
    """Euchre: 24 cards, bowers, order up or name trump, going alone, to 10 points."""

    name: ClassVar[str] = "euchre"
    #: The duplicate comparison's scale (``referee.rules.game.scaled_difference``):
    #: a hand is worth 1 to 4 points (EU-25): nets differ by up to 8.
    difference_scale: ClassVar[tuple[int, ...]] = (1, 2, 3, 4, 6, 8)
    #: The referee's action for a seat whose time ran out: pass, and never go alone.
    default_verbs: ClassVar[tuple[str, ...]] = ("pass", "partner", "defend_partner")

    aliases: ClassVar[tuple[str, ...]] = ("eucher",)
    title: ClassVar[str] = "Euchre"
    #: Seen only by the acting seat while the hand runs: the dealer's discard (EU-10).
    hidden_verbs: ClassVar[frozenset[str]] = frozenset({"discard"})
    pack: ClassVar[tuple[Card, ...]] = PACK_24
    rules_class: ClassVar[type[RuleSet]] = EuchreRules
    PHASES: ClassVar[Sequence[Phase]] = (
        Phase("bid1", "EU-9", "pass or order_up (round 1 of the bidding)", "EU-6",
              ("pass", "order_up")),
        Phase("bid2", "EU-9", "pass or name:<suit> (round 2 of the bidding)", "EU-7",
              ("pass", "name")),
        Phase("discard", "EU-9", "discard:<card> (the dealer's exchange)", "EU-10", ("discard",)),
        Phase("alone", "EU-9", "alone or partner (the maker's decision)", "EU-13",
              ("alone", "partner")),
        Phase("defend", "EU-9", "defend_alone or defend_partner (a defender's decision)", "EU-14",
              ("defend_alone", "defend_partner")),
        Phase("play", "EU-17", "play:<card>", "EU-17", ("play",)),
        Phase("over", "EU-17"),
    )
    OVER: ClassVar[int] = OVER

    # -- dealing ---------------------------------------------------------------------------

    def deal(self, pack: Sequence[Card], dealer: Seat) -> game.Deal:
        """Five cards to each seat from dealer+1 (EU-5); the rest is the stock, upcard first."""
        hands = [tuple(pack[5 * i : 5 * i + 5]) for i in range(4)]
        ordered = tuple(hands[(s - dealer - 1) % 4] for s in range(4))
        return game.Deal(hands=ordered, stock=tuple(pack[20:24]))

    def new_hand(self, deal: game.Deal, dealer: Seat, rules: RuleSet) -> EuchreState:
        assert isinstance(rules, EuchreRules)
        hands = check_deal(deal, PACK_24, (5, 5, 5, 5), 4, "euchre")
        s = _NEW_STATE(EuchreState)
        s.rules, s.dealer, s.stock = rules, dealer, deal.stock
        s.to_act, s.hands = (dealer + 1) % 4, tuple(hands)
        return s

    # -- play ------------------------------------------------------------------------------

    def legal_actions(self, state: EuchreState) -> list[game.Action]:
        phase = state.phase
        if phase == PLAY:
            return cards_in(self._playable(state))
        if phase == BID1:
            return [PASS, ORDER_UP]
        if phase == BID2:
            up = SUIT_OF[state.stock[0]]
            calls = [NAME_BASE + s for s in SUITS if s != up]
            if state.passes == 7 and state.rules.stick_the_dealer:
                return calls
            return [PASS, *calls]
        if phase == DISCARD:
            hand = state.hands[state.dealer]
            if not state.rules.dealer_may_discard_upcard:
                hand &= ~(1 << state.stock[0])
            return [DISCARD_BASE + c for c in cards_in(hand)]
        if phase == ALONE:
            if self._must_go_alone(state):
                return [GO_ALONE]
            return [GO_ALONE, WITH_PARTNER]
        if phase == DEFEND:
            return [DEFEND_ALONE, DEFEND_PARTNER]
        return []

    def _playable(self, state: EuchreState) -> CardSet:
        """EU-18, EU-19: follow the led (effective) suit if able, else any card."""
        hand = state.hands[state.to_act]
        trick = state.trick
        return hand if trick is None else follow_suit(hand, EFF_MASK[state.trump][trick.led])

    def _must_go_alone(self, state: EuchreState) -> bool:
        return state.rules.canadian and state.passes < 4 and state.maker == (state.dealer + 2) % 4

    def apply(self, state: EuchreState, seat: Seat, action: game.Action) -> game.Step:
        if seat != state.to_act or state.phase == OVER:
            raise self._not_your_turn(state, seat, action)
        if state.phase == PLAY and 0 <= action < game.VERB_BASE:
            if not (self._playable(state) >> action) & 1:
                raise self._illegal(state, action)
            return self._play(state, seat, action)
        if action not in self.legal_actions(state):
            raise self._illegal(state, action)
        s = state.copy()
        phase = state.phase
        facts: tuple[game.Fact, ...] = ()
        if action == PASS:  # four passes end round 1, eight void the deal (EU-8 variant)
            s.passes += 1
            s.to_act = (seat + 1) % 4
            if s.passes == 4:
                s.phase = BID2
            elif s.passes == 8:
                s.phase = OVER
                facts = (game.HandEnded(self.result(s)),)
        elif phase <= BID2:  # the maker orders up (EU-6) or names trump (EU-7)
            s.maker = seat
            if phase == BID1:  # the dealer takes the upcard (EU-10)
                s.trump = SUIT_OF[state.stock[0]]
                hands = list(s.hands)
                hands[s.dealer] |= 1 << state.stock[0]
                s.hands = tuple(hands)
                s.phase = DISCARD
                s.to_act = s.dealer
            else:
                s.trump = action - NAME_BASE
                s.phase = ALONE
            made = {"trump": SUIT_LETTERS[s.trump], "maker": seat, "round": 1 + (s.passes >= 4)}
            facts = (game.Announced("trump", made),)
        elif phase == DISCARD:
            c = action - DISCARD_BASE
            hands = list(s.hands)
            hands[seat] &= ~(1 << c)
            s.hands = tuple(hands)
            s.discard = c
            s.phase = ALONE
            s.to_act = s.maker
        elif phase == ALONE:
            if action == GO_ALONE:
                s.alone = True
                s.out = 1 << ((seat + 2) % 4)
            facts = (game.Announced("alone", {"seat": seat, "alone": s.alone}),)
            self._next_defender(s)
        else:  # DEFEND
            s.asked += 1
            if action == DEFEND_ALONE:
                s.defender = seat
                s.out |= 1 << ((seat + 2) % 4)
                facts = (game.Announced("defend_alone", {"seat": seat}),)
                self._start_play(s)
            else:
                self._next_defender(s)
        return game.Step(s, facts)

    def _next_defender(self, s: EuchreState) -> None:
        """Ask the next defender in seat order from dealer+1, or start play (EU-14)."""
        r = s.rules
        if r.lone_defender and not (r.defend_alone_only_vs_loner and not s.alone):
            defenders = [
                (s.dealer + k) % 4 for k in range(1, 5) if ((s.dealer + k) % 4 - s.maker) % 2
            ]
            if s.asked < 2:
                s.phase = DEFEND
                s.to_act = defenders[s.asked]
                return
        self._start_play(s)

    def _start_play(self, s: EuchreState) -> None:
        """EU-16: dealer+1 leads, or the next active seat; variant: left of the loner."""
        s.phase = PLAY
        first = s.dealer
        if s.rules.loner_lead == "left_of_loner":
            if s.alone:
                first = s.maker
            elif s.defender >= 0:
                first = s.defender
        s.to_act = _NEXT[s.out][first]

    def _play(self, state: EuchreState, seat: Seat, c: Card) -> game.Step:
        s = state.copy()
        hands = list(state.hands)
        hands[seat] &= ~(1 << c)
        s.hands = tuple(hands)
        t = state.trump
        before = state.trick
        trick = (
            lead(TABLES[t], seat, c)
            if before is None
            else play(before, POWER[t][before.led], seat, c)
        )
        if len(trick.cards) < 4 - state.out.bit_count():
            s.trick = trick
            s.to_act = _NEXT[state.out][seat]
            return game.Step(s, ())
        # the trick is complete (EU-20)
        winner = trick.winner
        taken = game.TrickTaken(len(state.tricks) + 1, _plays(trick, state.out), winner)
        s.tricks = (*state.tricks, taken)
        s.trick = None
        won = list(state.won)
        won[winner & 1] += 1
        s.won = (won[0], won[1])
        if len(s.tricks) == 5:
            s.phase = OVER
            return game.Step(s, (taken, game.HandEnded(self.result(s))))
        s.to_act = winner
        return game.Step(s, (taken,))

    # -- scoring (EU-21 .. EU-25) ----------------------------------------------------------

    def check_result(self, result: game.HandResult, rules: RuleSet) -> None:
        """:raises ConformanceError: a result invariant is broken."""
        invariants.euchre(result, rules)

    def result(self, state: EuchreState) -> game.HandResult:
        if state.maker < 0:
            return game.HandResult((0, 0), {"redeal": True}, void=True)
        makers = state.maker & 1
        m = state.won[makers]
        r = state.rules
        points = [0, 0]
        if m >= 3:
            points[makers] = (4 if state.alone else 2) if m == 5 else 1
        elif state.defender >= 0:
            all_five = m == 0
            points[1 - makers] = 4 if (all_five or r.lone_defender_euchre == "any") else 2
        else:  # EU-23: the regional march bonus only when nobody went alone
            points[1 - makers] = r.defenders_march_points if m == 0 and not state.alone else 2
        detail = {
            "trump": SUIT_LETTERS[state.trump],
            "maker": state.maker,
            "alone": state.alone,
            "lone_defender": state.defender if state.defender >= 0 else None,
            "tricks": list(state.won),
            "euchred": m < 3,
        }
        return game.HandResult((points[0], points[1]), detail)

    # -- views -----------------------------------------------------------------------------

    def view(self, state: EuchreState, seat: Seat | None) -> dict[str, game.JSON]:
        out = self._frame(state)
        out |= {
            "upcard": CARD_NAMES[state.stock[0]],
            "upcard_taken": state.trump >= 0 and state.passes < 4,
            "passes": state.passes,
            "trump": SUIT_LETTERS[state.trump] if state.trump >= 0 else None,
            "maker": state.maker if state.maker >= 0 else None,
            "alone": state.alone,
            "lone_defender": state.defender if state.defender >= 0 else None,
            "sitting_out": [s for s in range(4) if state.out >> s & 1],
            "hand_sizes": [h.bit_count() for h in state.hands],
            "trick": [
                {"seat": p, "card": CARD_NAMES[c]} for p, c in _plays(state.trick, state.out)
            ],
            "tricks": [t.to_json() for t in state.tricks],
            "tricks_won": list(state.won),
        }
        laid = CARD_NAMES[state.discard] if seat == state.dealer and state.discard >= 0 else None
        return self._own(out, state, seat, state.hands, discard=laid)

    def audit_view(self, state: EuchreState) -> dict[str, game.JSON]:
        out = self.view(state, None)
        out["hands"] = [[CARD_NAMES[c] for c in cards_in(h)] for h in state.hands]
        out["stock"] = [CARD_NAMES[c] for c in state.stock]
        out["discard"] = CARD_NAMES[state.discard] if state.discard >= 0 else None
        return out

    # -- notation --------------------------------------------------------------------------

    def parse_action(self, text: str) -> game.Action:
        try:
            return phased.parse_verbs(text, _VERBS, _NOTATION, _ACTIONS)
        except InvalidActionError as exc:
            if repr(text) in exc.message:
                raise
            raise InvalidActionError(f"{text!r}: {exc.message}") from None

    def format_action(self, action: game.Action) -> str:
        return phased.format_verbs(action, _VERB_NAMES, _NOTATION)

    def all_actions(self) -> list[game.Action]:
        discards = (DISCARD_BASE + c for c in PACK_24)
        return sorted([*PACK_24, *_VERBS.values(), *range(NAME_BASE, NAME_BASE + 4), *discards])

    def claim_order(self, state: EuchreState) -> ClaimOrder:
        """The cards in play by trick power (EU-3, EU-20): the left bower with the trumps,
        between the right bower and the ace; not the hand of a seat sitting out (EU-13,
        EU-14), which is never played (for a claim's search, referee.rules.claims)."""
        in_play = sum(h for s, h in enumerate(state.hands) if not (state.out >> s) & 1)
        if state.trick is not None:
            in_play |= mask_of(state.trick.cards)
        return claim_order(TABLES[state.trump], in_play)

    def card_locations(self, state: EuchreState) -> dict[str, CardSet]:
        where = {f"hand{s}": h for s, h in enumerate(state.hands)}
        where["played"] = phased.played(state.tricks, state.trick.cards if state.trick else ())
        where["discard"] = 1 << state.discard if state.discard >= 0 else 0
        taken = state.trump >= 0 and state.passes < 4
        where["upcard"] = 0 if taken else 1 << state.stock[0]
        where["hidden_stock"] = sum(1 << c for c in state.stock[1:])
        return where

    # -- match level (EU-4, EU-24) ---------------------------------------------------------

    def after_hand(
        self, match: game.MatchState, result: game.HandResult, rules: RuleSet
    ) -> game.MatchState:
        assert isinstance(rules, EuchreRules)
        return phased.next_match(match, result.points, rules.target_score)

    # -- errors ----------------------------------------------------------------------------

    def _illegal(self, state: EuchreState, action: game.Action) -> IllegalActionError:
        """Explain why ``action`` is refused, naming the rule."""
        if not self._known(action):
            return IllegalActionError(f"action code {action} is not a Euchre action", "EU-9")
        text = self.format_action(action)
        phase = state.phase
        refusal = _REFUSALS.get((phase, action))
        if refusal is not None:
            return IllegalActionError(*refusal)
        if phase == BID2 and NAME_BASE <= action < NAME_BASE + 4:
            return IllegalActionError(
                f"{text!r}: the upcard's suit was turned down in round 1; name another suit",
                "EU-7",
            )
        c = action - DISCARD_BASE if phase == DISCARD else action
        if phase not in (PLAY, DISCARD) or not 0 <= c < game.VERB_BASE:
            return self._not_now(state, text)
        hand = state.hands[state.to_act]
        held = (hand >> c) & 1
        if phase == DISCARD and held:  # so the upcard
            return IllegalActionError(
                f"{text!r}: the upcard may not be laid aside under these rules "
                "(dealer_may_discard_upcard is off)",
                "EU-11",
            )
        if not held:
            rule = "EU-10" if phase == DISCARD else "EU-18"
            return IllegalActionError(f"{text!r}: you do not hold {CARD_NAMES[c]}", rule)
        t = state.trump
        assert state.trick is not None  # a held card is refused only when following
        led = state.trick.led
        follow = names(cards_in(hand & EFF_MASK[t][led]))
        bower = " (the left bower counts as trump)" if t in (led, TABLES[t].suit_of[c]) else ""
        return IllegalActionError(
            f"{text!r}: must follow suit: {SUIT_NAMES[led]} was led{bower} and you hold "
            f"{' '.join(follow)}",
            "EU-18",
        )


GAME: Final = Euchre()
