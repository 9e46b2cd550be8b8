"""What players and the server chose never reaches a terminal raw: names, actions, messages,
entrants and reasons are printed with their control characters escaped (issue 23, item 5)."""

from __future__ import annotations

import ast
import json
import unicodedata
from importlib import resources
from pathlib import Path
from types import SimpleNamespace

import pytest

import referee.limits
from referee.cli import main as referee_main
from referee_clients import cli as client_cli
from referee_clients.render import (
    RED,
    RESET,
    action_text,
    card_text,
    json_text,
    render_view,
    safe,
    seat_name,
    terminal_text,
)
from tests.clients.conftest import AUDITOR
from tests.clients.test_cli import Cli

CLEAR = "\x1b[2J"
HOSTILE = f"Eve{CLEAR}\x1b]0;pwned\x07\u202eevil\x9b31m\nseat 1 (Bob): play A♠"


def raw_controls(text: str) -> set[str]:
    """The characters of ``text`` a terminal would act on (line breaks and tabs aside)."""
    return {ch for ch in text if ch not in "\n\t"
            and unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp", "Cs")}


def test_safe_escapes_every_control_and_format_character_visibly() -> None:
    shown = safe(HOSTILE)
    assert not raw_controls(shown) and "\n" not in shown
    assert "\\x1b[2J" in shown and "\\u202e" in shown and "\\x9b" in shown and "\\x0a" in shown
    assert safe("Zoë ♠ Ünal") == "Zoë ♠ Ünal"  # printable text is untouched
    block = terminal_text(f"line one {HOSTILE}\nline two 10♥ K♠ {RED}", color=True)
    assert block.count("\n") == 2 and f"{RED}10♥{RESET} K♠ \\x1b[31m" in block
    assert not raw_controls(block.replace(RED, "").replace(RESET, ""))  # only our colours


def test_json_output_stays_the_same_json_without_raw_controls() -> None:
    data = {"players": [HOSTILE, "tag\U000e0041"], "n": 1}
    text = json_text(data)
    assert json.loads(text) == data
    assert not raw_controls(text) and "\n" not in text


def test_the_render_functions_escape_hostile_strings() -> None:
    players = [HOSTILE, "Bob", "Cy", "Dee"]
    assert not raw_controls(seat_name(0, players)) and "\n" not in seat_name(0, players)
    assert not raw_controls(action_text(f"play:{CLEAR}"))
    assert not raw_controls(action_text(CLEAR)) and not raw_controls(card_text(CLEAR))
    view = SimpleNamespace(
        game="euchre", match_id="m", hand=1, version=3, scores=[0, 0], match_over=False,
        winner=None, players=players, dealer=0, to_act=0, seat=0, legal_actions=[CLEAR],
        state={"phase": CLEAR, "hand": ["TH"], "trick": [{"seat": 0, "card": CLEAR}]})
    text = terminal_text(render_view(view))
    assert not raw_controls(text)
    benign = SimpleNamespace(**{**vars(view), "players": ["Eve", "Bob", "Cy", "Dee"]})
    assert text.count("\n") == render_view(benign).count("\n")  # a name adds no line


def test_cli_output_code_prints_only_through_the_safe_helpers() -> None:
    source = Path(client_cli.__file__).read_text(encoding="utf-8")
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef) and node.name not in ("_print", "_print_json"):
            for call in ast.walk(node):
                if isinstance(call, ast.Call) and isinstance(call.func, ast.Name):
                    assert call.func.id != "print", f"bare print in {node.name}"
                if isinstance(call, ast.Attribute) and call.attr == "write":
                    assert "json_safe(" in ast.unparse(call.value) or node.name in (
                        "_export_tournament", "cmd_export"), node.name


@pytest.fixture
def cli(address: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Cli:
    return Cli(address, tmp_path / "state.json", capsys)


def test_a_stored_hostile_player_name_is_printed_escaped(
        cli: Cli, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # A match stored before names were checked (an older version): the referee's own check
    # is switched off for this one creation, so the event holds the raw name.
    hostile = f"Eve{CLEAR}\x1b]0;pwned\x07\u202e"
    with monkeypatch.context() as patch:
        patch.setattr(referee.limits, "check_name", lambda field, name, limit=64: name)
        created = cli.json("create", "--game", "euchre", "--players", f"{hostile},Bob,Cy,Dee")
    mid, spectator = created["match_id"], created["spectator_token"]
    assert created["seats"][0]["player"] == hostile  # JSON keeps the value itself

    for argv in (["show"], ["legal"], ["scoreboard"], ["show", "--json"],
                 ["scoreboard", "--json"], ["export"]):
        capsys.readouterr()
        assert client_cli.main([*argv, "--match", mid, f"--token={spectator}", *cli.common]) == 0
        out, err = capsys.readouterr()
        assert not raw_controls(out + err), argv
    shown = cli("show", "--match", mid, "--token", spectator)
    assert "Eve\\x1b[2J" in shown
    assert json.loads(cli("show", "--match", mid, "--token", spectator, "--json"))[
        "players"][0] == hostile

    err = cli("act", f"play:{CLEAR}", "--match", mid, "--token",
              created["seats"][1]["token"], code=1)  # the server's message quotes the action
    assert not raw_controls(err) and "referee-client:" in err


def test_entrants_tournaments_and_rulings_are_printed_escaped(
        cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    auditor = ["--token", AUDITOR]
    # Names stored before the referee checked them (an older version), as in the test above.
    with monkeypatch.context() as patch:
        patch.setattr(referee.limits, "check_name", lambda field, name, limit=64: name)
        tid = cli.json("tournament", "create", "--name", f"Cup{CLEAR}", "--game", "euchre",
                       *auditor)["tournament_id"]
        for name in (f"{RED}Red{RESET}", f"Blue{CLEAR}\u202e"):
            out = cli("tournament", "register", "--tournament", tid, "--entrant", name,
                      *auditor)
            assert not raw_controls(out)
    standings = cli("standings", "--tournament", tid)
    assert not raw_controls(standings) and "Cup\\x1b[2J" in standings
    assert "\\x1b[31mRed\\x1b[0m" in standings  # a name's colour codes are not ours

    created = cli.json("create", "--game", "euchre", "--rule=target_score=1")
    mid = created["match_id"]
    tokens = ",".join(s["token"] for s in created["seats"])
    cli("bot", "--match", mid, "--tokens", tokens, "--quiet", "--seed", "3")
    cli("ruling", "--match", mid, "--hand", "1", "--kind", "penalty", "--points", "1,0",
        "--reason", f"slow play{CLEAR}\nruling: forged", *auditor)
    board = cli("scoreboard", "--match", mid, "--token", AUDITOR)
    assert not raw_controls(board) and "slow play\\x1b[2J\\x0aruling: forged" in board


def test_referee_verify_prints_no_raw_controls(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    example = json.loads(resources.files("referee").joinpath("examples", "euchre-hand.json")
                         .read_text(encoding="utf-8"))
    example["actions"] = [{"seat": 1, "action": f"play:{CLEAR}"}]
    example["players"] = [HOSTILE, "b", "c", "d"]
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps(example), encoding="utf-8")
    for argv in (["verify", str(path)], ["verify", "--legal", str(path)]):
        capsys.readouterr()
        assert referee_main(argv) in (1, 2)
        out, err = capsys.readouterr()
        assert not raw_controls(out + err), out
