"""``referee.notices``: a commit's announcement fits PostgreSQL's payload limit whatever its
size, reads back as it was sent, and a process ignores its own and foreign payloads."""

from __future__ import annotations

import uuid

from referee.changes import ChangeWaiters
from referee.notices import Notices, parse, payloads


def test_a_large_commit_is_announced_in_payloads_under_the_limit() -> None:
    versions = {uuid.uuid4(): v for v in range(1, 600)}
    notes = payloads("abc", "scoreboard", versions)
    assert len(notes) > 1 and all(len(n.encode()) < 8000 for n in notes)
    back: dict[uuid.UUID, int] = {}
    for note in notes:
        parsed = parse(note)
        assert parsed is not None and parsed[:2] == ("abc", "scoreboard")
        back.update(parsed[2])
    assert back == versions


def test_own_and_foreign_payloads_wake_nothing() -> None:
    changes = ChangeWaiters()
    notices = Notices(lambda: None, lambda: None, changes)
    match = uuid.uuid4()
    notices._heard(payloads(notices.instance, "", {match: 7})[0])  # our own commit
    notices._heard("something else entirely")
    assert changes.version(match) == -1
    notices._heard(payloads("another", "", {match: 7})[0])
    notices._heard(payloads("another", "scoreboard", {match: 9})[0])
    assert changes.version(match) == 7 and changes.version(("scoreboard", match)) == 9
