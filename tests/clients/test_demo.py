"""``referee-client demo``: a whole match of every game, the scoreboard, a verified record."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from referee.verify import verify_path
from referee_clients.cli import main
from tests.clients.conftest import GAME_NAMES


@pytest.mark.parametrize("game", GAME_NAMES)
def test_demo_plays_a_match_of_every_game(address: str, game: str, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["demo", "--game", game, "--target", "1", "--connect", "--address", address,
                 "--out", str(tmp_path), "--seed", "3", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["verified"] and out["game"] == game and out["hands"] >= 1
    board = out["scoreboard"]  # from GetScoreboard, caught up with the final version
    assert board["state"] == "over" and board["scores"] == out["scores"]
    assert len(board["hands"]) == out["hands"]
    assert verify_path(out["record"]) == (0, verify_path(out["record"])[1])


def test_demo_starts_its_own_referee(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["demo", "--game", "euchre", "--target", "1", "--out", str(tmp_path),
                 "--strategy", "random", "--strategy", "greedy"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "starting a referee" in out and "referee verify: ok" in out and "match record:" in out
    assert "computed from the record" not in out and "   match " in out  # the RPC's scoreboard
    record = next(tmp_path.glob("euchre-*.json"))
    assert str(record.resolve()) in out and verify_path(str(record))[0] == 0
