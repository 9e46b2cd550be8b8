"""The typed payloads of RefereeService over a real channel: the table every game shares,
typed facts, rule values, and the pages of the list RPCs."""

from __future__ import annotations

import random

import grpc
import pytest

from referee.api.v1 import referee_pb2 as pb
from referee.api.v1 import referee_pb2_grpc as pbg
from referee.rules.game import side_of
from referee.rules.registry import GAMES
from tests.service.conftest import AUDITOR
from tests.service.helpers import create, expect_error, step
from trick_referee_client.sdk import bearer

C = grpc.StatusCode


@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_table_is_typed_and_redacted(stub: pbg.RefereeServiceStub, game: str) -> None:
    """Each role sees the common shape typed: its own cards only (every hand: the auditor),
    the trick in progress, the tricks taken per side as the tricks' winners say."""
    table = create(stub, game)
    rng = random.Random(game)
    g = GAMES[game]
    for _ in range(3 * g.num_seats + 7):
        if step(stub, table, rng)[0].match_over:
            break
    audit = stub.GetView(pb.GetViewRequest(match_id=table.match_id), metadata=bearer(AUDITOR)).table
    assert len(audit.hands) == g.num_seats and audit.phase
    assert [len(h.cards) for h in audit.hands] == list(audit.hand_sizes)
    taken = [0] * len(audit.tricks_taken)
    for t in audit.tricks:
        assert t.HasField("winner") and len(t.plays) >= 2
        taken[side_of(g, t.winner)] += 1
    assert list(audit.tricks_taken) == taken
    assert audit.trick.number == len(audit.tricks) + 1 and not audit.trick.HasField("winner")
    assert "hand" not in audit.detail.fields and "hands" not in audit.detail.fields
    for seat, token in enumerate(table.tokens):
        mine = stub.GetView(pb.GetViewRequest(match_id=table.match_id),
                            metadata=bearer(token)).table
        assert list(mine.hand) == list(audit.hands[seat].cards)
        assert not mine.hands  # hidden information: no other seat's cards
        others = {c for s, h in enumerate(audit.hands) if s != seat for c in h.cards}
        mine.ClearField("detail")  # the game's public facts (a face-up card) are its own
        assert not {c for c in others if f'"{c}"' in str(mine)}, seat
    spectator = stub.GetView(pb.GetViewRequest(match_id=table.match_id),
                             metadata=bearer(table.spectator)).table
    assert not spectator.hand and not spectator.hands
    assert list(spectator.tricks) == list(audit.tricks)


def test_facts_are_typed(stub: pbg.RefereeServiceStub) -> None:
    """A trick taken carries a typed trick; a hand's end its points; a deal its commitment."""
    table = create(stub, "euchre", rules={"target_score": pb.RuleValue(int_value=1)})
    rng = random.Random(7)
    kinds: dict[int, pb.Fact] = {}
    while not kinds.get(pb.FACT_KIND_MATCH_ENDED):
        resp, _ = step(stub, table, rng)
        kinds.update((f.kind, f) for f in resp.facts)
    trick = kinds[pb.FACT_KIND_TRICK_TAKEN].trick
    assert len(trick.plays) in (3, 4) and trick.HasField("winner") and trick.number >= 1
    ended = kinds[pb.FACT_KIND_HAND_ENDED]
    assert len(ended.points) == 2 and len(ended.scores) == 2 and ended.hand >= 1
    assert "tricks" in ended.detail.fields  # Euchre's own result detail (docs/api.md)
    over = kinds[pb.FACT_KIND_MATCH_ENDED]
    assert over.HasField("winner") and max(over.scores) >= 1


def test_rule_values_are_typed(stub: pbg.RefereeServiceStub) -> None:
    games = {g.name: g for g in stub.ListGames(pb.ListGamesRequest()).games}
    target = next(p for p in games["euchre"].parameters if p.name == "target_score")
    assert target.default_value.WhichOneof("value") == "int_value"
    expect_error(lambda: create(stub, "euchre", rules={
        "target_score": pb.RuleValue(string_value="ten")}), C.INVALID_ARGUMENT, "INVALID_RULES")


def test_list_games_pages(stub: pbg.RefereeServiceStub) -> None:
    names: list[str] = []
    token = ""
    while True:
        page = stub.ListGames(pb.ListGamesRequest(page_size=2, page_token=token))
        assert len(page.games) <= 2
        names += [g.name for g in page.games]
        token = page.next_page_token
        if not token:
            break
    assert names == sorted(GAMES)
    everything = stub.ListGames(pb.ListGamesRequest(page_size=10_000))  # coerced to the max
    assert [g.name for g in everything.games] == names and not everything.next_page_token


def test_a_bad_page_is_a_clear_error(stub: pbg.RefereeServiceStub) -> None:
    for token in ("nonsense", "Z2FtZXM6LTE=", "cmVqZWN0aW9uczox"):  # -1; another list's
        info = expect_error(lambda t=token: stub.ListGames(pb.ListGamesRequest(page_token=t)),
                            C.INVALID_ARGUMENT, "MALFORMED_REQUEST")
        assert info.metadata["field"] == "page_token"
    info = expect_error(lambda: stub.ListRejections(pb.ListRejectionsRequest(
        page_size=-1), metadata=bearer(AUDITOR)), C.INVALID_ARGUMENT, "MALFORMED_REQUEST")
    assert info.metadata["field"] == "page_size"


def test_list_rejections_pages_with_times(stub: pbg.RefereeServiceStub) -> None:
    table = create(stub, "euchre")
    for n in range(5):
        with pytest.raises(grpc.RpcError):
            stub.SubmitAction(pb.SubmitActionRequest(match_id=table.match_id, action=f"bad{n}"),
                              metadata=bearer(table.tokens[0]))
    seen: list[str] = []
    token = ""
    while True:
        page = stub.ListRejections(pb.ListRejectionsRequest(
            match_id=table.match_id, page_size=2, page_token=token), metadata=bearer(AUDITOR))
        seen += [r.action for r in page.rejections]
        assert all(r.time.seconds > 0 for r in page.rejections)
        token = page.next_page_token
        if not token:
            break
    assert seen == [f"bad{n}" for n in range(5)]
