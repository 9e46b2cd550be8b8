"""``referee-client claim`` and the SDK's ``claim`` / ``concede`` (issue 20) against a real
referee: a claim is accepted or refused (CLAIM_REFUSED, naming no card), a concession ends
the hand, a claim in the auction is CLAIM_NOT_ALLOWED."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.clients.conftest import AUDITOR, FAST, GAME_NAMES
from tests.clients.test_cli import Cli
from trick_referee_client.errors import BadToken, ClaimNotAllowed, ClaimRefused
from trick_referee_client.sdk import RefereeClient


@pytest.fixture
def cli(address: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Cli:
    return Cli(address, tmp_path / "state.json", capsys)


def _to_trick_play(client: RefereeClient, mid: str, tokens: list[str], spectator: str,
                   rng: random.Random) -> int:
    """Random legal play until the hand is in its trick play; the seat to act."""
    while True:
        view = client.get_view(mid, spectator)
        seat = view.to_act
        assert seat is not None
        if view.state.get("phase") == "play":
            return seat
        mine = client.get_view(mid, tokens[seat])
        client.submit_action(mid, tokens[seat], rng.choice(mine.legal_actions))


@pytest.mark.parametrize("game", GAME_NAMES)
def test_claim_and_concede_from_the_command_line(cli: Cli, client: RefereeClient,
                                                 game: str) -> None:
    rng = random.Random(game)
    created = client.create_match(game, rules=FAST[game])
    mid, tokens = created.match_id, created.tokens
    with pytest.raises(ClaimNotAllowed):  # the auction
        client.claim(mid, tokens[0])
    seat = _to_trick_play(client, mid, tokens, created.spectator_token, rng)
    try:
        done = client.claim(mid, tokens[seat], command_id="sdk-claim")
    except ClaimRefused as exc:
        assert exc.metadata == {"seat": str(seat), "tricks": "-1"}
        err = cli("claim", "--match", mid, "--token", tokens[seat], code=1)
        assert "CLAIM_REFUSED" in err  # refused again: nothing changed
    else:
        assert done.hand_over and done.facts[0].kind == "claim_accepted"
        created = client.create_match(game, rules=FAST[game])
        mid, tokens = created.match_id, created.tokens
        seat = _to_trick_play(client, mid, tokens, created.spectator_token, rng)
    out = cli.json("claim", "--concede", "--match", mid, "--token", tokens[seat])
    assert out["hand_over"] and out["action"] == "concede"
    assert out["facts"][0] == {"kind": "claim_accepted", "seat": seat, "claim": "concession",
                               "tricks": -1}
    text = cli("claim", "--concede", "--match", mid, "--token", tokens[seat], code=1)
    assert "CLAIM_NOT_ALLOWED" in text or "MATCH_OVER" in text
    other = client.create_match(game, rules=FAST[game])
    out = cli.json("claim", "--concede-match", "--match", other.match_id, "--token",
                   other.tokens[0])
    assert out["match_over"] and out["action"] == "concede:match"


def test_substitute_from_the_command_line(cli: Cli, client: RefereeClient) -> None:
    created = client.create_match("euchre", players=["a", "b", "c", "d"])
    out = cli.json("substitute", "--match", created.match_id, "--seat", "2", "--player", "Zed",
                   "--token", AUDITOR)
    assert out["seat"] == 2 and out["seat_token"]
    assert client.get_view(created.match_id, out["seat_token"]).players[2] == "Zed"
    with pytest.raises(BadToken):
        client.get_view(created.match_id, created.tokens[2])
    err = cli("substitute", "--match", created.match_id, "--seat", "2", "--player", "Y",
              "--token", created.tokens[0], code=1)
    assert "PERMISSION_DENIED" in err
