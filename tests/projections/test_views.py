"""Each view on the embedded default (SQLite) and PostgreSQL: scoreboard hand by hand,
exactly once across a crash and a restart, a rebuild giving identical rows, duplicate boards
with standings checked by hand, a ruling applied, replay against the rules core, exports that
verify, and a tampered event caught by the chain check."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from eventsourcing.persistence import IntegrityError, Tracking

from referee.application import Referee
from referee.domain.errors import (
    ActionIndexOutOfRangeError,
    HandNotFoundError,
    MatchNotFoundError,
    ReplayNotAllowedError,
    TournamentNotFoundError,
)
from referee.rules.game import scaled_difference
from referee.rules.handrecord import HandRecord, read_record, replay_hand, replay_to
from referee.rules.registry import find_game
from referee.tournaments import attach_match, create_tournament, record_ruling, register_entrant
from referee.verify import verify_data
from referee_projections.cli import verify_chain
from referee_projections.hand_states import HandStates
from referee_projections.queries import Queries, check_anchor, event_log
from referee_projections.runner import BatchRunner, ProjectionWorker
from referee_projections.store import APP_NAME, open_view
from referee_projections.views import PROJECTIONS
from tests.projections.conftest import AUDITOR, hand_events, play

EUCHRE_SHORT = {"target_score": 3}


def catch_up(app: Referee) -> None:
    for name, cls in PROJECTIONS.items():
        BatchRunner(app.event_log, cls, open_view(name, app.settings), batch_size=50).run_once()


def test_scoreboard_follows_the_match_hand_by_hand(app: Referee) -> None:
    worker = ProjectionWorker(app.event_log, poll=0.05).start()
    try:
        created = app.create_match("belot", players=["a", "b", "c", "d"])
        q = Queries(app)
        worker.wait()
        board = q.scoreboard(created.match_id, created.spectator_token)
        assert board["state"] == "playing" and board["hand"] == 1
        assert board["to_act"] == app.get_view(created.match_id, AUDITOR).to_act
        assert "auth" not in board
        rng = random.Random(7)
        for _ in range(40):  # part of the first hand: whose turn follows the play
            play(app, created.match_id, created.seat_tokens, rng, max_actions=1)
            worker.wait()
            view = app.get_view(created.match_id, AUDITOR)
            board = q.scoreboard(created.match_id, created.seat_tokens[0])
            assert board["version"] == view.version
            if not view.match_over and board["hand"] == view.hand:
                assert board["to_act"] == view.to_act
        play(app, created.match_id, created.seat_tokens, rng)
        worker.wait()
        board = q.scoreboard(created.match_id, created.spectator_token)
        scored = hand_events(app, created.match_id)
        assert board["state"] == "over" and board["to_act"] is None
        assert [h["hand"] for h in board["hands"]] == [e.hand for e in scored]
        before = [0, 0]
        for row, e in zip(board["hands"], scored, strict=True):
            assert row["points"] == e.result["points"]
            assert row["scores_before"] == before and row["scores_after"] == e.scores
            assert set(row["detail"]) == set(e.result) - {"points"}  # card points, hanging...
            before = e.scores
        match = app.get_match(created.match_id)
        assert board["scores"] == list(match.match_state.scores)
        assert board["winner"] == match.match_state.winner
    finally:
        worker.stop()
    with pytest.raises(MatchNotFoundError):
        q.scoreboard(__import__("uuid").uuid4(), AUDITOR)


def test_exactly_once_across_a_crash_and_a_restart(app: Referee) -> None:
    rng = random.Random(3)
    for _ in range(3):
        c = app.create_match("euchre", rules=EUCHRE_SHORT)
        play(app, c.match_id, c.seat_tokens, rng)
    head = app.recorder.max_notification_id()  # type: ignore[attr-defined]

    # A worker crashes in the middle of a batch: nothing of that batch is written.
    view = open_view("hands", app.settings)
    runner = BatchRunner(app.event_log, PROJECTIONS["hands"], view, batch_size=40)
    calls = {"n": 0}
    original = runner.projection.process_event

    def crashing(event: Any, tracking: Tracking) -> None:
        calls["n"] += 1
        if calls["n"] == 70:
            raise RuntimeError("killed")
        original(event, tracking)

    runner.projection.process_event = crashing  # type: ignore[method-assign]
    with pytest.raises(RuntimeError):
        runner.run_once()
    assert view.position() == 40  # the first batch only
    rows_after_crash = view.all_rows()

    # A re-delivered position is refused and changes nothing.
    with pytest.raises(IntegrityError):
        view.insert_tracking(Tracking(APP_NAME, 40))
    assert view.all_rows() == rows_after_crash

    # The restarted process (a new recorder and runner) resumes after position 40.
    restarted = BatchRunner(app.event_log, PROJECTIONS["hands"], open_view("hands", app.settings),
                            25)
    assert restarted.run_once() == head - 40
    assert restarted.view.position() == head
    assert restarted.run_once() == 0
    resumed = restarted.view.all_rows()

    # The same rows as a rebuild from scratch: every event was applied exactly once.
    assert restarted.rebuild() == head
    assert restarted.view.all_rows() == resumed


def test_rebuild_gives_identical_rows_and_is_batched(app: Referee) -> None:
    rng = random.Random(11)
    tid = create_tournament(app, AUDITOR, "cup", "euchre")
    register_entrant(app, AUDITOR, tid, "north", ["n1", "n2"])
    register_entrant(app, AUDITOR, tid, "east", ["e1", "e2"])
    c = app.create_match("euchre", rules=EUCHRE_SHORT)
    attach_match(app, AUDITOR, tid, c.match_id, ["north", "east"])
    play(app, c.match_id, c.seat_tokens, rng)
    record_ruling(app, c.match_id, AUDITOR, 1, "penalty", [1, 0], "reneged, seen on video")
    catch_up(app)
    for name, cls in PROJECTIONS.items():
        view = open_view(name, app.settings)
        before = view.all_rows()
        assert before
        commits = {"n": 0}
        flush = view._flush

        def counting(tracking: Tracking, flush: Any = flush, commits: Any = commits) -> None:
            commits["n"] += 1
            flush(tracking)

        view._flush = counting
        n = BatchRunner(app.event_log, cls, view, batch_size=1000).rebuild()
        assert n == app.recorder.max_notification_id()  # type: ignore[attr-defined]
        assert commits["n"] == 1, "a rebuild commits once per batch, not per event"
        assert view.all_rows() == before, name


def test_duplicate_boards_standings_and_a_ruling(app: Referee) -> None:
    game = find_game("euchre")
    rng = random.Random(5)
    packs = []
    for _ in range(3):
        pack = [__import__("referee.rules.cards", fromlist=["CARD_NAMES"]).CARD_NAMES[c]
                for c in game.pack]
        rng.shuffle(pack)
        packs.append(pack)
    fixed = [{"cards": p} for p in packs]
    tid = create_tournament(app, AUDITOR, "duplicate night", "euchre")
    for e in ("A", "B", "C", "D"):
        register_entrant(app, AUDITOR, tid, e, [e + "1", e + "2"])
    t1 = app.create_match("euchre", rules=EUCHRE_SHORT, fixed_deals=[p["cards"] for p in fixed])
    t2 = app.create_match("euchre", rules=EUCHRE_SHORT, fixed_deals=[p["cards"] for p in fixed])
    attach_match(app, AUDITOR, tid, t1.match_id, ["A", "B"], board="1")
    attach_match(app, AUDITOR, tid, t2.match_id, ["C", "D"], board="1")
    play(app, t1.match_id, t1.seat_tokens, random.Random(1))
    play(app, t2.match_id, t2.seat_tokens, random.Random(2))
    catch_up(app)
    q = Queries(app)
    s = q.standings(tid)

    # Hand-computed: per finished fixed-deal hand at both tables, A (team 0 at table 1) is
    # compared with C (team 0 at table 2): net = own points - opponents' points.
    p1 = {e.hand: e.result["points"] for e in hand_events(app, t1.match_id)}
    p2 = {e.hand: e.result["points"] for e in hand_events(app, t2.match_id)}
    common = [h for h in (1, 2, 3) if h in p1 and h in p2]
    assert common
    dup_a = sum((p1[h][0] - p1[h][1]) - (p2[h][0] - p2[h][1]) for h in common)
    rows = {r["entrant"]: r for r in s["entrants"]}
    assert rows["A"]["duplicate"] == dup_a and rows["C"]["duplicate"] == -dup_a
    assert rows["B"]["duplicate"] == -dup_a and rows["D"]["duplicate"] == dup_a
    # Against the field (issue 21, item 5): matchpoints (2 a table beaten, 1 a tie) and the
    # difference on the game's scale, hand by hand.
    diffs = [(p1[h][0] - p1[h][1]) - (p2[h][0] - p2[h][1]) for h in common]
    assert rows["A"]["matchpoints"] == sum(2 if d > 0 else 1 if d == 0 else 0 for d in diffs)
    assert rows["C"]["matchpoints"] == sum(2 if d < 0 else 1 if d == 0 else 0 for d in diffs)
    assert rows["A"]["scaled"] == sum(scaled_difference(game, d) for d in diffs)
    assert rows["A"]["scaled"] == -rows["C"]["scaled"]
    assert [(b["board"], b["hand"]) for b in s["boards"]] == [("1", h) for h in common]
    m1 = app.get_match(t1.match_id).match_state
    assert rows["A"]["points_for"] == m1.scores[0] and rows["A"]["points_against"] == m1.scores[1]
    assert rows["A"]["played"] == rows["B"]["played"] == 1
    assert rows["A"]["won"] == int(m1.winner == 0) and rows["B"]["won"] == int(m1.winner == 1)

    # A ruling: 2 points taken from A's team on hand 1; standings move, history does not.
    events_before = len(list(app.repository.event_store.get(t1.match_id)))
    record_ruling(app, t1.match_id, AUDITOR, 1, "penalty", [2, 0], "exposed a card")
    catch_up(app)
    s2 = q.standings(tid)
    rows2 = {r["entrant"]: r for r in s2["entrants"]}
    assert rows2["A"]["points_for"] == m1.scores[0] - 2
    assert rows2["B"]["points_against"] == m1.scores[0] - 2
    assert rows2["A"]["duplicate"] == dup_a - 2 * (1 if 1 in common else 0)
    adjusted = [m1.scores[0] - 2, m1.scores[1]]
    expected_winner = 0 if adjusted[0] > adjusted[1] else 1 if adjusted[1] > adjusted[0] else None
    assert rows2["A"]["won"] == int(expected_winner == 0)
    assert rows2["A"]["drawn"] == int(expected_winner is None)
    assert len(list(app.repository.event_store.get(t1.match_id))) == events_before + 1
    board = q.scoreboard(t1.match_id, AUDITOR)
    assert board["adjusted_scores"] == adjusted and board["scores"] == list(m1.scores)
    assert board["hands"][0]["rulings"][0]["reason"] == "exposed a card"

    # NDJSON export of the tournament: every line verifies.
    lines = list(q.tournament_export(tid, AUDITOR))
    assert len(lines) == 2
    for line in lines:
        code, report = verify_data(__import__("json").loads(line))
        assert code == 0, report
    with pytest.raises(TournamentNotFoundError):
        q.standings(__import__("uuid").uuid4())


def test_replay_matches_the_rules_core_at_every_step(app: Referee) -> None:
    c = app.create_match("euchre", rules=EUCHRE_SHORT)
    rng = random.Random(9)
    view = app.get_view(c.match_id, AUDITOR)
    wrong = next(s for s in range(4) if s != view.to_act)
    with pytest.raises(Exception):  # noqa: B017 - a refused attempt, kept for the timeline
        app.submit_action(c.match_id, c.seat_tokens[wrong], "pass")
    play(app, c.match_id, c.seat_tokens, rng, stop_after_hand=1)
    catch_up(app)
    q = Queries(app)
    record = q.hand_record(c.match_id, 1, c.seat_tokens[2])
    assert verify_data(record)[0] == 0
    steps = replay_hand(find_game("euchre"), read_record(record), legal=True).steps  # type: ignore[arg-type]
    for i, step in enumerate(steps):
        r = q.replay(c.match_id, 1, i, c.seat_tokens[1])
        assert sorted(r["legal"]) == step["legal"]
        assert r["action"]["action"] == step["action"] and r["to_act"] == step["seat"]
        assert all(x["action"] not in r["legal"] and x["message"] for x in r["illegal"])
        assert len(r["cards"]) >= 4
    end = q.replay(c.match_id, 1, len(steps), AUDITOR)
    assert end["legal"] == [] and end["scoring"]["result"]["points"]
    kinds = [x["type"] for x in end["timeline"]]
    assert kinds.count("action") == len(steps) and "rejection" in kinds
    assert kinds.index("rejection") < kinds.index("action")

    # Bad queries.
    with pytest.raises(ActionIndexOutOfRangeError):
        q.replay(c.match_id, 1, len(steps) + 1, AUDITOR)
    with pytest.raises(HandNotFoundError):
        q.replay(c.match_id, 9, 0, AUDITOR)
    if not app.get_match(c.match_id).over:
        with pytest.raises(ReplayNotAllowedError):
            q.replay(c.match_id, 2, 0, c.seat_tokens[0])
        assert q.replay(c.match_id, 2, 0, AUDITOR)["index"] == 0


def test_a_replay_walk_replays_the_hand_once(app: Referee) -> None:
    """Walking a hand step by step (and back) replays it once, and every step shows the
    state the one replay loop gives for that prefix."""
    c = app.create_match("euchre", rules=EUCHRE_SHORT)
    play(app, c.match_id, c.seat_tokens, random.Random(5), stop_after_hand=1)
    catch_up(app)
    q = Queries(app)
    game = find_game("euchre")
    record = read_record(q.hand_record(c.match_id, 1, AUDITOR))
    assert isinstance(record, HandRecord)
    n = len(record.actions)
    for i in [*range(n + 1), *reversed(range(n + 1))]:
        r = q.replay(c.match_id, 1, i, AUDITOR)
        expected = replay_to(game, record.deal, record.dealer, record.rules,
                             record.actions[:i])
        assert r["state"] == game.audit_view(expected), i
    assert q.hand_states.replays == 1
    q.hand_states = HandStates(size=0)  # nothing kept: each step replays again
    q.replay(c.match_id, 1, n, AUDITOR)
    q.replay(c.match_id, 1, n, AUDITOR)
    assert q.hand_states.replays == 2


def test_match_export_verifies(app: Referee) -> None:
    c = app.create_match("belot")
    play(app, c.match_id, c.seat_tokens, random.Random(4))
    catch_up(app)
    q = Queries(app)
    record = q.match_record(c.match_id, c.spectator_token)
    code, report = verify_data(record)
    assert code == 0, report
    assert record["result"]["winner"] == app.get_match(c.match_id).match_state.winner


def test_a_tampered_event_breaks_the_chain(app: Referee, env: dict[str, str]) -> None:
    c = app.create_match("euchre", rules=EUCHRE_SHORT)
    play(app, c.match_id, c.seat_tokens, random.Random(2), max_actions=12)
    q = Queries(app)
    report, _ = q.check_chain(c.match_id, c.spectator_token)
    assert report.ok and report.events == app.get_match(c.match_id).version
    # Rewrite the stored state of event 5 (an accepted action) behind the referee's back.
    tamper(app, env, c.match_id, 5)
    report, _ = q.check_chain(c.match_id, AUDITOR)
    assert not report.ok and report.first_break == 6, report
    assert "event 5" in report.message


def tamper(app: Referee, env: dict[str, str], match_id: Any, version: int) -> None:
    """Change the stored state of one event behind the referee's back."""
    ds = app.recorder.datastore  # type: ignore[attr-defined]
    postgres = "POSTGRES_HOST" in env
    name = app.recorder.events_table_name  # type: ignore[attr-defined]
    table = f'"{ds.schema}"."{name}"' if postgres else name
    p = "%s" if postgres else "?"
    oid = match_id if postgres else match_id.hex
    with ds.transaction(commit=True) as cur:
        cur.execute(f"SELECT state FROM {table} WHERE originator_id = {p} "
                    f"AND originator_version = {version}", (oid,))
        state = bytes(cur.fetchone()["state"])
        data = json.loads(state)
        data["command_id"] = "forged"
        tampered = json.dumps(data).encode()
        cur.execute(f"UPDATE {table} SET state = {p} WHERE originator_id = {p} "
                    f"AND originator_version = {version}", (tampered, oid))


def test_a_saved_head_detects_a_rewrite_of_the_last_event(app: Referee, env: dict[str, str],
                                                          tmp_path: Path) -> None:
    c = app.create_match("euchre", rules=EUCHRE_SHORT)
    play(app, c.match_id, c.seat_tokens, random.Random(2), max_actions=12)
    catch_up(app)
    q = Queries(app)
    # The client saves the head the scoreboard shows; CheckChain reports the same head.
    board = q.scoreboard(c.match_id, c.spectator_token)
    report, anchor = q.check_chain(c.match_id, c.spectator_token, board["version"],
                                   board["head"])
    assert report.ok and anchor is None
    assert (report.events, report.head) == (board["version"], board["head"])
    exported = tmp_path / "log.ndjson"
    exported.write_text("".join(json.dumps(e) + "\n" for e in event_log(app, c.match_id)))
    saved = f"{board['version']}:{board['head']}"
    code, out = verify_chain(f"{exported}@{saved}")
    assert code == 0 and out["anchor_ok"] and out["head"] == board["head"], out
    assert out["version"] == board["version"]

    # Rewrite the last event: no later event links to it, so the chain alone stays intact...
    tamper(app, env, c.match_id, board["version"])
    report, _ = q.check_chain(c.match_id, AUDITOR)
    assert report.ok and report.head != board["head"]
    # ...but the saved head catches it.
    report, anchor = q.check_chain(c.match_id, AUDITOR, board["version"], board["head"])
    assert anchor is not None and f"event {board['version']}" in anchor
    # The anchor is per version: earlier events still match, a version past the log does not.
    events = event_log(app, c.match_id)
    assert check_anchor(events, board["version"], board["head"]) is not None
    assert check_anchor(events, board["version"] - 1, events[-1]["prev_hash"]) is None
    assert check_anchor(events, len(events) + 1, board["head"]) is not None
    # The same offline, on an exported log.
    exported.write_text("".join(json.dumps(e) + "\n" for e in events))
    code, out = verify_chain(f"{exported}@{saved}")
    assert code == 1 and out["anchor_ok"] is False and not out["ok"], out
    assert verify_chain(f"{exported}@x:y")[0] == 2
