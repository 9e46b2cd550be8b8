"""The SDK's read side and tournaments against a real referee (views projected in-process):
scoreboard and its watch stream, dispute replay, exports, chain check, rulings, standings,
NDJSON export, the new error reasons and the retry of VIEW_NOT_READY."""

from __future__ import annotations

import json
import random
import threading
from typing import Any

import grpc
import pytest
from google.protobuf import any_pb2
from google.rpc import error_details_pb2, status_pb2
from grpc_status import rpc_status

from referee.verify import verify_data
from referee_clients.bots import STRATEGIES, Seat, play_all
from referee_projections.runner import ProjectionWorker
from tests.clients.conftest import AUDITOR, FAST
from trick_referee_client import errors as e
from trick_referee_client.sdk import RefereeClient, Scoreboard

UNKNOWN = "00000000-0000-0000-0000-000000000000"


def _play(client: RefereeClient, m: Any) -> Any:
    bots = [Seat(s, t, STRATEGIES["greedy"], random.Random(s)) for s, t in enumerate(m.tokens)]
    return play_all(client, m.match_id, bots)


def test_scoreboard_watch_replay_exports_and_chain(client: RefereeClient,
                                                   views: ProjectionWorker) -> None:
    m = client.create_match("euchre", rules=FAST["euchre"], players=["a", "b", "c", "d"])
    views.wait()
    board = client.get_scoreboard(m.match_id, m.tokens[0])
    assert board.state == "playing" and board.hand == 1 and board.to_act == 1
    assert board.players == ["a", "b", "c", "d"] and board.scores == [0, 0] and not board.hands

    boards: list[Scoreboard] = []

    def watch() -> None:
        for b in client.watch_scoreboard(m.match_id, m.spectator_token):
            boards.append(b)
            if b.over:
                return

    watcher = threading.Thread(target=watch)
    watcher.start()

    # Mid-hand: a seat may not replay (a PermissionDenied), the auditor may; index bounds.
    with pytest.raises(e.HandInProgress) as caught:
        client.get_replay(m.match_id, 1, 0, m.tokens[0])
    assert isinstance(caught.value, e.PermissionDenied)
    assert caught.value.code == "PERMISSION_DENIED"
    step = client.get_replay(m.match_id, 1, 0, AUDITOR)
    assert step.to_act == 1 and set(step.legal) == {"pass", "order_up"} and not step.finished
    # Both words of the first bidding round are legal (EU-6), so nothing of it is refused:
    # the cards (not now) are not explained.
    assert step.illegal == []
    assert len(step.cards["hand1"]) == 5
    with pytest.raises(e.ActionIndexOutOfRange) as out_of_range:
        client.get_replay(m.match_id, 1, 999, AUDITOR)
    assert out_of_range.value.code == "OUT_OF_RANGE" and out_of_range.value.actions == 0

    final = _play(client, m)
    watcher.join(30)
    assert not watcher.is_alive() and boards[0].state == "playing" and boards[-1].over
    assert [b.version for b in boards] == sorted({b.version for b in boards})

    views.wait()
    board = client.get_scoreboard(m.match_id, m.tokens[0], min_version=final.version, wait=5)
    assert board.over and board.to_act is None and board.scores == final.scores
    assert board.winner == final.winner and board.hands[-1].scores_after == final.scores

    steps = list(client.replay_steps(m.match_id, 1, m.tokens[2]))  # over: any seat may
    assert [s.action_index for s in steps] == list(range(steps[0].actions + 1))
    for s in steps[:-1]:
        assert s.action is not None and s.action["action"] in s.legal
    assert steps[-1].action is None and steps[-1].finished and steps[-1].scoring
    assert [t["action"] for t in steps[-1].timeline if t["type"] == "action"] == [
        s.action["action"] for s in steps[:-1] if s.action]
    # One WalkReplay stream gives, step for step, what GetReplay gives at each index.
    assert steps == [client.get_replay(m.match_id, 1, i, m.tokens[2])
                     for i in range(len(steps))]
    assert [s.action_index for s in client.replay_steps(
        m.match_id, 1, AUDITOR, start=2, stop=4)] == [2, 3, 4]

    hand = client.export_hand(m.match_id, 1, m.spectator_token)
    match = client.export_match(m.match_id, m.tokens[3])
    assert hand.data["format"] == "referee.hand/v1" and verify_data(hand.data)[0] == 0
    assert match.finished and verify_data(match.data)[0] == 0

    chain = client.check_chain(m.match_id, m.tokens[0])
    assert chain.ok and chain.events == final.version and chain.first_break is None
    assert len(chain.head) == 64
    with pytest.raises(e.BadToken):
        client.check_chain(m.match_id, "nope")


def test_tournament_ruling_standings_and_export(client: RefereeClient,
                                                views: ProjectionWorker) -> None:
    m = client.create_match("euchre", rules=FAST["euchre"])
    final = _play(client, m)
    with pytest.raises(e.PermissionDenied):
        client.create_tournament(m.tokens[0], "cup", "euchre")
    tid = client.create_tournament(AUDITOR, "cup", "euchre")
    assert client.register_entrant(AUDITOR, tid, "N", ["n1", "n2"]) >= 1
    client.register_entrant(AUDITOR, tid, "E", ["e1", "e2"])
    client.attach_match(AUDITOR, tid, m.match_id, ["N", "E"])
    with pytest.raises(e.MalformedRequest):  # a board needs fixed deals
        client.attach_match(AUDITOR, tid, m.match_id, ["N", "E"], board="1")

    with pytest.raises(e.InvalidRuling):
        client.record_ruling(AUDITOR, m.match_id, 1, "bribe", [0, 1], "x")
    with pytest.raises(e.InvalidRuling):
        client.record_ruling(AUDITOR, m.match_id, 1, "correction", [0, 1], "  ")
    with pytest.raises(e.PermissionDenied):
        client.record_ruling(m.tokens[0], m.match_id, 1, "correction", [0, 1], "miscount")
    version, adjust = client.record_ruling(AUDITOR, m.match_id, 1, "correction", [0, 1],
                                           "miscount")
    assert adjust == [0, 1] and version == final.version + 1

    views.wait()
    s = client.get_standings(tid)
    assert (s.name, s.game, s.tournament_id) == ("cup", "euchre", tid)
    rows = {r.entrant: r for r in s.standings}
    assert rows["E"].points_for == final.scores[1] + 1 == rows["N"].points_against
    assert rows["N"].played == rows["E"].played == 1 and s.boards == []
    board = client.get_scoreboard(m.match_id, AUDITOR)
    assert board.rulings[0].reason == "miscount" and board.rulings[0].version == version
    assert board.adjusted_scores == [final.scores[0], final.scores[1] + 1]
    assert board.hands[0].rulings[0].adjust == [0, 1]

    lines = list(client.export_tournament(tid, AUDITOR))
    assert len(lines) == 1 and verify_data(json.loads(lines[0]))[0] == 0
    with pytest.raises(e.PermissionDenied):
        list(client.export_tournament(tid, m.tokens[0]))
    with pytest.raises(e.TournamentNotFound) as caught:
        client.get_standings(UNKNOWN)
    assert caught.value.code == "NOT_FOUND"
    with pytest.raises(e.TournamentNotFound):
        client.register_entrant(AUDITOR, UNKNOWN, "X")


class _RichError(grpc.RpcError):
    """A failed call carrying a rich status, as the referee sends it."""

    def __init__(self, code: grpc.StatusCode, reason: str) -> None:
        info = error_details_pb2.ErrorInfo(reason=reason, domain=e.DOMAIN)
        detail = any_pb2.Any()
        detail.Pack(info)
        self._status = rpc_status.to_status(status_pb2.Status(
            code=code.value[0], message=f"{reason} happened", details=[detail]))

    def code(self) -> grpc.StatusCode:
        return self._status.code

    def details(self) -> str:
        return self._status.details

    def trailing_metadata(self) -> Any:
        return self._status.trailing_metadata


# The retry of VIEW_NOT_READY by gRPC's retry policy: tests/clients/test_retries.py.


@pytest.mark.parametrize(("code", "reason", "cls"), [
    (grpc.StatusCode.PERMISSION_DENIED, "HAND_IN_PROGRESS", e.HandInProgress),
    (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_RULING", e.InvalidRuling),
    (grpc.StatusCode.NOT_FOUND, "TOURNAMENT_NOT_FOUND", e.TournamentNotFound),
    (grpc.StatusCode.OUT_OF_RANGE, "ACTION_INDEX_OUT_OF_RANGE", e.ActionIndexOutOfRange),
    (grpc.StatusCode.UNAVAILABLE, "VIEW_NOT_READY", e.ViewNotReady),
    (grpc.StatusCode.UNAVAILABLE, "SERVER_STOPPING", e.ServerStopping),
])
def test_new_reasons_map_to_classes(code: grpc.StatusCode, reason: str,
                                    cls: type[e.RefereeError]) -> None:
    err = e.from_rpc_error(_RichError(code, reason))
    assert type(err) is cls and err.reason == reason and err.code == code.name
