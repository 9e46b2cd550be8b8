"""Declarations of the belote family, for both games: Bulgarian Belot's declarations (BG-A1 ..
BG-A6) and Coinche's announcements (CO-A1 .. CO-A3).

Both games declare the same combinations, numbered once here: the runs of
:data:`belote_family.SEQUENCES` (3 to 8 cards of one suit), then the carrés / kares of
:data:`belote_family.CARRE_RANKS`. A game's action code is its base plus this index. What
differs between the games is a parameter here: the names players say, which combinations a
hand may declare (Belot: a whole run, or the part of it a kare leaves; Coinche: any), their
values under the variants, and the contest (Belot: sequences and kares separately, a tie voids;
Coinche: one contest, a tie voids or the first announced wins).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

from referee.rules.cards import (
    ACE,
    CARD_NAMES,
    JACK,
    KING,
    NINE,
    QUEEN,
    SUITS,
    TEN,
    Card,
    CardSet,
    cards_in,
)
from referee.rules.game import JSON
from referee.rules.games.belote_family import (
    CARRE_RANKS,
    NO_TRUMPS,
    RANK_MASKS,
    RANKS,
    SEQUENCE_MASKS,
    SEQUENCES,
    TRUMP_STRENGTH,
    Mode,
    sequence_key,
    sequence_points,
)
from referee.rules.games.belote_rules import BelotRules, CoincheRules
from referee.rules.seats import Seat

COMBO_MASKS: Final[tuple[CardSet, ...]] = (*SEQUENCE_MASKS, *(RANK_MASKS[r] for r in CARRE_RANKS))
"""Every combination's cards: the sequences of ``SEQUENCES``, then the carrés of
``CARRE_RANKS``."""
N_SEQ: Final = len(SEQUENCES)
N_COMBOS: Final = len(COMBO_MASKS)
"""Indices below ``N_SEQ`` are sequences, the others carrés."""
COMBO_BY_MASK: Final = {m: i for i, m in enumerate(COMBO_MASKS)}
"""The combination of a set of cards."""
COMBO_CARDS: Final[tuple[tuple[Card, ...], ...]] = tuple(tuple(cards_in(m)) for m in COMBO_MASKS)
"""Each combination's cards, lowest first."""


def combo_names(index: int) -> list[str]:
    """The names of a combination's cards, lowest first."""
    return [CARD_NAMES[c] for c in COMBO_CARDS[index]]


def combo_json(seat: Seat, index: int, kind: str, points: int) -> dict[str, JSON]:
    """A declaration shown: who made it, what it is called, its cards and what it scores."""
    return {"seat": seat, "kind": kind, "cards": combo_names(index), "points": points}


def _length(index: int) -> int:
    return SEQUENCES[index][2] if index < N_SEQ else 0


def _kinds(*words: str) -> tuple[str, ...]:
    """Each combination's name: ``words`` of a run of 3, 4, 5 or more, and of a carré."""
    return tuple(words[min(n, 5) - 3] if n else words[3] for n in map(_length, range(N_COMBOS)))


BG_KINDS: Final = _kinds("terca", "kvarta", "kvinta", "kare")
"""What a Belot player says (BG-A3)."""
FR_KINDS: Final = _kinds("tierce", "cinquante", "cent", "carre")
"""What a Coinche player says (CO-A2)."""

_CARRE_POINTS: Final = {JACK: 200, NINE: 150, ACE: 100, TEN: 100, KING: 100, QUEEN: 100}
"""BG-A1, CO-A1: four jacks 200, four nines 150, four aces, tens, kings or queens 100."""
_CARRE_SA_FFB: Final = {ACE: 200, TEN: 150, KING: 100, QUEEN: 100, JACK: 100, NINE: 100}
"""CO-A1's sans-atout scale (``sa_carre_scale=ffb``)."""


def combo_points(index: int) -> int:
    """The usual value of a combination: a run of 3 is 20, of 4 50, of 5 or more 100; a carré
    as :data:`_CARRE_POINTS` (BG-A1, CO-A1)."""
    if index < N_SEQ:
        return sequence_points(SEQUENCES[index][2])
    return _CARRE_POINTS[CARRE_RANKS[index - N_SEQ]]


def best_team(keyed: Iterable[tuple[int, tuple[int, ...]]], first_wins_ties: bool = False
              ) -> int | None:
    """The team (0 or 1) holding the single best key of ``(team, key)`` in the order declared;
    ``None`` when neither has one or when the two best are equal (BG-A5, CO-A3), unless
    ``first_wins_ties``: then the team that declared its best first (V32)."""
    best: list[tuple[int, ...] | None] = [None, None]
    first = [0, 0]
    for order, (team, key) in enumerate(keyed):
        current = best[team]
        if current is None or key > current:
            best[team] = key
            first[team] = order
    b0, b1 = best
    if b0 is None:
        return None if b1 is None else 1
    if b1 is None or b0 > b1:
        return 0
    if b1 > b0:
        return 1
    if first_wins_ties:
        return 0 if first[0] < first[1] else 1
    return None


# -- Bulgarian Belot (BG-A1 .. BG-A6) --------------------------------------------------------


def bg_points(index: int, rules: BelotRules) -> int:
    """Value of a declaration (BG-A1; ``bg_seq8``: an 8-card run is kvinta and terca, 120)."""
    if index < N_SEQ and SEQUENCES[index][2] == 8 and rules.bg_seq8 == "kvinta_terca":
        return 120
    return combo_points(index)


def combo_key(index: int, points: int, strength: Sequence[int], trump: int = -1
              ) -> tuple[int, int, int, int, int]:
    """Comparison key (BG-A5, BG-A6, CO-A3): points; a carré beats a sequence of the same
    points; carrés by the ``strength`` of their rank; sequences by length, then top card, then
    a sequence in the ``trump`` suit first (CO-A3)."""
    if index >= N_SEQ:
        return (points, 1, strength[CARRE_RANKS[index - N_SEQ]], 0, 0)
    suit, low, length = SEQUENCES[index]
    return (points, 0, *sequence_key(low, length), int(suit == trump))


_KARE_STRENGTH: Final = {  # BG-A6: by value, as in a trump suit; or by rank (NikolayIT, V7)
    "value": TRUMP_STRENGTH,
    "rank": tuple((TEN, QUEEN, KING, ACE, NINE, JACK).index(r) if r in CARRE_RANKS else -1
                  for r in range(13)),
}


def bg_resolve(declared: Sequence[tuple[Seat, int]], rules: BelotRules) -> list[int]:
    """Points each declaration ``(seat, index)`` scores after the teams' are compared.

    Default (BG-A5, BG-A6): sequences and kares are separate contests; in each, only the team
    with the best one scores all of its own, and equal best sequences void all sequences.
    ``bg_declaration_contest=combined`` (V8): one contest over all declarations, by points, a
    kare before a sequence of equal points, then as above; a complete tie voids everything.
    """
    out = [0] * len(declared)
    combined = rules.bg_declaration_contest == "combined"
    if combined:
        groups = [list(range(len(declared)))]
    else:
        groups = [
            [i for i, (_, x) in enumerate(declared) if x < N_SEQ],
            [i for i, (_, x) in enumerate(declared) if x >= N_SEQ],
        ]
    for group in groups:
        strength = _KARE_STRENGTH[rules.bg_kare_order]
        winner = best_team(
            (seat & 1, combo_key(x, bg_points(x, rules), strength)[0 if combined else 1 :])
            for seat, x in (declared[i] for i in group)
        )
        for i in group:
            seat, index = declared[i]
            if seat & 1 == winner:
                out[i] = bg_points(index, rules)
    return out


_CARRE_BITS: Final = sum(1 << r for r in CARRE_RANKS)
"""The ranks of a kare, as the bits of one suit."""
_SEQ_SHIFTS: Final = tuple((su, 13 * su + RANKS[0]) for su in SUITS)
"""Per suit, where its 8 cards (7 .. A) start in a card set."""


_SEQ_IN: Final = tuple(
    tuple(
        tuple(
            i
            for i, (s, low, length) in enumerate(SEQUENCES)
            if s == suit and all((p >> k) & 1 for k in range(low, low + length))
        )
        for p in range(256)
    )
    for suit in SUITS
)
"""``_SEQ_IN[suit][pattern]``: the sequences inside an 8-bit pattern of the suit's 7..A."""


def bg_declarable(hand: CardSet, used: CardSet) -> list[int]:
    """BG-A1, BG-A3, BG-A4: the declarations a seat holding ``hand`` may still make with its
    first card, having declared the cards ``used``: each kare, and each whole run of its
    cards, or the part of a run that a kare it holds leaves (a card counts once). Sorted."""
    # a quick filter: three in a row (suits are 13 bits apart and the pack has no 2..6, so a
    # run never crosses suits) or four of a rank from 9 up; without either, nothing
    some_kare = hand & (hand >> 13) & (hand >> 26) & (hand >> 39) & _CARRE_BITS
    if not (hand & (hand >> 1) & (hand >> 2) or some_kare):
        return []
    avail = hand & ~used
    lock = 0
    out = []
    if some_kare:
        for i, r in enumerate(CARRE_RANKS):
            m = RANK_MASKS[r]
            if hand & m == m:
                lock |= m
                if not used & m:
                    out.append(N_SEQ + i)
    seqs = []
    for s, shift in _SEQ_SHIFTS:
        a8 = (avail >> shift) & 0xFF
        if not a8 & (a8 >> 1) & (a8 >> 2):
            continue
        free = ~(hand >> shift) | (lock >> shift)  # neighbours that do not extend a run
        for i in _SEQ_IN[s][a8]:
            _, low, length = SEQUENCES[i]
            below, above = low - 1, low + length
            if (below < 0 or (free >> below) & 1) and (above > 7 or (free >> above) & 1):
                seqs.append(i)
    return seqs + out


# -- Coinche (CO-A1 .. CO-A3) ----------------------------------------------------------------


def co_announceable(avail: CardSet) -> list[int]:
    """CO-A1, CO-A2: the combinations among the cards ``avail`` (held and not yet announced):
    every sequence inside a run, every carré. Sorted."""
    # no run crosses suits: 5 empty bits (ranks 2..6) separate the suits' 7..A bits
    four = avail & (avail >> 13) & (avail >> 26) & (avail >> 39)  # a rank in all four suits
    if not (avail & (avail >> 1) & (avail >> 2) or four):
        return []
    out = [i for suit, shift in _SEQ_SHIFTS for i in _SEQ_IN[suit][(avail >> shift) & 0xFF]]
    out.extend(N_SEQ + i for i, r in enumerate(CARRE_RANKS) if (four >> r) & 1)
    return out


def co_value(index: int, denom: Mode, rules: CoincheRules) -> int:
    """Points of a combination under contract ``denom`` (CO-A1; ``sa_carre_scale``)."""
    if index >= N_SEQ and denom == NO_TRUMPS and rules.sa_carre_scale == "ffb":
        return _CARRE_SA_FFB[CARRE_RANKS[index - N_SEQ]]
    return combo_points(index)


def co_resolve(
    anns: Sequence[tuple[Seat, int]], denom: Mode, rules: CoincheRules
) -> tuple[int, int, int | None]:
    """CO-A3: the team holding the single best announcement scores all of its own; a complete
    tie cancels every announcement (or, with ``announcement_tie=first``, the first announced
    wins). Returns ``(points team 0, points team 1, winning team or None)``."""
    totals = [0, 0]
    for seat, index in anns:
        totals[seat & 1] += co_value(index, denom, rules)
    winner = best_team(
        ((seat & 1, combo_key(i, co_value(i, denom, rules), TRUMP_STRENGTH, denom))
         for seat, i in anns),
        rules.announcement_tie == "first",
    )
    if winner is None:
        return 0, 0, None
    return (totals[0], 0, 0) if winner == 0 else (0, totals[1], 1)
