"""``referee-client ruling --kind redeal`` over real gRPC: the hand in progress is cancelled
and dealt anew; the watch stream says so (without a card), the scoreboard lists the ruling with
the new deal's commitment, and the exported record, with its cancelled deal, verifies."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from referee.verify import verify_data
from referee_projections.runner import ProjectionWorker
from tests.clients.conftest import AUDITOR
from tests.clients.test_cli import Cli
from trick_referee_client.sdk import RefereeClient


@pytest.fixture
def cli(address: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Cli:
    return Cli(address, tmp_path / "state.json", capsys)


def test_redeal_over_the_api(cli: Cli, client: RefereeClient, views: ProjectionWorker,
                             tmp_path: Path) -> None:
    created = cli.json("create", "--game", "euchre", "--rule", "target_score=2")
    mid, tokens = created["match_id"], [s["token"] for s in created["seats"]]
    first = client.get_view(mid, AUDITOR)
    assert "PERMISSION_DENIED" in cli("ruling", "--match", mid, "--hand", "1", "--kind",
                                      "redeal", "--reason", "r", "--token", tokens[0], code=1)
    text = cli("ruling", "--match", mid, "--hand", "1", "--kind", "redeal", "--reason",
               "a card face up", "--rule", "EU-4", "--token", AUDITOR)
    assert "hand 1 cancelled and dealt anew" in text
    again = client.get_view(mid, AUDITOR)
    assert (again.hand, again.dealer) == (1, first.dealer)
    assert again.deal_commitment != first.deal_commitment
    assert "HAND_NOT_FOUND" in cli("ruling", "--match", mid, "--hand", "3", "--kind", "redeal",
                                   "--reason", "r", "--token", AUDITOR, code=1)
    # The stream: a hand_cancelled fact, then the new deal with its commitment; no card.
    facts = []
    for update in client.watch(mid, tokens[1], after_version=0):
        facts += [f for e in update.events for f in e.facts]
        if any(f.kind == "hand_dealt" and f.data.get("commitment") == again.deal_commitment
               for f in facts):
            break
    cancelled = [f for f in facts if f.kind == "hand_cancelled"]
    assert cancelled and cancelled[0].data["hands"] == [1]
    assert set(cancelled[0].data) == {"hand", "hands", "reason", "rule", "scores", "dealer"}
    assert "match over" in cli("bot", "--match", mid, "--tokens", ",".join(tokens),
                               "--seed", "2", "--quiet")
    views.wait()
    board = cli.json("scoreboard", "--match", mid, "--token", tokens[0])
    redeal = board["rulings"][0]
    assert (redeal["kind"], redeal["rule"], redeal["hands"]) == ("redeal", "EU-4", [1])
    assert redeal["commitment"] == again.deal_commitment
    assert board["adjusted_scores"] == board["scores"]
    text = cli("scoreboard", "--match", mid, "--token", tokens[0])
    assert "redeal: hand(s) 1 cancelled" in text and "with rulings" not in text
    out = tmp_path / "m.json"
    cli("export", "--match", mid, "--token", tokens[2], "--out", str(out))
    record = json.loads(out.read_text())
    assert record["cancelled"][0]["reason"] == "a card face up"
    assert verify_data(record)[0] == 0
    assert "ok" in cli("verify", str(out))
    # The cancelled deal in the replay and the viewer: over, so shown as any finished hand.
    text = cli("replay", str(out), "--hand", "1", "--cancelled")
    assert "cancelled by the arbiter and dealt anew: a card face up [EU-4]" in text
    page = tmp_path / "void.html"
    cli("replay", "--match", mid, "--token", tokens[0], "--cancelled", "--html", str(page))
    assert "cancelled deal" in page.read_text()
    assert "no cancelled deal 2" in cli("replay", str(out), "--hand", "2", "--cancelled",
                                        code=2)
