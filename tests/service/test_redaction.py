"""Property: no view or stream message shows a seat another seat's unplayed cards, in any
game, at any point of random play (cards the spectators see, or that were announced, are
public)."""

from __future__ import annotations

import json
import random
import re
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.api.v1 import referee_pb2 as pb
from referee.api.v1 import referee_pb2_grpc as pbg
from referee.application import Referee
from referee.rules.cards import CARD_NAMES, cards_in
from referee.rules.registry import GAMES
from tests.service.helpers import create, step
from trick_referee_client.sdk import bearer

_CARD = re.compile(r"\b[2-9TJQKA][CDHS]\b")


def named(text: str) -> set[str]:
    return set(_CARD.findall(text))


def hidden_from(app: Referee, match_id: str, seat: int | None) -> set[str]:
    """Cards in other seats' hands now, minus what the rules show spectators."""
    import uuid

    match = app.get_match(uuid.UUID(match_id))
    game, state = match.game, match.hand_state
    locations: dict[str, Any] = game.card_locations(state)
    others: set[str] = set()
    for s in range(game.num_seats):
        if s != seat:
            others |= {CARD_NAMES[c] for c in cards_in(locations.get(f"hand{s}", 0))}
    return others - named(json.dumps(game.view(state, None)))


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(game=st.sampled_from(sorted(GAMES)), seed=st.integers(0, 2**32), steps=st.integers(0, 60))
def test_no_response_shows_another_seats_cards(
    app: Referee, stub: pbg.RefereeServiceStub, game: str, seed: int, steps: int
) -> None:
    rng = random.Random(seed)
    table = create(stub, game)
    n = GAMES[game].num_seats
    for _ in range(steps):
        if step(stub, table, rng)[0].match_over:
            break
    for seat in [*range(n), None]:
        token = table.spectator if seat is None else table.tokens[seat]
        secret = hidden_from(app, table.match_id, seat)
        view = stub.GetView(pb.GetViewRequest(match_id=table.match_id), metadata=bearer(token))
        assert not named(str(view)) & secret, f"seat {seat} sees {named(str(view)) & secret}"
        stream = stub.WatchMatch(pb.WatchMatchRequest(match_id=table.match_id),
                                 metadata=bearer(token))
        try:
            msg = next(stream)
        finally:
            stream.cancel()
        current = [e for e in msg.events if e.hand == msg.view.hand]
        # Public announcements, and cards the seat itself named in its own actions (a
        # discard it made), are things the seat knows.
        announced: set[str] = set()
        for e in current:
            if seat is not None and e.HasField("seat") and e.seat == seat:
                announced |= named(e.action)
            for f in e.facts:
                if f.kind == pb.FACT_KIND_ANNOUNCED:
                    announced |= named(str(f))
        shown = named(str(msg.view)) | set().union(*(named(str(e)) for e in current))
        assert not (shown & secret) - announced, f"seat {seat}'s stream shows {shown & secret}"


def test_redaction_check_catches_a_leak(app: Referee, stub: pbg.RefereeServiceStub) -> None:
    """The property is not vacuous: the auditor's view names cards the seats may not see."""
    table = create(stub, "euchre")
    secret = hidden_from(app, table.match_id, 0)
    audit = stub.GetView(pb.GetViewRequest(match_id=table.match_id),
                         metadata=bearer("auditor-secret"))
    assert named(str(audit)) & secret
