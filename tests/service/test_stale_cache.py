"""Two applications on one store (as two ``referee serve`` workers are): a command checked
against a stale cached match is never committed on that stale state; it is decided again on
the fresh stream, so it is accepted if still legal, answered from the record if it is a
retry, and a VERSION_CONFLICT if the other write made it illegal (SQLite, PostgreSQL)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from uuid import UUID

import pytest

from referee.application import Referee
from referee.config import settings_from_env
from referee.domain.errors import VersionConflictError
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
