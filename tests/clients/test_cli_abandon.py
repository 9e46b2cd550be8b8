"""``referee-client tournament abandon`` and the standings it shows (issue 20, items 4 and
5): a tournament with the adjusted policy, a substitute, a match ended as abandoned with one
side at fault, and the standings naming the substitute and the abandonment."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee_projections.runner import ProjectionWorker
from tests.clients.conftest import AUDITOR
from tests.clients.test_cli import Cli
from trick_referee_client.sdk import RefereeClient


@pytest.fixture
def cli(address: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Cli:
    return Cli(address, tmp_path / "state.json", capsys)


def test_abandon_from_the_command_line(cli: Cli, client: RefereeClient,
                                       views: ProjectionWorker) -> None:
    tid = cli.json("tournament", "create", "--name", "club night", "--game", "belot",
                   "--abandonment", "adjusted", "--token", AUDITOR)["tournament_id"]
    for entrant in ("north", "east"):
        cli("tournament", "register", "--tournament", tid, "--entrant", entrant,
            "--token", AUDITOR)
    made = client.create_match("belot", players=["ann", "bob", "cy", "dee"])
    cli("tournament", "attach", "--tournament", tid, "--match", made.match_id, "--sides",
        "north,east", "--token", AUDITOR)
    cli("substitute", "--match", made.match_id, "--seat", "1", "--player", "Zed",
        "--token", AUDITOR)
    err = cli("tournament", "abandon", "--tournament", tid, "--match", made.match_id,
              "--at-fault", "0", "--reason", "left", "--token", made.tokens[0], code=1)
    assert "PERMISSION_DENIED" in err
    out = cli.json("tournament", "abandon", "--tournament", tid, "--match", made.match_id,
                   "--at-fault", "0", "--reason", "north left", "--token", AUDITOR)
    assert out["winner"] == 1 and out["at_fault"] == [0]  # the side not at fault, 0-0
    views.wait()
    standings = cli.json("standings", "--tournament", tid)
    assert standings["abandonment"] == "adjusted"
    rows = {r["entrant"]: r for r in standings["standings"]}
    assert rows["north"]["abandoned"] == 1 and rows["east"]["won"] == 1
    board = client.get_scoreboard(made.match_id, AUDITOR)
    assert board.winner == 1 and board.abandoned is not None
    assert board.abandoned["at_fault"] == [True, False] and board.abandoned["policy"] == "adjusted"
    assert "abandoned in hand 1 (adjusted" in cli("scoreboard", "--match", made.match_id,
                                                   "--token", AUDITOR)
    text = cli("standings", "--tournament", tid)
    assert "Zed" in text and "abandoned, adjusted; at fault: north" in text
    assert "MATCH_OVER" in cli("tournament", "abandon", "--tournament", tid, "--match",
                               made.match_id, "--reason", "again", "--token", AUDITOR, code=1)
