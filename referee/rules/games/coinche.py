"""Coinche (Belote contrée), as ``rules/belot-coinche.md`` §2 defines it (seed 003, French).

Seats 0..3 in turn order; teams 0–2 and 1–3. The card orders, suit-contract values, trick
power tables and sequence / carré tables come from :mod:`belote_family` (shared with Bulgarian
Belot); everything Coinche-specific (the auction, the SA / TA values, announcements compared in a
single contest, belote-rebelote, the seed's scoring formulas, the match to 701) is here.

The deal (CO-D2): eight cards to each seat in packets of 3, 2, 3 from ``dealer + 1``;
``deal.hands[s]`` lists the cards in the order received and ``deal.stock`` is empty. With
``cards_before_auction = k < 8`` (the seed's literal reading, CO-D4) a seat holds only the first
``k`` cards of its hand during the auction; a record may instead give ``k`` cards per hand and
the other ``32 - 4k`` in ``stock``, ``8 - k`` per seat in deal order from ``dealer + 1``.

Phases: the auction, the play (announcements and belote are said during play), over.
Sources: the seed; https://www.pagat.com/jass/coinche.html; FFB rules as quoted in the
Avo-k/colver rules survey (see the reference §2.1).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from operator import itemgetter
from typing import ClassVar, Final, TypeAlias

from referee.rules.cards import (
    CARD_NAMES,
    KING,
    PACK_32,
    QUEEN,
    RANK_OF,
    SUIT_MASKS,
    SUIT_NAMES,
    SUIT_OF,
    SUITS,
    Card,
    CardSet,
    card,
    cards_in,
    parse_card,
)
from referee.rules.compiled import mypyc_attr
from referee.rules.dealing import check_deal
from referee.rules.errors import (
    IllegalActionError,
    InvalidActionError,
    NotYourTurnError,
)
from referee.rules.game import (
    JSON,
    VERB_BASE,
    Action,
    Announced,
    Deal,
    Fact,
    HandEnded,
    HandResult,
    MatchState,
    Step,
    TrickTaken,
)
from referee.rules.games.belote_declarations import (
    COMBO_BY_MASK,
    COMBO_MASKS,
    FR_KINDS,
    co_announceable,
    co_resolve,
    co_value,
)
from referee.rules.games.belote_family import (
    ALL_TRUMPS,
    BELOT_PARTNER,
    KING_QUEEN,
    LAST_TRICK_BONUS,
    NO_TRUMPS,
    PACK_MASK,
    RANKS,
)
from referee.rules.games.belote_game import AUCTION, OVER, PLAY, BeloteGame, Phase
from referee.rules.games.belote_play import PlayRules, legal_cards, play_rules, team_tally
from referee.rules.games.coinche_rules import CoincheRules
from referee.rules.games.coinche_scoring import card_points_table, score
from referee.rules.params import RuleSet
from referee.rules.seats import Seat
from referee.rules.tricks import Trick, play

SA: Final = NO_TRUMPS
TA: Final = ALL_TRUMPS
DENOM_NAMES: Final = ("C", "D", "H", "S", "SA", "TA")
DENOM_WORDS: Final = ("clubs", "diamonds", "hearts", "spades", "sans atout", "tout atout")


__all__ = [  # the game, and the rules, scoring and announcement functions it is made of
    "AUCTION",
    "GAME",
    "OVER",
    "PLAY",
    "Coinche",
    "CoincheRules",
    "CoincheState",
    "Phase",
    "card_points_table",
    "combo_value",
    "resolve_announcements",
    "score",
]

# -- action codes (cards 0..51 are plays) -----------------------------------------------------

PASS: Final = VERB_BASE
COINCHE: Final = VERB_BASE + 1
SURCOINCHE: Final = VERB_BASE + 2
BID_BASE: Final = VERB_BASE + 3  # + level index * 6 + denomination
NUMERIC_VALUES: Final = tuple(range(80, 190, 10))  # 80 .. 180
CAPOT_LI: Final = len(NUMERIC_VALUES)  # 11
GENERALE_LI: Final = CAPOT_LI + 1  # 12
N_LEVELS: Final = GENERALE_LI + 1
ANNOUNCE_BASE: Final = 160  # + combination index
BELOTE_BASE: Final = 256  # + card
REBELOTE_BASE: Final = 320  # + card

_VERBS: Final = {"pass": PASS, "coinche": COINCHE, "surcoinche": SURCOINCHE}
_VERB_NAMES: Final = {code: verb for verb, code in _VERBS.items()}
_LEVEL_NAMES: Final = {1: "none", 2: "coinche", 4: "surcoinche"}


def bid_code(li: int, denom: int) -> Action:
    """The code of a bid at level index ``li`` (0 = 80 .. 10 = 180, 11 capot, 12 generale)."""
    return BID_BASE + li * 6 + denom


def _li_text(li: int) -> str:
    return (
        "capot" if li == CAPOT_LI else "generale" if li == GENERALE_LI else str(NUMERIC_VALUES[li])
    )


# -- announcements (CO-A1 .. CO-A3: belote_declarations) ----------------------------------


def combo_kind(index: int) -> str:
    """The public name of a combination: tierce, cinquante, cent, carre."""
    return FR_KINDS[index]


combo_value: Final = co_value
"""CO-A1: a combination's points (:func:`belote_declarations.co_value`)."""
resolve_announcements: Final = co_resolve
"""CO-A3: the announcement contest (:func:`belote_declarations.co_resolve`)."""


# -- state ---------------------------------------------------------------------------------------

_CARD_TABLE: Final = tuple(
    tuple(tuple(card(RANKS[k], s) for k in range(8) if (p >> k) & 1) for p in range(256))
    for s in SUITS
)
"""``_CARD_TABLE[suit][pattern]``: the cards of ``suit`` whose 7..A bits are set in
``pattern``."""
_CARDS_C: Final = _CARD_TABLE[0]
_CARDS_D: Final = _CARD_TABLE[1]
_CARDS_H: Final = _CARD_TABLE[2]
_CARDS_S: Final = _CARD_TABLE[3]


def _cards(m: CardSet) -> list[Card]:
    """The cards of a set of the 32-card pack, sorted (a table lookup per suit)."""
    out: list[Card] = []
    if m & 0x1FE0:
        out.extend(_CARD_TABLE[0][(m >> 5) & 0xFF])
    if m & 0x3FC0000:
        out.extend(_CARD_TABLE[1][(m >> 18) & 0xFF])
    if m & 0x7F80000000:
        out.extend(_CARD_TABLE[2][(m >> 31) & 0xFF])
    if m & 0xFF00000000000:
        out.extend(_CARD_TABLE[3][(m >> 44) & 0xFF])
    return out


Auction: TypeAlias = tuple[tuple[tuple[Seat, Action], ...], int, Seat, int, int]
"""``(calls, top, bidder, level, passes)``: the calls so far, the standing bid's code (-1 for
none), its bidder, 1 / 2 (coinche) / 4 (surcoinche), consecutive passes."""


@mypyc_attr(serializable=True, acyclic=True)
class _Fixed:
    """What does not change during a deal: rules, dealer, the cards dealt."""

    rules: CoincheRules
    dealer: Seat
    first: Seat
    start: tuple[CardSet, ...]  # held during the auction
    full: tuple[CardSet, ...]  # held from the play on (8 cards)
    pending: CardSet  # dealt after the auction (cards_before_auction < 8)
    calls: dict[int, tuple[Action, ...]]  # the legal-calls cache for these rules


@mypyc_attr(serializable=True, acyclic=True)
class _Contract:
    """Everything that stays fixed from the play on: the deal (``fx``), the finished auction
    and the contract with its lookup tables. A play state carries only this one reference for
    all of it, so a new state per card assigns few fields."""

    fx: _Fixed
    auc: Auction  # the auction as it ended
    full: tuple[CardSet, ...]  # fx.full
    denom: int
    li: int
    value: int
    bidder: Seat
    level: int
    play: PlayRules  # what decides the legal cards (CO-P*, with the CO-P3 and CO-P5d variants)
    power: tuple[tuple[int, ...], ...]  # play.power (POWER[denom])
    points: tuple[int, ...]
    belcards: tuple[CardSet, ...]  # per seat: K and Q of each trump suit where it holds both


Decl: TypeAlias = tuple[tuple[tuple[Seat, int], ...], tuple[CardSet, ...], CardSet, CardSet]
"""``(anns, used, bel, rebel)``: announcements as ``(seat, combination)`` in order, the cards
each seat has used in them, cards played saying belote, cards played saying rebelote."""


@mypyc_attr(serializable=True, acyclic=True)
class CoincheState:
    """One Coinche deal. Treat as immutable: :meth:`Coinche.apply` returns a new one."""

    _fx: _Fixed  # set during the auction only; from the play on it is ct.fx
    _auc: Auction  # likewise; from the play on it is ct.auc
    calls: tuple[Action, ...] | None  # auction: the legal calls of to_act once computed
    phase: int
    to_act: Seat
    ct: _Contract | None
    decl: Decl
    played: CardSet
    trick: Trick | None  # the trick in play (the kernel's), None between tricks
    tricks: tuple[TrickTaken, ...]
    res: HandResult  # the result, set when first computed (read with getattr)
    pm: CardSet  # play: the cards to_act may play (computed with the state); else -1

    @property
    def fx(self) -> _Fixed:
        """Rules, dealer and the cards dealt."""
        ct = self.ct
        return self._fx if ct is None else ct.fx

    @property
    def auc(self) -> Auction:
        """The auction so far (as it ended, from the play on)."""
        ct = self.ct
        return self._auc if ct is None else ct.auc

    @property
    def points(self) -> tuple[int, int]:
        """Card points won per team so far, last ten included."""
        a, b = team_tally(self.tricks)[0]
        return a, b

    @property
    def won(self) -> tuple[int, int, int, int]:
        """Tricks won per seat so far."""
        w = [0, 0, 0, 0]
        for t in self.tricks:
            w[t.winner] += 1
        return w[0], w[1], w[2], w[3]

    def copy(self) -> CoincheState:
        """A shallow copy (every field is immutable)."""
        s = _NEW_STATE(CoincheState)
        s.ct = ct = self.ct
        if ct is None:
            s._fx = self._fx
            s._auc = self._auc
        s.calls = None
        s.phase = self.phase
        s.to_act = self.to_act
        s.decl = self.decl
        s.played = self.played
        s.trick = self.trick
        s.tricks = self.tricks
        s.pm = self.pm
        return s

    def hand(self, seat: Seat) -> CardSet:
        """The cards ``seat`` holds now."""
        ct = self.ct
        if ct is not None:
            return ct.full[seat] & ~self.played
        return self._fx.start[seat]

    def __repr__(self) -> str:
        return f"<CoincheState phase={Phase(self.phase).name} to_act={self.to_act}>"


_NEW_STATE: Final = CoincheState.__new__
_NEW_FIXED: Final = _Fixed.__new__
_NEW_CONTRACT: Final = _Contract.__new__
"""Allocators: ``_NEW_STATE(CoincheState)`` is a bare instance whose fields the caller sets
(``object.__new__`` from source; compiled, the class's own allocator)."""
_step: Final = tuple.__new__
_Step: Final = Step
_TrickTaken: Final = TrickTaken
"""``Final`` aliases: compiled code reads them as constants, not from the module's dict."""


def _auction_cache(rules: CoincheRules) -> dict[int, tuple[Action, ...]]:
    key = (rules.max_bid, rules.generale, rules.ranked_denominations)
    cache = _AUCTION_CACHES.get(key)
    if cache is None:
        cache = _AUCTION_CACHES[key] = {}
    return cache


def _deal_order(dealer: Seat) -> tuple[tuple[int, ...], ...]:
    """Per seat, the pack positions of its 8 cards: packets of 3, 2, 3 from ``dealer + 1``."""
    got: list[list[int]] = [[], [], [], []]
    i = 0
    for size in (3, 2, 3):
        for k in range(1, 5):
            got[(dealer + k) % 4].extend(range(i, i + size))
            i += size
    return tuple(tuple(h) for h in got)


_DEALERS: Final = tuple(
    tuple(itemgetter(*positions) for positions in _deal_order(d)) for d in range(4)
)
"""``_DEALERS[dealer][seat](pack)``: the cards ``seat`` receives, in the order received."""

_AUCTION_CACHES: dict[tuple[int, bool, bool], dict[int, tuple[Action, ...]]] = {}
"""Per (max_bid, generale, ranked_denominations): the legal calls per auction situation."""

def _fast_hands(deal: Deal) -> list[CardSet] | None:
    """The hands as sets when ``deal`` is a well-formed 8-card deal, else ``None`` (then
    :func:`check_deal` says what is wrong)."""
    if deal.stock or len(deal.hands) != 4:
        return None
    out = []
    union = 0
    for h in deal.hands:
        if len(h) != 8:
            return None
        m = 0
        for c in h:
            m |= 1 << c
        out.append(m)
        union |= m
    return out if union == PACK_MASK else None


# -- the game ------------------------------------------------------------------------------------


class Coinche(BeloteGame):
    """Coinche / belote contrée: 32 cards, contract bidding 80..160 / capot, coinche x2 and
    surcoinche x4, announcements, belote-rebelote, 82-point floor, to 701."""

    name: ClassVar[str] = "coinche"
    aliases: ClassVar[tuple[str, ...]] = ("belote_contree", "contree", "belote-contree")
    title: ClassVar[str] = "Coinche (Belote contrée)"
    #: Seen only by the acting seat while the hand runs: announcements name the cards they show.
    hidden_verbs: ClassVar[frozenset[str]] = frozenset({"announce", "belote", "rebelote"})
    rules_class: ClassVar[type[RuleSet]] = CoincheRules

    # -- dealing (CO-D1 .. CO-D4) ------------------------------------------------------------

    def deal(self, pack: Sequence[Card], dealer: Seat) -> Deal:
        """8 cards each in packets of 3, 2, 3 from ``dealer + 1`` (CO-D2), in the order
        received."""
        if len(pack) >= 32 and 0 <= dealer < 4:
            g0, g1, g2, g3 = _DEALERS[dealer]
            return Deal(hands=(g0(pack), g1(pack), g2(pack), g3(pack)), stock=())
        got: list[list[Card]] = [[], [], [], []]
        i = 0
        for size in (3, 2, 3):
            for k in range(1, 5):
                got[(dealer + k) % 4].extend(pack[i : i + size])
                i += size
        return Deal(hands=tuple(tuple(h) for h in got), stock=())

    def new_hand(self, deal: Deal, dealer: Seat, rules: RuleSet) -> CoincheState:
        assert isinstance(rules, CoincheRules)
        k = rules.cards_before_auction
        fx = _NEW_FIXED(_Fixed)
        fx.rules = rules
        fx.dealer = dealer
        fx.first = (dealer + (1 if rules.first_hand_offset == "+1" else 3)) % 4
        fx.calls = _auction_cache(rules)
        if k < 8 and deal.stock and len(deal.stock) == 4 * (8 - k):
            start = check_deal(deal, PACK_32, (k, k, k, k), 4 * (8 - k), "coinche")
            full = list(start)
            for i in range(4):
                for c in deal.stock[i * (8 - k) : (i + 1) * (8 - k)]:
                    full[(dealer + 1 + i) % 4] |= 1 << c
        else:
            fast = _fast_hands(deal)
            full = (
                fast if fast is not None else check_deal(deal, PACK_32, (8, 8, 8, 8), 0, "coinche")
            )
            start = full if k == 8 else [sum(1 << c for c in h[:k]) for h in deal.hands]
        fx.full = tuple(full)
        fx.start = tuple(start)
        fx.pending = sum(full) - sum(start)
        s = _NEW_STATE(CoincheState)
        s._fx = fx
        s.phase = AUCTION
        s.to_act = fx.first
        s._auc = ((), -1, -1, 1, 0)
        s.calls = None
        s.ct = None
        s.decl = ((), (0, 0, 0, 0), 0, 0)
        s.played = 0
        s.trick = None
        s.tricks = ()
        s.pm = -1
        return s

    def position(
        self,
        rules: CoincheRules,
        bid: str,
        bidder: Seat,
        hands: Mapping[Seat, Sequence[Card]],
        trick: Sequence[tuple[Seat, Card]],
        *,
        dealer: Seat = 3,
    ) -> CoincheState:
        """A play position for analysis and tests (like a FEN): contract ``bid`` (``"80H"``) by
        ``bidder``, ``hands`` what the listed seats hold now, ``trick`` the cards played to the
        current trick in order. Every other card counts as played in earlier tricks."""
        code = self.parse_action("bid:" + bid)
        full = [0, 0, 0, 0]
        played = 0
        for seat, cs in hands.items():
            for c in cs:
                full[seat] |= 1 << c
        for seat, c in trick:
            full[seat] |= 1 << c
            played |= 1 << c
        rest = PACK_MASK & ~sum(full)
        full[0] |= rest
        fx = _NEW_FIXED(_Fixed)
        fx.rules = rules
        fx.dealer = dealer
        fx.first = (dealer + 1) % 4
        fx.calls = _auction_cache(rules)
        fx.full = fx.start = tuple(full)
        fx.pending = 0
        s = _NEW_STATE(CoincheState)
        s._fx = fx
        s._auc = ((), code, bidder, 1, 3)
        s.calls = None
        s.ct = None
        s.decl = ((), (0, 0, 0, 0), 0, 0)
        s.tricks = ()
        s.played = 0
        s.trick = None
        ct = self._start_play(s).state.ct  # the contract the auction formed
        assert isinstance(ct, _Contract)
        s.played = played | rest
        s.to_act = trick[0][0] if trick else (dealer + 1) % 4
        for seat, c in trick:
            s.played &= ~(1 << c)
            s.to_act = seat
            s.pm = 1 << c  # the position is taken as given: its trick is played unchecked
            s = self.apply(s, seat, c).state
        s.pm = self._playable(s, ct)
        return s

    # -- play ------------------------------------------------------------------------------------

    def legal_actions(self, state: CoincheState) -> list[Action]:
        phase = state.phase
        if phase == PLAY:
            pm = state.pm
            out = [
                *_CARDS_C[(pm >> 5) & 0xFF],
                *_CARDS_D[(pm >> 18) & 0xFF],
                *_CARDS_H[(pm >> 31) & 0xFF],
                *_CARDS_S[(pm >> 44) & 0xFF],
            ]
            ct = state.ct
            assert ct is not None
            if not state.tricks:
                out.extend(self._announcements(state, state.to_act))
            bc = pm & ct.belcards[state.to_act]
            if bc:
                out.extend(self._belote_codes(state, bc))
            return out
        if phase == AUCTION:
            calls = state.calls
            if calls is None:
                calls = state.calls = self._calls(state, state.to_act)
            return list(calls)
        return []

    def _calls(self, state: CoincheState, seat: Seat) -> tuple[Action, ...]:
        """CO-B1 .. CO-B8: the calls open to ``seat`` in the auction."""
        r = state._fx.rules
        _, top, bidder, level, _ = state._auc
        bids_open = top < 0 or level == 1 or (level == 2 and not r.coinche_freezes)
        li = -1 if top < 0 else (top - BID_BASE) // 6
        same_team = top >= 0 and (seat - bidder) % 2 == 0
        can_coinche = (
            top >= 0 and level == 1 and not same_team and (r.capot_doublable or li < CAPOT_LI)
        )
        can_sur = level == 2 and same_team
        cache = state._fx.calls
        key = (top if bids_open else -2) * 4 + 2 * can_coinche + can_sur
        found = cache.get(key)
        if found is None:
            codes = [PASS]
            if can_coinche:
                codes.append(COINCHE)
            if can_sur:
                codes.append(SURCOINCHE)
            if bids_open:
                max_li = (r.max_bid - 80) // 10
                levels = [*range(max_li + 1), CAPOT_LI]
                if r.generale:
                    levels.append(GENERALE_LI)
                top_d = -1 if top < 0 else (top - BID_BASE) % 6
                for lv in levels:
                    for d in range(6):
                        if lv > li or (lv == li and r.ranked_denominations and d > top_d):
                            codes.append(bid_code(lv, d))
            found = cache[key] = tuple(sorted(codes))
        return found

    def _playable(self, s: CoincheState, ct: _Contract) -> CardSet:
        """CO-P1 .. CO-P6: the cards the seat to act may play."""
        seat = s.to_act
        hand = ct.full[seat] & ~s.played
        trick = s.trick
        if trick is None:
            return hand  # CO-P1
        return legal_cards(ct.play, hand, seat, trick.led, trick.best, trick.winner)

    def _announcements(self, s: CoincheState, seat: Seat) -> list[Action]:
        """CO-A1, CO-A2: combinations still open to ``seat`` during trick 1."""
        ct = s.ct
        assert ct is not None
        avail = ct.full[seat] & ~s.played & ~s.decl[1][seat]
        return [ANNOUNCE_BASE + i for i in co_announceable(avail)]

    def _belote_codes(self, s: CoincheState, bc: CardSet) -> list[Action]:
        """CO-A4: ``belote`` with the first of K/Q of a trump suit, ``rebelote`` with the
        second when ``belote`` was said with the first."""
        out: list[Action] = []
        rebel: list[Action] = []
        said = s.decl[2]
        for c in cards_in(bc):
            other = BELOT_PARTNER[c]
            if not (s.played >> other) & 1:
                out.append(BELOTE_BASE + c)
            elif (said >> other) & 1:
                rebel.append(REBELOTE_BASE + c)
        return out + rebel

    def apply(self, state: CoincheState, seat: Seat, action: Action) -> Step:
        ct = state.ct
        if ct is None or state.phase != PLAY or seat != state.to_act or not 0 <= action < 64:
            return self._apply_other(state, seat, action)
        if not (state.pm >> action) & 1:
            raise self._illegal(state, seat, action)
        # play the card (CO-C3); the new state comes with the next seat's playable cards (pm)
        c = action
        facts: tuple[Fact, ...] = ()
        s = _NEW_STATE(CoincheState)
        s.ct = ct
        played = s.played = state.played | (1 << c)
        s.decl = state.decl
        trick = state.trick
        if trick is not None:
            trick = play(trick, ct.power[trick.led], seat, c)
            lead, cards, led, win_seat, win_card = trick
            if len(cards) == 4:  # the trick is complete (CO-C3)
                c0, c1, c2, c3 = cards
                pts = ct.points
                tpts = pts[c0] + pts[c1] + pts[c2] + pts[c3]
                tricks = state.tricks
                n = len(tricks) + 1
                if n == 8:
                    tpts += LAST_TRICK_BONUS
                plays = ((lead, c0), ((lead + 1) & 3, c1), ((lead + 2) & 3, c2), (seat, c3))
                taken = _step(_TrickTaken, (n, plays, win_seat, tpts))
                s.tricks = (*tricks, taken)
                s.trick = None
                s.to_act = win_seat
                if n == 8:
                    s.phase = OVER
                    s.pm = 0
                    return Step(s, (taken, HandEnded(self.result(s))))
                s.phase = PLAY
                s.pm = ct.full[win_seat] & ~played  # CO-P1
                return _step(_Step, (s, (taken,)))
        else:
            led, win_seat, win_card = SUIT_OF[c], seat, c
            trick = _step(Trick, (seat, (c,), led, seat, c))
            if len(state.tricks) == 1 and state.decl[0]:
                facts = (self._reveal(state, ct),)
        s.trick = trick
        s.phase = PLAY
        s.tricks = state.tricks
        nxt = s.to_act = (seat + 1) & 3
        # the next seat's playable cards (CO-P2 .. CO-P6)
        s.pm = legal_cards(ct.play, ct.full[nxt] & ~played, nxt, led, win_card, win_seat)
        return _step(_Step, (s, facts))

    def _apply_other(self, state: CoincheState, seat: Seat, action: Action) -> Step:
        """Everything but a plain card play by the seat to act: calls, announcements,
        belote / rebelote, and the refusals."""
        ct = state.ct
        phase = state.phase
        if phase == OVER or seat != state.to_act:
            if (
                phase == AUCTION
                and action == COINCHE
                and state.fx.rules.coinche_out_of_turn
                and COINCHE in self._calls(state, seat)
            ):
                return self._auction(state, seat, action)
            raise self._not_your_turn(state, seat, action)
        if phase == AUCTION:
            calls = state.calls
            if calls is None:
                calls = state.calls = self._calls(state, seat)
            if action not in calls:
                raise self._illegal(state, seat, action)
            return self._auction(state, seat, action)
        if action not in self.legal_actions(state):
            raise self._illegal(state, seat, action)
        assert ct is not None
        if action >= BELOTE_BASE:  # CO-A4: the card is played saying belote or rebelote
            anns, used, bel, rebel = state.decl
            said = state.copy()
            if action >= REBELOTE_BASE:
                c = action - REBELOTE_BASE
                fact = Announced("rebelote", {"seat": seat, "card": CARD_NAMES[c]})
                said.decl = (anns, used, bel, rebel | (1 << c))
            else:
                c = action - BELOTE_BASE
                fact = Announced("belote", {"seat": seat, "card": CARD_NAMES[c]})
                said.decl = (anns, used, bel | (1 << c), rebel)
            step = self.apply(said, seat, c)
            return _step(_Step, (step.state, (fact, *step.facts)))
        # announce: the kind is public now, the cards when trick 2 starts (CO-A2)
        index = action - ANNOUNCE_BASE
        s = state.copy()
        anns, used, bel, rebel = state.decl
        new_used = list(used)
        new_used[seat] |= COMBO_MASKS[index]
        s.decl = ((*anns, (seat, index)), tuple(new_used), bel, rebel)
        return Step(s, (Announced("announce", {"seat": seat, "kind": combo_kind(index)}),))

    def _auction(self, state: CoincheState, seat: Seat, action: Action) -> Step:
        s = _NEW_STATE(CoincheState)
        s._fx = state._fx
        s.calls = None
        s.ct = None
        s.phase = AUCTION
        s.decl = state.decl
        s.played = state.played
        s.trick = state.trick
        s.tricks = state.tricks
        s.pm = -1
        calls, top, bidder, level, passes = state._auc
        calls = (*calls, (seat, action))
        s.to_act = (seat + 1) & 3
        if action == PASS:
            passes += 1
            s._auc = (calls, top, bidder, level, passes)
            if top < 0 and passes == 4:  # CO-B6c: thrown in
                s.phase = OVER
                return Step(s, (HandEnded(self.result(s)),))
            if top >= 0 and passes == 3:  # CO-B6b
                return self._start_play(s)
            return _step(_Step, (s, ()))
        if action == COINCHE:  # CO-B4
            s._auc = (calls, top, bidder, 2, 0)
            return Step(s, (Announced("coinche", {"seat": seat}),))
        if action == SURCOINCHE:  # CO-B5: ends the auction at once
            s._auc = (calls, top, bidder, 4, 0)
            return self._start_play(s, (Announced("surcoinche", {"seat": seat}),))
        # a bid (CO-B2, CO-B3); with coinche_freezes off it cancels a coinche
        s._auc = (calls, action, seat, 1, 0)
        return Step(s, ())

    def _start_play(self, s: CoincheState, facts: tuple[Fact, ...] = ()) -> Step:
        r = s._fx.rules
        _, top, bidder, level, _ = s._auc
        li, denom = divmod(top - BID_BASE, 6)
        ct = _NEW_CONTRACT(_Contract)
        ct.fx = s._fx
        ct.auc = s._auc
        ct.full = s._fx.full
        ct.play = play = play_rules(
            denom,
            undertrump=r.undertrump_required,
            raise_over_partner=r.ta_raise_over_partner,
        )
        ct.denom = denom
        ct.li = li
        ct.value = (
            r.capot_value
            if li == CAPOT_LI
            else r.generale_value
            if li == GENERALE_LI
            else NUMERIC_VALUES[li]
        )
        ct.bidder = bidder
        ct.level = level
        ct.power = play.power
        ct.points = card_points_table(denom, r)
        trumps = () if denom == SA else SUITS if denom == TA else (denom,)
        belcards = []
        for seat in range(4):
            m = 0
            for t in trumps:
                if s._fx.full[seat] & KING_QUEEN[t] == KING_QUEEN[t]:
                    m |= KING_QUEEN[t]
            belcards.append(m)
        ct.belcards = tuple(belcards)
        s.ct = ct
        s.phase = PLAY
        # the first hand leads whoever won the auction (§0.1, CO-D3)
        first = s.to_act = ct.fx.first
        s.pm = ct.full[first] & ~s.played  # CO-P1
        fact = Announced("contract", self._contract_json(ct))
        return Step(s, (*facts, fact))

    def _reveal(self, state: CoincheState, ct: _Contract) -> Announced:
        """CO-A2: the announcements are shown and resolved as trick 2 starts."""
        r = state.fx.rules
        anns = state.decl[0]
        a0, a1, team = co_resolve(anns, ct.denom, r)
        return Announced(
            "announcements",
            {
                "shown": [self._ann_json(seat, i, ct.denom, r) for seat, i in anns],
                "scoring_team": team,
                "points": [a0, a1],
            },
        )

    def _ann_json(self, seat: Seat, index: int, denom: int, r: CoincheRules) -> dict[str, JSON]:
        return {
            "seat": seat,
            "kind": combo_kind(index),
            "cards": [CARD_NAMES[c] for c in cards_in(COMBO_MASKS[index])],
            "points": co_value(index, denom, r),
        }

    # -- scoring ------------------------------------------------------------------------------

    def result(self, state: CoincheState) -> HandResult:
        res: HandResult | None = getattr(state, "res", None)
        if res is None:
            res = state.res = self._result(state)
        return res

    def _result(self, state: CoincheState) -> HandResult:
        ct = state.ct
        if ct is None:
            return HandResult((0, 0), {"redeal": True}, void=True)
        r = state.fx.rules
        anns, _, _, rebel = state.decl
        taker = ct.bidder & 1
        card, tricks, _ = team_tally(state.tricks)
        for team in (0, 1):
            if tricks[team] == 8:  # capot (CO-S1)
                card[team], card[1 - team] = r.capot_card_points, 0
        a0, a1, _ = co_resolve(anns, ct.denom, r)
        bel = [0, 0]
        if r.belote_must_be_said:
            for c in cards_in(rebel):
                bel[self._holder(state, c) & 1] += 20
        else:
            for seat in range(4):
                bel[seat & 1] += 20 * (ct.belcards[seat].bit_count() // 2)
        kind = "capot" if ct.li == CAPOT_LI else "generale" if ct.li == GENERALE_LI else "numeric"
        all_tricks = state.won[ct.bidder] == 8 if kind == "generale" else tricks[taker] == 8
        made, points = score(
            r,
            value=ct.value,
            kind=kind,
            level=ct.level,
            card=(card[0], card[1]),
            ann=(a0, a1),
            bel=(bel[0], bel[1]),
            taker=taker,
            all_tricks=all_tricks,
        )
        detail: dict[str, JSON] = {
            "contract": self._contract_json(ct),
            "made": made,
            "tricks": list(tricks),
            "card_points": card,
            "announcements": [self._ann_json(s, i, ct.denom, r) for s, i in anns],
            "announcement_points": [a0, a1],
            "belote": bel,
            "capot": 8 in tricks,
        }
        return HandResult(points, detail)

    def _holder(self, state: CoincheState, c: Card) -> Seat:
        for seat in range(4):
            if (state.fx.full[seat] >> c) & 1:
                return seat
        raise AssertionError(c)

    def _contract_json(self, ct: _Contract) -> dict[str, JSON]:
        return {
            "bid": _BID_TEXT[bid_code(ct.li, ct.denom)],
            "value": ct.value,
            "denomination": DENOM_NAMES[ct.denom],
            "bidder": ct.bidder,
            "team": ct.bidder & 1,
            "coinche": _LEVEL_NAMES[ct.level],
        }

    # -- views --------------------------------------------------------------------------------

    def view(self, state: CoincheState, seat: Seat | None) -> dict[str, JSON]:
        ct = state.ct
        calls, top, bidder, level, _ = state.auc
        anns, _, bel, rebel = state.decl
        trick = state.trick
        revealed = (
            len(state.tricks) > 1
            or (len(state.tricks) == 1 and trick is not None)
            or state.phase == OVER
        )
        out: dict[str, JSON] = {
            "game": self.name,
            "phase": Phase(state.phase).name.lower(),
            "dealer": state.fx.dealer,
            "first_hand": state.fx.first,
            "to_act": self.current_seat(state),
            "calls": [{"seat": p, "action": self.format_action(a)} for p, a in calls],
            "standing_bid": self.format_action(top)[4:] if top >= 0 else None,
            "bidder": bidder if bidder >= 0 else None,
            "coinche": _LEVEL_NAMES[level],
            "contract": self._contract_json(ct) if ct is not None else None,
            "hand_sizes": [state.hand(p).bit_count() for p in range(4)],
            "trick": [{"seat": p, "card": CARD_NAMES[c]} for p, c in trick.plays()]
            if trick is not None
            else [],
            "tricks": [t.to_json() for t in state.tricks],
            "card_points": list(state.points),
            "announcements": [
                self._ann_json(p, i, ct.denom, state.fx.rules)
                if revealed and ct is not None
                else {"seat": p, "kind": combo_kind(i)}
                for p, i in anns
            ],
            "belote": [CARD_NAMES[c] for c in cards_in(bel)],
            "rebelote": [CARD_NAMES[c] for c in cards_in(rebel)],
        }
        if seat is not None:
            out["seat"] = seat
            out["hand"] = [CARD_NAMES[c] for c in cards_in(state.hand(seat))]
            if ct is not None:
                out["my_announcements"] = [
                    self._ann_json(p, i, ct.denom, state.fx.rules) for p, i in anns if p == seat
                ]
        if state.phase == OVER:
            out["result"] = self.result(state).to_json()
        return out

    def audit_view(self, state: CoincheState) -> dict[str, JSON]:
        out = self.view(state, None)
        out["hands"] = [[CARD_NAMES[c] for c in cards_in(state.hand(p))] for p in range(4)]
        out["dealt"] = [[CARD_NAMES[c] for c in cards_in(h)] for h in state.fx.full]
        if state.ct is not None:
            out["announcements"] = [
                self._ann_json(p, i, state.ct.denom, state.fx.rules) for p, i in state.decl[0]
            ]
        return out

        return out

    # -- notation -------------------------------------------------------------------------------

    def parse_action(self, text: str) -> Action:
        verb, sep, arg = text.partition(":")
        if not sep:
            code = _VERBS.get(text)
            if code is None:
                raise InvalidActionError(
                    f"{text!r} is not a Coinche action (pass, bid:<value><denomination>, "
                    "coinche, surcoinche, announce:<cards>, play:<card>, belote:<card>, "
                    "rebelote:<card>)"
                )
            return code
        if verb == "play":
            c = parse_card(arg)
            if not (PACK_MASK >> c) & 1:
                raise InvalidActionError(f"{arg!r} is not in the Coinche pack (7 to ace)")
            return c
        if verb in ("belote", "rebelote"):
            c = parse_card(arg)
            if RANK_OF[c] not in (KING, QUEEN):
                raise InvalidActionError(
                    f"{text!r}: {verb} is said with the king or queen of trumps (CO-A4)"
                )
            return (BELOTE_BASE if verb == "belote" else REBELOTE_BASE) + c
        if verb == "bid":
            return self._parse_bid(text, arg)
        if verb == "announce":
            m = 0
            parts = arg.split(",")
            for part in parts:
                m |= 1 << parse_card(part)
            index = COMBO_BY_MASK.get(m)
            if index is None or m.bit_count() != len(parts):
                raise InvalidActionError(
                    f"{text!r} is not an announcement: give the cards of a sequence of 3 or more "
                    "in one suit or of a carre of 9, 10, J, Q, K or A, e.g. announce:7H,8H,9H "
                    "(CO-A1)"
                )
            return ANNOUNCE_BASE + index
        raise InvalidActionError(f"{text!r} is not a Coinche action: unknown verb {verb!r}")

    def _parse_bid(self, text: str, arg: str) -> Action:
        up = arg.upper()
        for d in (4, 5, 0, 1, 2, 3):  # the two-letter denominations first
            name = DENOM_NAMES[d]
            if up.endswith(name):
                value = up[: -len(name)]
                break
        else:
            raise InvalidActionError(
                f"{text!r}: a bid ends with its denomination C, D, H, S, SA or TA, e.g. bid:80H"
            )
        if value == "CAPOT":
            return bid_code(CAPOT_LI, d)
        if value == "GENERALE":
            return bid_code(GENERALE_LI, d)
        if value.isdigit() and int(value) in NUMERIC_VALUES and value[0] != "0":
            return bid_code(NUMERIC_VALUES.index(int(value)), d)
        raise InvalidActionError(
            f"{text!r}: a bid's value is 80, 90, ... 180, capot or generale (CO-B1)"
        )

    def format_action(self, action: Action) -> str:
        if 0 <= action < VERB_BASE:
            return "play:" + CARD_NAMES[action]
        if action >= REBELOTE_BASE:
            return "rebelote:" + CARD_NAMES[action - REBELOTE_BASE]
        if action >= BELOTE_BASE:
            return "belote:" + CARD_NAMES[action - BELOTE_BASE]
        if action >= ANNOUNCE_BASE:
            m = COMBO_MASKS[action - ANNOUNCE_BASE]
            return "announce:" + ",".join(CARD_NAMES[c] for c in cards_in(m))
        if action >= BID_BASE:
            li, d = divmod(action - BID_BASE, 6)
            return f"bid:{_li_text(li)}{DENOM_NAMES[d]}"
        return _VERB_NAMES[action]

    def all_actions(self) -> list[Action]:
        kq = [c for c in PACK_32 if RANK_OF[c] in (KING, QUEEN)]
        return sorted(
            [
                *PACK_32,
                *_VERBS.values(),
                *(bid_code(li, d) for li in range(N_LEVELS) for d in range(6)),
                *(ANNOUNCE_BASE + i for i in range(len(COMBO_MASKS))),
                *(BELOTE_BASE + c for c in kq),
                *(REBELOTE_BASE + c for c in kq),
            ]
        )

    def card_locations(self, state: CoincheState) -> dict[str, CardSet]:
        where = {f"hand{p}": state.hand(p) for p in range(4)}
        where["played"] = state.played
        where["not_yet_dealt"] = state.fx.pending if state.ct is None else 0
        return where

    # -- match level (CO-D1, CO-G1 .. CO-G3) ----------------------------------------------------

    def new_match(self, rules: RuleSet, first_dealer: Seat) -> MatchState:
        return MatchState(scores=(0, 0), dealer=first_dealer)

    def after_hand(self, match: MatchState, result: HandResult, rules: RuleSet) -> MatchState:
        assert isinstance(rules, CoincheRules)
        a, b = (x + y for x, y in zip(match.scores, result.points, strict=True))
        same = result.void and rules.redeal_same_dealer
        over = max(a, b) >= rules.target_score and (a != b or rules.tie_at_target == "draw")
        return MatchState(
            scores=(a, b),
            dealer=match.dealer if same else (match.dealer + 1) % 4,
            hands_played=match.hands_played + 1,
            over=over,
            winner=(0 if a > b else 1 if b > a else None) if over else None,
        )

    # -- errors -------------------------------------------------------------------------------

    def _not_your_turn(self, state: CoincheState, seat: Seat, action: Action) -> NotYourTurnError:
        what = self._text(action)
        if state.phase == OVER:
            return NotYourTurnError(f"{what!r}: the deal is over", "CO-B6")
        rule = (
            "CO-B4"
            if action == COINCHE and state.phase == AUCTION
            else ("CO-D3" if state.phase == AUCTION else "CO-C3")
        )
        return NotYourTurnError(
            f"{what!r}: it is seat {state.to_act}'s turn, not seat {seat}'s", rule
        )

    def _illegal(self, state: CoincheState, seat: Seat, action: Action) -> IllegalActionError:
        """Explain why ``action`` is refused, naming the rule."""
        if action not in _ALL_ACTIONS:
            return IllegalActionError(f"action code {action} is not a Coinche action", "CO-B1")
        text = self.format_action(action)
        if state.phase == AUCTION:
            return self._illegal_call(state, seat, action, text)
        ct = state.ct
        assert ct is not None
        if action in (PASS, COINCHE, SURCOINCHE) or BID_BASE <= action < ANNOUNCE_BASE:
            return IllegalActionError(
                f"{text!r}: the auction is over; the contract is {self._contract_json(ct)['bid']}",
                "CO-B6",
            )
        hand = state.fx.full[seat] & ~state.played
        if ANNOUNCE_BASE <= action < BELOTE_BASE:
            m = COMBO_MASKS[action - ANNOUNCE_BASE]
            if state.tricks:
                return IllegalActionError(
                    f"{text!r}: announcements are made with your card to trick 1", "CO-A2"
                )
            if hand & m != m:
                missing = " ".join(CARD_NAMES[c] for c in cards_in(m & ~hand))
                return IllegalActionError(f"{text!r}: you do not hold {missing}", "CO-A2")
            return IllegalActionError(
                f"{text!r}: a card may be used in one announcement only", "CO-A2"
            )
        c = action % 64
        if not (hand >> c) & 1:
            return IllegalActionError(f"{text!r}: you do not hold {CARD_NAMES[c]}", "CO-P1")
        if action >= BELOTE_BASE:
            pair = KING_QUEEN[SUIT_OF[c]]
            if not ct.belcards[seat] & pair:
                return IllegalActionError(
                    f"{text!r}: belote is the king and queen of a trump suit, both dealt to you",
                    "CO-A4",
                )
            if (self._playable(state, ct) >> c) & 1:
                if action >= REBELOTE_BASE:
                    return IllegalActionError(
                        f"{text!r}: rebelote goes with the second of the pair, after belote "
                        "with the first",
                        "CO-A4",
                    )
                return IllegalActionError(
                    f"{text!r}: belote is said with the first of the pair; this is the second",
                    "CO-A4",
                )
        return self._illegal_card(state, seat, c, hand, ct, text)

    def _illegal_card(
        self, s: CoincheState, seat: Seat, c: Card, hand: CardSet, ct: _Contract, text: str
    ) -> IllegalActionError:
        legal = " ".join(CARD_NAMES[x] for x in cards_in(self._playable(s, ct)))
        trick = s.trick
        assert trick is not None
        led, win_card = trick.led, trick.best
        d = ct.denom
        if hand & SUIT_MASKS[led] and SUIT_OF[c] != led:
            return IllegalActionError(
                f"{text!r}: must follow suit: {SUIT_NAMES[led]} were led and you hold {legal}",
                "CO-P2",
            )
        if d == TA or led == d:
            return IllegalActionError(
                f"{text!r}: must beat {CARD_NAMES[win_card]} when {SUIT_NAMES[led]} are led "
                f"{'in tout atout' if d == TA else 'as trumps'}, even over the partner: "
                f"play one of {legal}",
                "CO-P3",
            )
        if SUIT_OF[win_card] != d:
            return IllegalActionError(
                f"{text!r}: void in {SUIT_NAMES[led]} with the opponents winning, you must trump:"
                f" play one of {legal}",
                "CO-P5",
            )
        return IllegalActionError(
            f"{text!r}: an opponent's {CARD_NAMES[win_card]} is winning: you must overtrump if"
            f" you can, else play a lower trump: play one of {legal}",
            "CO-P5",
        )

    def _illegal_call(
        self, state: CoincheState, seat: Seat, action: Action, text: str
    ) -> IllegalActionError:
        r = state.fx.rules
        _, top, bidder, level, _ = state.auc
        if action < VERB_BASE or action >= ANNOUNCE_BASE:
            what = (
                "cards are played"
                if action < VERB_BASE or action >= BELOTE_BASE
                else ("announcements are made")
            )
            return IllegalActionError(
                f"{text!r}: the auction is running; {what} after it "
                "(call pass, bid:<value><denomination>, coinche or surcoinche)",
                "CO-B1",
            )
        same_team = top >= 0 and (seat - bidder) % 2 == 0
        if action == COINCHE:
            if top < 0:
                return IllegalActionError("'coinche': there is no bid to coinche", "CO-B4")
            if same_team:
                return IllegalActionError(
                    "'coinche': only the opponents of the standing bid may coinche", "CO-B4"
                )
            if level > 1:
                return IllegalActionError("'coinche': the bid is already coinched", "CO-B4")
            return IllegalActionError(
                "'coinche': a capot bid may not be coinched under these rules "
                "(capot_doublable is off)",
                "CO-B8",
            )
        if action == SURCOINCHE:
            if level != 2:
                return IllegalActionError(
                    "'surcoinche': only a coinched bid may be surcoinched", "CO-B5"
                )
            return IllegalActionError(
                "'surcoinche': only the coinched team may surcoinche", "CO-B5"
            )
        li = (action - BID_BASE) // 6
        if level > 1:
            return IllegalActionError(
                f"{text!r}: the auction is frozen by the coinche; pass"
                + (" or surcoinche" if same_team else ""),
                "CO-B4",
            )
        if li == GENERALE_LI and not r.generale:
            return IllegalActionError(
                f"{text!r}: the generale is not played under these rules", "CO-B1"
            )
        if CAPOT_LI > li > (r.max_bid - 80) // 10:
            return IllegalActionError(
                f"{text!r}: numeric bids go up to {r.max_bid}, then capot", "CO-B2"
            )
        standing = self.format_action(top)[4:]
        return IllegalActionError(
            f"{text!r}: a bid must be higher than the standing {standing}", "CO-B2"
        )


GAME: Final = Coinche()
_BID_TEXT: Final = {
    code: GAME.format_action(code)[4:]
    for code in (bid_code(li, d) for li in range(N_LEVELS) for d in range(6))
}
"""The text of each bid (``"80H"``, ``"capotTA"``)."""
_ALL_ACTIONS: Final = frozenset(GAME.all_actions())
