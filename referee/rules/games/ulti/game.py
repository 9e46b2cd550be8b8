"""Ulti, as ``rules/euchre-pedro-ulti.md`` §3 defines it (seed 004, Hungarian).

Seats 0..2 in play order (counter-clockwise at the table); the first player is
``dealer + 1`` (UL-5) and is dealt 12 cards, the talon included (UL-6); ``deal.stock`` is
empty. Cards use the shared notation: piros ``H``, tök ``D``, zöld ``S``, makk ``C``;
alsó ``J``, felső ``Q``, király ``K``.

Phases: a seat holding 12 cards discards two (``discard``), then bids (``bid``); the others in
turn pass, pick up the talon or (the holder) stand (``auction``); the declarer names trump for
a "choose" contract (``trump``); play, with a kontra round after trick 1 (``kontra``); over.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import ClassVar, Final

from referee.rules.cards import (
    ACE,
    CARD_NAMES,
    CLUBS,
    DIAMONDS,
    HEARTS,
    HUNGARIAN_32,
    HUNGARIAN_SUIT_NAMES,
    KING,
    QUEEN,
    RANK_OF,
    SEVEN,
    SPADES,
    SUIT_LETTERS,
    SUIT_MASKS,
    SUIT_OF,
    SUITS,
    TEN,
    Card,
    CardSet,
    card,
    cards_in,
    parse_card,
)
from referee.rules.dealing import check_deal
from referee.rules.errors import IllegalActionError, InvalidActionError, NotYourTurnError
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
from referee.rules.games.ulti.contracts import (
    BETLI,
    CHOOSE,
    COMPONENT_BY_NAME,
    COMPONENT_NAMES,
    COMPONENTS,
    DURCHMARS,
    LADDER,
    PIROS,
    SEED_LADDER_RANKS,
    ULTI,
    Contract,
    by_key,
)
from referee.rules.games.ulti.ruleset import UltiRules
from referee.rules.games.ulti.scoring import Tally, components, passz_not_played, settle
from referee.rules.params import RuleSet
from referee.rules.seats import Seat


class Phase(enum.IntEnum):
    """Where the deal stands."""

    DISCARD = 0
    BID = 1
    AUCTION = 2
    TRUMP = 3
    PLAY = 4
    KONTRA = 5
    OVER = 6


DISCARD, BID, AUCTION, TRUMP, PLAY, KONTRA, OVER = (int(p) for p in Phase)

# -- action codes (cards 0..51 are plays) ---------------------------------------------------

PASS: Final = VERB_BASE
PICKUP: Final = VERB_BASE + 1
STAND: Final = VERB_BASE + 2
NAME_BASE: Final = VERB_BASE + 4  # + suit
BID_BASE: Final = VERB_BASE + 16  # + rank - 1
KONTRA_BASE: Final = 2 * VERB_BASE  # + component set (1..63)
REKONTRA_BASE: Final = 3 * VERB_BASE  # + component set (1..63)
DISCARD_BASE: Final = 1024  # + 52 * low card + high card

_VERBS: Final = {"pass": PASS, "pickup": PICKUP, "stand": STAND}
_VERB_NAMES: Final = {code: verb for verb, code in _VERBS.items()}
NAMEABLE: Final = (CLUBS, DIAMONDS, SPADES)
"""Suits the declarer may name in a "choose" contract: makk, tök, zöld (UL-9, UL-14)."""

# -- card tables (UL-2, UL-3) ----------------------------------------------------------------

PACK_MASK: Final = sum(1 << c for c in HUNGARIAN_32)
_SUIT_ORDER: Final = {SEVEN: 0, SEVEN + 1: 1, SEVEN + 2: 2, SEVEN + 4: 3, QUEEN: 4, KING: 5,
                      TEN: 6, ACE: 7}
STRENGTH: Final = (
    tuple(_SUIT_ORDER.get(RANK_OF[c], -1) for c in range(52)),
    tuple(RANK_OF[c] - SEVEN if RANK_OF[c] >= SEVEN else -1 for c in range(52)),
)
"""``STRENGTH[colourless][card]``: A X K O U 9 8 7 in suit contracts, A K O U X 9 8 7
colourless (UL-2)."""
ABOVE: Final = tuple(
    tuple(
        sum(1 << d for d in HUNGARIAN_32
            if SUIT_OF[d] == SUIT_OF[c] and STRENGTH[o][d] > STRENGTH[o][c])
        for c in range(52)
    )
    for o in (0, 1)
)
"""``ABOVE[colourless][card]``: the cards of the same suit that beat ``card``."""
CARD_POINTS: Final = tuple(10 if RANK_OF[c] in (ACE, TEN) else 0 for c in range(52))
SEVENS: Final = tuple(card(SEVEN, s) for s in SUITS)
_PAIRS: Final = tuple(
    (a, b) for a in HUNGARIAN_32 for b in HUNGARIAN_32 if a < b
)
_PAIR_BASE: Final = tuple(DISCARD_BASE + 52 * a for a in range(52))
_SUBSETS: Final = tuple(
    tuple(sub for sub in range(1, 64) if sub & ~m == 0) for m in range(64)
)


def legal_cards(
    hand: CardSet,
    trick: Sequence[Card],
    trump: int,
    *,
    must_beat_after_trumped: bool = True,
) -> CardSet:
    """The cards ``hand`` may play to ``trick`` (UL-23, UL-24); ``trump`` -1 is colourless.

    The ulti seven's hold (UL-25) is applied by the game on top of this.
    """
    if not trick:
        return hand
    strength = STRENGTH[trump < 0]
    led = SUIT_OF[trick[0]]
    best_led = trick[0]
    best_trump = -1
    for c in trick:
        s = SUIT_OF[c]
        if s == led and strength[c] > strength[best_led]:
            best_led = c
        if s == trump and (best_trump < 0 or strength[c] > strength[best_trump]):
            best_trump = c
    return legal_from(hand, led, best_led, best_trump, trump, must_beat_after_trumped)


def legal_from(
    hand: CardSet, led: int, best_led: Card, best_trump: Card, trump: int, must_beat: bool
) -> CardSet:
    """UL-24 given the led suit and the best led-suit and trump cards so far (-1: none)."""
    colourless = trump < 0
    above = ABOVE[colourless]
    follow = hand & SUIT_MASKS[led]
    if follow:
        if best_trump >= 0 and led != trump and not must_beat:
            return follow
        return follow & above[best_led] or follow
    if colourless:
        return hand
    trumps = hand & SUIT_MASKS[trump]
    if not trumps:
        return hand
    if best_trump >= 0:
        return trumps & above[best_trump] or trumps
    return trumps


def trick_winner(trick: Sequence[Card], trump: int) -> int:
    """The index in ``trick`` of the winning card (UL-26)."""
    strength = STRENGTH[trump < 0]
    best = 0
    for i in (1, 2):
        c, b = trick[i], trick[best]
        if SUIT_OF[c] == SUIT_OF[b]:
            if strength[c] > strength[b]:
                best = i
        elif SUIT_OF[c] == trump:
            best = i
    return best


class UltiState:
    """One Ulti deal. Treat as immutable: :meth:`Ulti.apply` returns a new one."""

    __slots__ = (
        "bids",
        "contract",
        "cur",
        "dealer",
        "declarer",
        "discarder",
        "first",
        "hands",
        "hold",
        "holder",
        "kdone",
        "kon",
        "leader",
        "lmask",
        "marriages",
        "passes",
        "phase",
        "plays",
        "pts",
        "rek",
        "res",
        "rules",
        "talon",
        "to_act",
        "tricks",
        "trump",
        "won",
    )

    rules: UltiRules
    dealer: Seat
    first: Seat
    phase: int
    to_act: Seat
    hands: tuple[CardSet, ...]
    talon: CardSet
    discarder: Seat
    cur: int
    """Rank of the current bid, 0 before the first."""
    holder: Seat
    hold: CardSet
    """The trump 7's bit when the declarer must keep it for trick 10 (UL-25), else 0."""
    passes: int
    bids: tuple[tuple[Seat, int], ...]
    contract: Contract | None
    declarer: Seat
    trump: int
    marriages: tuple[tuple[Seat, int], ...]
    leader: Seat
    plays: tuple[tuple[Seat, Card], ...]
    tricks: tuple[TrickTaken, ...]
    won: tuple[int, ...]
    pts: tuple[int, ...]
    kon: tuple[int, ...]
    rek: tuple[int, ...]
    kdone: int
    lmask: CardSet
    res: HandResult | None

    def copy(self) -> UltiState:
        """A shallow copy (every field is immutable)."""
        s: UltiState = _new_state(UltiState)
        s.bids = self.bids
        s.contract = self.contract
        s.cur = self.cur
        s.dealer = self.dealer
        s.declarer = self.declarer
        s.discarder = self.discarder
        s.first = self.first
        s.hands = self.hands
        s.holder = self.holder
        s.hold = self.hold
        s.kdone = self.kdone
        s.kon = self.kon
        s.leader = self.leader
        s.lmask = self.lmask
        s.marriages = self.marriages
        s.passes = self.passes
        s.phase = self.phase
        s.plays = self.plays
        s.pts = self.pts
        s.rek = self.rek
        s.res = self.res
        s.rules = self.rules
        s.talon = self.talon
        s.to_act = self.to_act
        s.tricks = self.tricks
        s.trump = self.trump
        s.won = self.won
        return s

    def __repr__(self) -> str:
        return f"<UltiState phase={Phase(self.phase).name} to_act={self.to_act}>"


_new_state = object.__new__
_CHUNKS: Final = tuple(
    tuple(tuple(13 * s + r for r in range(13) if m >> r & 1) for m in range(1 << 13))
    for s in SUITS
)


def _cards_of(m: CardSet) -> list[Card]:
    """``cards_in`` through per-suit tables (the hot path of ``legal_actions``)."""
    c0, c1, c2, c3 = _CHUNKS
    return [*c0[m & 0x1FFF], *c1[m >> 13 & 0x1FFF], *c2[m >> 26 & 0x1FFF], *c3[m >> 39]]

_HIGHER: dict[tuple[str, bool], tuple[tuple[Action, ...], ...]] = {}


def higher_bids(rules: UltiRules, cur: int) -> tuple[Action, ...]:
    """The bid codes that overcall the bid of rank ``cur`` (0: none yet) under ``rules``."""
    key = (rules.ladder, rules.equal_value_overcall)
    table = _HIGHER.get(key)
    if table is None:
        ladder = [c for c in LADDER if rules.ladder == "huwiki" or c.rank in SEED_LADDER_RANKS]
        rows = []
        for r in range(len(LADDER) + 1):
            value = LADDER[r - 1].value if r else 0
            rows.append(tuple(
                BID_BASE + c.rank - 1 for c in ladder
                if c.rank > r and (rules.equal_value_overcall or c.value > value)
            ))
        table = _HIGHER[key] = tuple(rows)
    return table[cur]


class Ulti:
    """Ulti: 32 Hungarian cards, three players, the talon auction, one declarer against two."""

    name: ClassVar[str] = "ulti"
    aliases: ClassVar[tuple[str, ...]] = ("rabloulti", "rablóulti")
    title: ClassVar[str] = "Ulti"
    num_seats: ClassVar[int] = 3
    partnerships: ClassVar[bool] = False
    pack: ClassVar[tuple[Card, ...]] = HUNGARIAN_32
    rules_class: ClassVar[type[RuleSet]] = UltiRules

    # -- dealing ---------------------------------------------------------------------------

    def deal(self, pack: Sequence[Card], dealer: Seat) -> Deal:
        """Twelve cards to the first player (the talon included), ten to each other (UL-6)."""
        first = (dealer + 1) % 3
        chunks = [tuple(pack[0:12]), tuple(pack[12:22]), tuple(pack[22:32])]
        return Deal(hands=tuple(chunks[(s - first) % 3] for s in range(3)), stock=())

    def new_hand(self, deal: Deal, dealer: Seat, rules: RuleSet) -> UltiState:
        assert isinstance(rules, UltiRules)
        first = (dealer + 1) % 3
        sizes = tuple(12 if s == first else 10 for s in range(3))
        hands = check_deal(deal, HUNGARIAN_32, sizes, 0, "ulti")
        s = _new_state(UltiState)
        s.rules = rules
        s.dealer = dealer
        s.first = first
        s.phase = DISCARD
        s.to_act = first
        s.hands = tuple(hands)
        s.talon = 0
        s.discarder = -1
        s.cur = 0
        s.holder = -1
        s.hold = 0
        s.passes = 0
        s.bids = ()
        s.contract = None
        s.declarer = -1
        s.trump = -1
        s.marriages = ()
        s.leader = -1
        s.plays = ()
        s.tricks = ()
        s.won = (0, 0, 0)
        s.pts = (0, 0, 0)
        s.kon = (0, 0, 0)
        s.rek = (0, 0, 0)
        s.kdone = 0
        s.lmask = 0
        s.res = None
        return s

    # -- play ------------------------------------------------------------------------------

    def current_seat(self, state: UltiState) -> Seat | None:
        return None if state.phase == OVER else state.to_act

    def is_terminal(self, state: UltiState) -> bool:
        return state.phase == OVER

    def legal_actions(self, state: UltiState) -> list[Action]:
        phase = state.phase
        if phase == PLAY:
            return _cards_of(state.lmask)
        if phase == DISCARD:
            cards = _cards_of(state.hands[state.to_act])
            return [_PAIR_BASE[a] + b for i, a in enumerate(cards) for b in cards[i + 1:]]
        if phase == BID:
            return list(higher_bids(state.rules, state.cur))
        if phase == AUCTION:
            higher = higher_bids(state.rules, state.cur)
            out = [STAND] if state.to_act == state.holder else [PASS]
            if higher:
                out.insert(0 if out[0] == STAND else 1, PICKUP)
                if state.rules.raise_without_talon:
                    out.extend(higher)
            return sorted(out)
        if phase == TRUMP:
            return [NAME_BASE + s for s in NAMEABLE]
        if phase == KONTRA:
            return self._kontra_actions(state)
        return []

    def _kontra_actions(self, state: UltiState) -> list[Action]:
        seat = state.to_act
        if seat == state.declarer:
            doubled = 0
            for e in range(3):
                doubled |= state.kon[e] & ~state.rek[e]
            return [PASS, *(REKONTRA_BASE + sub for sub in _SUBSETS[doubled])]
        assert state.contract is not None
        free = components_mask(state.contract, state.rules) & ~state.kon[seat]
        return [PASS, *(KONTRA_BASE + sub for sub in _SUBSETS[free])]

    def apply(self, state: UltiState, seat: Seat, action: Action) -> Step:
        if seat != state.to_act or state.phase == OVER:
            raise self._not_your_turn(state, seat, action)
        if state.phase == PLAY:
            if 0 <= action < VERB_BASE and (state.lmask >> action) & 1:
                return self._play(state, seat, action)
            raise self._illegal(state, action)
        if state.phase == DISCARD:
            pair = action - DISCARD_BASE
            a, b = divmod(pair, 52)
            hand = state.hands[seat]
            if not (0 <= pair < 2704 and a < b and (hand >> a) & (hand >> b) & 1):
                raise self._illegal(state, action)
        elif action not in self.legal_actions(state):
            raise self._illegal(state, action)
        s = state.copy()
        phase = state.phase
        facts: list[Fact] = []
        if phase == DISCARD:  # UL-10, UL-11
            pair = _pair_mask(action)
            hands = list(s.hands)
            hands[seat] &= ~pair
            s.hands = tuple(hands)
            s.talon = pair
            s.discarder = seat
            s.phase = BID
            facts.append(Announced("discard", {"seat": seat}))
        elif phase == BID or (phase == AUCTION and action >= BID_BASE):
            self._bid(s, seat, action, facts)
        elif phase == AUCTION:
            if action == PICKUP:  # UL-11: 12 cards, discard two, bid higher
                hands = list(s.hands)
                hands[seat] |= s.talon
                s.hands = tuple(hands)
                s.talon = 0
                s.phase = DISCARD
                facts.append(Announced("pickup", {"seat": seat}))
            elif action == PASS:
                s.passes += 1
                facts.append(Announced("pass", {"seat": seat}))
                if s.rules.auction_end == "two_passes" and s.passes >= 2:
                    self._end_auction(s, facts)
                else:
                    s.to_act = (seat + 1) % 3
            else:  # STAND, UL-12
                facts.append(Announced("stand", {"seat": seat}))
                self._end_auction(s, facts)
        elif phase == TRUMP:  # UL-14
            s.trump = action - NAME_BASE
            facts.append(Announced("trump", {"seat": seat, "trump": SUIT_LETTERS[s.trump]}))
            self._start_play(s)
        else:  # KONTRA, UL-18 .. UL-20
            self._kontra(s, seat, action, facts)
        return Step(s, tuple(facts))

    def _bid(self, s: UltiState, seat: Seat, action: Action, facts: list[Fact]) -> None:
        """UL-9 .. UL-11: the bid becomes current, the turn moves on."""
        rank = action - BID_BASE + 1
        s.cur = rank
        s.holder = seat
        s.passes = 0
        s.bids = (*s.bids, (seat, rank))
        s.phase = AUCTION
        s.to_act = (seat + 1) % 3
        facts.append(Announced("bid", {"seat": seat, "contract": LADDER[rank - 1].key}))

    def _end_auction(self, s: UltiState, facts: list[Fact]) -> None:
        """UL-13 .. UL-15: the holder declares the current bid."""
        contract = LADDER[s.cur - 1]
        s.contract = contract
        s.declarer = s.holder
        facts.append(Announced("contract", {"declarer": s.holder, "contract": contract.key}))
        if contract.rank == 1 and s.rules.passz_standing == "pay":
            s.phase = OVER
            s.res = HandResult(
                passz_not_played(s.declarer),
                {"contract": contract.key, "declarer": s.declarer, "played": False},
            )
            facts.append(HandEnded(s.res))
            return
        if contract.trump == CHOOSE:
            s.phase = TRUMP
            s.to_act = s.declarer
            return
        s.trump = HEARTS if contract.trump == PIROS else -1
        if s.trump >= 0:
            facts.append(Announced("trump", {"seat": s.declarer, "trump": "H"}))
        self._start_play(s)

    def _start_play(self, s: UltiState) -> None:
        """UL-16, UL-22: marriages are fixed from the hands; the declarer leads."""
        if s.trump >= 0:
            s.marriages = tuple(
                (seat, suit)
                for seat in range(3)
                for suit in SUITS
                if (s.hands[seat] >> card(KING, suit)) & (s.hands[seat] >> card(QUEEN, suit)) & 1
            )
        assert s.contract is not None
        if s.trump >= 0 and s.contract.mask & ULTI and s.rules.hold_ulti_seven:
            s.hold = 1 << SEVENS[s.trump]
        s.phase = PLAY
        s.leader = s.declarer
        s.to_act = s.declarer
        s.lmask = self._legal_mask(s)

    def _legal_mask(self, s: UltiState) -> CardSet:
        seat = s.to_act
        hand = s.hands[seat]
        plays = s.plays
        if plays:
            trump = s.trump
            colourless = trump < 0
            strength = STRENGTH[colourless]
            lead = plays[0][1]
            led = SUIT_OF[lead]
            best_led = lead
            best_trump = -1
            for _, c in plays:
                suit = SUIT_OF[c]
                if suit == led and strength[c] > strength[best_led]:
                    best_led = c
                if suit == trump and (best_trump < 0 or strength[c] > strength[best_trump]):
                    best_trump = c
            m = legal_from(hand, led, best_led, best_trump, trump, s.rules.must_beat_after_trumped)
        else:
            m = hand
        hold = s.hold
        if hold and seat == s.declarer and m & hold and m != hold and len(s.tricks) < 9:
            m &= ~hold  # UL-25
        return m

    def _play(self, state: UltiState, seat: Seat, c: Card) -> Step:
        s = state.copy()
        h0, h1, h2 = state.hands
        b = 1 << c
        s.hands = (h0 & ~b, h1, h2) if seat == 0 else (
            (h0, h1 & ~b, h2) if seat == 1 else (h0, h1, h2 & ~b))
        plays = (*state.plays, (seat, c))
        facts: list[Fact] = []
        first_trick = not state.tricks
        if first_trick and state.marriages:  # UL-16: marriages are announced with the first card
            for who, suit in state.marriages:
                if who == seat:
                    value = 40 if suit == state.trump else 20
                    facts.append(Announced("marriage", {"seat": seat, "suit": SUIT_LETTERS[suit],
                                                        "value": value}))
        if len(plays) < 3:
            s.plays = plays
            nxt = (seat + 1) % 3
            s.to_act = nxt
            if (first_trick and nxt != s.declarer and not (s.kdone >> nxt) & 1
                    and s.rules.kontra_timing == "with_first_card"):
                s.phase = KONTRA
            else:
                s.lmask = self._legal_mask(s)
            return Step(s, tuple(facts) if facts else ())
        # the trick is complete (UL-26)
        cards = (plays[0][1], plays[1][1], plays[2][1])
        winner = plays[trick_winner(cards, state.trump)][0]
        number = len(state.tricks) + 1
        points = CARD_POINTS[cards[0]] + CARD_POINTS[cards[1]] + CARD_POINTS[cards[2]]
        if number == 10:
            points += 10  # UL-3: the last trick
        taken = TrickTaken(number, plays, winner, points)
        facts.append(taken)
        s.tricks = (*state.tricks, taken)
        s.plays = ()
        won = list(state.won)
        won[winner] += 1
        s.won = tuple(won)
        pts = list(state.pts)
        pts[winner] += points
        s.pts = tuple(pts)
        s.leader = winner
        s.to_act = winner
        contract = state.contract
        assert contract is not None
        d = state.declarer
        stop = number == 10
        if not stop and state.trump < 0 and state.rules.early_stop:  # UL-27
            mask = contract.mask
            stop = bool(mask & BETLI and winner == d) or (mask == DURCHMARS and winner != d)
        if stop:
            s.phase = OVER
            s.res = self._compute_result(s)
            facts.append(HandEnded(s.res))
            return Step(s, tuple(facts))
        if number == 1:
            if contract.open:  # UL-21
                facts.append(Announced("open_hand", {"seat": d, "hand": [
                    CARD_NAMES[x] for x in cards_in(s.hands[d])]}))
            self._kontra_turn(s)
            if s.phase == KONTRA:
                return Step(s, tuple(facts))
        s.lmask = self._legal_mask(s)
        return Step(s, tuple(facts))

    def _kontra_turn(self, s: UltiState) -> None:
        """UL-20: after trick 1, each defender in play order, then the declarer if doubled."""
        d = s.declarer
        for e in ((d + 1) % 3, (d + 2) % 3):
            if not (s.kdone >> e) & 1:
                s.phase = KONTRA
                s.to_act = e
                return
        if not (s.kdone >> d) & 1 and any(s.kon):
            s.phase = KONTRA
            s.to_act = d
            return
        s.phase = PLAY
        s.to_act = s.leader

    def _kontra(self, s: UltiState, seat: Seat, action: Action, facts: list[Fact]) -> None:
        assert s.contract is not None
        s.kdone |= 1 << seat
        if action == PASS:
            facts.append(Announced("no_kontra", {"seat": seat}))
        elif seat == s.declarer:  # rekontra doubles each doubled component again
            sub = action - REKONTRA_BASE
            s.rek = tuple(r | (k & sub) for r, k in zip(s.rek, s.kon, strict=True))
            facts.append(Announced("rekontra", {"seat": seat, "components": _comp_names(sub)}))
        else:
            sub = action - KONTRA_BASE
            kon = list(s.kon)
            if s.contract.colourless:  # UL-19: individual
                kon[seat] |= sub
            else:  # UL-19: binds both defenders
                for e in range(3):
                    if e != s.declarer:
                        kon[e] |= sub
            s.kon = tuple(kon)
            facts.append(Announced("kontra", {"seat": seat, "components": _comp_names(sub)}))
        if s.tricks:
            self._kontra_turn(s)
        else:  # with_first_card: the defender now plays to trick 1
            s.phase = PLAY
        if s.phase == PLAY:
            s.lmask = self._legal_mask(s)

    # -- scoring (UL-28 .. UL-36) ----------------------------------------------------------

    def result(self, state: UltiState) -> HandResult:
        if state.res is not None:
            return state.res
        return self._compute_result(state)

    def _compute_result(self, state: UltiState) -> HandResult:
        contract = state.contract
        if contract is None:
            return HandResult((0, 0, 0), {"unfinished": True}, void=True)
        d = state.declarer
        trump = state.trump
        seven_seat = last_winner = -1
        if len(state.tricks) == 10:
            last = state.tricks[9]
            last_winner = last.winner
            if trump >= 0:
                for who, c in last.plays:
                    if c == SEVENS[trump]:
                        seven_seat = who
        cp = state.pts[d]
        if not state.rules.talon_to_defenders:
            cp += sum(CARD_POINTS[c] for c in cards_in(state.talon))
        tally = Tally(
            declarer=d,
            trump=trump,
            card_points=cp,
            tricks=(state.won[0], state.won[1], state.won[2]),
            marriages=state.marriages,
            seven_seat=seven_seat,
            last_winner=last_winner,
        )
        points, detail = settle(contract, tally, state.kon, state.rek, state.rules)
        detail["talon"] = [CARD_NAMES[c] for c in cards_in(state.talon)]
        return HandResult(points, detail)

    # -- views -----------------------------------------------------------------------------

    def view(self, state: UltiState, seat: Seat | None) -> dict[str, JSON]:
        contract = state.contract
        d = state.declarer
        out: dict[str, JSON] = {
            "game": self.name,
            "phase": Phase(state.phase).name.lower(),
            "dealer": state.dealer,
            "first": state.first,
            "to_act": self.current_seat(state),
            "bids": [{"seat": p, "contract": LADDER[r - 1].key} for p, r in state.bids],
            "current_bid": LADDER[state.cur - 1].key if state.cur else None,
            "holder": state.holder if state.holder >= 0 else None,
            "passes": state.passes,
            "contract": contract.key if contract else None,
            "declarer": d if d >= 0 else None,
            "trump": SUIT_LETTERS[state.trump] if state.trump >= 0 else None,
            "hand_sizes": [h.bit_count() for h in state.hands],
            "trick": [{"seat": p, "card": CARD_NAMES[c]} for p, c in state.plays],
            "tricks": [_trick_json(t) for t in state.tricks],
            "tricks_won": list(state.won),
            "marriages": self._announced_marriages(state),
            "kontra": [
                {"seat": e, "kontra": _comp_names(state.kon[e]),
                 "rekontra": _comp_names(state.rek[e])}
                for e in range(3) if state.kon[e]
            ],
        }
        if contract is not None and contract.open and state.tricks:  # UL-21
            out["open_hand"] = [CARD_NAMES[c] for c in cards_in(state.hands[d])]
        if seat is not None:
            out["seat"] = seat
            out["hand"] = [CARD_NAMES[c] for c in cards_in(state.hands[seat])]
            if seat == state.discarder and state.talon:
                out["talon"] = [CARD_NAMES[c] for c in cards_in(state.talon)]
        if state.phase == OVER:
            out["result"] = self.result(state).to_json()
        return out

    def _announced_marriages(self, state: UltiState) -> list[JSON]:
        played = {p for p, _ in state.plays} if not state.tricks else {0, 1, 2}
        return [
            {"seat": p, "suit": SUIT_LETTERS[suit], "value": 40 if suit == state.trump else 20}
            for p, suit in state.marriages
            if p in played and state.phase != TRUMP
        ]

    def audit_view(self, state: UltiState) -> dict[str, JSON]:
        out = self.view(state, None)
        out["hands"] = [[CARD_NAMES[c] for c in cards_in(h)] for h in state.hands]
        out["talon"] = [CARD_NAMES[c] for c in cards_in(state.talon)]
        out["discarder"] = state.discarder
        out["kontra_done"] = state.kdone
        return out

    # -- notation --------------------------------------------------------------------------

    def parse_action(self, text: str) -> Action:
        verb, sep, arg = text.partition(":")
        if not sep:
            code = _VERBS.get(text)
            if code is None:
                raise InvalidActionError(
                    f"{text!r} is not an Ulti action (pass, pickup, stand, discard:<card>,<card>, "
                    "bid:<contract>, name:<suit>, kontra:<components>, rekontra:<components>, "
                    "play:<card>)"
                )
            return code
        if verb == "play":
            return _pack_card(arg)
        if verb == "discard":
            parts = arg.split(",")
            if len(parts) != 2:
                raise InvalidActionError(
                    f"{text!r}: discard exactly two cards, e.g. 'discard:7C,8D'"
                )
            a, b = sorted(_pack_card(p) for p in parts)
            if a == b:
                raise InvalidActionError(f"{text!r}: the two discarded cards must differ")
            return DISCARD_BASE + 52 * a + b
        if verb == "bid":
            try:
                return BID_BASE + by_key(arg.lower()).rank - 1
            except KeyError:
                raise InvalidActionError(
                    f"{arg!r} is not an Ulti contract (e.g. passz, piros_passz, 40-100, ulti, "
                    "betli, durchmars, teritett_betli; see docs/games/ulti.md)"
                ) from None
        if verb == "name":
            suit = SUIT_LETTERS.find(arg.upper()) if len(arg) == 1 else -1
            if suit < 0:
                raise InvalidActionError(f"{arg!r} is not a suit: write C, D, H or S")
            return NAME_BASE + suit
        if verb in ("kontra", "rekontra"):
            sub = 0
            for name in arg.split(","):
                comp = COMPONENT_BY_NAME.get(name)
                if comp is None or sub & comp:
                    raise InvalidActionError(
                        f"{text!r}: name components once each, comma-separated, from "
                        f"{', '.join(COMPONENT_NAMES.values())}"
                    )
                sub |= comp
            return (KONTRA_BASE if verb == "kontra" else REKONTRA_BASE) + sub
        raise InvalidActionError(f"{text!r} is not an Ulti action: unknown verb {verb!r}")

    def format_action(self, action: Action) -> str:
        if 0 <= action < VERB_BASE:
            return "play:" + CARD_NAMES[action]
        if action >= DISCARD_BASE:
            a, b = divmod(action - DISCARD_BASE, 52)
            return f"discard:{CARD_NAMES[a]},{CARD_NAMES[b]}"
        if action >= REKONTRA_BASE:
            return "rekontra:" + ",".join(_comp_names(action - REKONTRA_BASE))
        if action >= KONTRA_BASE:
            return "kontra:" + ",".join(_comp_names(action - KONTRA_BASE))
        if action >= BID_BASE:
            return "bid:" + LADDER[action - BID_BASE].key
        if action >= NAME_BASE:
            return "name:" + SUIT_LETTERS[action - NAME_BASE]
        return _VERB_NAMES[action]

    def all_actions(self) -> list[Action]:
        return sorted([
            *HUNGARIAN_32,
            *_VERBS.values(),
            *(NAME_BASE + s for s in SUITS),
            *(BID_BASE + c.rank - 1 for c in LADDER),
            *(KONTRA_BASE + sub for sub in range(1, 64)),
            *(REKONTRA_BASE + sub for sub in range(1, 64)),
            *(DISCARD_BASE + 52 * a + b for a, b in _PAIRS),
        ])

    def card_locations(self, state: UltiState) -> dict[str, CardSet]:
        where = {f"hand{s}": h for s, h in enumerate(state.hands)}
        played = 0
        for t in state.tricks:
            for _, c in t.plays:
                played |= 1 << c
        for _, c in state.plays:
            played |= 1 << c
        where["played"] = played
        where["talon"] = state.talon
        return where

    # -- match level (UL-5, UL-36) ---------------------------------------------------------

    def new_match(self, rules: RuleSet, first_dealer: Seat) -> MatchState:
        return MatchState(scores=(0, 0, 0), dealer=first_dealer)

    def after_hand(self, match: MatchState, result: HandResult, rules: RuleSet) -> MatchState:
        """Running totals; the deal passes on (UL-5); the match ends after ``deals`` deals."""
        assert isinstance(rules, UltiRules)
        scores = tuple(a + b for a, b in zip(match.scores, result.points, strict=True))
        played = match.hands_played + 1
        over = played >= rules.deals
        winner = None
        if over:
            top = max(scores)
            leaders = [s for s in range(3) if scores[s] == top]
            winner = leaders[0] if len(leaders) == 1 else None
        return MatchState(
            scores=scores,
            dealer=(match.dealer + 1) % 3,
            hands_played=played,
            over=over,
            winner=winner,
        )

    # -- errors ----------------------------------------------------------------------------

    def _not_your_turn(self, state: UltiState, seat: Seat, action: Action) -> NotYourTurnError:
        what = self.format_action(action) if self._known(action) else str(action)
        if state.phase == OVER:
            return NotYourTurnError(f"{what!r}: the deal is over", "UL-22")
        rule = "UL-22" if state.phase == PLAY else "UL-11"
        return NotYourTurnError(
            f"{what!r}: it is seat {state.to_act}'s turn, not seat {seat}'s", rule
        )

    def _known(self, action: Action) -> bool:
        try:
            text = self.format_action(action)
            return self.parse_action(text) == action
        except (KeyError, IndexError, InvalidActionError):
            return False

    def _illegal(self, state: UltiState, action: Action) -> IllegalActionError:
        """Explain why ``action`` is refused, naming the rule."""
        if not self._known(action) or action not in _ALL:
            return IllegalActionError(f"action code {action} is not an Ulti action", "UL-9")
        text = self.format_action(action)
        phase = state.phase
        seat = state.to_act
        if phase == PLAY and action < VERB_BASE:
            return self._illegal_play(state, action, text)
        if phase == DISCARD and action >= DISCARD_BASE:
            return IllegalActionError(
                f"{text!r}: you can only discard cards you hold", "UL-10"
            )
        if phase in (BID, AUCTION) and BID_BASE <= action < KONTRA_BASE:
            if phase == AUCTION and not state.rules.raise_without_talon:
                return IllegalActionError(
                    f"{text!r}: pick up the talon and discard two before bidding", "UL-11"
                )
            cur = LADDER[state.cur - 1]
            how = "later in the ladder" if state.rules.equal_value_overcall else "higher in value"
            return IllegalActionError(
                f"{text!r}: a bid must be {how} than the current {cur.title} ({cur.value})",
                "UL-9",
            )
        if phase == AUCTION and action == PICKUP:
            return IllegalActionError(
                f"'pickup': no bid is higher than {LADDER[state.cur - 1].title}; "
                + ("stand" if seat == state.holder else "pass"),
                "UL-11",
            )
        if phase == AUCTION and action == PASS:
            return IllegalActionError(
                "'pass': you hold the current bid; stand or pick up the talon", "UL-12"
            )
        if phase == AUCTION and action == STAND:
            return IllegalActionError(
                "'stand': only the holder of the current bid may stand; pass or pick up", "UL-12"
            )
        if phase == BID and action == PASS:
            what = "the first player" if not state.bids else "whoever picks up the talon"
            return IllegalActionError(
                f"'pass': {what} must bid (at least {self._lowest(state)})",
                "UL-10" if not state.bids else "UL-11",
            )
        if phase == TRUMP and NAME_BASE <= action < BID_BASE:
            return IllegalActionError(
                f"{text!r}: piros is trump only in a piros contract; name tök (D), zöld (S) "
                "or makk (C)",
                "UL-14",
            )
        if phase == KONTRA and action >= KONTRA_BASE:
            return self._illegal_kontra(state, action, text)
        expected = {
            DISCARD: ("discard:<card>,<card> (two cards become the talon)", "UL-10"),
            BID: ("bid:<contract>", "UL-11"),
            AUCTION: ("pass, pickup or stand", "UL-12"),
            TRUMP: ("name:<suit> (the declarer names trump)", "UL-14"),
            PLAY: ("play:<card>", "UL-23"),
            KONTRA: ("kontra:<components>, rekontra:<components> or pass", "UL-20"),
        }[phase]
        return IllegalActionError(
            f"{text!r} is not allowed now: expected {expected[0]}", expected[1]
        )

    def _lowest(self, state: UltiState) -> str:
        higher = higher_bids(state.rules, state.cur)
        return LADDER[higher[0] - BID_BASE].title if higher else "nothing"

    def _illegal_play(self, state: UltiState, c: Card, text: str) -> IllegalActionError:
        seat = state.to_act
        hand = state.hands[seat]
        if not (hand >> c) & 1:
            return IllegalActionError(f"{text!r}: you do not hold {CARD_NAMES[c]}", "UL-23")
        trump = state.trump
        if c == SEVENS[trump] and trump >= 0 and seat == state.declarer:
            base = legal_cards(hand, [x for _, x in state.plays], trump,
                               must_beat_after_trumped=state.rules.must_beat_after_trumped)
            if (base >> c) & 1:
                return IllegalActionError(
                    f"{text!r}: with an ulti the trump 7 must be kept for the last trick while "
                    "you have another legal card",
                    "UL-25",
                )
        led = SUIT_OF[state.plays[0][1]]
        legal = " ".join(CARD_NAMES[x] for x in cards_in(state.lmask))
        if hand & SUIT_MASKS[led]:
            if SUIT_OF[c] == led:
                why = "you must beat the best card of the led suit when you can"
            else:
                why = f"you must follow suit ({HUNGARIAN_SUIT_NAMES[led]} was led)"
        elif trump >= 0 and hand & SUIT_MASKS[trump]:
            if SUIT_OF[c] == trump:
                why = "you must overtrump when you can"
            else:
                why = f"you cannot follow, so you must trump ({HUNGARIAN_SUIT_NAMES[trump]})"
        else:
            why = "not a legal card here"
        rule = "UL-24" if "beat" in why or "overtrump" in why else "UL-23"
        return IllegalActionError(f"{text!r}: {why}; legal: {legal}", rule)

    def _illegal_kontra(self, state: UltiState, action: Action, text: str) -> IllegalActionError:
        seat = state.to_act
        assert state.contract is not None
        if seat == state.declarer:
            if action < REKONTRA_BASE:
                return IllegalActionError(
                    f"{text!r}: the declarer answers a kontra with rekontra", "UL-18"
                )
            return IllegalActionError(
                f"{text!r}: only a component the defenders doubled can be rekontra'd", "UL-18"
            )
        if action >= REKONTRA_BASE:
            return IllegalActionError(f"{text!r}: only the declarer says rekontra", "UL-18")
        sub = action - KONTRA_BASE
        if sub & ~components_mask(state.contract, state.rules):
            return IllegalActionError(
                f"{text!r}: the contract {state.contract.title} has no such component", "UL-18"
            )
        return IllegalActionError(
            f"{text!r}: that component is already doubled"
            + (" for both defenders" if not state.contract.colourless else ""),
            "UL-19",
        )


def components_mask(contract: Contract, rules: UltiRules) -> int:
    """The component set a kontra may name (UL-18)."""
    m = 0
    for comp, _ in components(contract, rules):
        m |= comp
    return m


def _pack_card(text: str) -> Card:
    c = parse_card(text)
    if not (PACK_MASK >> c) & 1:
        raise InvalidActionError(
            f"{text!r} is not in the Hungarian pack (ranks 7 8 9 T J Q K A)"
        )
    return c


def _pair_mask(action: Action) -> CardSet:
    a, b = divmod(action - DISCARD_BASE, 52)
    return (1 << a) | (1 << b)


def _comp_names(sub: int) -> list[str]:
    return [COMPONENT_NAMES[c] for c in COMPONENTS if sub & c]


def _trick_json(t: TrickTaken) -> dict[str, JSON]:
    return {
        "number": t.number,
        "plays": [{"seat": p, "card": CARD_NAMES[c]} for p, c in t.plays],
        "winner": t.winner,
        "points": t.points,
    }


_ALL: Final = frozenset(Ulti().all_actions())
GAME: Final = Ulti()
