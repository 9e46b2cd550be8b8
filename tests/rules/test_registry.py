"""Every registered game comes with what users and testers need (issue 17): a docs page that
names each of its rule parameters and action verbs, golden playthroughs that replay through
``referee verify``, and the Game contract's declarations. A new game is checked by these
without being named here."""

from __future__ import annotations

import sys
from itertools import islice, pairwise
from pathlib import Path

import pytest

from referee.rules.game import sides_of
from referee.rules.registry import GAMES, find_game, register, unregister
from referee.verify import verify_path

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_game_has_a_docs_page_naming_its_parameters_and_verbs(name: str) -> None:
    game = GAMES[name]
    page = ROOT / "docs" / "games" / f"{name}.md"
    assert page.exists(), f"docs/games/{name}.md is missing"
    text = page.read_text(encoding="utf-8")
    for spec in game.rules_class.param_specs():
        assert spec.name in text, f"{page.name} does not document the parameter {spec.name}"
    verbs = {game.format_action(a).partition(":")[0] for a in islice(game.all_actions(), 5000)}
    for verb in sorted(verbs):
        assert verb in text, f"{page.name} does not document the verb {verb}"


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_game_has_golden_playthroughs_that_verify(name: str) -> None:
    records = sorted((ROOT / "tests" / "golden" / name).glob("*.json"))
    assert records, f"tests/golden/{name}/ has no playthrough"
    for path in records:
        code, report = verify_path(str(path))
        assert code == 0, (path.name, report)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_game_declares_the_contract(name: str) -> None:
    game = GAMES[name]
    specs = {s.name: s for s in game.rules_class.param_specs()}
    assert game.match_length in specs and specs[game.match_length].type is int
    assert sides_of(game) * (2 if game.partnerships else 1) == game.num_seats
    assert isinstance(game.hidden_verbs, frozenset)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_phase_row_is_numbered_as_its_game_names_it(name: str) -> None:
    """A phase game's rows (``PHASES``) are in the order of its ``Final`` phase numbers,
    which its code compares a state's ``phase`` with; the last is the deal over."""
    game = GAMES[name]
    phases = game.PHASES  # type: ignore[attr-defined]
    module = sys.modules[type(game).__module__]
    assert [getattr(module, p.name.upper()) for p in phases] == list(range(len(phases)))
    assert phases[-1].name == "over"


def test_register_and_unregister() -> None:
    from tests.minigame import GAME

    register(GAME)
    try:
        assert find_game(GAME.aliases[0]) is GAME
        with pytest.raises(ValueError, match="already registered"):
            register(GAME)
    finally:
        unregister(GAME.name)
    with pytest.raises(ValueError, match="unknown game"):
        find_game(GAME.name)


def test_the_difference_scale_counts_thresholds_with_the_sign() -> None:
    """Issue 21, item 5: duplicate differences on the game's scale (as bridge's IMPs)."""
    from referee.rules.game import DIFFERENCE_SCALE, scaled_difference

    game = next(iter(GAMES.values()))
    scale = getattr(game, "difference_scale", DIFFERENCE_SCALE)
    assert scaled_difference(game, 0) == 0
    assert scaled_difference(game, scale[0]) == 1 and scaled_difference(game, -scale[0]) == -1
    assert scaled_difference(game, scale[-1] * 10) == len(scale)
    assert all(a < b for a, b in pairwise(scale))
