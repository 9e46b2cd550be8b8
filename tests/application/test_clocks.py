"""Issue 19: clocks. Time controls validated at creation; every policy (auto, forfeit, pause) in
every game; the edges: an action just before its deadline wins, one just after is refused
naming the timeout, a restart during a countdown, two servers racing for one timeout, and the
arbiter's pause and resume. Real time, short limits (a few hundred milliseconds)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import UUID

import pytest

from referee.application import Referee
from referee.config import settings_from_env
from referee.domain.clock import Clock, TimeControl
from referee.domain.errors import (
    ClockPausedError,
    ClockStateError,
    InvalidTimeControlError,
    PermissionDeniedError,
    TimedOutError,
)
from referee.domain.match import Match
from referee.rules.cards import parse_card
from referee.rules.game import default_action, forfeit_winner, side_of
from referee.rules.registry import GAMES
from referee.verify import verify_data
from tests.application.conftest import AUDITOR

QUICK = {"action_ms": 150, "lag_ms": 0}


def eventually(cond: Callable[[], Any], what: str, timeout: float = 10.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = cond()
        if value:
            return value
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def first_state(app: Referee, match_id: Any) -> tuple[Any, int]:
    """Hand 1's state at its deal and its first seat to act, from the recorded deal (not the
    live match, which the timers may have moved on already on a slow machine)."""
    m = app.get_match(match_id)
    game, first = m.game, m.hands[0]
    state = game.new_hand(game.deal([parse_card(c) for c in first.cards], first.dealer),
                          first.dealer, m.rules)
    seat = game.current_seat(state)
    assert seat is not None
    return state, seat


def events(app: Referee, match_id: Any) -> list[Any]:
    return list(app.repository.event_store.get(match_id))


# -- the time control ------------------------------------------------------------------------
@pytest.mark.parametrize(("given", "field"), [
    ({}, "action_ms"),  # neither a per-action limit nor a bank
    ({"action_ms": -1}, "action_ms"),
    ({"action_ms": 86_400_001}, "action_ms"),
    ({"action_ms": 1.5}, "action_ms"),
    ({"action_ms": True}, "action_ms"),
    ({"bank_ms": 604_800_001}, "bank_ms"),
    ({"action_ms": 1000, "increment_ms": 500}, "increment_ms"),  # an increment needs a bank
    ({"action_ms": 1000, "lag_ms": 60_001}, "lag_ms"),
    ({"action_ms": 1000, "policy": "forfeit_hand"}, "policy"),
    ({"action_ms": 1000, "per_move": 5}, "per_move"),
])
def test_a_bad_time_control_is_refused_naming_the_field(given: dict[str, Any], field: str
                                                         ) -> None:
    with pytest.raises(InvalidTimeControlError) as err:
        TimeControl.from_dict(given)
    assert err.value.metadata["field"] == field


def test_the_bank_pays_for_time_beyond_the_action_allowance_and_the_increment_refills_it(
) -> None:
    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    clock = Clock.start(TimeControl(action_ms=1000, bank_ms=5000, increment_ms=200,
                                    lag_ms=300), seats=4)
    clock.turn_begins(t0)
    assert clock.deadline(1) == t0 + timedelta(milliseconds=1000 + 5000 + 300)
    clock.acted(1, t0 + timedelta(milliseconds=2500))  # 1.5 s over the allowance
    assert clock.banks_ms == [5000, 5000 - 1500 + 200, 5000, 5000]
    clock.acted(2, t0 + timedelta(milliseconds=3000))  # 0.5 s: within the allowance
    assert clock.banks_ms[2] == 5200
    # A pause keeps what the turn had used; resuming goes on from there.
    clock.pause(t0 + timedelta(milliseconds=3400))
    assert clock.deadline(3) is None
    clock.resume(t0 + timedelta(milliseconds=60_000), add_ms=0)
    assert clock.deadline(3) == t0 + timedelta(milliseconds=60_000 - 400 + 6300)
    assert Clock.from_state(clock.to_state()) == clock


def test_an_untimed_match_has_no_clock(app: Referee) -> None:
    c = app.create_match("euchre")
    assert app.get_view(c.match_id, c.seat_tokens[0]).clock is None
    with pytest.raises(ClockStateError):
        app.pause_clocks(c.match_id, AUDITOR, "no clock here")


# -- the policies, in every game -------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(GAMES))
def test_auto_the_referee_takes_the_default_action_for_the_seat(app: Referee, name: str
                                                                ) -> None:
    game = GAMES[name]
    c = app.create_match(name, time_control={**QUICK, "policy": "auto"})
    start, seat = first_state(app, c.match_id)
    expected = game.format_action(default_action(game, start))
    # The deadline passes: the referee acts for the seat, marked as a timeout.
    after = eventually(lambda: (m := app.get_match(c.match_id)).hand.timeouts and m,
                       "the first timeout")
    # The seat's own action, too late, is refused naming the timeout event (sent at once:
    # the next seat's deadline is only 150 ms away, and after it the turn is past it).
    with pytest.raises(TimedOutError) as err:
        app.submit_action(c.match_id, c.seat_tokens[seat], expected)
    assert err.value.metadata["seat"] == str(seat)
    assert int(err.value.metadata["timeoutVersion"]) >= 3
    assert after.hand.actions[0] == (seat, expected)
    assert after.hand.timeouts[0] == 0
    kinds = [type(e).__name__ for e in events(app, c.match_id)]
    assert kinds[kinds.index("TimedOut") + 1] == "ActionTaken"
    # A legal default: pass in an auction where it is legal.
    if any(game.format_action(a) == "pass" for a in game.legal_actions(start)):
        assert expected == "pass"
    record, _ = app.hand_record(c.match_id, 1, AUDITOR)
    assert record["actions"][0] == {"seat": seat, "action": expected, "timeout": True}


@pytest.mark.parametrize("name", sorted(GAMES))
def test_forfeit_the_seats_side_loses_the_match(app: Referee, name: str) -> None:
    game = GAMES[name]
    c = app.create_match(name, time_control={**QUICK, "policy": "forfeit"})
    _, seat = first_state(app, c.match_id)
    over = eventually(lambda: (m := app.get_match(c.match_id)).over and m, "the forfeit")
    winner = over.match_state.winner
    assert winner is not None and winner != side_of(game, seat)
    assert winner == forfeit_winner(game, [0] * len(over.match_state.scores), seat)
    assert over.forfeit == {"seat": seat, "hand": 1}
    assert [type(e).__name__ for e in events(app, c.match_id)][-2:] == ["TimedOut",
                                                                         "MatchEnded"]
    record, finished = app.match_record(c.match_id, c.spectator_token)
    assert finished and record["result"]["forfeit"] == {"seat": seat, "hand": 1}
    code, report = verify_data(record)
    assert code == 0 and report["result"]["winner"] == winner, report
    # A record that claims another winner for the forfeit does not verify.
    record["result"]["winner"] = side_of(game, seat)
    assert verify_data(record)[0] == 1


@pytest.mark.parametrize("name", sorted(GAMES))
def test_pause_the_table_waits_for_the_arbiter(app: Referee, name: str) -> None:
    c = app.create_match(name, time_control={**QUICK, "policy": "pause"})
    _, seat = first_state(app, c.match_id)
    eventually(lambda: (m := app.get_match(c.match_id)).clock and m.clock.paused, "the pause")
    view = app.get_view(c.match_id, c.seat_tokens[seat])
    assert view.clock is not None and view.clock["paused"] and view.clock["deadline"] is None
    legal = view.legal_actions[0]
    with pytest.raises(TimedOutError):  # the seat's late action names the timeout
        app.submit_action(c.match_id, c.seat_tokens[seat], legal)
    # The arbiter resumes with more time: the seat's turn begins afresh and it may act.
    app.resume_clocks(c.match_id, AUDITOR, add_ms=5000)
    view = app.get_view(c.match_id, c.seat_tokens[seat])
    assert view.clock is not None and not view.clock["paused"]
    assert view.clock["left_ms"] > 4000
    answer = app.submit_action(c.match_id, c.seat_tokens[seat], legal)
    assert answer.outcome.seat == seat


# -- the edges ----------------------------------------------------------------------------
def test_an_action_before_the_deadline_wins(app: Referee) -> None:
    c = app.create_match("euchre", time_control={"action_ms": 3000, "lag_ms": 0})
    seat = app.get_match(c.match_id).to_act
    assert seat is not None
    time.sleep(0.5)
    app.submit_action(c.match_id, c.seat_tokens[seat], "pass")
    m = app.get_match(c.match_id)
    assert m.hand.actions == [(seat, "pass")] and m.hand.timeouts == []
    assert m.to_act == (seat + 1) % 4  # the next seat's turn, with its own full allowance
    deadline = m.deadline()
    assert deadline is not None and deadline > datetime.now(UTC) + timedelta(milliseconds=1500)


def test_an_action_after_the_deadline_records_the_timeout_and_is_refused(
        env: dict[str, str]) -> None:
    """The server that had the timer is gone: the late action itself finds the deadline
    passed, records the timeout first and is refused naming it."""
    first = Referee(settings_from_env(env))
    c = first.create_match("euchre", time_control={"action_ms": 100, "lag_ms": 0,
                                                    "policy": "pause"})
    first.close()
    time.sleep(0.3)
    second = Referee(settings_from_env(env))
    try:
        seat = 1  # first to speak after dealer 0
        with pytest.raises(TimedOutError) as err:
            second.submit_action(c.match_id, c.seat_tokens[seat], "pass")
        version = int(err.value.metadata["timeoutVersion"])
        stored = events(second, c.match_id)
        assert type(stored[version - 1]).__name__ == "TimedOut"
        assert stored[version - 1].seat == seat
        with pytest.raises(ClockPausedError):  # another seat: the table waits
            second.submit_action(c.match_id, c.seat_tokens[2], "pass")
        refused = [r.reason for r in second.list_rejections(AUDITOR, str(c.match_id))]
        assert refused == ["TIMED_OUT", "CLOCK_PAUSED"]
    finally:
        second.close()


def test_a_restart_during_a_countdown_fires_late_by_at_most_the_downtime(
        env: dict[str, str]) -> None:
    first = Referee(settings_from_env(env))
    c = first.create_match("belot", time_control={"action_ms": 800, "lag_ms": 0})
    deadline = first.get_match(c.match_id).deadline()
    first.close()  # down before the deadline
    time.sleep(0.2)
    second = Referee(settings_from_env(env))
    try:
        second.start_timers()  # as referee serve does: recovered from the log
        timed_out = eventually(
            lambda: [e for e in events(second, c.match_id) if isinstance(e, Match.TimedOut)],
            "the recovered timeout")
        assert deadline is not None
        late = timed_out[0].timestamp - deadline
        assert timedelta(0) <= late < timedelta(seconds=2), late
    finally:
        second.close()


def test_a_restart_after_the_deadline_fires_at_once(env: dict[str, str]) -> None:
    first = Referee(settings_from_env(env))
    c = first.create_match("coinche", time_control={"action_ms": 100, "lag_ms": 0,
                                                     "policy": "forfeit"})
    first.close()
    time.sleep(0.4)  # the deadline passes while no server runs
    second = Referee(settings_from_env(env))
    try:
        second.start_timers()
        eventually(lambda: second.get_match(c.match_id).over, "the forfeit after the restart")
    finally:
        second.close()


@pytest.fixture
def replicas(env: dict[str, str]) -> Iterator[tuple[Referee, Referee]]:
    a, b = Referee(settings_from_env(env)), Referee(settings_from_env(env))
    a.start_timers()
    b.start_timers()
    yield a, b
    a.close()
    b.close()


def test_two_servers_record_exactly_one_timeout_per_turn(
        replicas: tuple[Referee, Referee]) -> None:
    """Both servers keep the deadline of every turn and both fire; the store lets one
    timeout through and the other server takes up the next deadline."""
    a, b = replicas
    c = a.create_match("euchre", time_control={"action_ms": 120, "lag_ms": 0})
    b.get_match(c.match_id)  # b knows it too (its follower would find it within a second)
    eventually(lambda: len(a.get_match(c.match_id).hand.timeouts) >= 6, "six timeouts", 20)
    stored = events(a, c.match_id)
    kinds = [type(e).__name__ for e in stored]
    for i, kind in enumerate(kinds):
        if kind == "TimedOut":  # each followed by the referee's one action for that seat
            assert kinds[i + 1] == "ActionTaken" and stored[i + 1].seat == stored[i].seat
    assert "TimedOut,TimedOut" not in ",".join(kinds)
    record, _ = a.match_record(c.match_id, AUDITOR)
    assert verify_data(record)[0] == 0


def test_the_arbiter_pauses_and_resumes_a_table(app: Referee) -> None:
    c = app.create_match("ulti", time_control={"action_ms": 3000, "lag_ms": 0})
    app.pause_clocks(c.match_id, AUDITOR, "a player lost the connection")
    _, seat = first_state(app, c.match_id)
    with pytest.raises(PermissionDeniedError):
        app.pause_clocks(c.match_id, c.seat_tokens[seat], "mine")
    with pytest.raises(ClockStateError):
        app.pause_clocks(c.match_id, AUDITOR, "again")
    time.sleep(3.2)  # longer than the allowance: a paused clock does not run
    m = app.get_match(c.match_id)
    assert m.hand.timeouts == [] and m.clock is not None and m.clock.paused
    with pytest.raises(ClockPausedError):
        app.submit_action(c.match_id, c.seat_tokens[seat],
                          app.get_view(c.match_id, c.seat_tokens[seat]).legal_actions[0])
    app.resume_clocks(c.match_id, AUDITOR)
    view = app.get_view(c.match_id, c.seat_tokens[seat])
    assert view.clock is not None and 0 < view.clock["left_ms"] <= 3000
    with pytest.raises(ClockStateError):
        app.resume_clocks(c.match_id, AUDITOR)
    kinds = [type(e).__name__ for e in events(app, c.match_id)]
    assert kinds[-2:] == ["ClockPaused", "ClockResumed"]


def test_the_viewer_marks_the_referees_actions(app: Referee) -> None:
    """Issue 19: timeouts are marked in records, replays and the viewer."""
    from referee.rules.render import render_hand, replay_for_view

    c = app.create_match("euchre", time_control={**QUICK, "policy": "auto"})
    eventually(lambda: len(app.get_match(c.match_id).hand.timeouts) >= 2, "two timeouts")
    record, _ = app.hand_record(c.match_id, 1, AUDITOR)
    replayed = replay_for_view(record)
    assert [s.timeout for s in replayed.steps[:2]] == [True, True]
    page = render_hand(replayed)
    assert page.count("time ran out: the referee") >= 2


def test_the_timers_keep_one_entry_per_table_however_often_it_acts() -> None:
    """Each action reschedules its table's deadline; superseded entries do not pile up."""
    from referee.application.clocks import Timers

    fired: list[Any] = []
    timers = Timers(fired.append)
    try:
        t0 = datetime.now(UTC)

        class Table:  # what Timers.watch reads of a match
            def __init__(self) -> None:
                self.id, self.version, self.clock = UUID(int=1), 0, object()

            def deadline(self) -> datetime:
                return t0 + timedelta(hours=1, seconds=self.version)

        table = Table()
        for v in range(5000):
            table.version = v
            timers.watch(table)  # type: ignore[arg-type]
        assert len(timers) == 1 and len(timers._heap) <= 2 + 1024 + 1
        assert timers.deadline(table.id) == t0 + timedelta(hours=1, seconds=4999)
        assert fired == []
    finally:
        timers.close()
