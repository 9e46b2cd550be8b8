"""Checked claims: does a side make its claim against every defence? (issue 20)

A claim is made in a hand's trick play by a side (the seats that score together): *all the
remaining tricks*, or *at least k of them*. :func:`check_claim` decides it exactly, by a
double-dummy search over the cards as they lie: the claiming side chooses its plays, the
defenders choose theirs, and the claim stands only if the claiming side makes it whatever the
defenders play. It is generic over the :class:`~referee.rules.game.Game` protocol and reads
nothing else of a game:

- **the moves** are ``legal_actions`` and ``apply``, so every constraint of the game holds
  (follow suit, trump, over-trump, Belot's and Coinche's announcements, Ulti's trump seven
  kept for the last trick, and a hand that ends early: Ulti's betli or durchmars stop);
- **a trick** is a :class:`~referee.rules.game.TrickTaken` fact, and its ``winner`` the seat
  that took it; the hand is over when ``is_terminal`` says so (tricks not played then are
  nobody's);
- **the sides** are :func:`claim_sides`: a game may give ``claim_sides(state)`` (a tuple of
  seat sets); by default a game that plays in partnerships has its teams
  (:func:`~referee.rules.game.side_of`), and one that does not but whose state names a
  ``declarer`` (Ulti) has the declarer against the other seats together; else each seat is
  a side;
- **trick play**: a game may give ``in_trick_play(state)``; by default the public view's
  ``phase`` is ``"play"``;
- **equivalent cards** (optional, what makes the search fast): a game's
  ``claim_order(state)``, a :class:`~referee.rules.tricks.ClaimOrder` (the kernel's
  :func:`~referee.rules.tricks.claim_order` builds it from the trick tables): the cards in
  play in *ladders*, one per effective suit, weakest first, the cards a rule tells apart
  from their neighbours (Ulti's ulti seven) and the trumps of a hand played to its last
  trick. Two cards of one seat with no card in play between them in a ladder but that
  seat's own take the same tricks: the search tries one of them. And a game's
  ``claim_card(action)``: the card a non-card action of the play plays (a card said with
  belot), or None for one that changes no trick (a declaration), which the search leaves
  out. A claim is of tricks, so points never part two cards;
- **a position** (what the memo keys on, at the start of a trick): with ``claim_order``,
  the canonical position: who is to act and, per ladder, which seat holds each card in play
  (so positions that differ only by equivalent cards meet); else a game's
  ``claim_key(state)`` if it gives one, else who is to act and the cards of the tricks played
  since the claim's position (with the hands there, that says where every card is, as the
  ``TrickTaken`` facts list them): whatever else a state holds (announcements made, kontras)
  must not change which tricks can be won from there. In an all-tricks claim, at the start
  of a trick the claiming side leads, a defender's cards that can never take a trick (see
  below) are counted, not named, in the canonical position, so more positions meet.
  Tested for every registered game against a brute-force enumeration
  (``tests/rules/test_claims.py``, ``tests/rules/test_claim_order.py``).

The search is an AND/OR search over the plays: at the claimer's turns one play that keeps the
claim is enough, at the defenders' turns every play must. It cuts off at once where the
answer is known (an all-tricks claim fails as soon as a defender takes a trick), and, for an
all-tricks claim with ``claim_order``, at the start of a trick where it surely holds (every
card of the side is above every other side's in its ladder, and the others have no trump;
or every card of the leader is above every other seat's in its ladder, and no other seat
has a trump unless the leader holds only trumps; or the leader can hand the lead to a
partner of whom that holds) or surely fails (another side holds the
highest trump; or the side has no trump and every ladder the leader could lead is topped
by another side's card; or the side cannot throw away its cards of a ladder a defender
tops: :meth:`_Search._starved`). In an all-tricks claim, in a trick the side led, a defender's
cards that can never take a trick (of a suit without trumps that the side holds none of,
or below all the side's cards of their suit) are tried once per suit. It keeps the positions it
decided at the start of each trick (transpositions), and orders plays: the claiming side's
by what won before (a history heuristic), the defenders' weakest first (a defence mostly
keeps its high cards), and for the last seat of a trick by whether the play takes it.

The answer keeps a **line** of actions: when the claim stands, a complete play of the hand in
which the claim is made (the claimer's plays from the winning strategy; each defender plays
the first legal action that holds the claimer to the fewest tricks), which ends the hand as if
played out; when it is refused, a **defence**: a play from the position up to the point where
the claim can no longer be made (the defenders' refuting plays; the claimer's own plays the
first legal ones), for the auditor.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Hashable, Iterator, Sequence
from typing import Any

from referee.rules.cards import Card, CardSet, cards_in
from referee.rules.game import VERB_BASE, Action, Game, TrickTaken, side_of, sides_of
from referee.rules.seats import Seat
from referee.rules.tricks import ClaimOrder

ALL = -1
"""``tricks`` of a claim of all the remaining tricks."""

_NONE = 1 << 30  # no bound on the tricks the defenders may take (a claim of k tricks)
_UNBOUNDED = _NONE // 2  # an ``allow`` this high is still no bound


class ClaimError(ValueError):
    """The position admits no claim (not in trick play, a seat that does not play, a number
    of tricks out of range)."""


class ClaimTooDeep(ClaimError):
    """The search went past its budget of positions before deciding."""


@dataclasses.dataclass(frozen=True)
class ClaimCheck:
    """The decision on one claim.

    ``holds``: the claim stands against every defence. ``line``: ``(seat, action)`` pairs
    from the position: a complete play of the hand that makes the claim when it holds, a
    defence that beats it when it does not (see the module docstring). ``nodes``: positions
    searched (for benchmarks)."""

    holds: bool
    line: tuple[tuple[Seat, Action], ...]
    side: frozenset[Seat]
    tricks: int
    nodes: int


def claim_sides(game: Game[Any], state: Any) -> tuple[frozenset[Seat], ...]:
    """The sides of the hand in ``state``, as sets of seats (see the module docstring)."""
    hook: Callable[[Any], tuple[frozenset[Seat], ...]] | None = getattr(
        game, "claim_sides", None
    )
    if hook is not None:
        return hook(state)
    n = game.num_seats
    if not game.partnerships:
        declarer = getattr(state, "declarer", None)
        if isinstance(declarer, int) and 0 <= declarer < n:
            return frozenset({declarer}), frozenset(s for s in range(n) if s != declarer)
        return tuple(frozenset({s}) for s in range(n))
    return tuple(
        frozenset(s for s in range(n) if side_of(game, s) == t) for t in range(sides_of(game))
    )


def side_of_seat(game: Game[Any], state: Any, seat: Seat) -> frozenset[Seat]:
    """The side that ``seat`` belongs to in this hand."""
    for side in claim_sides(game, state):
        if seat in side:
            return side
    raise ClaimError(f"seat {seat} is not at this table")


def in_trick_play(game: Game[Any], state: Any) -> bool:
    """Whether the hand is in its trick play (where claims and concessions are made)."""
    hook: Callable[[Any], bool] | None = getattr(game, "in_trick_play", None)
    if hook is not None:
        return hook(state)
    if game.is_terminal(state):
        return False
    phase = game.view(state, None).get("phase")
    if phase is None:  # a view without phases: while every legal action plays a card
        return all(0 <= a < VERB_BASE for a in game.legal_actions(state))
    return bool(phase == "play")


class _Search:
    """One claim's search: ``side`` must take at least ``need`` more tricks and let the
    others take at most ``allow``; ``cooperative``: every seat plays for it (a concession's
    line)."""

    def __init__(self, game: Game[Any], side: frozenset[Seat], root: Any,
                 cooperative: bool = False, budget: int | None = None) -> None:
        self.game = game
        self.budget = budget
        self.side = side
        self.cooperative = cooperative
        self.memo: dict[tuple[Hashable, int, int], bool] = {}
        self.bounds: dict[Hashable, tuple[int, int]] = {}
        self.history: dict[tuple[Seat, Action], int] = {}
        self.nodes = 0
        self.keyed: Callable[[Any], Hashable] | None = getattr(game, "claim_key", None)
        self.card_of: Callable[[Action], Card | None] | None = getattr(game, "claim_card", None)
        hook: Callable[[Any], ClaimOrder] | None = getattr(game, "claim_order", None)
        self.order = None if hook is None else hook(root)
        # Per card: the seat that held it at the root (-1: on the table), and the cards above
        # it in its ladder, the nearest first.
        self.holder = [-1] * 64
        self.up: list[tuple[Card, ...]] = [()] * 64
        self.hands: list[CardSet] = []  # per seat, its cards at the root
        self.ours: CardSet = 0  # the side's cards at the root
        self.tops: tuple[tuple[Card, ...], ...] = ()  # the ladders, the strongest first
        self.trump_top: tuple[Card, ...] = ()  # the trumps' ladder, the strongest first
        self.table: CardSet = 0  # the cards on the table at the root
        # Per (seat to act, cards played since the root) at a trick's start: the canonical
        # key, and the bound of :meth:`_sure` (the same positions come back by other roads).
        self.keys: dict[tuple[Seat | None, int], int] = {}
        self.sures: dict[tuple[Seat, int], int] = {}
        self.lead_keys: dict[tuple[Seat, int], int] = {}
        self.wins: dict[tuple[int, CardSet], Action] = {}  # per (played, table): sweeps
        self.drawing = False  # drawing a line: positions searched before come back
        self.rank = [0] * 64  # per card, its place in its ladder (a trump's above the rest)
        self.cash = [0] * 64  # per card, the claiming side's order: strongest, trumps last
        self.ladder = [0] * 64  # per card, the cards of its ladder
        self.ladder_no = [0] * 64  # per card, the index of its ladder
        self.deads: dict[int, tuple[CardSet, CardSet]] = {}  # per ``played``: _dead
        if self.order is not None:
            where = game.card_locations(root)
            self.hands = [where.get(f"hand{s}", 0) for s in range(game.num_seats)]
            holder = self.holder
            for s, hand in enumerate(self.hands):
                for c in cards_in(hand):
                    holder[c] = s
                if s in side:
                    self.ours |= hand
            for n, ladder in enumerate(self.order.ladders):
                every = sum(1 << c for c in ladder)
                for i, c in enumerate(ladder):
                    trump = 64 if (self.order.trumps >> c) & 1 else 0
                    self.up[c] = ladder[i + 1:]
                    self.ladder[c] = every
                    self.ladder_no[c] = n
                    self.rank[c] = trump + i
                    self.cash[c] = trump - i
            self.tops = tuple(ladder[::-1] for ladder in self.order.ladders)
            self._every = [self.ladder[t[0]] for t in self.tops]
            self.table = sum(1 << c for t in self.tops for c in t if holder[c] < 0)
            self.trump_top = next(
                (t for t in self.tops if (self.order.trumps >> t[0]) & 1), ())

    def children(self, state: Any, played: int, merge: bool = True, side_led: bool = False,
                 best: Action | None = None, table: CardSet = 0
                 ) -> Iterator[tuple[Action, Any, int, int, int]]:
        """``(action, state, claimer tricks, defender tricks, cards of the trick it ended)``
        after each legal action (one of each set of equivalent ones when ``merge``),
        the most promising first for the seat to act: when the play ends a trick, those
        that take it; else for the claiming side those that decided positions before (a
        history heuristic), then its strongest cards (it mostly cashes its winners), for the
        defenders (with the game's ``claim_order``) the weakest cards first, a trump
        after the rest: a defence mostly beats a claim by keeping its high cards (measured
        on ``referee bench claims``: about half the positions of trying them first).
        ``best``: a play of the claiming side that decided this position before, first."""
        game = self.game
        seat = game.current_seat(state)
        assert seat is not None
        mine = seat in self.side or self.cooperative
        side = self.side
        history = self.history
        dead, low = self._dead(played) if side_led and not mine else (0, 0)
        legal = self._distinct(seat, game.legal_actions(state), played, merge, dead, low)
        if len(legal) > 1:
            if mine or self.order is None:
                # what decided positions before, then the strongest card of its suit (a
                # trump after the rest): the side mostly makes a claim cashing its winners
                cash = self.cash
                legal = sorted(legal, key=lambda a: (-history.get((seat, a), 0), cash[a & 63]))
                if best is not None and best in legal:
                    legal.remove(best)
                    legal.insert(0, best)
            else:  # the defenders keep their high cards: the weakest first
                rank = self.rank
                legal = sorted(legal, key=lambda a: rank[a & 63])
                if table and not table & (table - 1) and self.order is not None:
                    # but the second seat first tries the highest card in play of the
                    # suit led: it mostly takes the trick (measured: a third fewer
                    # positions in Coinche's and Ulti's largest refused claims)
                    for a in legal:
                        if (0 <= a < VERB_BASE and table & self.ladder[a]
                                and all((played >> c) & 1 for c in self.up[a])):
                            legal.remove(a)
                            legal.insert(0, a)
                            break
        first = True
        for action in legal:
            step = game.apply(state, seat, action)
            won = lost = cards = 0
            for fact in step.facts:
                if isinstance(fact, TrickTaken):
                    cards = _cards_of(fact)
                    if fact.winner in side:
                        won += 1
                    else:
                        lost += 1
            if first and won + lost and len(legal) > 1 and not mine:
                # The last play of a trick, a defender's: a play that takes it first (the
                # strongest cards first, as they likeliest do), found lazily: a defence
                # that takes a trick mostly decides the position.
                rest = [(action, step.state, won, lost, cards)]
                if lost:
                    yield rest.pop()
                for other in legal[:0:-1]:
                    after, w, c = self._last_play(state, seat, other)
                    if w:
                        rest.append((other, after, 1, 0, c))
                    else:
                        yield other, after, 0, 1, c
                yield from rest[:1]
                yield from rest[:0:-1]  # the others weakest first, as they came
                return
            if first and won + lost and len(legal) > 1:
                # The last play of a trick, the side's: every play ends it, so see who
                # takes it first, the side's wins first.
                out = [(action, step.state, won, lost, cards)]
                for other in legal[1:]:
                    after, w, c = self._last_play(state, seat, other)
                    out.append((other, after, w, 1 - w, c))
                out.sort(key=lambda c: c[3] - c[2])
                yield from out
                return
            first = False
            yield action, step.state, won, lost, cards

    def _last_play(self, state: Any, seat: Seat, action: Action) -> tuple[Any, int, int]:
        """``(state, 1 if the side takes the trick else 0, cards of the trick)`` after
        ``action``, the last play of a trick."""
        step = self.game.apply(state, seat, action)
        w = c = 0
        for fact in step.facts:
            if isinstance(fact, TrickTaken):
                c = _cards_of(fact)
                w = int(fact.winner in self.side)
        return step.state, w, c

    def _distinct(self, seat: Seat, legal: Sequence[Action], played: int, merge: bool,
                  dead: CardSet = 0, low: CardSet = 0) -> Sequence[Action]:
        """``legal`` without the actions that play no card and change nothing a claim
        depends on (the game's ``claim_card`` says None: Belot's declarations), and when
        ``merge``, with one action of each set that plays equivalent cards (the first in
        ``legal``): the same card (a card played saying belot, or not), or cards next to
        each other in the game's ``claim_order`` with no card in play between them but
        the seat's own (so the cards between are the seat's own too, and equivalent);
        and all the ``dead`` cards as one, the ``low`` ones as one per ladder
        (:meth:`_dead`)."""
        card_of = self.card_of
        if len(legal) < 2 or (card_of is None and self.order is None):
            return legal
        out: list[Action] = []
        skipped: list[Action] = []
        seen = 0
        for action in legal:
            c: Card | None = action if 0 <= action < VERB_BASE else (
                -1 if card_of is None else card_of(action))
            if c is None:
                skipped.append(action)
                continue
            if c >= 0 and merge:
                r = (64 if (dead >> c) & 1 else 65 + self.ladder_no[c] if (low >> c) & 1
                     else self._top(c, seat, played))
                if (seen >> r) & 1:
                    continue
                seen |= 1 << r
            out.append(action)
        return out or skipped

    def _dead(self, played: int) -> tuple[CardSet, CardSet]:
        """In an all-tricks claim, in a trick that the claiming side led: ``(dead, low)``,
        the cards in play (not the game's distinct ones) of the ladders with no trump that
        hold no card of the side in play, and of the others with no trump, those below
        every card of the side in play.

        The side leads every trick while the claim stands (a trick another side takes ends
        the search). So a dead ladder is never led: a defender's dead card is never of the
        led suit nor a trump, can never take a trick, and any rule of play (follow, trump,
        over-trump) treats it like any card of a suit neither led nor trumps. A low card
        is of the led suit only under a card of the side above it, and the highest card of
        that suit on the table is one of the side's or above it: it can neither take the
        trick nor overtake. So a defender's dead cards are equivalent, and so are its low
        cards of one ladder: which one it plays and which it keeps (still dead or low, as
        the side's cards only go) changes no trick; the search tries one."""
        known = self.deads.get(played)
        if known is not None:
            return known
        assert self.order is not None
        holder = self.holder
        side = self.side
        skip = played | self.order.trumps | self.order.distinct
        dead = low = 0
        for ladder in self.order.ladders:
            if (self.order.trumps >> ladder[0]) & 1:
                continue
            under = 0
            for c in ladder:
                if (skip >> c) & 1:
                    continue
                if holder[c] in side:
                    low |= under
                    break
                under |= 1 << c
            else:
                dead |= under
        self.deads[played] = dead, low
        return dead, low

    def _top(self, c: Card, seat: Seat, played: int) -> Card:
        """The highest card of ``c``'s run: the cards of ``seat`` above ``c`` in its ladder
        with no other card in play (not in a trick completed since the root) between."""
        order = self.order
        if order is None or (order.distinct >> c) & 1:
            return c
        holder = self.holder
        distinct = order.distinct
        top = c
        for d in self.up[c]:
            if (played >> d) & 1:
                continue
            if holder[d] != seat or (distinct >> d) & 1:
                break
            top = d
        return top

    def _sure(self, seat: Seat, played: int) -> int:
        """At the start of a trick that ``seat`` leads, with the cards ``played`` since the
        root gone: 1 if the side surely takes every trick left, -1 if the other sides
        surely take one, else 0. Needs the game's ``claim_order``, and tricks won by the
        highest trump, else the highest card of the led suit.

        - 1: ``seat`` is of the side; in every ladder the side's cards are all above the
          other sides' cards; and the other sides hold no trump (whatever the side leads,
          no card of theirs beats it, and the trick's winner, of the side, leads again in
          the same case), or ``seat`` holds only trumps, above every other trump in play
          (it takes every trick itself).
        - -1: a seat of another side holds the highest trump in play, in a hand played to
          its last trick: it must play it some time, and nothing beats it. Or the side
          holds no trump in play, and in every ladder in which ``seat`` holds a card the
          highest card in play is another side's: whatever ``seat`` leads, the seat
          holding that card may play it on the lead, and nothing beats it. Or
          :meth:`_starved`."""
        holder = self.holder
        side = self.side
        for c in self.trump_top:
            if not (played >> c) & 1:
                if holder[c] not in side:
                    return -1
                break
        if seat not in side:
            return 0
        assert self.order is not None
        trumps = self.order.trumps & ~played
        hand = self.hands[seat] & ~played
        if self._leads_out(seat, hand, trumps, played) or self._crosses(
                seat, hand, trumps, played):
            return 1
        theirs = 0
        sure = stopped = True
        for top in self.tops:
            other = False
            for c in top:
                if (played >> c) & 1:
                    continue
                if holder[c] in side:
                    if other:
                        sure = False
                    elif hand & self.ladder[c]:
                        stopped = False  # seat may lead this ladder, where the side is top
                else:
                    other = True
                    theirs |= 1 << c
        if not sure:
            ours = trumps & ~theirs
            return -1 if (stopped and not ours) or self._starved(played) else 0
        if trumps & theirs:  # unless ``seat`` holds only trumps, the highest ones
            if hand & ~trumps:
                return 0
            other = False
            for c in self.trump_top:
                if (trumps >> c) & 1:
                    if not (hand >> c) & 1:
                        other = True
                    elif other:
                        return 0
        return 1

    def _starved(self, played: int) -> bool:
        """Whether the side, to lead, surely lets a trick go because it cannot throw away
        its cards of the suits a defender tops. Needs a hand played to its last trick and
        no distinct card in play. A defender keeps the highest card in play of a ladder it
        tops, playing it only when that ladder is led (it takes the trick unless the side
        trumps it) or with its last card. A lone seat leads every trick while the claim
        stands: it must lead that ladder some time, and loses the trick. A side of two
        seats leads it only when the leader's partner can trump it, holding none of it
        (where a seat must follow suit; and never without a trump): a seat ``a`` gets rid
        of its cards of it where its partner ``b`` leads a ladder ``m`` that ``a`` no
        longer holds, which ``b`` can do at most ``|b_m| - |a_m|`` times (``a`` follows
        ``m`` while it holds it, and throwing its ``m`` cards away takes as many such
        tricks as it frees). Without a trump, each of ``a`` and ``b`` must so throw away
        all its cards of the topped ladders (each defender keeping one: the one the side
        holds most of); with trumps, the seat that runs out of a topped ladder first."""
        assert self.order is not None
        order = self.order
        if not order.to_the_end or order.distinct & ~played or len(self.side) > 2:
            return False
        holder = self.holder
        side = self.side
        ours = self.ours & ~played
        most = [0] * len(self.hands)  # per defender: the side's cards of the ladder it keeps
        kept = [0] * len(self.hands)  # and that ladder
        topped: list[CardSet] = []  # every ladder a defender tops, the side holding some
        for top in self.tops:
            for c in top:
                if not (played >> c) & 1:
                    h = holder[c]
                    n = (ours & self.ladder[c]).bit_count()
                    if h >= 0 and h not in side and n:
                        topped.append(self.ladder[c])
                        if n > most[h]:
                            most[h], kept[h] = n, self.ladder[c]
                    break
        if not topped or len(side) == 1:
            return bool(topped)
        ruff = bool(order.trumps & ours)
        if ruff and not order.follows:
            return False
        if not ruff:
            topped = [0]
            for every in kept:
                topped[0] |= every
        a, b = (self.hands[s] & ~played for s in side)
        for lost in topped:
            room_a = room_b = 0  # the partner's leads of a ladder the seat no longer holds
            for every in self._every:
                if not every & lost:
                    d = (b & every).bit_count() - (a & every).bit_count()
                    room_a += max(d, 0)
                    room_b += max(-d, 0)
            over_a = (a & lost).bit_count() > room_a
            over_b = (b & lost).bit_count() > room_b
            if (over_a and over_b) if ruff else (over_a or over_b):
                return True
        return False

    def _crosses(self, seat: Seat, hand: CardSet, trumps: CardSet, played: int) -> bool:
        """Whether ``seat``, to lead, can hand the lead to a partner that then takes every
        trick left itself: ``seat`` leads its lowest card (not one a rule keeps back) of a
        ladder whose highest card in play is the partner's (not one a rule keeps back):
        a trump, or a card no other side can trump (they hold no trump). The partner must
        follow suit and may play it (the highest card of the led suit is legal under every
        rule of play), and nothing beats it: it takes the trick. And :meth:`_leads_out`
        holds for the partner without those two cards even if the other seats kept every
        card (what they play to the trick only helps it)."""
        assert self.order is not None
        holder = self.holder
        distinct = self.order.distinct
        theirs_trump = trumps & ~self.ours  # (``trumps``: none on the table)
        for partner in self.side:
            if partner == seat:
                continue
            held = self.hands[partner] & ~played
            for top in self.tops:
                every = self.ladder[top[0]]
                if not hand & every & ~distinct or not held & every:
                    continue
                y = next(c for c in top if not (played >> c) & 1)  # the highest in play
                if holder[y] != partner or (distinct >> y) & 1:
                    continue
                if theirs_trump and not (trumps >> y) & 1:
                    continue
                x = next(c for c in top[::-1] if (hand >> c) & 1 and not (distinct >> c) & 1)
                gone = (1 << x) | (1 << y)
                if self._leads_out(partner, held & ~gone, trumps & ~gone, played | gone):
                    return True
        return False

    def _leads_out(self, seat: Seat, hand: CardSet, trumps: CardSet, played: int) -> bool:
        """Whether ``seat``, to lead, takes every trick left itself: no other seat holds a
        trump in play unless ``seat`` holds only trumps, and in each ladder ``seat`` holds
        either only cards above every other seat's card in play (its partners' too), or
        ``t`` such top cards and no other seat holds more than ``t`` cards of the ladder.
        It leads its top cards of a ladder first: each is the highest of the led suit and
        no other seat can trump it (or it is the highest trump), so it wins and leads
        again; every other seat must follow while it can, so after ``t`` leads none holds
        the suit any more and ``seat``'s lower cards of it win too."""
        if trumps & ~hand and hand & ~trumps:
            return False
        holder = self.holder
        for top in self.tops:
            if not hand & self.ladder[top[0]]:
                continue
            mine = 0
            other = low = False
            counts = [0] * len(self.hands)  # per seat, its cards in play of the ladder
            for c in top:
                if (played >> c) & 1:
                    continue
                h = holder[c]
                if h == seat:
                    if other:
                        low = True
                    else:
                        mine += 1
                else:
                    other = True
                    if h >= 0:
                        counts[h] += 1
            if low and max(counts) > mine:
                return False
        return True

    def key(self, state: Any, played: int) -> Hashable:
        """The position's memo key at the start of a trick. With the game's
        ``claim_order``, the canonical position: the seat to act and, per ladder, which
        seat holds each card still in play, the weakest first (the seat and card of a
        distinct card), so positions that differ only by equivalent cards meet. Else the
        game's ``claim_key`` if it gives one; else the seat to act and the cards of the
        tricks played since the root (which, with the hands at the root, say where every
        card is)."""
        seat = self.game.current_seat(state)
        order = self.order
        if order is not None:
            known = self.keys.get((seat, played))
            if known is not None:
                return known
            holder = self.holder
            distinct = order.distinct
            k = 0 if seat is None else seat + 1
            for ladder in order.ladders:
                for c in ladder:
                    if not (played >> c) & 1:
                        k = (k << 3) | (holder[c] + 2)
                        if (distinct >> c) & 1:
                            k = (k << 6) | c
                k = (k << 3) | 1
            self.keys[seat, played] = k
            return k
        if self.keyed is not None:
            return self.keyed(state)
        return (seat, played)

    def _lead_key(self, seat: Seat, played: int) -> int:
        """The memo key of :meth:`sweeps` at the start of a trick the side leads (an
        all-tricks claim): :meth:`key`'s canonical position, but a defender's dead cards
        (:meth:`_dead`) only counted per seat, and its low cards per seat and ladder: while
        the claim stands they are equivalent, so which of them a seat holds changes no
        trick. Negative, so it never meets a key of :meth:`key`."""
        known = self.lead_keys.get((seat, played))
        if known is not None:
            return known
        assert self.order is not None
        dead, low = self._dead(played)
        holder = self.holder
        hands = self.hands
        distinct = self.order.distinct
        skip = played | dead | low
        k = seat + 1
        for ladder in self.order.ladders:
            for c in ladder:
                if not (skip >> c) & 1:
                    k = (k << 3) | (holder[c] + 2)
                    if (distinct >> c) & 1:
                        k = (k << 6) | c
            lows = low & self.ladder[ladder[0]] & ~played
            if lows:  # a mark no seat's code takes, then the counts
                k = (k << 3) | 7
                for hand in hands:
                    k = (k << 4) | (hand & lows).bit_count()
            k = (k << 3) | 1
        dead &= ~played
        for hand in hands:
            k = (k << 4) | (hand & dead).bit_count()
        k = -1 - k
        self.lead_keys[seat, played] = k
        return k

    def _bit(self, action: Action) -> CardSet:
        """The card ``action`` plays, as a set (none: a play of no card)."""
        if 0 <= action < VERB_BASE:
            return 1 << action
        c = None if self.card_of is None else self.card_of(action)
        return 0 if c is None or c < 0 else 1 << c

    def _count(self) -> None:
        """Count one more position searched. :raises ClaimTooDeep: past the budget."""
        self.nodes += 1
        if self.budget is not None and self.nodes > self.budget:
            raise ClaimTooDeep(f"the claim was not decided within {self.budget} positions")

    def _decided(self, seat: Seat, action: Action, depth: int) -> None:
        key = (seat, action)
        self.history[key] = self.history.get(key, 0) + (1 << min(max(depth, 0), 20))

    def sweeps(self, state: Any, horizon: int, played: int, boundary: bool,
               side_led: bool = False, table: CardSet = 0) -> bool:
        """Whether the side takes each of the next ``horizon`` tricks (or all, if fewer are
        left) from ``state``, against every defence: an all-tricks claim, cut off as soon
        as a defender takes a trick. Positions keep the horizons proved and refuted.
        ``side_led``: the trick under way (``state`` not at its start) was led by the side;
        ``table``: the cards played to it since its start or the root. The side's play that
        decides a position (known by ``played`` and ``table``) is kept: tried first when the
        position comes back (as the winning line is drawn)."""
        game = self.game
        if horizon <= 0 or game.is_terminal(state):
            return True
        seat = game.current_seat(state)
        assert seat is not None
        key = None
        if boundary:  # a trick's start (the root: unless cards lie on the table)
            table = 0
            side_led = (self.order is not None and seat in self.side
                        and not (self.table & ~played))
            if self.order is not None and horizon >= _UNBOUNDED and not self.table & ~played:
                sure = self.sures.get((seat, played))
                if sure is None:
                    sure = self.sures[seat, played] = self._sure(seat, played)
                if sure:
                    return sure > 0
            key = self._lead_key(seat, played) if side_led else self.key(state, played)
            lo, hi = self.bounds.get(key, (0, _NONE + 1))
            if horizon <= lo:
                return True
            if horizon >= hi:
                return False
        self._count()
        mine = seat in self.side
        result = not mine
        best = self.wins.get((played, table)) if mine and self.drawing else None
        for action, child, won, lost, cards in self.children(state, played, True, side_led,
                                                              best, table):
            ok = not lost and self.sweeps(child, horizon - won, played | cards, won > 0,
                                          side_led, table | self._bit(action))
            if ok == mine:  # a play that decides this node
                self._decided(seat, action, horizon)
                if mine and horizon >= _UNBOUNDED:
                    self.wins[played, table] = action
                result = mine
                break
        if key is not None:
            lo, hi = self.bounds.get(key, (0, _NONE + 1))
            self.bounds[key] = (max(lo, horizon), hi) if result else (lo, min(hi, horizon))
        return result

    def makes(self, state: Any, need: int, allow: int, played: int, boundary: bool) -> bool:
        """Whether the side makes ``need`` more tricks letting at most ``allow`` go from
        ``state``, against every defence. ``played``: the cards of the tricks played since
        the root; ``boundary``: ``state`` starts a trick."""
        if allow < 0:
            return False
        game = self.game
        if need <= 0 and allow >= _UNBOUNDED:
            return True
        if allow == 0 and need <= 0 and not self.cooperative:
            return self.sweeps(state, _NONE, played, boundary)
        if game.is_terminal(state):
            return need <= 0
        key = None
        if boundary:
            key = (self.key(state, played), need, allow)
            known = self.memo.get(key)
            if known is not None:
                return known
        self._count()
        seat = game.current_seat(state)
        assert seat is not None
        mine = seat in self.side or self.cooperative
        result = not mine
        for action, child, won, lost, cards in self.children(state, played):
            ok = self.makes(child, need - won, allow - lost, played | cards, won + lost > 0)
            if ok == mine:  # a play that decides this node
                self._decided(seat, action, need)
                result = mine
                break
        if key is not None:
            self.memo[key] = result
        return result

    def value(self, state: Any, allow: int, floor: int, played: int, boundary: bool) -> int:
        """The most tricks the side can force from ``state`` (at least ``floor``, which it
        is known to make), letting at most ``allow`` go."""
        v = floor
        while self.makes(state, v + 1, allow, played, boundary):
            v += 1
        return v

    def winning_line(self, state: Any, need: int, allow: int) -> list[tuple[Seat, Action]]:
        """A complete play from ``state`` (the root) that makes the claim (which holds)."""
        game = self.game
        line: list[tuple[Seat, Action]] = []
        played = table = 0
        sweep = allow == 0 and need <= 0 and not self.cooperative
        while not game.is_terminal(state):
            seat = game.current_seat(state)
            assert seat is not None
            mine = seat in self.side or self.cooperative
            kids = self._in_order(state, played)
            if mine and sweep:  # the play that decided the position in the search first
                first = self.wins.get((played, table))
                kids.sort(key=lambda k: k[0] != first)
                pick = next(k for k in kids if not k[3] and self.sweeps(
                    k[1], _NONE, played | k[4], k[2] > 0, False,
                    0 if k[2] else table | self._bit(k[0])))
            elif mine:
                pick = next(k for k in kids if self.makes(k[1], need - k[2], allow - k[3],
                                                          played | k[4], k[2] + k[3] > 0))
            elif allow >= _UNBOUNDED:  # a claim of k: hold the claimer to the fewest tricks
                best = None
                for k in kids:
                    v = k[2] + self.value(k[1], allow, max(need - k[2], 0), played | k[4],
                                          k[2] + k[3] > 0)
                    if best is None or v < best[0]:
                        best = (v, k)
                assert best is not None
                pick = best[1]
            else:  # every play loses every trick: the first legal one
                pick = kids[0]
            action, state, won, lost, cards = pick
            need, allow, played = need - won, allow - lost, played | cards
            table = 0 if won + lost else table | self._bit(action)
            line.append((seat, action))
        return line

    def defence(self, state: Any, need: int, allow: int) -> list[tuple[Seat, Action]]:
        """A play from ``state`` (the root) that beats the claim (which does not hold), up
        to where the claim can no longer be made."""
        game = self.game
        line: list[tuple[Seat, Action]] = []
        played = 0
        while allow >= 0 and not game.is_terminal(state):
            if need > 0 and allow >= _UNBOUNDED and not self._can_still(state, need):
                break
            seat = game.current_seat(state)
            assert seat is not None
            kids = self._in_order(state, played, prefer=seat not in self.side)
            if seat in self.side:
                pick = kids[0]
            else:
                pick = next(k for k in kids if not self.makes(
                    k[1], need - k[2], allow - k[3], played | k[4], k[2] + k[3] > 0))
            action, state, won, lost, cards = pick
            need, allow, played = need - won, allow - lost, played | cards
            line.append((seat, action))
        return line

    def _can_still(self, state: Any, need: int) -> bool:
        """Whether the side could still take ``need`` tricks if every seat helped it."""
        helped = _Search(self.game, self.side, state, cooperative=True)
        return helped.makes(state, need, _NONE, 0, True)

    def _in_order(self, state: Any, played: int, prefer: bool = False
                  ) -> list[tuple[Action, Any, int, int, int]]:
        """The children in the order of the legal actions (lines are deterministic), or
        with ``prefer``, in the order the search tried them (:meth:`children`, the legal
        order among equals): the play that decided the position in the search comes
        first, so a line re-searches little."""
        kids = list(self.children(state, played, merge=False))
        if not prefer:
            order = {a: i for i, a in enumerate(self.game.legal_actions(state))}
            kids.sort(key=lambda k: order[k[0]])
        return kids


def _cards_of(trick: TrickTaken) -> int:
    m = 0
    for _, c in trick.plays:
        m |= 1 << c
    return m


def remaining_tricks(game: Game[Any], state: Any) -> int:
    """The tricks left to play if the hand runs to its last (a hand may end sooner, as
    Ulti's betli): a game's ``tricks_left(state)`` if it gives one, else the cards held by
    the seat to act (``card_locations``' ``hand<seat>``), which plays in every trick left
    (a game without that key: the tricks along the first legal plays)."""
    hook: Callable[[Any], int] | None = getattr(game, "tricks_left", None)
    if hook is not None:
        return hook(state)
    seat = game.current_seat(state)
    if seat is None:
        return 0
    held = game.card_locations(state).get(f"hand{seat}")
    if held is not None:
        return held.bit_count()
    n = 0  # no hand<seat>: count the tricks along the first legal plays
    while seat is not None:
        step = game.apply(state, seat, game.legal_actions(state)[0])
        n += sum(1 for f in step.facts if isinstance(f, TrickTaken))
        state = step.state
        seat = game.current_seat(state)
    return n


def check_claim(game: Game[Any], state: Any, seat: Seat, tricks: int = ALL,
                budget: int | None = None) -> ClaimCheck:
    """Decide the claim by ``seat``'s side of ``tricks`` more tricks (:data:`ALL`: all the
    remaining tricks) from ``state``. See the module docstring.

    :raises ClaimError: the hand is not in its trick play, or ``tricks`` is neither
        :data:`ALL` nor ``1..`` the tricks left.
    :raises ClaimTooDeep: ``budget`` positions were searched without a decision."""
    if not in_trick_play(game, state):
        raise ClaimError("a claim is made in the trick play of a hand")
    side = side_of_seat(game, state, seat)
    if tricks == ALL:
        need, allow = 0, 0
    else:
        left = remaining_tricks(game, state)
        if not 1 <= tricks <= left:
            raise ClaimError(f"a claim is of 1 to {left} tricks, or of all the tricks left")
        need, allow = tricks, _NONE
    search = _Search(game, side, state, budget=budget)
    if tricks == ALL:
        holds = search.sweeps(state, _NONE, 0, True)
    else:
        holds = search.makes(state, need, allow, 0, True)
    search.drawing = True
    line = (search.winning_line(state, need, allow) if holds
            else search.defence(state, need, allow))
    return ClaimCheck(holds, tuple(line), side, tricks, search.nodes)


def concession_line(game: Game[Any], state: Any, seat: Seat) -> tuple[tuple[Seat, Action], ...]:
    """The play that ends a hand conceded by ``seat``'s side, trick by trick: each trick is
    played so that the other sides take it if any way of playing it lets them (every seat
    helping: the conceding side throws its tricks), the first such way in the order of the
    legal actions; a trick the cards force on the conceding side, it takes (the first way
    of playing it). Deterministic, and quick: one trick is searched at a time.

    :raises ClaimError: the hand is not in its trick play."""
    if not in_trick_play(game, state):
        raise ClaimError("a concession is made in the trick play of a hand")
    mine = side_of_seat(game, state, seat)
    line: list[tuple[Seat, Action]] = []
    while not game.is_terminal(state):
        plays = _give_trick(game, state, mine)
        if plays is None:  # forced: the first way
            plays = _first_trick(game, state)
        for s, a in plays:
            state = game.apply(state, s, a).state
        line.extend(plays)
    return tuple(line)


def _give_trick(game: Game[Any], state: Any, mine: frozenset[Seat]
                ) -> list[tuple[Seat, Action]] | None:
    """The first way to play the rest of the current trick that the other sides take."""
    seat = game.current_seat(state)
    if seat is None:
        return None
    for action in game.legal_actions(state):
        step = game.apply(state, seat, action)
        taken = [f for f in step.facts if isinstance(f, TrickTaken)]
        if taken or game.is_terminal(step.state):
            if taken and taken[0].winner not in mine:
                return [(seat, action)]
            continue
        rest = _give_trick(game, step.state, mine)
        if rest is not None:
            return [(seat, action), *rest]
    return None


def _first_trick(game: Game[Any], state: Any) -> list[tuple[Seat, Action]]:
    """The rest of the current trick along the first legal actions."""
    plays: list[tuple[Seat, Action]] = []
    while not game.is_terminal(state):
        seat = game.current_seat(state)
        assert seat is not None
        action = game.legal_actions(state)[0]
        step = game.apply(state, seat, action)
        plays.append((seat, action))
        state = step.state
        if any(isinstance(f, TrickTaken) for f in step.facts):
            break
    return plays


def replay_line(game: Game[Any], state: Any, line: Sequence[tuple[Seat, Action]]) -> Any:
    """The state after playing ``line`` from ``state`` (each action checked by ``apply``)."""
    for seat, action in line:
        state = game.apply(state, seat, action).state
    return state
