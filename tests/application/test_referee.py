"""The application as a narrative, rerun on SQLite and PostgreSQL: create, act, refuse,
retry, replay, conflict; plus the pure pieces (shuffle, commitment, rejection ring)."""

from __future__ import annotations

import collections
import random
import sys
from pathlib import Path

import pytest
from eventsourcing.persistence import IntegrityError

import referee
from referee.application import Referee, hash_token
from referee.config import settings_from_env
from referee.domain import match as match_module
from referee.domain.deal import commitment, shuffle
from referee.domain.errors import MatchOverError, VersionConflictError
from referee.rejections import Rejection, RejectionLog
from referee.rules.errors import IllegalActionError, InvalidActionError, NotYourTurnError
from referee.rules.registry import GAMES
from tests.application.conftest import AUDITOR


def play(app: Referee, match_id, tokens: list[str], rng: random.Random, n: int) -> list:  # type: ignore[no-untyped-def]
    answers = []
    for i in range(n):
        match = app.get_match(match_id)
        if match.over:
            break
        seat = match.game.current_seat(match.hand_state)
        legal = app.get_view(match_id, tokens[seat]).legal_actions
        answers.append(app.submit_action(match_id, tokens[seat], rng.choice(legal), f"c{i}"))
    return answers


@pytest.mark.parametrize("game", list(GAMES))
def test_narrative(app: Referee, env: dict[str, str], game: str) -> None:
    # Create a match: tokens are returned once and stored only as hashes.
    created = app.create_match(game, seed_entropy=b"dice")
    match = app.get_match(created.match_id)
    assert match.rules_version == referee.RULES_VERSION
    assert created.seat_tokens[0] not in repr(match.__dict__)
    assert match.seat_token_hashes[0] == hash_token(created.seat_tokens[0])
    # The first event records the rules version; the deal comes with a commitment.
    events = list(app.repository.event_store.get(created.match_id))
    assert type(events[0]).__name__ == "Created" and events[0].rules_version == 1  # type: ignore[attr-defined]
    assert type(events[1]).__name__ == "HandDealt"
    assert events[1].commitment == commitment(events[1].nonce, events[1].cards)  # type: ignore[attr-defined]
    # Play some random legal actions.
    rng = random.Random(game)
    answers = play(app, created.match_id, created.seat_tokens, rng, 30)
    assert answers and [a.outcome.version for a in answers] == sorted(
        {a.outcome.version for a in answers})
    # Refusals change nothing.
    match = app.get_match(created.match_id)
    before = match.version
    seat = match.game.current_seat(match.hand_state)
    other = (seat + 1) % match.game.num_seats
    legal = app.get_view(created.match_id, created.seat_tokens[seat]).legal_actions
    with pytest.raises(InvalidActionError):
        app.submit_action(created.match_id, created.seat_tokens[seat], "zzz")
    with pytest.raises(NotYourTurnError):
        app.submit_action(created.match_id, created.seat_tokens[other], legal[0])
    illegal = next(match.game.format_action(a) for a in match.game.all_actions()
                   if match.game.format_action(a) not in legal)
    with pytest.raises(IllegalActionError):
        app.submit_action(created.match_id, created.seat_tokens[seat], illegal)
    with pytest.raises(VersionConflictError):
        app.submit_action(created.match_id, created.seat_tokens[seat], legal[0],
                          expected_version=before - 1)
    assert app.get_match(created.match_id).version == before
    assert len(app.list_rejections(AUDITOR, str(created.match_id))) == 4
    # A fresh application (a restart) replays the stream to the same rules state, and
    # answers retries from the record.
    again = Referee(settings_from_env(env))
    try:
        replayed = again.get_match(created.match_id)
        assert replayed.version == before
        assert (replayed.game.audit_view(replayed.hand_state)
                == match.game.audit_view(match.hand_state))
        assert replayed.match_state == match.match_state
        last = answers[-1].outcome
        retry = again.submit_action(created.match_id, created.seat_tokens[last.seat],
                                    last.action, last.command_id)
        assert retry.replayed and retry.outcome.version == last.version
        assert again.get_match(created.match_id).version == before
    finally:
        again.close()


def test_conflicting_saves_raise_integrity_error(app: Referee) -> None:
    created = app.create_match("euchre")
    one, two = app.get_match(created.match_id), app.get_match(created.match_id)
    seat = one.game.current_seat(one.hand_state)
    legal = app.get_view(created.match_id, created.seat_tokens[seat]).legal_actions
    one.take_action(seat, legal[0], "a")
    two.take_action(seat, legal[-1], "b")
    app.save(one)
    with pytest.raises(IntegrityError):
        app.save(two)
    assert app.get_match(created.match_id).hand.actions == [(seat, legal[0])]


def test_match_over_refuses_actions(app: Referee) -> None:
    created = app.create_match("euchre")
    play(app, created.match_id, created.seat_tokens, random.Random(1), 100_000)
    assert app.get_match(created.match_id).over
    with pytest.raises(MatchOverError):
        app.submit_action(created.match_id, created.seat_tokens[0], "pass")


@pytest.mark.parametrize("game", list(GAMES))
def test_live_actions_go_through_the_rules_once_and_replay_agrees(
    app: Referee, env: dict[str, str], game: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    created = app.create_match(game, seed_entropy=b"once")
    rules = type(app.get_match(created.match_id).game)
    calls = collections.Counter[str]()
    apply, new_hand = rules.apply, rules.new_hand

    def from_match() -> bool:  # called by the aggregate, not from inside the rules
        return sys._getframe(2).f_code.co_filename == match_module.__file__

    def counting_apply(self, *args):  # type: ignore[no-untyped-def]
        calls["apply"] += from_match()
        return apply(self, *args)

    def counting_new_hand(self, *args):  # type: ignore[no-untyped-def]
        calls["new_hand"] += from_match()
        return new_hand(self, *args)

    monkeypatch.setattr(rules, "apply", counting_apply)
    monkeypatch.setattr(rules, "new_hand", counting_new_hand)
    answers = play(app, created.match_id, created.seat_tokens, random.Random(game), 80)
    hands = len(app.get_match(created.match_id).hands)
    assert calls["apply"] == len(answers)  # once per accepted action, not twice
    assert calls["new_hand"] == hands - 1  # once per deal after the first
    # A replay from the store (no stashed state) re-applies through the rules to the same state.
    live = app.get_match(created.match_id)
    again = Referee(settings_from_env(env))
    try:
        replayed = again.get_match(created.match_id)
    finally:
        again.close()
    assert calls["apply"] == 2 * len(answers)
    assert replayed.version == live.version and replayed.hands == live.hands
    assert replayed.game.audit_view(replayed.hand_state) == live.game.audit_view(live.hand_state)
    assert replayed.match_state == live.match_state
    assert replayed.chain_head == live.chain_head


def test_shuffle_is_reproducible_and_unbiased() -> None:
    pack = [str(i) for i in range(6)]
    assert shuffle(pack, b"k") == shuffle(pack, b"k")
    assert sorted(shuffle(pack, b"k")) == pack
    firsts = collections.Counter(shuffle(pack, i.to_bytes(4, "big"))[0] for i in range(6000))
    assert set(firsts) == set(pack)
    assert all(800 < n < 1200 for n in firsts.values())


def test_rejection_log_is_bounded() -> None:
    log = RejectionLog(per_match=3, total=5)
    for m in range(4):
        for i in range(4):
            log.add(Rejection(f"m{m}", 0, f"a{i}", "ILLEGAL_ACTION", "R", "no", f"{m}{i}"))
    kept = log.list()
    assert len(kept) == 5
    assert [r.action for r in log.list("m3")] == ["a1", "a2", "a3"]
    assert log.list("m0") == [] and log.list(limit=2) == kept[-2:]


def test_rejections_survive_a_restart_and_stay_bounded(env: dict[str, str]) -> None:
    env = dict(env, REFEREE_REJECTIONS_PER_MATCH="3", REFEREE_REJECTIONS_TOTAL="5")
    if "POSTGRES_HOST" in env:  # a table of our own, so other tests' rows do not count
        env["POSTGRES_SCHEMA"] = _fresh_schema(env)
    app = Referee(settings_from_env(env))
    try:
        one = app.create_match("euchre")
        two = app.create_match("euchre")
        for i in range(4):
            with pytest.raises(InvalidActionError):
                app.submit_action(one.match_id, one.seat_tokens[0], f"zzz{i}")
        assert [r.action for r in app.list_rejections(AUDITOR, str(one.match_id))] == [
            "zzz1", "zzz2", "zzz3"]  # the per-match ring
        for i in range(40):  # a flood from another table
            with pytest.raises(InvalidActionError):
                app.submit_action(two.match_id, two.seat_tokens[1], f"bad{i}")
        kept = app.list_rejections(AUDITOR)
        # The flood keeps its own last 3; the cap of 5 then drops the oldest row overall.
        assert [r.action for r in kept] == ["zzz2", "zzz3", "bad37", "bad38", "bad39"]
    finally:
        app.close()
    again = Referee(settings_from_env(env))  # a restart: the trail is read from the store
    try:
        kept = again.list_rejections(AUDITOR, str(two.match_id))
        assert [(r.seat, r.action, r.reason) for r in kept] == [
            (1, f"bad{i}", "INVALID_ACTION") for i in (37, 38, 39)]
        for i in range(3):  # the global cap holds across matches
            with pytest.raises(InvalidActionError):
                again.submit_action(one.match_id, one.seat_tokens[2], f"late{i}")
        kept = again.list_rejections(AUDITOR)
        assert len(kept) == 5
        assert [r.action for r in kept] == ["bad38", "bad39", "late0", "late1", "late2"]
        assert again.list_rejections(AUDITOR, limit=2) == kept[-2:]
    finally:
        again.close()
        if "POSTGRES_SCHEMA" in env:
            _pg(env, f'DROP SCHEMA "{env["POSTGRES_SCHEMA"]}" CASCADE')


@pytest.mark.postgres
def test_a_read_only_replica_starts_and_serves_reads(
    postgres_env: dict[str, str], tmp_path: Path
) -> None:
    """``CREATE_TABLE=n`` on a connection that may not write (a role with
    ``default_transaction_read_only=on``, as on a hot standby): no DDL at start-up, reads
    served, commands refused by the database."""
    import uuid

    schema = _fresh_schema(postgres_env)
    role = f"ro_{uuid.uuid4().hex[:12]}"
    env = {**postgres_env, "POSTGRES_SCHEMA": schema, "REFEREE_AUDITOR_TOKEN": AUDITOR,
           "REFEREE_DATA_DIR": str(tmp_path)}
    try:
        writer = Referee(settings_from_env(env))
        try:
            created = writer.create_match("euchre", seed_entropy=b"ro")
            answers = play(writer, created.match_id, created.seat_tokens, random.Random(7), 5)
            with pytest.raises(InvalidActionError):
                writer.submit_action(created.match_id, created.seat_tokens[0], "zzz")
            expected = writer.get_view(created.match_id, AUDITOR)
            writer.list_rejections(AUDITOR)  # flushed
        finally:
            writer.close()
        for statement in (
            f"CREATE ROLE {role} LOGIN PASSWORD 'ro'",
            f"ALTER ROLE {role} SET default_transaction_read_only = on",
            f'GRANT USAGE ON SCHEMA "{schema}" TO {role}',
            f'GRANT SELECT ON ALL TABLES IN SCHEMA "{schema}" TO {role}',
        ):
            _pg(postgres_env, statement)
        ro_env = {**env, "POSTGRES_USER": role, "POSTGRES_PASSWORD": "ro"}
        with pytest.raises(Exception, match="read-only"):
            Referee(settings_from_env(ro_env)).close()
        reader = Referee(settings_from_env({**ro_env, "CREATE_TABLE": "n"}))
        try:
            view = reader.get_view(created.match_id, AUDITOR)
            assert view == expected
            record, _ = reader.match_record(created.match_id, AUDITOR)
            assert record == writer_record(env, created.match_id)
            assert [r.action for r in reader.list_rejections(AUDITOR)] == ["zzz"]
            seat = view.to_act
            assert seat is not None and answers
            legal = reader.get_view(created.match_id, created.seat_tokens[seat]).legal_actions
            with pytest.raises(Exception, match="read-only"):
                reader.submit_action(created.match_id, created.seat_tokens[seat], legal[0])
            assert reader.get_match(created.match_id).version == view.version
        finally:
            reader.close()
    finally:
        _pg(postgres_env, f'DROP SCHEMA "{schema}" CASCADE')
        _pg(postgres_env, f"DROP ROLE IF EXISTS {role}")


def writer_record(env: dict[str, str], match_id):  # type: ignore[no-untyped-def]
    app = Referee(settings_from_env(env))
    try:
        return app.match_record(match_id, AUDITOR)[0]
    finally:
        app.close()


def test_rulings_race_with_actions_on_one_match_without_conflicts(
    app: Referee, env: dict[str, str]
) -> None:
    """Rulings and actions on one match from concurrent threads: both go through the match's
    lock and the group committer, so none is refused as a version conflict."""
    import threading

    from referee.tournaments import record_ruling

    created = app.create_match("euchre", seed_entropy=b"race")
    mid, tokens = created.match_id, created.seat_tokens
    rng = random.Random(3)
    i = 0
    while app.get_match(mid).hands[0].result is None:  # finish hand 1
        match = app.get_match(mid)
        seat = match.game.current_seat(match.hand_state)
        app.submit_action(mid, tokens[seat],
                          rng.choice(app.get_view(mid, tokens[seat]).legal_actions), f"h{i}")
        i += 1
    start, errors = threading.Barrier(2), []
    acted: list[int] = []
    ruled: list[int] = []

    def actions() -> None:
        nonlocal i
        start.wait()
        for _ in range(40):
            match = app.get_match(mid)
            if match.over:
                break
            seat = match.game.current_seat(match.hand_state)
            legal = app.get_view(mid, tokens[seat]).legal_actions
            try:
                acted.append(app.submit_action(mid, tokens[seat], rng.choice(legal),
                                               f"race{i}").outcome.version)
            except Exception as exc:
                errors.append(exc)
            i += 1

    def rulings() -> None:
        start.wait()
        for k in range(15):
            try:
                version, _, _ = record_ruling(app, mid, AUDITOR, 1, "correction", [k, 0],
                                           f"ruling {k}")
                ruled.append(version)
            except Exception as exc:
                errors.append(exc)

    threads = [threading.Thread(target=actions), threading.Thread(target=rulings)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert errors == []
    assert len(ruled) == 15 and acted
    assert len(set(ruled) | set(acted)) == len(ruled) + len(acted)  # one version each
    match = app.get_match(mid)
    assert [r["reason"] for r in match.rulings] == [f"ruling {k}" for k in range(15)]
    again = Referee(settings_from_env(env))  # the store agrees with the live match
    try:
        replayed = again.get_match(mid)
    finally:
        again.close()
    assert replayed.version == match.version and replayed.rulings == match.rulings
    assert replayed.chain_head == match.chain_head


def test_a_conflict_in_a_batch_fails_only_its_caller(app: Referee, env: dict[str, str]) -> None:
    """One group commit holds actions on three matches; another process wrote to one of them
    first. That caller gets VERSION_CONFLICT; the other two commit."""
    import threading

    def first_legal(a: Referee, mid, token_of):  # type: ignore[no-untyped-def]
        match = a.get_match(mid)
        seat = match.game.current_seat(match.hand_state)
        return seat, a.get_view(mid, token_of[seat]).legal_actions[0]

    created = [app.create_match("euchre", seed_entropy=bytes([k])) for k in range(4)]
    stale, ok1, ok2, plug = created
    # Chosen (and cached in ``app``) now: acting skips the reads that would catch up.
    moves = {c.match_id: first_legal(app, c.match_id, c.seat_tokens) for c in created}
    other = Referee(settings_from_env(env))  # another process acts on ``stale`` first
    try:
        seat, text = first_legal(other, stale.match_id, stale.seat_tokens)
        other.submit_action(stale.match_id, stale.seat_tokens[seat], text, "other")
    finally:
        other.close()
    # Hold the writer thread inside one batch until the three calls are queued together.
    release, sizes = threading.Event(), []

    def hook(n: int) -> None:
        sizes.append(n)
        if len(sizes) == 1:
            release.wait(30)

    app.on_commit_batch(hook)
    results: dict[str, object] = {}

    def act(name: str, c) -> None:  # type: ignore[no-untyped-def]
        seat, text = moves[c.match_id]
        try:
            results[name] = app.submit_action(c.match_id, c.seat_tokens[seat], text, "mine")
        except Exception as exc:
            results[name] = exc

    threads = [threading.Thread(target=act, args=("plug", plug))]
    threads[0].start()
    while not sizes:  # the writer thread is held in the plug's batch
        threading.Event().wait(0.01)
    for name, c in (("stale", stale), ("ok1", ok1), ("ok2", ok2)):
        threads.append(threading.Thread(target=act, args=(name, c)))
        threads[-1].start()
    while len(app.committer._queue) < 3:
        threading.Event().wait(0.01)
    release.set()
    for t in threads:
        t.join(60)
    app.on_commit_batch(None)
    assert sizes[:2] == [1, 3]  # the plug alone, then the three in one transaction
    assert isinstance(results["stale"], VersionConflictError)
    for name in ("plug", "ok1", "ok2"):
        assert not isinstance(results[name], Exception), results[name]
    check = Referee(settings_from_env(env))  # what the store holds
    try:
        assert [cmd for _, cmd in _commands(check, stale.match_id)] == ["other"]
        for c in (ok1, ok2, plug):
            assert [cmd for _, cmd in _commands(check, c.match_id)] == ["mine"]
    finally:
        check.close()
    # The loser's cache was dropped: it now acts on the current state.
    seat, text = first_legal(app, stale.match_id, stale.seat_tokens)
    assert app.submit_action(stale.match_id, stale.seat_tokens[seat], text, "again").outcome


def _commands(app: Referee, match_id):  # type: ignore[no-untyped-def]
    return [(e.seat, e.command_id) for e in app.repository.event_store.get(match_id)
            if type(e).__name__ == "ActionTaken"]


def _fresh_schema(env: dict[str, str]) -> str:
    import uuid

    name = f"t_{uuid.uuid4().hex[:12]}"
    _pg(env, f'CREATE SCHEMA "{name}"')
    return name


def _pg(env: dict[str, str], statement: str) -> None:
    import psycopg

    with psycopg.connect(
        host=env["POSTGRES_HOST"], port=env.get("POSTGRES_PORT", "5432"),
        user=env.get("POSTGRES_USER"), password=env.get("POSTGRES_PASSWORD"),
        dbname=env.get("POSTGRES_DBNAME"), autocommit=True,
    ) as conn:
        conn.execute(statement)  # type: ignore[arg-type]



def test_commit_delay_groups_callers_only_while_busy() -> None:
    """``REFEREE_COMMIT_DELAY_MS`` (the group committer's ``delay``): a lone caller is
    committed at once; once callers queue up together, the writer waits ``delay`` before
    taking a batch, so a caller arriving meanwhile shares the transaction."""
    import threading
    import time

    from referee.group_commit import GroupCommitter

    sizes: list[int] = []
    gate = threading.Event()
    gate.set()

    def record(batch: list) -> None:  # type: ignore[type-arg]
        sizes.append(len(batch))
        gate.wait(30)

    committer = GroupCommitter(record, max_batch=10, delay=0.3)
    try:
        started = time.monotonic()
        committer.commit("alone", [])
        assert sizes == [1] and time.monotonic() - started < 0.25  # not delayed
        gate.clear()  # the next transaction is held until the gate opens
        first = threading.Thread(target=committer.commit, args=("a", []))
        first.start()
        while len(sizes) < 2:
            time.sleep(0.005)
        queued = [threading.Thread(target=committer.commit, args=(name, [])) for name in "bc"]
        for t in queued:
            t.start()
        while len(committer._queue) < 2:
            time.sleep(0.005)
        gate.set()  # b and c waited together: busy, so the writer lingers for d
        time.sleep(0.05)
        late = threading.Thread(target=committer.commit, args=("d", []))
        late.start()
        for t in [first, *queued, late]:
            t.join(30)
        assert sizes == [1, 1, 3]
    finally:
        gate.set()
        committer.close()
