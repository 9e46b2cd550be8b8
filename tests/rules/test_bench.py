"""``referee bench rules --hands N``: a fixed number of random hands through the benchmark's
loop, the unit of the instruction counts in BENCHMARKS.md."""

from __future__ import annotations

import json

import pytest

from referee.cli import main


def _bench(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, object]:
    assert main(["bench", "rules", *args]) == 0
    report = json.loads(capsys.readouterr().out)
    assert isinstance(report, dict)
    return report


@pytest.mark.parametrize("game", ["ulti", "coinche", "euchre"])
def test_hands_plays_exactly_n_seeded_hands(capsys: pytest.CaptureFixture[str], game: str) -> None:
    first = _bench(capsys, "--game", game, "--hands", "30")
    again = _bench(capsys, "--game", game, "--hands", "30")
    assert first["game"] == game and first["hands"] == 30
    assert isinstance(first["decisions"], int) and first["decisions"] >= 30 * 4  # a card each
    assert first["decisions"] == again["decisions"]  # the same seeded hands: comparable runs
    assert isinstance(first["compiled"], list)


def test_hands_must_not_be_negative(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "rules", "--game", "ulti", "--hands", "-1"]) == 2
    assert "--hands must be 0 or more, not -1" in capsys.readouterr().err
