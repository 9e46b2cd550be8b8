"""Pedro (Cinch), as ``rules/euchre-pedro-ulti.md`` §2 defines it (seed 001, Lithuanian).

Seats 0..3 are N, E, S, W; play goes 0 → 1 → 2 → 3. Teams are N–S (0) and E–W (1).
The deal: nine cards each in threes from dealer+1 (PE-5); ``stock`` is the 16-card widow, in
the order the dealer serves it (PE-13).

Phases: the auction (one round of point bids, PE-6), the maker naming trump (PE-8), the
discards (each seat in turn from dealer+1 turns up at least three cards, PE-10), the dealer
choosing from the widow (only with ``dealer_robs_pack``), play (six tricks, PE-15), over.
The refill (PE-13) is done by the referee, not an action.

Where the sources (§2, §4.2) differ, :class:`PedroRules` has a parameter.

A discard is one action naming the whole set, ``discard:7C,8C,9D`` (``docs/hand-record.md``),
coded :data:`DISCARD_BASE` plus the card mask; the legal discards (at most 466) are given
lazily as :class:`DiscardSets`.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import ClassVar, Final

from referee.rules import game, phased
from referee.rules.bowers import LEFT, bower_tables
from referee.rules.cards import (
    ACE,
    CARD_NAMES,
    FIVE,
    FOUR,
    JACK,
    PACK_52,
    RANK_OF,
    SUIT_LETTERS,
    SUIT_NAMES,
    SUITS,
    TEN,
    THREE,
    TWO,
    Card,
    CardSet,
    card,
    cards_in,
    mask_of,
    names,
    parse_card,
)
from referee.rules.compiled import mypyc_attr
from referee.rules.dealing import check_deal
from referee.rules.errors import IllegalActionError, InvalidActionError, NotYourTurnError
from referee.rules.games import invariants
from referee.rules.games.pedro_discards import DISCARD_BASE as DISCARD_BASE
from referee.rules.games.pedro_discards import DiscardSets as DiscardSets
from referee.rules.games.pedro_rules import PedroRules as PedroRules
from referee.rules.params import RuleSet
from referee.rules.phased import Phase
from referee.rules.seats import Seat
from referee.rules.tricks import ClaimOrder, answer, claim_order, winner_index

# The phases (``Pedro.PHASES``), ``Final`` so that compiled code reads them as constants.
BID: Final = 0
NAME: Final = 1
DISCARD: Final = 2
TAKE: Final = 3
PLAY: Final = 4
OVER: Final = 5

# Action codes (cards 0..51 are plays; a discard is DISCARD_BASE + its card mask).
PASS: Final = game.VERB_BASE
BID_BASE: Final = game.VERB_BASE + 1  # + bid 0..14 (0 only for the KATZ dealer)
NAME_BASE: Final = game.VERB_BASE + 16  # + suit
TAKE_BASE: Final = 2 * game.VERB_BASE  # + card (dealer_robs_pack)
MAX_BID: Final = 14
_ACTIONS: Final = (
    "a Pedro action (pass, bid:<0..14>, name:<suit>, discard:<card>,<card>,..., take:<card>, "
    "play:<card>)"
)
WIDOW: Final = 16
HAND: Final = 6

# -- trump tables (PE-2 .. PE-4, PE-17) -----------------------------------------------------

TABLES: Final = bower_tables(
    PACK_52, FIVE, range(TWO, ACE + 1), (TWO, THREE, FOUR, LEFT, *range(FIVE, ACE + 1))
)
"""``TABLES[trump]``: A K Q J 10 9 8 7 6 5 of trump, the left pedro (a trump), 4 3 2; the
others A K Q J 10 9 8 7 6 5 4 3 2, the left pedro's suit without its five (PE-2, PE-3)."""
EFF_SUIT: Final = tuple(t.suit_of for t in TABLES)
"""``EFF_SUIT[trump][card]``: the effective suit (the left pedro is trump, PE-3)."""
EFF_MASK: Final = tuple(t.suit_cards for t in TABLES)
"""``EFF_MASK[trump][suit]``: the cards whose effective suit is ``suit``."""
TRUMPS: Final = tuple(t.trumps for t in TABLES)
"""``TRUMPS[trump]``: the 14 trumps."""
FOLLOW: Final = tuple(tuple(EFF_MASK[t][s] | TRUMPS[t] for s in SUITS) for t in SUITS)
"""``FOLLOW[trump][led]``: what a seat holding the led suit may play, that suit or a trump
(PE-16: on a trump lead, the trumps)."""
POWER: Final = tuple(t.power for t in TABLES)
"""``POWER[trump][led][card]``: higher wins the trick (PE-17)."""
_COUNTS: Final = {ACE: 1, JACK: 1, TEN: 1, TWO: 1, FIVE: 5}
POINTS: Final = tuple(
    tuple(_COUNTS.get(RANK_OF[c], 0) if EFF_SUIT[t][c] == t else 0 for c in range(52))
    for t in SUITS
)
"""``POINTS[trump][card]``: A, J, 10, 2 of trump 1 each, both pedros 5 (PE-4)."""
COUNTING: Final = tuple(sum(1 << c for c in range(52) if POINTS[t][c]) for t in SUITS)
"""``COUNTING[trump]``: the six counting trumps, which may never be discarded (PE-11)."""
LOW: Final = tuple(card(TWO, t) for t in SUITS)

_PLAYED: Final = tuple(tuple(((p, c),) for c in range(52)) for p in range(4))
"""``_PLAYED[seat][card]``: ``((seat, card),)``, added to a trick (shared immutable tuples)."""
_TEAM_NAMES: Final = ("N–S", "E–W")
_new_tuple: Final = tuple.__new__
"""``_new_tuple(Step, (state, facts))``: a Step (or a fact: every fact is a named tuple)
without the named tuple's Python-level constructor (hot path)."""


@functools.cache
def _bid_list(
    high: int, dealer_alone: bool, min_bid: int, overcall: bool, all_pass: str
) -> list[game.Action]:
    """PE-6, PE-7, PE-9: the legal calls over the bid ``high`` (a shared list: never change
    it), ``dealer_alone`` when the other three passed."""
    low = max(min_bid, high + 1)
    if high == MAX_BID and overcall:
        low = MAX_BID
    bids = [BID_BASE + b for b in range(low, MAX_BID + 1)]
    if dealer_alone:
        if all_pass == "dealer_forced":
            return [BID_BASE + b for b in range(max(6, min_bid), MAX_BID + 1)]
        if all_pass == "dealer_free":
            return [PASS, BID_BASE, *bids]
    return [PASS, *bids]


def _read_bid(arg: str) -> int:
    if not (arg.isdigit() and arg.isascii() and int(arg) <= MAX_BID):
        raise InvalidActionError(f"{arg!r} is not a bid: write a number 0..14")
    return int(arg)


def _read_cards(arg: str) -> CardSet:
    m = 0
    for part in arg.split(","):
        c = parse_card(part)
        if m >> c & 1:
            raise InvalidActionError(f"{'discard:' + arg!r} names {CARD_NAMES[c]} twice")
        m |= 1 << c
    return m


def _cards_text(m: CardSet) -> str:
    if not 0 < m < 1 << 52:
        raise KeyError(m)
    return ",".join(names(cards_in(m)))


_NOTATION: Final[tuple[phased.Verb, ...]] = (
    ("play", 0, 52, parse_card, CARD_NAMES.__getitem__),
    ("bid", BID_BASE, BID_BASE + MAX_BID + 1, _read_bid, str),
    ("name", NAME_BASE, NAME_BASE + 4, phased.parse_suit, SUIT_LETTERS.__getitem__),
    ("take", TAKE_BASE, TAKE_BASE + 52, parse_card, CARD_NAMES.__getitem__),
    ("discard", DISCARD_BASE, DISCARD_BASE + (1 << 52), _read_cards, _cards_text),
)


@mypyc_attr(serializable=True, acyclic=True)
class PedroState:
    """One Pedro deal. Treat as immutable: :meth:`Pedro.apply` returns a new one. A new deal
    sets the deal's own fields; the auction's and the play's start at their class defaults."""

    rules: PedroRules
    dealer: Seat
    widow: tuple[Card, ...]
    """The 16-card widow, in the order it is served."""
    widow_left: CardSet
    """The widow cards not yet served."""
    phase: int = BID
    to_act: Seat
    hands: tuple[CardSet, ...]
    bids: tuple[tuple[Seat, int], ...] = ()
    """``(seat, bid)`` in order; ``-1`` is a pass."""
    high: int = -1
    """The highest bid so far (-1: none)."""
    maker: Seat = -1
    """The seat of the highest bid (-1: none)."""
    trump: int = -1
    """The trump suit (-1: not named yet)."""
    discards: tuple[CardSet, ...] = (0, 0, 0, 0)
    """Each seat's discard (a card mask)."""
    requested: int = 0
    """Widow cards asked for so far by the discards (PE-13, PE-14)."""
    widow_up: CardSet = 0
    """The rest of the widow, shown face up (PE-13)."""
    led: int = -1
    trick: tuple[tuple[Seat, Card], ...] = ()
    tricks: tuple[game.TrickTaken, ...] = ()
    taken: tuple[int, int] = (0, 0)
    """Points each team has won in tricks (PE-18)."""
    legal: CardSet
    """Caches that :meth:`Pedro.apply` sets and :meth:`copy` leaves unset: in play, the cards
    the seat to act may play; at a discard, its legal discards (``ds``); once the deal is
    over, its result (``res``)."""
    ds: DiscardSets
    res: game.HandResult

    def copy(self) -> PedroState:
        """A shallow copy (every field is immutable), without ``legal``, ``ds`` and ``res``."""
        s = _NEW_STATE(PedroState)
        s.rules = self.rules
        s.dealer = self.dealer
        s.widow = self.widow
        s.widow_left = self.widow_left
        s.phase = self.phase
        s.to_act = self.to_act
        s.hands = self.hands
        s.bids = self.bids
        s.high = self.high
        s.maker = self.maker
        s.trump = self.trump
        s.discards = self.discards
        s.requested = self.requested
        s.widow_up = self.widow_up
        s.led = self.led
        s.trick = self.trick
        s.tricks = self.tricks
        s.taken = self.taken
        return s

    def __repr__(self) -> str:
        return f"<PedroState phase={Pedro.PHASES[self.phase].name} to_act={self.to_act}>"


_NEW_STATE: Final = PedroState.__new__
"""``_NEW_STATE(PedroState)``: a bare state whose fields the caller sets."""


class Pedro(phased.TeamMatch):
    """Pedro (Cinch): 52 cards, point bids, 14 trumps with two pedros, discard and refill."""

    name: ClassVar[str] = "pedro"
    #: The duplicate comparison's scale (``referee.rules.game.scaled_difference``):
    #: 14 points a deal (PE-4), a failed bid more.
    difference_scale: ClassVar[tuple[int, ...]] = (1, 2, 4, 6, 9, 13, 18, 24)

    aliases: ClassVar[tuple[str, ...]] = ("cinch",)
    title: ClassVar[str] = "Pedro (Cinch)"
    #: Seen only by the acting seat while the hand runs: the cards kept and discarded.
    hidden_verbs: ClassVar[frozenset[str]] = frozenset({"discard", "take"})
    pack: ClassVar[tuple[Card, ...]] = PACK_52
    rules_class: ClassVar[type[RuleSet]] = PedroRules
    PHASES: ClassVar[Sequence[Phase]] = (
        Phase("bid", "PE-6", "pass or bid:<points> (the auction)", "PE-6", ("pass", "bid")),
        Phase("name", "PE-8", "name:<suit> (the maker names trump)", "PE-8", ("name",)),
        Phase("discard", "PE-10", "discard:<card>,<card>,... (at least three cards)", "PE-10",
              ("discard",)),
        Phase("take", "PE-13", "take:<card> (the dealer picks from the widow)", "PE-13",
              ("take",)),
        Phase("play", "PE-15", "play:<card>", "PE-16", ("play",)),
        Phase("over", "PE-15"),
    )
    OVER: ClassVar[int] = OVER

    # -- dealing ---------------------------------------------------------------------------

    def deal(self, pack: Sequence[Card], dealer: Seat) -> game.Deal:
        """Three rounds of three cards from dealer+1 (PE-5); the last 16 are the widow."""
        p = tuple(pack)
        hands: list[tuple[Card, ...]] = [(), (), (), ()]  # a short pack: new_hand says so
        for k in range(4):
            i = 3 * k
            hands[(dealer + 1 + k) % 4] = p[i : i + 3] + p[i + 12 : i + 15] + p[i + 24 : i + 27]
        return game.Deal(hands=tuple(hands), stock=p[36:52])

    def new_hand(self, deal: game.Deal, dealer: Seat, rules: RuleSet) -> PedroState:
        assert isinstance(rules, PedroRules)
        hands = check_deal(deal, PACK_52, (9, 9, 9, 9), WIDOW, "pedro")
        s = _NEW_STATE(PedroState)
        s.rules, s.dealer, s.widow = rules, dealer, deal.stock
        s.widow_left, s.to_act, s.hands = mask_of(deal.stock), (dealer + 1) % 4, tuple(hands)
        return s

    # -- play ------------------------------------------------------------------------------

    def legal_actions(self, state: PedroState) -> Sequence[game.Action]:
        phase = state.phase
        if phase == PLAY:
            return cards_in(self._playable(state))
        if phase == BID:
            return self._bids(state)[:]
        if phase == DISCARD:
            return self._discards(state)
        if phase == NAME:
            return [NAME_BASE, NAME_BASE + 1, NAME_BASE + 2, NAME_BASE + 3]
        if phase == TAKE:
            return [TAKE_BASE + c for c in cards_in(state.widow_left)]
        return []

    def _dealer_alone(self, state: PedroState) -> bool:
        return state.high < 0 and len(state.bids) == 3

    def _bids(self, state: PedroState) -> list[game.Action]:
        r = state.rules
        alone = self._dealer_alone(state)
        return _bid_list(state.high, alone, r.min_bid, r.fourteen_overcall, r.all_pass)

    def _playable(self, state: PedroState) -> CardSet:
        """PE-16: on a plain lead follow suit or trump; on a trump lead play trump if able."""
        try:
            return state.legal
        except AttributeError:
            pass
        hand = state.hands[state.to_act]
        led = state.led
        t = state.trump
        return hand if led < 0 else answer(hand, EFF_MASK[t][led], FOLLOW[t][led], 0, 0, False)

    def _discards(self, state: PedroState) -> DiscardSets:
        try:
            return state.ds
        except AttributeError:
            return DiscardSets(*self._discard_spec(state))

    def _discard_spec(self, state: PedroState) -> tuple[CardSet, CardSet, int, int]:
        """The legal discards (PE-10 .. PE-14) as ``forced | S``, ``S ⊆ pool``,
        ``kmin ≤ |S| ≤ kmax``."""
        hand = state.hands[state.to_act]
        t = state.trump
        room = WIDOW - state.requested  # PE-14
        if state.rules.discard_rule == "at_least_three":
            pool = hand & ~COUNTING[t]  # PE-11
            return 0, pool, 3, min(pool.bit_count(), 3 + room)  # PE-10
        trumps = hand & TRUMPS[t]
        nt = trumps.bit_count()
        plain = hand & ~trumps
        if nt > HAND:  # PE-12: non-counting trumps down to six
            return plain, trumps & ~COUNTING[t], nt - HAND, nt - HAND
        size = min(9 - nt, 3 + room)
        if size == 9 - nt:
            return plain, 0, 0, 0
        return 0, plain, size, size

    def apply(self, state: PedroState, seat: Seat, action: game.Action) -> game.Step:
        phase = state.phase
        if seat != state.to_act or phase == OVER:
            raise self._not_your_turn(state, seat, action)
        if phase == PLAY:
            return self._play(state, seat, action)
        if phase == BID:
            return self._bid(state, seat, action)
        if phase == DISCARD:
            return self._discard(state, seat, action)
        if phase == NAME:
            if not NAME_BASE <= action < NAME_BASE + 4:
                raise self._illegal(state, action)
            s = state.copy()
            s.trump = t = action - NAME_BASE
            s.phase = DISCARD
            s.to_act = (s.dealer + 1) % 4
            s.ds = DiscardSets(*self._discard_spec(s))
            trump = {"trump": SUIT_LETTERS[t], "maker": s.maker, "bid": s.high}
            return _new_tuple(game.Step, (s, (_new_tuple(game.Announced, ("trump", trump)),)))
        c = action - TAKE_BASE
        if not (0 <= c < 52 and state.widow_left >> c & 1):
            raise self._illegal(state, action)
        s = state.copy()
        hands = list(state.hands)
        hands[seat] |= 1 << c
        s.hands = tuple(hands)
        s.widow_left &= ~(1 << c)
        if hands[seat].bit_count() < HAND:
            return _new_tuple(game.Step, (s, ()))
        return _new_tuple(game.Step, (s, (self._start_play(s),)))

    def _play(self, state: PedroState, seat: Seat, action: game.Action) -> game.Step:
        """The hot path: a card played (PE-16 .. PE-18)."""
        if not (action >= 0 and self._playable(state) >> action & 1):  # PE-16
            raise self._illegal(state, action)
        s = state.copy()
        hands = list(state.hands)
        hands[seat] ^= 1 << action
        s.hands = tuple(hands)
        before = state.trick
        trick = s.trick = before + _PLAYED[seat][action]
        t = state.trump
        if len(before) < 3:
            s.to_act = nxt = (seat + 1) & 3
            led = s.led
            if led < 0:
                s.led = led = EFF_SUIT[t][action]
            s.legal = answer(hands[nxt], EFF_MASK[t][led], FOLLOW[t][led], 0, 0, False)
            return _new_tuple(game.Step, (s, ()))
        # the trick is complete (PE-17, PE-18): the first card of the highest power wins
        (p0, c0), (p1, c1), (p2, c2) = before
        winner = (p0, p1, p2, seat)[winner_index(POWER[t][state.led], (c0, c1, c2, action))]
        points = POINTS[t]
        total = points[c0] + points[c1] + points[c2] + points[action]
        taken = list(state.taken)
        taken[winner & 1] += total
        if state.rules.low_point == "played_by":  # the point goes to the side that played it
            for p, c in trick:
                if c == LOW[t] and (p ^ winner) & 1:
                    taken[winner & 1] -= 1
                    taken[p & 1] += 1
        s.taken = (taken[0], taken[1])
        fact = _new_tuple(game.TrickTaken, (len(state.tricks) + 1, trick, winner, total))
        s.tricks = (*state.tricks, fact)
        s.trick = ()
        s.led = -1
        s.to_act = winner
        s.legal = s.hands[winner]
        if len(s.tricks) < HAND:
            return _new_tuple(game.Step, (s, (fact,)))
        s.phase = OVER
        s.res = res = self._score(s)
        return _new_tuple(game.Step, (s, (fact, _new_tuple(game.HandEnded, (res,)))))

    def _bid(self, state: PedroState, seat: Seat, action: game.Action) -> game.Step:
        if action not in self._bids(state):
            raise self._illegal(state, action)
        s = state.copy()
        bid = -1 if action == PASS else action - BID_BASE
        s.bids = (*state.bids, (seat, bid))
        if bid >= 0:
            s.high = bid
            s.maker = seat
        if len(s.bids) < 4:
            s.to_act = (seat + 1) & 3
            return _new_tuple(game.Step, (s, ()))
        if s.maker < 0:  # PE-9: thrown in, dealer+1 deals
            s.phase = OVER
            return _new_tuple(game.Step, (s, (game.HandEnded(self.result(s)),)))
        s.phase = NAME
        s.to_act = s.maker
        fact = _new_tuple(game.Announced, ("contract", {"maker": s.maker, "bid": s.high}))
        return _new_tuple(game.Step, (s, (fact,)))

    def _discard(self, state: PedroState, seat: Seat, action: game.Action) -> game.Step:
        if action not in self._discards(state):
            raise self._illegal(state, action)
        d = action - DISCARD_BASE
        s = state.copy()
        hands = list(state.hands)
        hands[seat] &= ~d
        discards = list(state.discards)
        discards[seat] = d
        s.discards = tuple(discards)
        s.requested += d.bit_count() - 3
        fact = _new_tuple(game.Announced, ("discard", {"seat": seat, "cards": names(cards_in(d))}))
        dealer = s.dealer
        if seat != dealer:
            s.hands = tuple(hands)
            s.to_act = (seat + 1) & 3
            s.ds = DiscardSets(*self._discard_spec(s))
            return _new_tuple(game.Step, (s, (fact,)))
        # PE-13: the dealer serves each seat from dealer+1, the dealer last, to six cards.
        at = 0
        served = [0, 0, 0, 0]
        for k in range(1, 4 if s.rules.dealer_robs_pack else 5):
            p = (dealer + k) & 3
            need = served[p] = HAND - hands[p].bit_count()
            for c in s.widow[at : at + need]:
                hands[p] |= 1 << c
                s.widow_left &= ~(1 << c)
            at += need
        s.hands = tuple(hands)
        refill = _new_tuple(game.Announced, ("refill", {"served": served}))
        if hands[seat].bit_count() < HAND:
            s.phase = TAKE  # the dealer robs the pack (variant)
            return _new_tuple(game.Step, (s, (fact, refill)))
        return _new_tuple(game.Step, (s, (fact, refill, self._start_play(s))))

    def _start_play(self, s: PedroState) -> game.Announced:
        """PE-13: the rest of the widow is shown face up; PE-15: the maker leads."""
        s.widow_up = s.widow_left
        s.widow_left = 0
        s.phase = PLAY
        s.to_act = s.maker
        s.legal = s.hands[s.maker]
        return _new_tuple(game.Announced, ("widow", {"cards": names(cards_in(s.widow_up))}))

    # -- scoring (PE-19 .. PE-22) ----------------------------------------------------------

    def check_result(self, result: game.HandResult, rules: RuleSet) -> None:
        """:raises ConformanceError: a result invariant is broken."""
        invariants.pedro(result, rules)

    def result(self, state: PedroState) -> game.HandResult:
        if state.phase == OVER:
            try:
                return state.res  # as the HandEnded fact gave it
            except AttributeError:
                pass
        return self._score(state)

    def _score(self, state: PedroState) -> game.HandResult:
        """The deal's result (PE-19 .. PE-22)."""
        maker = state.maker
        if maker < 0:
            return game.HandResult((0, 0), {"redeal": True}, void=True)
        r = state.rules
        makers = maker & 1
        bid = state.high
        p_m = state.taken[makers]
        p_d = state.taken[1 - makers]
        made = p_m >= bid
        points = [0, 0]
        if made:  # PE-19, PE-21
            points[makers] = p_m
            if r.defenders_score_own:
                points[1 - makers] = p_d
        elif r.failed_bid == "fail_opponents_own_plus_bid":  # PE-22
            points[1 - makers] = p_d + bid
        elif r.failed_bid == "fail_minus_bid":
            points[makers] = -bid
            points[1 - makers] = p_d
        else:  # PE-20
            points[1 - makers] = bid
        t = state.trump
        detail: dict[str, game.JSON] = {
            "maker": maker,
            "bid": bid,
            "trump": SUIT_LETTERS[t] if t >= 0 else None,
            "points_taken": list(state.taken),
            "widow_points": sum(POINTS[t][c] for c in cards_in(state.widow_up)) if t >= 0 else 0,
            "made": made,
        }
        return game.HandResult((points[0], points[1]), detail)

    # -- views -----------------------------------------------------------------------------

    def view(self, state: PedroState, seat: Seat | None) -> dict[str, game.JSON]:
        out = self._frame(state)
        out |= {
            "bids": [{"seat": p, "bid": b if b >= 0 else "pass"} for p, b in state.bids],
            "high_bid": state.high if state.high >= 0 else None,
            "maker": state.maker if state.maker >= 0 else None,
            "trump": SUIT_LETTERS[state.trump] if state.trump >= 0 else None,
            "discards": [names(cards_in(d)) for d in state.discards],
            "widow_size": state.widow_left.bit_count(),
            "widow_up": names(cards_in(state.widow_up)),
            "hand_sizes": [h.bit_count() for h in state.hands],
            "trick": [{"seat": p, "card": CARD_NAMES[c]} for p, c in state.trick],
            "tricks": [t.to_json() for t in state.tricks],
            "points_taken": list(state.taken),
        }
        robbing = state.phase == TAKE and seat == state.dealer  # the dealer picks (PE-13)
        widow = names(cards_in(state.widow_left)) if robbing else None
        return self._own(out, state, seat, state.hands, widow=widow)

    def audit_view(self, state: PedroState) -> dict[str, game.JSON]:
        out = self.view(state, None)
        out["hands"] = [names(cards_in(h)) for h in state.hands]
        out["widow"] = [CARD_NAMES[c] for c in state.widow if state.widow_left >> c & 1]
        return out

    # -- notation --------------------------------------------------------------------------

    def parse_action(self, text: str) -> game.Action:
        return phased.parse_verbs(text, {"pass": PASS}, _NOTATION, _ACTIONS)

    def format_action(self, action: game.Action) -> str:
        return phased.format_verbs(action, {PASS: "pass"}, _NOTATION)

    def all_actions(self) -> list[game.Action]:
        """Every code but the billions of discards: plays, pass, bids, names, takes, and 96
        discards (each card alone, three consecutive ranks of a suit) for the conformance
        checker."""
        family = [1 << c for c in PACK_52]
        family += [7 << (13 * s + r) for s in SUITS for r in range(11)]
        return sorted(
            [
                *PACK_52,
                PASS,
                *range(BID_BASE, NAME_BASE + 4),
                *(TAKE_BASE + c for c in PACK_52),
                *(DISCARD_BASE + m for m in family),
            ]
        )

    def claim_order(self, state: PedroState) -> ClaimOrder:
        """The cards in play by trick power (PE-3, PE-17): the left pedro with the trumps,
        just below the right pedro, not in its printed suit (for a claim's search,
        referee.rules.claims; a claim is of tricks, so the pedros' points do not part them).
        A seat may trump a plain lead it could follow (PE-16)."""
        in_play = sum(state.hands)
        for _, c in state.trick:
            in_play |= 1 << c
        return claim_order(TABLES[state.trump], in_play, follows=False)

    def card_locations(self, state: PedroState) -> dict[str, CardSet]:
        where = {f"hand{s}": h for s, h in enumerate(state.hands)}
        where["played"] = phased.played(state.tricks, (c for _, c in state.trick))
        where["discards"] = sum(state.discards)
        where["widow"] = state.widow_left
        where["widow_up"] = state.widow_up
        return where

    # -- match level (PE-5, PE-9, PE-23) ---------------------------------------------------

    def after_hand(
        self, match: game.MatchState, result: game.HandResult, rules: RuleSet
    ) -> game.MatchState:
        assert isinstance(rules, PedroRules)
        if match.over:
            won = "no side" if match.winner is None else _TEAM_NAMES[match.winner]
            raise NotYourTurnError(
                f"no deal may be added: the match is over ({won} won, "
                f"{match.scores[0]}–{match.scores[1]})",
                "PE-23",
            )

        def both(scores: tuple[int, ...]) -> int:  # the makers, or the higher total
            if rules.both_reach_target == "higher_score" and scores[0] != scores[1]:
                return 0 if scores[0] > scores[1] else 1
            return int(result.detail["maker"]) & 1

        return phased.next_match(match, result.points, rules.target_score, both)

    # -- errors ----------------------------------------------------------------------------

    def _illegal(self, state: PedroState, action: game.Action) -> IllegalActionError:
        """Explain why ``action`` is refused, naming the rule."""
        text = self._text(action)
        phase = state.phase
        if phase == BID and BID_BASE <= action <= BID_BASE + MAX_BID:
            return self._illegal_bid(state, text, action - BID_BASE)
        if phase == BID and action == PASS:
            return IllegalActionError(
                "'pass': the other three passed and the dealer must bid (all_pass is "
                "dealer_forced)",
                "PE-9",
            )
        if phase == DISCARD and action > DISCARD_BASE and action - DISCARD_BASE < 1 << 52:
            return self._illegal_discard(state, text, action - DISCARD_BASE)
        if phase == TAKE and TAKE_BASE <= action < TAKE_BASE + 52:
            return IllegalActionError(
                f"{text!r}: {CARD_NAMES[action - TAKE_BASE]} is not in the rest of the widow",
                "PE-13",
            )
        if phase == PLAY and 0 <= action < 52:
            hand = state.hands[state.to_act]
            if not hand >> action & 1:
                return IllegalActionError(
                    f"{text!r}: you do not hold {CARD_NAMES[action]}", "PE-16"
                )
            t = state.trump
            if state.led == t:
                return IllegalActionError(
                    f"{text!r}: trump was led and you hold trump {_held(hand & TRUMPS[t])} "
                    "(the left pedro counts as trump)",
                    "PE-16",
                )
            return IllegalActionError(
                f"{text!r}: must follow suit or trump: {SUIT_NAMES[state.led]} was led and "
                f"you hold {_held(hand & EFF_MASK[t][state.led])}",
                "PE-16",
            )
        return self._not_now(state, text)

    def _illegal_bid(self, state: PedroState, text: str, bid: int) -> IllegalActionError:
        r = state.rules
        if self._dealer_alone(state) and r.all_pass == "dealer_forced":
            return IllegalActionError(
                f"{text!r}: the other three passed, the dealer must bid at least "
                f"{max(6, r.min_bid)}",
                "PE-9",
            )
        if bid < r.min_bid:
            return IllegalActionError(f"{text!r}: the lowest bid is {r.min_bid}", "PE-7")
        if state.high == MAX_BID:
            return IllegalActionError(f"{text!r}: a bid of 14 cannot be overcalled", "PE-7")
        return IllegalActionError(
            f"{text!r}: a bid must be strictly higher than the current bid of {state.high}",
            "PE-6",
        )

    def _illegal_discard(self, state: PedroState, text: str, d: CardSet) -> IllegalActionError:
        hand = state.hands[state.to_act]
        t = state.trump
        if d & ~hand:
            return IllegalActionError(f"{text!r}: you do not hold {_held(d & ~hand)}", "PE-10")
        if d & COUNTING[t]:
            return IllegalActionError(
                f"{text!r}: {_held(d & COUNTING[t])} counts and may never be turned up (A, J, "
                "10, 2 of trump and both pedros)",
                "PE-11",
            )
        if d.bit_count() < 3:
            return IllegalActionError(
                f"{text!r}: turn up at least three cards, not {d.bit_count()}", "PE-10"
            )
        if state.rules.discard_rule == "all_non_trumps":
            forced, _, kmin, _ = self._discard_spec(state)
            return IllegalActionError(
                f"{text!r}: turn up exactly {forced.bit_count() + kmin} cards: every non-trump, "
                "and trumps only beyond six (discard_rule is all_non_trumps)",
                "PE-12",
            )
        room = WIDOW - state.requested
        return IllegalActionError(
            f"{text!r}: the widow can give only {room} more cards, so turn up at most {3 + room}",
            "PE-14",
        )


def _held(cards: CardSet) -> str:
    """The cards of a set, named, for a refusal."""
    return " ".join(names(cards_in(cards)))


GAME: Final = Pedro()
