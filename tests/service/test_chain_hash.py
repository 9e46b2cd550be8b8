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


def test_event_hash_digests_are_pinned() -> None:
    """Digests of fixed events, computed before the per-action path was made cheaper: the
    live hash must never change (stored chains and exported records depend on it)."""
    from datetime import UTC, datetime
    from uuid import UUID

    from referee.domain.match import Match

    match_id = UUID("12345678-1234-5678-1234-567812345678")
    at = datetime(2026, 11, 22, 10, 30, 0, 123456, tzinfo=UTC)
    plays = [{"seat": s, "card": c} for s, c in enumerate(["JH", "AH", "9H", "TS"])]
    trick = {"kind": "trick_taken", "number": 3, "plays": plays, "winner": 0, "points": 0}
    events = [
        Match.ActionTaken(
            originator_id=match_id, originator_version=7, timestamp=at, prev_hash="ab" * 32,
            seat=3, action="play:TS", command_id="cmd-7", facts=[trick], to_act=0,
        ),
        Match.ActionTaken(
            originator_id=match_id, originator_version=8, timestamp=at, prev_hash="cd" * 32,
            seat=0, action="pass", command_id="ünïcødé ✓", facts=[], to_act=None,
        ),
        Match.HandDealt(
            originator_id=match_id, originator_version=2, timestamp=at, prev_hash="",
            hand=1, dealer=0, cards=["JH", "AH"], nonce="00ff", commitment="ee" * 32, to_act=1,
        ),
    ]
    assert [event_hash(e) for e in events] == [
        "a2c621ac55adda3ea058ae191665690d24ee17a0ace7d432541f83f8c38ae324",
        "df400fa62fd11664af783c04dcbedea6507aa70eb29c51b3d4d7a9515d21456e",
        "e16acb43cea9e6e7db886bfb798bfac3250e81047f4433c21e8cedafe6321123",
    ]
    exported = [event_dict(e, get_topic(type(e))) for e in events]
    assert [dict_hash(d) for d in exported] == [event_hash(e) for e in events]
