"""``referee-client`` on the read side: scoreboard (and --watch), a duplicate-board tournament
of two tables and its standings, a ruling by the auditor, the dispute replay, the NDJSON
tournament export, the chain check, and their errors."""

from __future__ import annotations

import json
import random
import uuid
from pathlib import Path
from typing import Any

import pytest

from referee.rules.cards import CARD_NAMES
from referee.rules.registry import find_game
from referee.verify import verify_data
from referee_clients.cli import main
from referee_projections.runner import ProjectionWorker
from tests.clients.conftest import AUDITOR
from tests.clients.test_cli import Cli


@pytest.fixture
def cli(address: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Cli:
    return Cli(address, tmp_path / "state.json", capsys)


def _packs(game: str, n: int, seed: int) -> list[list[str]]:
    rng = random.Random(seed)
    packs = []
    for _ in range(n):
        pack = [CARD_NAMES[c] for c in find_game(game).pack]
        rng.shuffle(pack)
        packs.append(pack)
    return packs


def _table(cli: Cli, deals: Path) -> tuple[str, list[str]]:
    created = cli.json("create", "--game", "euchre", "--rule", "target_score=1",
                       "--deals", str(deals))
    return created["match_id"], [s["token"] for s in created["seats"]]


def test_duplicate_tournament_ruling_replay_export_chain(
        cli: Cli, views: ProjectionWorker, tmp_path: Path) -> None:
    deals = tmp_path / "deals.json"
    deals.write_text(json.dumps([{"cards": p} for p in _packs("euchre", 3, 5)]))
    t1, tok1 = _table(cli, deals)
    t2, tok2 = _table(cli, deals)

    assert "auditor token" in cli("tournament", "create", "--name", "x", "--game", "euchre",
                                  "--token", "", code=2)
    tid = cli.json("tournament", "create", "--name", "duplicate night", "--game", "euchre",
                   "--token", AUDITOR)["tournament_id"]
    for entrant in "ABCD":
        assert f"registered {entrant}" in cli("tournament", "register", "--tournament", tid,
                                              "--entrant", entrant, "--members",
                                              f"{entrant}1,{entrant}2", "--token", AUDITOR)
    assert "on board 1" in cli("tournament", "attach", "--tournament", tid, "--match", t1,
                               "--sides", "A,B", "--board", "1", "--token", AUDITOR)
    attached = cli.json("tournament", "attach", "--tournament", tid, "--match", t2,
                        "--sides", "C,D", "--board", "1", "--token", AUDITOR)
    assert attached["sides"] == ["C", "D"] and attached["version"] > 0

    for mid, tokens in ((t1, tok1), (t2, tok2)):
        assert "match over" in cli("bot", "--match", mid, "--tokens", ",".join(tokens),
                                   "--seed", "1", "--quiet")
    views.wait()

    standings = cli.json("standings", "--tournament", tid)
    rows = {r["entrant"]: r for r in standings["standings"]}
    assert standings["name"] == "duplicate night" and set(rows) == set("ABCD")
    assert all(r["played"] == 1 for r in rows.values())
    assert rows["A"]["duplicate"] == -rows["C"]["duplicate"] == -rows["B"]["duplicate"]
    assert sum(r["duplicate"] for r in rows.values()) == 0
    assert standings["boards"] and standings["boards"][0]["board"] == "1"
    assert standings["standings"][0]["entrant"] in {
        e for e, r in rows.items() if r["won"] == 1}
    text = cli("standings", "--tournament", tid)
    assert "duplicate night (euchre)" in text and "board 1 hand 1:" in text
    assert all(f"  {e} " in text for e in "ABCD")

    # A ruling by the auditor moves the scoreboard and the standings, not the history.
    before = cli.json("scoreboard", "--match", t1, "--token", tok1[0])
    assert "PERMISSION_DENIED" in cli("ruling", "--match", t1, "--hand", "1", "--kind",
                                      "penalty", "--points", "2,0", "--reason", "r",
                                      "--token", tok1[0], code=1)
    assert "INVALID_RULING" in cli("ruling", "--match", t1, "--hand", "1", "--kind", "penalty",
                                   "--points", "2", "--reason", "r", "--token", AUDITOR, code=1)
    ruled = cli.json("ruling", "--match", t1, "--hand", "1", "--kind", "penalty", "--points",
                     "2,0", "--reason", "exposed a card", "--token", AUDITOR)
    assert ruled["adjust"] == [-2, 0] and ruled["version"] == before["version"] + 1
    views.wait()
    board = cli.json("scoreboard", "--match", t1, "--token", tok1[0])
    assert board["adjusted_scores"] == [before["scores"][0] - 2, before["scores"][1]]
    assert board["rulings"][0]["reason"] == "exposed a card" and board["match_over"]
    text = cli("scoreboard", "--match", t1, "--token", tok1[0])
    assert "ruling on hand 1" in text and "exposed a card" in text and "with rulings" in text
    after = {r["entrant"]: r for r in cli.json("standings", "--tournament", tid)["standings"]}
    assert after["A"]["points_for"] == rows["A"]["points_for"] - 2

    # The tournament as NDJSON: one verified referee.match/v1 record per table.
    lines = cli("export", "--tournament", tid, "--token", AUDITOR).splitlines()
    assert len(lines) == 2 and all(verify_data(json.loads(x))[0] == 0 for x in lines)
    out = tmp_path / "t.ndjson"
    assert cli.json("export", "--tournament", tid, "--token", AUDITOR, "--out",
                    str(out))["records"] == 2
    assert out.read_text().splitlines() == lines
    assert "PERMISSION_DENIED" in cli("export", "--tournament", tid, "--token", tok1[0], code=1)

    # The referee's dispute replay of a finished hand, by a seat.
    text = cli("replay", "--match", t1, "--hand", "1", "--token", tok1[2])
    assert "dispute replay" in text and "legal:" in text and "illegal [EU-" in text
    assert "result:" in text and "  1. seat 1: " in text
    steps = cli.json("replay", "--match", t1, "--hand", "1", "--token", tok1[2])["steps"]
    assert steps[-1]["finished"] and steps[-1]["action"] is None
    assert all(s["action"]["action"] in s["legal"] for s in steps[:-1])
    at = cli.json("replay", "--match", t1, "--hand", "1", "--at", "0", "--token", tok1[2])
    assert at["action_index"] == 0 and at["to_act"] == 1 and len(at["cards"]["hand1"]) == 5
    assert "to act: seat 1" in cli("replay", "--match", t1, "--hand", "1", "--at", "0",
                                   "--token", tok1[2])
    err = cli("replay", "--match", t1, "--hand", "1", "--at", "999", "--token", tok1[2],
              code=1)
    assert "ACTION_INDEX_OUT_OF_RANGE" in err

    # The referee's check of the hash chain.
    assert "ok: the hash chain of" in cli("verify", "--chain", t1, "--token", tok1[1])
    chain = cli.json("verify", "--chain", t1, "--token", AUDITOR)
    assert chain["ok"] and chain["events"] == ruled["version"] and chain["first_break"] is None
    assert chain["version"] == board["version"] and chain["head"] == board["head_hash"]
    anchored = cli.json("verify", "--chain", t1, "--token", AUDITOR, "--anchor",
                        f"{board['version']}:{board['head_hash']}")
    assert anchored["ok"] and anchored["anchor_ok"]
    err = cli("verify", "--chain", t1, "--token", AUDITOR, "--anchor",
              f"{board['version']}:{'0' * 64}", code=1)
    # A saved head that no longer matches is a break at the anchor's version (issue 16).
    assert f"breaks at version {board['version']}" in err and "rewritten" in err


def test_scoreboard_watch_and_read_side_errors(cli: Cli, views: ProjectionWorker) -> None:
    created = cli.json("create", "--game", "euchre", "--rule", "target_score=1")
    mid, seats = created["match_id"], created["seats"]
    token = seats[0]["token"]
    live = cli.json("scoreboard", "--match", mid, "--token", token)
    assert live["state"] == "playing" and not live["match_over"] and live["to_act"] == 1
    assert "seat 1 to act" in cli("scoreboard", "--match", mid, "--token", token)

    # A seat may not replay the running hand (a permission error); the auditor may.
    err = cli("replay", "--match", mid, "--hand", "1", "--token", token, code=1)
    assert "HAND_IN_PROGRESS" in err and "auditor" in err
    failed: Any = cli.json("replay", "--match", mid, "--hand", "1", "--token", token, code=1)
    assert failed["error"]["code"] == "PERMISSION_DENIED"
    assert "legal: pass, order_up" in cli("replay", "--match", mid, "--hand", "1", "--at", "0",
                                          "--token", AUDITOR)

    assert "match over" in cli("bot", "--match", mid, "--tokens",
                               ",".join(s["token"] for s in seats), "--quiet")
    watched = cli("scoreboard", "--match", mid, "--token", token, "--watch")
    assert "(over:" in watched  # stops at the end of the match
    boards = [json.loads(x) for x in cli("scoreboard", "--match", mid, "--token", token,
                                         "--watch", "--json").splitlines()]
    assert boards[-1]["match_over"]

    unknown = str(uuid.uuid4())
    assert "TOURNAMENT_NOT_FOUND" in cli("standings", "--tournament", unknown, code=1)
    assert cli.json("standings", "--tournament", unknown,
                    code=1)["error"]["reason"] == "TOURNAMENT_NOT_FOUND"
    assert "TOURNAMENT_NOT_FOUND" in cli("tournament", "register", "--tournament", unknown,
                                         "--entrant", "X", "--token", AUDITOR, code=1)
    assert "either --match" in cli("export", "--token", AUDITOR, code=2)
    assert "BAD_TOKEN" in cli("verify", "--chain", mid, "--token", "nope", code=1)
    assert "ruling needs the auditor token" in cli("ruling", "--match", mid, "--hand", "1",
                                                   "--kind", "annul", "--reason", "x",
                                                   "--token", "", code=2)


@pytest.mark.parametrize("argv", [["tournament", "--help"], ["tournament", "attach", "--help"],
                                  ["standings", "--help"], ["ruling", "--help"]])
def test_new_commands_have_help(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(argv)
    assert done.value.code == 0 and "usage:" in capsys.readouterr().out
