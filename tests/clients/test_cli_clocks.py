"""``referee-client`` with clocks (issue 19): a timed match created from the command line,
its clock shown, paused and resumed by the auditor; and the SDK's time control."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from referee_clients.cli import main
from tests.clients.conftest import AUDITOR
from trick_referee_client.sdk import RefereeClient


def run(capsys: pytest.CaptureFixture[str], address: str, state: Path, *argv: str) -> str:
    capsys.readouterr()
    assert main([*argv, "--address", address, "--state", str(state)]) == 0
    return capsys.readouterr().out


def test_a_timed_match_from_the_command_line(address: str, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    state = tmp_path / "state.json"
    created = json.loads(run(capsys, address, state, "create", "--game", "euchre",
                             "--action-ms", "60000", "--bank-ms", "30000",
                             "--on-timeout", "pause", "--save", "--json"))
    mid = created["match_id"]
    shown = run(capsys, address, state, "show", "--match", mid, "--seat", "1")
    assert "clock:" in shown and "(on timeout: pause)" in shown
    run(capsys, address, state, "clocks", "pause", "--match", mid, "--reason", "a disconnect",
        f"--token={AUDITOR}")
    assert "clock: paused" in run(capsys, address, state, "show", "--match", mid, "--seat", "1")
    run(capsys, address, state, "clocks", "resume", "--match", mid, "--add-ms", "5000",
        f"--token={AUDITOR}")
    with RefereeClient(address) as client:
        view = client.get_view(mid, created["spectator_token"])
        assert view.clock is not None and not view.clock.paused
        assert view.clock.left_ms is not None and view.clock.left_ms > 60_000
        assert view.clock.banks_ms == [30_000] * 4
        with pytest.raises(ValueError):
            client.create_match("euchre", time_control={"per_move": 5})
