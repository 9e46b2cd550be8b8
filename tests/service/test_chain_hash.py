"""The live hash chain (``event_hash``) gives the same digests as the exported form
(``dict_hash(event_dict(...))``) that ``referee verify`` and the projections check, for the
events of every registered game."""

from __future__ import annotations

import random

import pytest
from eventsourcing.utils import get_topic

from referee.application import Referee
from referee.config import settings_from_env
from referee.domain.chain import check_chain, dict_hash, event_dict, event_hash
from referee.rules.registry import GAMES


@pytest.mark.parametrize("game", sorted(GAMES))
def test_event_hash_equals_the_exported_form(game: str) -> None:
    env = {"PERSISTENCE_MODULE": "eventsourcing.popo", "REFEREE_AUDITOR_TOKEN": "aud"}
    app = Referee(settings_from_env(env))
    try:
        created = app.create_match(game)
        rng = random.Random(game)
        for n in range(400):
            view = app.get_view(created.match_id, "aud")
            if view.match_over:
                break
            assert view.to_act is not None
            token = created.seat_tokens[view.to_act]
            action = rng.choice(app.get_view(created.match_id, token).legal_actions)
            app.submit_action(created.match_id, token, action, command_id=f"c{n}")
        events = list(app.repository.event_store.get(created.match_id))
        exported = [event_dict(e, get_topic(type(e))) for e in events]
        assert [event_hash(e) for e in events] == [dict_hash(d) for d in exported]
        report = check_chain(exported)
        assert report.ok and report.events == len(events)
        assert report.head == app.repository.get(created.match_id).chain_head
    finally:
        app.close()
