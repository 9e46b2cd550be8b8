"""Ulti's contracts: the components and the 38-bid ladder of UL-8 and UL-9 (HUWIKI).

A contract is a set of components whose values add (UL-8); piros doubles every component;
terített (open) doubles the durchmars component. ``LADDER[i]`` has rank ``i + 1``; a new bid
must be strictly later in the ladder than the current one (UL-9).

>>> by_key("ulti").value
5
>>> by_key("piros_20-100_ulti_teritett_durchmars").value
48
"""

from __future__ import annotations

import dataclasses
from typing import Final

PARTI, C40, C20, ULTI, BETLI, DURCHMARS = COMPONENTS = tuple(1 << i for i in range(6))
"""The components a contract is made of (UL-8), each a bit of its ``mask``."""
COMPONENT_NAMES: Final = dict(
    zip(COMPONENTS, ("parti", "40-100", "20-100", "ulti", "betli", "durchmars"), strict=True)
)
COMPONENT_BY_NAME: Final = {name: comp for comp, name in COMPONENT_NAMES.items()}

CHOOSE: Final = "choose"
"""The declarer names tök, zöld or makk after the auction (UL-14)."""
PIROS: Final = "piros"
"""Hearts are trump, named in the auction; every value doubles (UL-1)."""
NONE: Final = "none"
"""Colourless: no trump, the colourless rank order (UL-2)."""


@dataclasses.dataclass(frozen=True)
class Contract:
    """One bid of the ladder."""

    rank: int
    """Position in the ladder, 1 (Passz) to 38."""
    key: str
    """The record notation, as in ``bid:<key>``."""
    title: str
    trump: str
    """``choose``, ``piros`` or ``none``."""
    components: tuple[tuple[int, int], ...]
    """``(component, value per defender)``, piros and terített already applied."""
    open: bool
    """Terített: the declarer's hand is shown after trick 1 (UL-21)."""

    value: int
    """What each defender pays when every component is won (UL-9's value column)."""
    mask: int
    """The components as a bit set."""
    colourless: bool
    """No trump: the colourless rank order (UL-2)."""


_PARTS: Final = {
    "parti": (PARTI, 1),
    "40": (C40, 4),
    "20": (C20, 8),
    "ulti": (ULTI, 4),
    "betli": (BETLI, 5),
    "rebetli": (BETLI, 10),
    "tbetli": (BETLI, 20),
    "durchmars": (DURCHMARS, 6),
    "redurchmars": (DURCHMARS, 12),
    "tdurchmars": (DURCHMARS, 12),
}

_TABLE: Final = (
    ("Passz", CHOOSE, "parti"),
    ("Piros passz", PIROS, "parti"),
    ("40-100", CHOOSE, "40"),
    ("Ulti", CHOOSE, "ulti parti"),
    ("Betli", NONE, "betli"),
    ("Durchmars", NONE, "durchmars"),
    ("40-100 ulti", CHOOSE, "40 ulti"),
    ("Piros 40-100", PIROS, "40"),
    ("20-100", CHOOSE, "20"),
    ("Piros ulti", PIROS, "ulti parti"),
    ("Rebetli", NONE, "rebetli"),
    ("40-100 durchmars", CHOOSE, "40 durchmars"),
    ("Ulti durchmars", CHOOSE, "ulti durchmars"),
    ("20-100 ulti", CHOOSE, "20 ulti"),
    ("Redurchmars", NONE, "redurchmars"),
    ("Terített durchmars", NONE, "tdurchmars"),
    ("40-100 ulti durchmars", CHOOSE, "40 ulti durchmars"),
    ("20-100 durchmars", CHOOSE, "20 durchmars"),
    ("Piros 40-100 ulti", PIROS, "40 ulti"),
    ("Piros 20-100", PIROS, "20"),
    ("40-100 terített durchmars", CHOOSE, "40 tdurchmars"),
    ("Ulti terített durchmars", CHOOSE, "ulti tdurchmars"),
    ("20-100 ulti durchmars", CHOOSE, "20 ulti durchmars"),
    ("40-100 ulti terített durchmars", CHOOSE, "40 ulti tdurchmars"),
    ("Piros 40-100 durchmars", PIROS, "40 durchmars"),
    ("Piros ulti durchmars", PIROS, "ulti durchmars"),
    ("20-100 terített durchmars", CHOOSE, "20 tdurchmars"),
    ("Terített betli", NONE, "tbetli"),
    ("20-100 ulti terített durchmars", CHOOSE, "20 ulti tdurchmars"),
    ("Piros 20-100 ulti", PIROS, "20 ulti"),
    ("Piros 40-100 ulti durchmars", PIROS, "40 ulti durchmars"),
    ("Piros 20-100 durchmars", PIROS, "20 durchmars"),
    ("Piros 40-100 terített durchmars", PIROS, "40 tdurchmars"),
    ("Piros ulti terített durchmars", PIROS, "ulti tdurchmars"),
    ("Piros 20-100 ulti durchmars", PIROS, "20 ulti durchmars"),
    ("Piros 40-100 ulti terített durchmars", PIROS, "40 ulti tdurchmars"),
    ("Piros 20-100 terített durchmars", PIROS, "20 tdurchmars"),
    ("Piros 20-100 ulti terített durchmars", PIROS, "20 ulti tdurchmars"),
)


def _contract(rank: int, title: str, trump: str, parts: str) -> Contract:
    double = 2 if trump == PIROS else 1
    comps = tuple(sorted((_PARTS[p][0], _PARTS[p][1] * double) for p in parts.split()))
    key = title.lower().replace("í", "i").replace(" ", "_")
    is_open = "tbetli" in parts or "tdurchmars" in parts
    value = sum(v for _, v in comps)
    mask = sum(c for c, _ in comps)  # distinct bits
    return Contract(rank, key, title, trump, comps, is_open, value, mask, trump == NONE)


LADDER: Final[tuple[Contract, ...]] = tuple(
    _contract(i + 1, title, trump, parts) for i, (title, trump, parts) in enumerate(_TABLE)
)
"""The 38 bids of UL-9 in ladder order."""

SEED_LADDER_RANKS: Final = frozenset({1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 15, 16, 20, 28})
"""The seed's minimal ladder (UL-7): each feature alone, plain or piros (a VARIANT)."""

_BY_KEY: Final = {c.key: c for c in LADDER}
_ALIASES: Final = {"piros_betli": "rebetli", "parti": "passz", "piros_parti": "piros_passz"}


def by_key(key: str) -> Contract:
    """The contract written ``key`` (``KeyError`` if none)."""
    return _BY_KEY[_ALIASES.get(key, key)]
