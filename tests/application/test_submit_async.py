"""``Referee.submit_action_async``, the gRPC server's path: the same decisions, records and
refusals as ``submit_action``, the commit awaited on the event loop; and what must hold when
the loop cannot do the work itself (a thread holds the match, the caller leaves, another
process wrote first). On SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import random
import threading
from typing import Any
from uuid import UUID

import pytest

from referee.application import Answer, Referee
from referee.config import settings_from_env
from referee.domain.errors import VersionConflictError
from referee.rules.errors import IllegalActionError, InvalidActionError, NotYourTurnError
from tests.application.conftest import AUDITOR


def to_act(app: Referee, match_id: UUID, tokens: list[str]) -> tuple[int, list[str]]:
    match = app.get_match(match_id)
    seat = match.game.current_seat(match.hand_state)
    return seat, app.get_view(match_id, tokens[seat]).legal_actions


def commands(app: Referee, match_id: UUID) -> list[tuple[int, str]]:
    return [(e.seat, e.command_id) for e in app.repository.event_store.get(match_id)  # type: ignore[attr-defined]
            if type(e).__name__ == "ActionTaken"]


def test_a_match_played_on_the_loop_is_recorded_as_the_blocking_path_records_it(
    app: Referee, env: dict[str, str]
) -> None:
    """Random legal Euchre through the coroutine: versions in order, each command recorded
    once, a retried command answered from the record (EU play as in the rules core), and a
    restart replays to the same state."""
    created = app.create_match("euchre", seed_entropy=b"loop")
    rng = random.Random(7)

    async def play() -> list[Answer]:
        answers = []
        for i in range(40):
            seat, legal = to_act(app, created.match_id, created.seat_tokens)
            answers.append(await app.submit_action_async(
                created.match_id, created.seat_tokens[seat], rng.choice(legal), f"c{i}"))
        return answers

    answers = asyncio.run(play())
    versions = [a.outcome.version for a in answers]
    assert versions == sorted(set(versions)) and not any(a.replayed for a in answers)
    last = answers[-1].outcome
    retry = asyncio.run(app.submit_action_async(
        created.match_id, created.seat_tokens[last.seat], last.action, last.command_id))
    assert retry.replayed and retry.outcome.version == last.version
    again = Referee(settings_from_env(env))
    try:
        assert commands(again, created.match_id) == [
            (a.outcome.seat, f"c{i}") for i, a in enumerate(answers)]
        replayed, live = again.get_match(created.match_id), app.get_match(created.match_id)
        assert replayed.version == live.version == last.version
        assert replayed.game.audit_view(replayed.hand_state) == live.game.audit_view(
            live.hand_state)
    finally:
        again.close()


def test_refusals_on_the_loop_change_nothing_and_are_recorded_once(app: Referee) -> None:
    """Out of turn (NOT_YOUR_TURN), illegal (ILLEGAL_ACTION), malformed (INVALID_ACTION),
    stale ``expected_version``: each refused with the rules' error, the match unchanged, one
    entry each in the audit trail."""
    created = app.create_match("euchre")
    mid, tokens = created.match_id, created.seat_tokens
    seat, legal = to_act(app, mid, tokens)
    game = app.get_match(mid).game
    illegal = next(game.format_action(a) for a in game.all_actions()
                   if game.format_action(a) not in legal)
    before = app.get_match(mid).version

    async def refused(token: str, action: str, **kw: Any) -> BaseException:
        try:
            await app.submit_action_async(mid, token, action, **kw)
        except Exception as exc:
            return exc
        raise AssertionError(f"{action!r} was accepted")

    assert isinstance(asyncio.run(refused(tokens[(seat + 1) % 4], legal[0])), NotYourTurnError)
    assert isinstance(asyncio.run(refused(tokens[seat], illegal)), IllegalActionError)
    assert isinstance(asyncio.run(refused(tokens[seat], "zzz")), InvalidActionError)
    assert isinstance(asyncio.run(refused(tokens[seat], legal[0], expected_version=before - 1)),
                      VersionConflictError)
    assert app.get_match(mid).version == before
    reasons = [r.reason for r in app.list_rejections(AUDITOR, str(mid))]
    assert sorted(reasons) == sorted(
        ["NOT_YOUR_TURN", "ILLEGAL_ACTION", "INVALID_ACTION", "VERSION_CONFLICT"])


def test_a_thread_holding_the_match_makes_the_coroutine_wait_without_blocking_the_loop(
    app: Referee
) -> None:
    created = app.create_match("euchre")
    seat, legal = to_act(app, created.match_id, created.seat_tokens)
    lock = app.live.lock(created.match_id)

    async def scenario() -> Answer:
        lock.acquire()  # as a blocking reader or command in a worker thread would
        task = asyncio.create_task(app.submit_action_async(
            created.match_id, created.seat_tokens[seat], legal[0], "held"))
        ticks = 0
        for _ in range(20):  # the loop keeps running while the action waits
            await asyncio.sleep(0.01)
            ticks += 1
        assert not task.done() and ticks == 20
        lock.release()
        return await asyncio.wait_for(task, 30)

    answer = asyncio.run(scenario())
    assert answer.outcome.action == legal[0] and not lock.locked()


def test_a_caller_that_leaves_during_its_commit_loses_nothing(app: Referee,
                                                             env: dict[str, str]) -> None:
    """Cancelled while its group commit runs (a client gone, a deadline passed): the action
    is still committed, the live match keeps it, and the match's lock is free again."""
    created = app.create_match("euchre")
    mid, tokens = created.match_id, created.seat_tokens
    seat, legal = to_act(app, mid, tokens)
    in_batch, release = threading.Event(), threading.Event()

    def hook(n: int) -> None:
        in_batch.set()
        release.wait(30)

    app.on_commit_batch(hook)

    async def scenario() -> None:
        task = asyncio.create_task(app.submit_action_async(mid, tokens[seat], legal[0], "gone"))
        while not in_batch.is_set():
            await asyncio.sleep(0.005)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert app.live.lock(mid).locked()  # held until the commit is settled
        release.set()
        for _ in range(1000):
            if not app.live.lock(mid).locked():
                break
            await asyncio.sleep(0.01)

    try:
        asyncio.run(scenario())
    finally:
        release.set()
        app.on_commit_batch(None)
    assert not app.live.lock(mid).locked()
    fresh = Referee(settings_from_env(env))
    try:
        assert commands(fresh, mid) == [(seat, "gone")]
    finally:
        fresh.close()
    retry = app.submit_action(mid, tokens[seat], legal[0], "gone")
    assert retry.replayed


def test_a_commit_that_lost_to_another_process_is_decided_again(
    app: Referee, env: dict[str, str]
) -> None:
    """Another process played first on a match this one has cached: the same seat's move,
    checked against the stale cache, is not committed; decided again on the fresh stream it
    is out of turn, so the caller gets VERSION_CONFLICT (ABORTED) and the store holds only
    the other process's action."""
    created = app.create_match("euchre")
    mid, tokens = created.match_id, created.seat_tokens
    seat, legal = to_act(app, mid, tokens)  # cached here now
    other = Referee(settings_from_env(env))
    try:
        other.submit_action(mid, tokens[seat], legal[0], "other")
    finally:
        other.close()
    with pytest.raises(VersionConflictError):
        asyncio.run(app.submit_action_async(mid, tokens[seat], legal[-1], "mine"))
    assert commands(app, mid) == [(seat, "other")]
    assert [r.reason for r in app.list_rejections(AUDITOR, str(mid))] == ["VERSION_CONFLICT"]
    # Retrying the other process's command here is answered from the record.
    assert asyncio.run(app.submit_action_async(mid, tokens[seat], legal[0], "other")).replayed


def test_each_caller_is_answered_with_its_own_action_when_the_next_one_slips_in(
    env: dict[str, str]
) -> None:
    """The commit's settle call frees the match before the awaiting coroutine resumes, so the
    next action on the same live match can be applied in between. Each caller must still be
    acknowledged with its own action and version (it was answered with the newcomer's, so two
    callers were acknowledged at one version: a fork in the eyes of the clients)."""
    pending: list[Any] = []

    app = Referee(settings_from_env(env))
    settle = app.acting._settled

    def next_slips_in(match: Any, lock: Any, error: BaseException | None) -> None:
        settle(match, lock, error)
        if pending:  # on the loop, before the settled caller resumes
            asyncio.get_running_loop().create_task(pending.pop()())

    app.acting._settled = next_slips_in  # type: ignore[method-assign]
    try:
        created = app.create_match("euchre", seed_entropy=b"slip")
        tokens = created.seat_tokens
        answers: list[Answer] = []

        async def second() -> None:
            answers.append(await app.submit_action_async(created.match_id, tokens[2], "pass"))

        async def play() -> None:
            app.get_view(created.match_id, tokens[1])  # the match is live in the cache
            pending.append(second)
            answers.append(await app.submit_action_async(created.match_id, tokens[1], "pass"))
            while len(answers) < 2:
                await asyncio.sleep(0.01)

        asyncio.run(asyncio.wait_for(play(), 10))
        by_seat = {a.outcome.seat: a.outcome.version for a in answers}
        assert by_seat == {1: created.version + 1, 2: created.version + 2}
        assert [a.outcome.action for a in sorted(answers, key=lambda a: a.outcome.version)] == [
            "pass", "pass"]
    finally:
        app.close()
