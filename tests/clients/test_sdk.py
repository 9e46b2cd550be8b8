"""The SDK against a real referee: every RPC, the error mapping, retries, every game."""

from __future__ import annotations

import random
import threading
from typing import Any

import pytest

from referee.verify import verify_data
from referee_clients.bots import STRATEGIES, Seat, play_all
from tests.clients.conftest import AUDITOR, FAST, GAME_NAMES
from trick_referee_client import errors as e
from trick_referee_client.sdk import RefereeClient


def test_list_games_has_every_registered_game(client: RefereeClient) -> None:
    games = {g.name: g for g in client.list_games()}
    assert set(GAME_NAMES) <= set(games)
    assert games["ulti"].seats == 3 and games["euchre"].seats == 4


def test_create_view_act_and_idempotent_retry(client: RefereeClient) -> None:
    m = client.create_match("euchre", players=["ann", "bob", "cy", "dee"])
    assert len(m.tokens) == 4 and m.players[1] == "bob" and m.deal_commitment
    view = client.get_view(m.match_id, m.tokens[1])
    assert view.role == "seat" and view.seat == 1 and view.my_turn and len(view.state["hand"]) == 5
    assert client.get_view(m.match_id, m.spectator_token).legal_actions == []
    first = client.submit_action(m.match_id, m.tokens[1], "pass", command_id="c-1",
                                 expected_version=view.version, seat=1)
    again = client.submit_action(m.match_id, m.tokens[1], "pass", command_id="c-1")
    assert not first.replayed and again.replayed and again.version == first.version
    with pytest.raises(e.CommandIdReused):
        client.submit_action(m.match_id, m.tokens[1], "order_up", command_id="c-1")


@pytest.fixture
def euchre(client: RefereeClient) -> Any:
    return client.create_match("euchre")


def test_illegal_action_carries_rule_and_message(client: RefereeClient, euchre: Any) -> None:
    with pytest.raises(e.IllegalAction) as caught:
        client.submit_action(euchre.match_id, euchre.tokens[1], "name:S")
    assert caught.value.rule.startswith("EU-") and "name:S" in caught.value.message
    assert caught.value.code == "FAILED_PRECONDITION" and caught.value.reason == "ILLEGAL_ACTION"


@pytest.mark.parametrize(("call", "exc"), [
    (lambda c, m: c.submit_action(m.match_id, m.tokens[2], "pass"), e.NotYourTurn),
    (lambda c, m: c.submit_action(m.match_id, m.tokens[1], "fly:away"), e.InvalidAction),
    (lambda c, m: c.submit_action(m.match_id, m.spectator_token, "pass"), e.PermissionDenied),
    (lambda c, m: c.submit_action(m.match_id, "nope", "pass"), e.BadToken),
    (lambda c, m: c.get_view("00000000-0000-0000-0000-000000000000", "x"), e.MatchNotFound),
    (lambda c, m: c.get_view("not-a-uuid", "x"), e.MalformedRequest),
    (lambda c, m: c.create_match("skat"), e.UnknownGame),
    (lambda c, m: c.create_match("euchre", rules={"no_such": 1}), e.InvalidRules),
    (lambda c, m: c.get_hand_record(m.match_id, 1, m.tokens[0]), e.HandNotFinished),
    (lambda c, m: c.get_hand_record(m.match_id, 7, AUDITOR), e.HandNotFound),
    (lambda c, m: c.list_rejections(m.tokens[0]), e.PermissionDenied),
])
def test_errors_map_to_exceptions(client: RefereeClient, euchre: Any, call: Any,
                                  exc: type[e.RefereeError]) -> None:
    with pytest.raises(exc) as caught:
        call(client, euchre)
    assert type(caught.value) is exc and caught.value.message


def test_version_conflict_gives_the_current_version(client: RefereeClient, euchre: Any) -> None:
    version = client.get_view(euchre.match_id, euchre.tokens[1]).version
    with pytest.raises(e.VersionConflict) as caught:
        client.submit_action(euchre.match_id, euchre.tokens[1], "pass",
                             expected_version=version - 1)
    assert caught.value.current_version == version


def test_unreachable_referee_is_retried_then_unavailable() -> None:
    with RefereeClient("127.0.0.1:1", timeout=0.5, retries=2, backoff=0.01) as c, \
            pytest.raises(e.Unavailable):
        c.list_games()


# The retry of a lost answer with the same command id: tests/clients/test_retries.py.


def test_records_deals_rejections_and_watch(client: RefereeClient) -> None:
    m = client.create_match("euchre", rules=FAST["euchre"])
    updates: list[Any] = []

    def watch() -> None:
        for u in client.watch(m.match_id, m.spectator_token, heartbeat_seconds=1):
            updates.append(u)
            if u.view and u.view.match_over:
                return

    watcher = threading.Thread(target=watch)
    watcher.start()
    with pytest.raises(e.IllegalAction):
        client.submit_action(m.match_id, m.tokens[1], "name:S")
    bots = [Seat(s, t, STRATEGIES["greedy"], random.Random(s)) for s, t in enumerate(m.tokens)]
    final = play_all(client, m.match_id, bots)
    watcher.join(30)
    assert final.match_over and updates[-1].view.match_over
    assert [ev.version for u in updates for ev in u.events] == list(
        range(updates[0].events[0].version, final.version + 1))
    record = client.get_match_record(m.match_id, m.tokens[0])
    assert record.finished and record.data["format"] == "referee.match/v1"
    assert verify_data(record.data)[0] == 0
    hand = client.get_hand_record(m.match_id, 1, m.spectator_token)
    assert hand.finished and hand.data["format"] == "referee.hand/v1"
    deal = client.verify_deal(m.match_id, 1, m.tokens[3])
    assert deal.valid and deal.recompute()
    rejected = client.list_rejections(AUDITOR, m.match_id)
    assert any(r.rule.startswith("EU-") and r.action == "name:S" for r in rejected)
    with pytest.raises(e.MatchOver):
        client.submit_action(m.match_id, m.tokens[final.dealer], "pass")


@pytest.mark.parametrize("game", GAME_NAMES)
@pytest.mark.parametrize("strategy", ["random", "greedy"])
def test_bots_finish_a_match_of_every_game(client: RefereeClient, game: str,
                                           strategy: str) -> None:
    m = client.create_match(game, rules=FAST[game])
    bots = [Seat(s, t, STRATEGIES[strategy], random.Random(s)) for s, t in enumerate(m.tokens)]
    final = play_all(client, m.match_id, bots)
    assert final.match_over and final.to_act is None
    record = client.get_match_record(m.match_id, m.spectator_token)
    code, report = verify_data(record.data)
    assert code == 0, report
    assert report["result"]["scores"] == final.scores


def test_tokens_travel_as_metadata_and_no_request_has_a_token_field() -> None:
    """Issue 22, item 2: tokens travel only as ``authorization: Bearer`` metadata; a token
    metadata cannot carry (not printable ASCII, so none the referee issued) is refused before
    any call, with the error of a bad token."""
    from trick_referee_client.api.v1 import projections_pb2, referee_pb2, webhooks_pb2
    from trick_referee_client.sdk import bearer

    assert bearer("tok-123") == (("authorization", "Bearer tok-123"),)
    assert bearer("") == ()
    with pytest.raises(e.BadToken, match="printable ASCII"):
        bearer("jeton-\u00e9")
    for module in (referee_pb2, projections_pb2, webhooks_pb2):
        for name, message in module.DESCRIPTOR.message_types_by_name.items():
            assert "token" not in message.fields_by_name or not name.endswith("Request"), name
