"""Two applications on one store (as two ``referee serve`` workers are): a command checked
against a stale cached match is never committed on that stale state; it is decided again on
the fresh stream, so it is accepted if still legal, answered from the record if it is a
retry, and a VERSION_CONFLICT if the other write made it illegal (SQLite, PostgreSQL)."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from uuid import UUID

import pytest

from referee.application import Answer, Referee
from referee.config import settings_from_env
from referee.domain.errors import CommandIdReusedError, VersionConflictError
from tests.service.conftest import store_env


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def two(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Referee, Referee]]:
    env = store_env(request, tmp_path)
    a, b = Referee(settings_from_env(env)), Referee(settings_from_env(env))
    yield a, b
    a.close()
    b.close()


def _next(app: Referee, match_id: UUID) -> tuple[int, str]:
    match = app.get_match(match_id)
    seat = match.game.current_seat(match.hand_state)
    assert seat is not None
    return seat, match.game.format_action(match.game.legal_actions(match.hand_state)[0])


def _commands(app: Referee, match_id: UUID) -> list[str]:
    return [
        e.command_id
        for e in app.repository.event_store.get(match_id)  # type: ignore[attr-defined]
        if type(e).__name__ == "ActionTaken"
    ]


def test_an_action_still_legal_is_committed_after_a_stale_check(
    two: tuple[Referee, Referee],
) -> None:
    a, b = two
    c = a.create_match("euchre")
    seat, text = _next(a, c.match_id)  # cached in ``a`` now
    # ``b`` writes an event that does not change whose turn it is: ``a``'s cache is stale.
    b.update_match(c.match_id, lambda m: m.record_ruling(1, "penalty", [0, 0], "note"))
    answer = a.submit_action(c.match_id, c.seat_tokens[seat], text, "a1")
    assert not answer.replayed and answer.outcome.version == c.version + 2
    assert _commands(b, c.match_id) == ["a1"]
    assert b.get_match(c.match_id).version == c.version + 2


def test_a_retry_through_a_stale_cache_is_answered_from_the_record(
    two: tuple[Referee, Referee],
) -> None:
    a, b = two
    c = a.create_match("euchre")
    seat, text = _next(a, c.match_id)  # cached in ``a`` now
    first = b.submit_action(c.match_id, c.seat_tokens[seat], text, "cmd")
    again = a.submit_action(c.match_id, c.seat_tokens[seat], text, "cmd")
    assert again.replayed and again.outcome.version == first.outcome.version
    assert _commands(b, c.match_id) == ["cmd"]


def test_an_action_the_other_write_made_illegal_lost_the_race(
    two: tuple[Referee, Referee],
) -> None:
    a, b = two
    c = a.create_match("euchre")
    seat, text = _next(a, c.match_id)  # cached in ``a`` now
    b.submit_action(c.match_id, c.seat_tokens[seat], text, "theirs")
    with pytest.raises(VersionConflictError) as caught:
        a.submit_action(c.match_id, c.seat_tokens[seat], text, "mine")
    assert caught.value.metadata["actualVersion"] == str(c.version + 1)
    assert _commands(b, c.match_id) == ["theirs"]
    # ``a`` now holds the fresh match: the next seat's action is accepted at once.
    seat2, text2 = _next(a, c.match_id)
    assert seat2 != seat
    assert a.submit_action(c.match_id, c.seat_tokens[seat2], text2, "next").outcome


# -- the same command id sent to both servers --------------------------------------------------
# A client that retries a command on the other server: whichever server commits it, the other
# answers the replay it is (or COMMAND_ID_REUSED for another action), never VERSION_CONFLICT.
def _before_second_commit(app: Referee, run: Callable[[], None]) -> None:
    """Run ``run`` on ``app``'s writer thread just before its second group commit from now,
    ahead of that commit's transaction (an interleaving, through the metrics hook)."""
    batches: list[int] = []

    def hook(n: int) -> None:
        batches.append(n)
        if len(batches) == 2:
            run()

    app.on_commit_batch(hook)


def _submit(app: Referee, path: str, match_id: UUID, token: str, text: str, command_id: str
            ) -> Answer:
    if path == "async":  # the gRPC server's path: the commit is awaited, a loss decided again
        return asyncio.run(app.submit_action_async(match_id, token, text, command_id))
    return app.submit_action(match_id, token, text, command_id)


@pytest.mark.parametrize("path", ["sync", "async"])
def test_the_same_command_committed_by_the_other_server_while_deciding_again_is_a_replay(
    two: tuple[Referee, Referee], path: str,
) -> None:
    """``a``'s cache is stale, so its commit loses; it reloads and decides again, and before
    that second commit ``b`` commits the same command: ``a``'s second commit loses too. It
    used to answer VERSION_CONFLICT (ABORTED) without looking at the reloaded match."""
    a, b = two
    c = a.create_match("euchre")
    seat, text = _next(a, c.match_id)  # cached in ``a`` now
    b.update_match(c.match_id, lambda m: m.record_ruling(1, "penalty", [0, 0], "note"))
    token = c.seat_tokens[seat]
    theirs: list[Answer] = []
    _before_second_commit(a, lambda: theirs.append(
        b.submit_action(c.match_id, token, text, "cmd")))
    mine = _submit(a, path, c.match_id, token, text, "cmd")
    assert not theirs[0].replayed
    assert mine.replayed and mine.outcome == theirs[0].outcome
    assert _commands(b, c.match_id) == ["cmd"]


@pytest.mark.parametrize("path", ["sync", "async"])
def test_the_same_command_id_for_another_action_meanwhile_is_reused_not_a_conflict(
    two: tuple[Referee, Referee], path: str,
) -> None:
    a, b = two
    c = a.create_match("euchre")
    match = a.get_match(c.match_id)  # cached in ``a`` now
    seat = match.game.current_seat(match.hand_state)
    assert seat is not None
    mine, other = [match.game.format_action(x)
                   for x in match.game.legal_actions(match.hand_state)[:2]]
    b.update_match(c.match_id, lambda m: m.record_ruling(1, "penalty", [0, 0], "note"))
    token = c.seat_tokens[seat]
    _before_second_commit(a, lambda: b.submit_action(c.match_id, token, other, "cmd"))
    with pytest.raises(CommandIdReusedError) as caught:
        _submit(a, path, c.match_id, token, mine, "cmd")
    assert caught.value.metadata["action"] == other
    assert _commands(b, c.match_id) == ["cmd"]


def _race(a: Referee, b: Referee, match_id: UUID, token: str, text: str, cmd: str
          ) -> tuple[list[Answer], list[BaseException]]:
    """``cmd`` sent to ``a`` and ``b`` at once, while ``b`` also records a ruling."""
    start = threading.Barrier(3)
    answers: list[Answer] = []
    errors: list[BaseException] = []

    def send(app: Referee) -> None:
        start.wait()
        try:
            answers.append(app.submit_action(match_id, token, text, cmd))
        except BaseException as exc:
            errors.append(exc)

    def rule() -> None:
        start.wait()
        with contextlib.suppress(VersionConflictError):  # the ruling's own race
            b.update_match(match_id, lambda m: m.record_ruling(1, "annul", [0, 0], "r"))

    threads = [threading.Thread(target=send, args=(a,)),
               threading.Thread(target=send, args=(b,)), threading.Thread(target=rule)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    return answers, errors


def test_the_same_command_sent_to_both_servers_at_once(two: tuple[Referee, Referee]) -> None:
    """Rounds of one command sent to both servers at the same time, while ``b`` also writes
    a ruling (so ``a`` may lose twice): each answer is accepted or replayed, exactly one of
    them accepted, and the command is one event."""
    a, b = two
    c = a.create_match("euchre")
    for n in range(25):
        seat, text = _next(b, c.match_id)  # both caches hold the match (``a``'s maybe stale)
        _next(a, c.match_id)
        cmd = f"cmd{n}"
        answers, errors = _race(a, b, c.match_id, c.seat_tokens[seat], text, cmd)
        assert not errors, (n, errors)
        assert sorted(x.replayed for x in answers) == [False, True], n
        assert _commands(b, c.match_id).count(cmd) == 1
