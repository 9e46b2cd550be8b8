"""Which rules modules may be compiled ahead of time with mypyc, and which are.

``REFEREE_COMPILE=1 pip install .`` compiles the modules of :data:`MODULES` to C extensions
(``setup.py`` reads the list from here); a plain install runs them from source, with the same
behaviour. The compiled build is for production images and benchmarks: see
``docs/operations.md`` ("Compiled rules").

This module imports nothing from the package: ``setup.py`` runs it on its own.
"""

from __future__ import annotations

import importlib
import importlib.machinery
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:  # mypyc reads the decorator's options when it compiles a class
    from mypy_extensions import mypyc_attr as mypyc_attr
else:

    def mypyc_attr(*attrs: Any, **options: Any) -> Any:
        """``mypy_extensions.mypyc_attr`` for the source build: the class as it is (the rules
        core imports nothing outside the standard library at run time)."""
        return lambda cls: cls


MODULES: Final = (
    "referee.rules.cards",
    "referee.rules.tricks",
    "referee.rules.dealing",
    "referee.rules.claims",
    "referee.rules.games.ulti.game",
    "referee.rules.games.ulti.discards",
    "referee.rules.games.ulti.scoring",
    "referee.rules.games.belote_family",
    "referee.rules.games.belote_declarations",
    "referee.rules.games.belote_game",
    "referee.rules.games.belote_play",
    "referee.rules.games.belote_state",
    "referee.rules.games.coinche_state",
    "referee.rules.games.coinche",
    "referee.rules.games.euchre",
    "referee.rules.games.pedro",
    "referee.rules.games.pedro_discards",
)
"""The hottest modules of the rules core (the games and states of Ulti, Coinche, Euchre and
Pedro, the card tables, the deal check, the trick-taking kernel, the claim search, the tables,
declarations and card play of the Belote family); each is typed (mypy strict) and avoids what
mypyc cannot compile (``object.__new__`` of its classes, a functional ``Enum``, a
``dataclass`` on a base it does not compile, tuple assignments in a class body). mypyc
ignores ``__slots__``: a state may keep them for the source build."""


def is_compiled(module: str) -> bool:
    """Whether ``module`` is loaded from a compiled extension rather than from source."""
    path = getattr(importlib.import_module(module), "__file__", None) or ""
    return path.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))


def compiled_modules() -> list[str]:
    """The modules of :data:`MODULES` that run compiled in this installation."""
    return [m for m in MODULES if is_compiled(m)]
