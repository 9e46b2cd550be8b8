"""Issue 21, item 2: typed rulings, each with a reason and the rule cited; corrections and
withdrawals that point at the ruling they change; a correction window closed by a "results
final" event, after which only an appeal changes a result; standings provisional until then."""

from __future__ import annotations

import random
from typing import Any
from uuid import UUID

import pytest

from referee.application import Referee
from referee.domain.errors import (
    CommandIdReusedError,
    HandNotFinishedError,
    InvalidRulingError,
    ResultsFinalError,
)
from referee.tournaments import (
    attach_match,
    create_tournament,
    finalize_results,
    get_tournament,
    record_ruling,
    register_entrant,
)
from tests.application.conftest import AUDITOR
from tests.projections.conftest import play


def finished(app: Referee, game: str = "euchre", hands: int = 1, whole: bool = False,
             seed: int = 7) -> Any:
    c = app.create_match(game, rules={"target_score": 3} if game == "euchre" else {})
    play(app, c.match_id, c.seat_tokens, random.Random(seed),
         stop_after_hand=None if whole else hands)
    return c


def hand_points(app: Referee, match_id: UUID, hand: int) -> list[int]:
    result = app.get_match(match_id).hands[hand - 1].result
    assert result is not None
    return list(result["points"])


def test_penalty_correction_and_annul(app: Referee) -> None:
    c = finished(app)
    _, adjust, _ = record_ruling(app, c.match_id, AUDITOR, 1, "penalty", [2, 0], "revoke",
                                 rule="EU-18")
    assert adjust == [-2, 0]
    _, adjust, _ = record_ruling(app, c.match_id, AUDITOR, 1, "correction", [0, 1],
                                 "miscount", rule="EU-22")
    assert adjust == [0, 1]
    played = hand_points(app, c.match_id, 1)
    _, adjust, _ = record_ruling(app, c.match_id, AUDITOR, 1, "annul", [], "misdeal",
                                 rule="EU-4")
    assert adjust == [-p for p in played]
    rulings = app.get_match(c.match_id).rulings
    assert [(r["kind"], r["rule"]) for r in rulings] == [
        ("penalty", "EU-18"), ("correction", "EU-22"), ("annul", "EU-4")]
    with pytest.raises(InvalidRulingError):
        record_ruling(app, c.match_id, AUDITOR, 1, "penalty", [-1, 0], "negative")
    with pytest.raises(HandNotFinishedError):
        record_ruling(app, c.match_id, AUDITOR, 2, "penalty", [1, 0], "running hand")


def test_artificial_and_weighted_scores_share_the_hands_points(app: Referee) -> None:
    c = finished(app, "belot", seed=3)
    played = hand_points(app, c.match_id, 1)
    total = sum(played)
    _, adjust, _ = record_ruling(app, c.match_id, AUDITOR, 1, "artificial", [],
                                 "board fouled", grades=["average_plus", "average_minus"],
                                 rule="regulation 12.3")
    assert [p + a for p, a in zip(played, adjust, strict=True)] == [
        round(total * 0.6), round(total * 0.4)]
    _, adjust, _ = record_ruling(app, c.match_id, AUDITOR, 1, "weighted", [70, 30],
                                 "weighted split", rule="regulation 12.4")
    assert [p + a for p, a in zip(played, adjust, strict=True)] == [
        round(total * 0.7), round(total * 0.3)]
    with pytest.raises(InvalidRulingError):
        record_ruling(app, c.match_id, AUDITOR, 1, "weighted", [70, 20], "not 100")
    with pytest.raises(InvalidRulingError):
        record_ruling(app, c.match_id, AUDITOR, 1, "artificial", [], "bad grade",
                      grades=["excellent", "average"])


def test_withdraw_and_amend_point_at_the_ruling_they_change(app: Referee) -> None:
    c = finished(app)
    v1, _, _ = record_ruling(app, c.match_id, AUDITOR, 1, "penalty", [3, 0], "revoke")
    v2, adjust, _ = record_ruling(app, c.match_id, AUDITOR, 0, "amend", [-1, 0],
                                  "only one point", ref=v1)
    assert adjust == [2, 0]  # -3 becomes -1
    with pytest.raises(InvalidRulingError):  # already amended: change the newer one
        record_ruling(app, c.match_id, AUDITOR, 0, "withdraw", [], "again", ref=v1)
    _, adjust, _ = record_ruling(app, c.match_id, AUDITOR, 0, "withdraw", [], "no revoke",
                                 ref=v2)
    assert adjust == [-2, 0]
    total = [sum(r["adjust"][i] for r in app.get_match(c.match_id).rulings) for i in (0, 1)]
    assert total == [-3, 0]  # the penalty, its amendment (+2), the amendment withdrawn (-2)
    with pytest.raises(InvalidRulingError):
        record_ruling(app, c.match_id, AUDITOR, 0, "withdraw", [], "nothing", ref=999)


def test_a_retried_ruling_with_its_key_is_applied_once(app: Referee) -> None:
    c = finished(app)
    first = record_ruling(app, c.match_id, AUDITOR, 1, "penalty", [1, 0], "slow",
                          command_id="k1")
    again = record_ruling(app, c.match_id, AUDITOR, 1, "penalty", [1, 0], "slow",
                          command_id="k1")
    assert first[:2] == again[:2] and not first[2] and again[2]
    assert len(app.get_match(c.match_id).rulings) == 1
    with pytest.raises(CommandIdReusedError):
        record_ruling(app, c.match_id, AUDITOR, 1, "correction", [1, 0], "other",
                      command_id="k1")


def test_results_final_close_the_window_and_only_an_appeal_follows(app: Referee) -> None:
    tid = create_tournament(app, AUDITOR, "cup", "euchre")
    register_entrant(app, AUDITOR, tid, "north", ["n"])
    register_entrant(app, AUDITOR, tid, "east", ["e"])
    done = finished(app, whole=True)
    running = finished(app, hands=1, seed=2)
    attach_match(app, AUDITOR, tid, done.match_id, ["north", "east"])
    attach_match(app, AUDITOR, tid, running.match_id, ["east", "north"])
    record_ruling(app, done.match_id, AUDITOR, 1, "penalty", [1, 0], "before the close")
    version, final = finalize_results(app, AUDITOR, tid, command_id="close")
    assert final == [str(done.match_id)]  # the running match is not final
    assert get_tournament(app, tid).final
    assert finalize_results(app, AUDITOR, tid, command_id="close") == (version, final)
    with pytest.raises(ResultsFinalError):
        record_ruling(app, done.match_id, AUDITOR, 1, "correction", [1, 0], "too late")
    _, adjust, _ = record_ruling(app, done.match_id, AUDITOR, 1, "appeal", [1, 0],
                                 "appeal upheld", rule="regulation 16")
    assert adjust == [1, 0]
    record_ruling(app, running.match_id, AUDITOR, 1, "penalty", [1, 0], "still open")
    kinds = [type(e).__name__ for e in app.repository.event_store.get(done.match_id)]
    assert "ResultsFinalized" in kinds
