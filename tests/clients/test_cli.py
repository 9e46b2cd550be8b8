"""``referee-client`` end to end against a real referee, for every registered game."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest

from referee.verify import verify_path
from referee_clients.cli import build_parser, main
from tests.clients.conftest import FAST, GAME_NAMES


class Cli:
    """Runs ``referee-client`` in-process with the connection options of the test referee."""

    def __init__(self, address: str, state: Path, capsys: pytest.CaptureFixture[str]) -> None:
        self.common = ["--address", address, "--state", str(state)]
        self.capsys = capsys

    def __call__(self, *argv: str, code: int = 0) -> str:
        self.capsys.readouterr()
        got = main([*_glue(argv), *self.common])
        out, err = self.capsys.readouterr()
        self.capsys_out = out
        assert got == code, (argv, out, err)
        assert "Traceback" not in err
        return out if code == 0 else err

    def json(self, *argv: str, code: int = 0) -> Any:
        if code:
            self(*argv, "--json", code=code)
            return json.loads(self.capsys_out)
        return json.loads(self(*argv, "--json"))


def _glue(argv: tuple[str, ...]) -> list[str]:
    """``--token T`` as ``--token=T``: a token may start with '-'."""
    out: list[str] = []
    for arg in argv:
        if out and out[-1] in ("--token", "--tokens"):
            out[-1] += "=" + arg
        else:
            out.append(arg)
    return out


@pytest.fixture
def cli(address: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Cli:
    return Cli(address, tmp_path / "state.json", capsys)


def _rules(game: str) -> list[str]:
    return [f"--rule={k}={v}" for k, v in FAST[game].items()]


@pytest.mark.parametrize("game", GAME_NAMES)
def test_a_match_from_the_command_line(cli: Cli, game: str, tmp_path: Path) -> None:
    created = cli.json("create", "--game", game, *_rules(game), "--save")
    mid, seats = created["match_id"], created["seats"]
    assert created["game"] == game
    state = json.loads((tmp_path / "state.json").read_text())
    assert len(state["matches"][mid]["seats"]) == len(seats)

    public = cli.json("show", "--match", mid, "--token", created["spectator_token"])
    seat = public["to_act"]
    token = seats[seat]["token"]
    assert "joined" in cli("join", "--match", mid, "--seat", str(seat), "--token", token)
    text = cli("show", "--match", mid, "--seat", str(seat))  # token from the state file
    assert "your hand" in text and "to act" in text and any(s in text for s in "♣♦♥♠")
    legal = cli.json("legal", "--match", mid, "--token", token)["legal_actions"]
    assert legal
    other = seats[(seat + 1) % len(seats)]["token"]
    err = cli("act", legal[0], "--match", mid, "--token", other, code=1)
    assert "NOT_YOUR_TURN" in err
    done = cli.json("act", legal[0], "--match", mid, "--seat", str(seat))
    assert done["seat"] == seat and done["version"] > public["version"]

    assert "match over" in cli("bot", "--match", mid, "--all", "--strategy", "random",
                               "--seed", "1", "--quiet")
    board = cli.json("scoreboard", "--match", mid, "--seat", "0")
    assert board["match_over"] and board["hands"] and board["scores"]
    assert "match" in cli("scoreboard", "--match", mid, "--seat", "0")

    out = tmp_path / "match.json"
    cli("export", "--match", mid, "--seat", "0", "--out", str(out))
    assert verify_path(str(out))[0] == 0
    assert cli.json("verify", str(out))["ok"]
    assert cli.json("verify", "--match", mid, "--token", token, "--deals")["deals"][0]["valid"]
    steps = cli.json("replay", str(out), "--hand", "1")
    assert steps["result"] is not None and steps["error"] is None
    assert "result:" in cli("replay", str(out), "--hand", "1", "--legal")
    page = tmp_path / "hand.html"
    cli("replay", "--match", mid, "--token", token, "--html", str(page))
    assert page.read_text().count("<svg") >= sum(len(h) for h in steps["hands"])


def test_illegal_action_prints_rule_and_message(cli: Cli) -> None:
    created = cli.json("create", "--game", "euchre")
    token = created["seats"][1]["token"]
    err = cli("act", "name:S", "--match", created["match_id"], "--token", token, code=1)
    assert "illegal action" in err and "(EU-" in err
    out = cli.json("act", "name:S", "--match", created["match_id"], "--token", token, code=1)
    assert out["ok"] is False and out["error"]["reason"] == "ILLEGAL_ACTION"


def test_expected_errors_are_one_line(cli: Cli, tmp_path: Path) -> None:
    assert "UNKNOWN_GAME" in cli("create", "--game", "skat", code=1)
    assert "INVALID_RULES" in cli("create", "--game", "euchre", "--rule", "nope=1", code=1)
    assert "no saved token" in cli("show", "--match", "m", "--seat", "2", code=2)
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert "not JSON" in cli("replay", str(bad), code=2)
    assert "not ok" in cli("verify", str(bad), code=2)


def test_every_command_has_help() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    for name, p in sub.choices.items():  # type: ignore[union-attr]
        assert p.description, name
        assert all(a.help for a in p._actions), name


def test_seat_bots_and_a_watcher_in_parallel(cli: Cli, address: str) -> None:
    created = cli.json("create", "--game", "euchre", "--rule", "target_score=1")
    mid = created["match_id"]
    threads = [threading.Thread(target=main, args=([
        "bot", "--match", mid, "--seat", str(s["seat"]), f"--token={s['token']}", "--quiet",
        "--strategy", "greedy", "--address", address],)) for s in created["seats"]]
    for t in threads:
        t.start()
    text = cli("watch", "--match", mid, "--token", created["spectator_token"])
    for t in threads:
        t.join(60)
    assert "match over" in text and "trick 1" in text
    assert cli.json("show", "--match", mid, "--token", created["spectator_token"])["match_over"]
