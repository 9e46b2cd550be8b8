"""``referee-client replay FILE`` and ``verify FILE`` say announcements and results in the
viewer's words (referee.rules.words), never as JSON, for every game's golden record."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from referee_clients.cli import _fact_text, main
from referee_clients.render import words_table

GOLDEN = Path(__file__).parent.parent / "golden"
RECORDS = sorted(GOLDEN.rglob("*.json"))


def _hands(path: Path) -> list[str]:
    data = json.loads(path.read_text(encoding="utf-8"))
    if data["format"] == "referee.match/v1":
        return [str(n) for n in range(1, len(data["hands"]) + 1)]
    return [""]


CASES = [(path, hand) for path in RECORDS for hand in _hands(path)]


def test_every_game_has_a_golden_record() -> None:
    assert {p.parent.name for p in RECORDS} == {"belot", "coinche", "euchre", "pedro", "ulti"}


@pytest.mark.parametrize(("path", "hand"), CASES,
                         ids=[f"{p.parent.name}/{p.stem}{'#' + h if h else ''}"
                              for p, h in CASES])
def test_replay_says_announcements_and_the_result_in_words(
        path: Path, hand: str, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["replay", str(path)] + (["--hand", hand] if hand else [])
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "{" not in out and "}" not in out and '"' not in out, out
    lines = out.splitlines()
    result = next(i for i, line in enumerate(lines) if line.startswith("result: "))
    assert lines[result].endswith("."), lines[result]  # the headline: who scores what
    rows = lines[result + 1:]
    assert rows and all(line.startswith("  ") and ": " in line for line in rows), rows
    assert any(line.startswith("  Points this hand: ") for line in rows) or \
        lines[result] == "result: Thrown in: nobody scores; the deal passes on."


def test_an_announcement_and_a_hand_result_in_words() -> None:
    table = words_table("belot", ["Anna", "Béla", "Cili", "Dani"])
    said = _fact_text("announced", {"what": "contract",
                                    "data": {"contract": "S", "declarer": 0, "level": 2}},
                      table)
    assert said == "  Contract: ♠ spades, declarer seat 0 · Anna, doubled (contra)"
    over = _fact_text("hand_ended", {"hand": 1, "result": {"points": [16, 0], "tricks": [5, 3]}},
                      table).splitlines()
    assert over[0] == "  hand 1 over: Team 0 (seats 0 & 2 · Anna & Cili) scores 16 points."
    assert "Tricks taken: team 0 (seats 0 & 2 · Anna & Cili): 5" in over[2]
    # Without a view yet (a watch's first update), seats by number, still no JSON.
    bare = _fact_text("announced", {"what": "trump", "data": {"trump": "H", "seat": 1}})
    assert "{" not in bare and "♥ hearts" in bare


@pytest.mark.parametrize("path", [GOLDEN / "pedro" / "match_001.json",
                                  GOLDEN / "ulti" / "teritett_betli_kontra.json"],
                         ids=["match", "hand"])
def test_verify_says_the_result_in_words(path: Path, capsys: pytest.CaptureFixture[str]
                                         ) -> None:
    assert main(["verify", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("ok: every action is legal\nresult: ")
    assert "{" not in out and '"' not in out, out
