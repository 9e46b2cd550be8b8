"""``referee-client undo`` and the SDK's ``request_undo`` / ``answer_undo`` (issue 20, item 3)
against a real referee, in every game: a match created with ``--undo consent``, a request,
the pending request in ``show``, an agreement that withdraws the action, a refusal, and the
misuses (UNDO_NOT_ALLOWED, UNDO_PENDING)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from referee.rules.game import side_of
from referee.rules.registry import GAMES
from tests.clients.conftest import AUDITOR, GAME_NAMES
from tests.clients.test_cli import Cli
from trick_referee_client.errors import UndoNotAllowed, UndoPending
from trick_referee_client.sdk import RefereeClient


@pytest.fixture
def cli(address: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Cli:
    return Cli(address, tmp_path / "state.json", capsys)


def _act(client: RefereeClient, mid: str, tokens: list[str], spectator: str,
         rng: random.Random) -> int:
    seat = client.get_view(mid, spectator).to_act
    assert seat is not None
    client.submit_action(mid, tokens[seat], rng.choice(client.get_view(mid, tokens[seat])
                                                       .legal_actions))
    return seat


@pytest.mark.parametrize("game", GAME_NAMES)
def test_undo_from_the_command_line(cli: Cli, client: RefereeClient, game: str,
                                    tmp_path: Path) -> None:
    rules = GAMES[game]
    rng = random.Random(game)
    made = cli.json("create", "--game", game, "--undo", "consent")
    mid = made["match_id"]
    tokens = [s["token"] for s in made["seats"]]
    spectator = made["spectator_token"]
    seat = _act(client, mid, tokens, spectator, rng)
    out = cli.json("undo", "--match", mid, "--token", tokens[seat])
    assert out["action"] == "undo" and out["facts"][0]["kind"] == "undo_requested"
    shown = cli("show", "--match", mid, "--token", spectator)
    assert "asks to withdraw" in shown
    view = client.get_view(mid, spectator)
    assert view.undo is not None and view.undo["seat"] == seat
    with pytest.raises(UndoPending):
        client.submit_action(mid, tokens[view.to_act], "pass")
    answered = {side_of(rules, seat)}
    last = None
    for s in range(rules.num_seats):
        if side_of(rules, s) not in answered:
            answered.add(side_of(rules, s))
            last = cli("undo", "--agree", "--match", mid, "--token", tokens[s])
    assert last is not None and "is withdrawn" in last
    assert client.get_view(mid, spectator).to_act == seat
    record = client.get_hand_record(mid, 1, AUDITOR).data  # the auditor: a running hand
    assert record["withdrawn"][0]["seat"] == seat
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    assert "withdrew" in cli("replay", str(path))
    seat = _act(client, mid, tokens, spectator, rng)
    client.request_undo(mid, tokens[seat])
    other = next(s for s in range(rules.num_seats) if side_of(rules, s) != side_of(rules, seat))
    refused = cli.json("undo", "--refuse", "--match", mid, "--token", tokens[other])
    assert refused["action"] == "undo:refuse"
    with pytest.raises(UndoNotAllowed):  # nothing pending any more
        client.answer_undo(mid, tokens[other], True)
    off = client.create_match(game)
    seat = _act(client, off.match_id, off.tokens, off.spectator_token, rng)
    err = cli("undo", "--match", off.match_id, "--token", off.tokens[seat], code=1)
    assert "UNDO_NOT_ALLOWED" in err and "undo policy is off" in err
