"""Issue 21, item 2: a hand cancelled and replayed (the ``redeal`` ruling) on the read side:
the scoreboard drops the void hands and lists the ruling with the new deal's commitment, the
read side's export equals the write side's (cancelled deals apart, ``referee verify`` accepts
it), the replay's timeline shows the ruling, and a table that dealt a board hand anew leaves
the board's comparison."""

from __future__ import annotations

import random

import pytest

from referee.application import Referee
from referee.domain.errors import BoardInPlayError
from referee.rules.cards import CARD_NAMES
from referee.rules.registry import find_game
from referee.tournaments import attach_match, create_tournament, record_ruling, register_entrant
from referee.verify import verify_data
from referee_projections.queries import Queries
from tests.projections.conftest import AUDITOR, play
from tests.projections.test_one_result import catch_up

TEN = {"target_score": 10}


def test_every_surface_shows_the_redeal(app: Referee) -> None:
    c = app.create_match("euchre", TEN)
    play(app, c.match_id, c.seat_tokens, random.Random(1), stop_after_hand=1)
    first = app.get_match(c.match_id).hands[0]
    record_ruling(app, c.match_id, AUDITOR, 1, "redeal", [], "misdeal found", rule="EU-4",
                  command_id="r1")
    replay = app.get_match(c.match_id).hand
    play(app, c.match_id, c.seat_tokens, random.Random(2), stop_after_hand=2)
    catch_up(app)
    q = Queries(app)
    board = q.scoreboard(c.match_id, c.spectator_token)
    assert [h["hand"] for h in board["hands"]] == [1, 2]
    m = app.get_match(c.match_id)
    assert board["scores"] == list(m.match_state.scores)
    ruling = board["rulings"][-1]
    assert (ruling["kind"], ruling["reason"], ruling["rule"], ruling["hands"]) == (
        "redeal", "misdeal found", "EU-4", [1, 2])
    assert ruling["commitment"] == replay.commitment
    assert board["adjusted_scores"] == board["scores"]  # a redeal changes no score
    # Both exports say the same; verify accepts them.
    mine, _ = app.match_record(c.match_id, c.seat_tokens[0])
    theirs = q.match_record(c.match_id, c.seat_tokens[0])
    assert mine == theirs
    assert [d["hand"] for d in mine["cancelled"]] == [1, 2]
    assert mine["cancelled"][0]["pack"] == first.cards
    assert mine["cancelled"][0]["replay"] == replay.commitment
    assert "rulings" not in mine  # the redeal is in "cancelled", not a score ruling
    code, out = verify_data(theirs)
    assert code == 0, out
    # The dispute replay of the hand dealt anew shows the ruling in its timeline.
    steps = q.replay(c.match_id, 1, 0, c.seat_tokens[0])
    assert any(t["type"] == "ruling" and t["kind"] == "redeal" for t in steps["timeline"])
    assert steps["dealer"] == first.dealer


def test_a_board_hand_dealt_anew_leaves_the_comparison(app: Referee) -> None:
    pack = [CARD_NAMES[c] for c in find_game("euchre").pack]
    random.Random(3).shuffle(pack)
    tid = create_tournament(app, AUDITOR, "pairs", "euchre")
    for e in ("a", "b", "c", "d", "e", "f"):
        register_entrant(app, AUDITOR, tid, e, [e])
    tables = [app.create_match("euchre", TEN, fixed_deals=[pack]) for _ in range(3)]
    for t, sides in zip(tables, (["a", "b"], ["c", "d"], ["e", "f"]), strict=True):
        attach_match(app, AUDITOR, tid, t.match_id, sides, board="1")
    record_ruling(app, tables[0].match_id, AUDITOR, 1, "redeal", [], "deck fouled")
    # The cancelled deal is the board's pack: hidden on the read side while others play it.
    catch_up(app)
    q = Queries(app)
    for token in (tables[0].seat_tokens[0], tables[0].spectator_token):
        with pytest.raises(BoardInPlayError):
            q.match_record(tables[0].match_id, token)
    assert q.match_record(tables[0].match_id, AUDITOR)["cancelled"][0]["pack"] == pack
    for i, t in enumerate(tables):
        play(app, t.match_id, t.seat_tokens, random.Random(10 + i), stop_after_hand=1)
    catch_up(app)
    boards = Queries(app).standings(tid)["boards"]
    assert [(b["board"], b["hand"]) for b in boards] == [("1", 1)]
    assert {t["match_id"] for t in boards[0]["tables"]} == {
        str(tables[1].match_id), str(tables[2].match_id)}
