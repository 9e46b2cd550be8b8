"""Substitution (issue 20, item 4): the auditor gives a seat to another player; a new seat
token works, the old one stops at once, the hand goes on, the records name both players."""

from __future__ import annotations

import json
import random

import pytest

from referee.application import Referee
from referee.domain.errors import (
    MalformedRequestError,
    PermissionDeniedError,
    UnauthenticatedError,
)
from referee.rules.registry import GAMES
from referee.verify import verify_data
from tests.application.conftest import AUDITOR


@pytest.mark.parametrize("name", sorted(GAMES))
def test_a_substitute_takes_the_seat_and_the_old_token_stops(app: Referee, name: str) -> None:
    n = GAMES[name].num_seats
    c = app.create_match(name, players=[f"p{i}" for i in range(n)])
    rng = random.Random(name)
    for _ in range(3):  # into the hand
        m = app.get_match(c.match_id)
        seat = m.to_act
        legal = app.get_view(c.match_id, c.seat_tokens[seat]).legal_actions
        app.submit_action(c.match_id, c.seat_tokens[seat], rng.choice(legal))
    m = app.get_match(c.match_id)
    seat = m.to_act
    played = len(m.hand.actions)
    token, version = app.substitute(c.match_id, AUDITOR, seat, "Zoë")
    assert version == m.version + 1 and token != c.seat_tokens[seat]
    with pytest.raises(UnauthenticatedError):  # the old token, at once
        app.get_view(c.match_id, c.seat_tokens[seat])
    view = app.get_view(c.match_id, token)
    assert view.principal.seat == seat and view.players[seat] == "Zoë"
    legal = view.legal_actions
    assert legal  # the hand goes on: the substitute acts
    app.submit_action(c.match_id, token, legal[0])
    record, _ = app.match_record(c.match_id, AUDITOR)
    assert record["players"][seat] == "Zoë"
    assert record["substitutions"] == [{"seat": seat, "player": "Zoë", "previous": f"p{seat}",
                                        "hand": 1, "action": played}]
    code, report = verify_data(json.loads(json.dumps(record)))
    assert code == 0, report
    app.live.evict(c.match_id)  # rebuilt from the events
    assert app.get_match(c.match_id).substitutions[0]["player"] == "Zoë"


def test_substitution_is_the_auditors_and_checks_its_fields(app: Referee) -> None:
    c = app.create_match("euchre")
    with pytest.raises(PermissionDeniedError):
        app.substitute(c.match_id, c.seat_tokens[0], 0, "Ann")
    with pytest.raises(MalformedRequestError):
        app.substitute(c.match_id, AUDITOR, 4, "Ann")
    with pytest.raises(MalformedRequestError):
        app.substitute(c.match_id, AUDITOR, 0, "  ")
    assert app.get_match(c.match_id).substitutions == []
