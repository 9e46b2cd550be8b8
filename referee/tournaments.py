"""Use cases beside the play path: tournaments and rulings (the auditor's role).

They sit in their own module over :class:`~referee.application.Referee` and write the way
actions do: a ruling appends one ``RulingRecorded`` event to the live match under the match's
lock and through the group committer (``Referee.update_match``), so a concurrent action in this
process is serialised with it, not turned into a version conflict; tournament commands hold the
tournament's lock and go through the same committer (``Referee.updating``). Only a write by
another process first makes a VERSION_CONFLICT.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError
from eventsourcing.utils import get_topic

from referee import limits
from referee.application import Referee
from referee.domain.errors import (
    CommandIdReusedError,
    HandNotFinishedError,
    HandNotFoundError,
    InvalidRulingError,
    MalformedRequestError,
    ResultsFinalError,
    TournamentNotFoundError,
)
from referee.domain.match import Match
from referee.domain.result import ABANDONMENT_POLICIES, REDEAL, match_result
from referee.domain.tournament import Tournament
from referee.rules.registry import find_game

RULING_KINDS = ("penalty", "annul", "correction", "artificial", "weighted", "withdraw", "amend",
                "appeal", REDEAL)
#: Artificial scores: a share of the hand's points as played (duplicate play's A+, A, A-).
GRADES = {"average_plus": 60, "average": 50, "average_minus": 40}
#: Most points one ruling may take from or add to a side: far beyond any game's scores, and
#: small enough that scores stay inside the API's int64 (leaving it takes ~10**13 rulings).
limits.MAX_RULING_POINTS = 1_000_000
_CREATED_TOPIC = get_topic(Tournament.Created)


def record_ruling(
    app: Referee, match_id: UUID, token: str, hand: int, kind: str, points: list[int],
    reason: str, command_id: str = "", *, rule: str = "", ref: int = 0,
    grades: list[str] | None = None,
) -> tuple[int, list[int], bool]:
    """Record a ruling; return the match's version after it, the adjustment added to each
    side's score, and whether this was a retry answered from the record.

    Kinds (docs/tournaments.md): ``penalty`` (``points[i]`` >= 0 taken from side ``i``),
    ``correction`` (``points`` added), ``annul`` (the hand's effect undone), ``artificial``
    (``grades``: each side gets ``average_plus``, ``average`` or ``average_minus``: 60, 50 or
    40% of the hand's points as played), ``weighted`` (``points``: each side's percentage of
    the hand's points, summing to 100), ``withdraw`` (undo the ruling at version ``ref``),
    ``amend`` (the ruling at ``ref`` should have adjusted by ``points``), ``appeal``
    (``points`` added; the only kind once the results are final), ``redeal`` (the hand in
    progress, or the last scored hand while the match goes on, is cancelled and dealt anew
    at once: ``Match.cancel_hand``; the version answered is the new deal's). ``rule``: the rule or
    regulation cited. ``command_id``: an idempotency key (a retry is applied once and
    answered the same; the key for another ruling: COMMAND_ID_REUSED).
    """
    limits.check_length("command_id", command_id, limits.MAX_COMMAND_ID, "characters")
    limits.check_length("rule", rule, limits.MAX_STRING, "characters")
    app.tokens.require_auditor(token)
    if kind not in RULING_KINDS:
        raise InvalidRulingError(f"ruling kind must be one of {', '.join(RULING_KINDS)}",
                                 kind=kind)
    if not reason.strip():
        raise InvalidRulingError("a ruling needs a reason")

    def rule_on(match: Match) -> tuple[int, list[int], bool]:
        done = match.ruling_commands.get(command_id) if command_id else None
        if done is not None:
            asked = (kind, reason.strip(), ref)
            same = ((done["kind"], done["reason"], done.get("ref", 0)) == asked
                    and (kind in ("withdraw", "amend") or done["hand"] == hand))
            if not same:
                raise CommandIdReusedError(
                    f"command id {command_id!r} was used for another ruling (hand "
                    f"{done['hand']}, {done['kind']})", commandId=command_id)
            return done.get("replay", done)["version"], list(done["adjust"]), True
        if match.results_final and kind != "appeal":
            raise ResultsFinalError(
                "the match's result is final (its tournament closed the correction window): "
                "only an appeal ruling may change it", kind=kind)
        if kind == REDEAL:
            match.cancel_hand(hand, reason.strip(), rule.strip(), command_id=command_id)
            app.deal_next(match)
            return match.version, [0] * len(match.match_state.scores), False
        on, adjust = _adjustment(app, match, hand, kind, points, ref, grades or [])
        match.record_ruling(on, kind, adjust, reason.strip(), command_id=command_id,
                            rule=rule.strip(), ref=ref)
        return match.version, adjust, False

    # Under the match's lock and through the group committer, as actions are.
    return app.update_match(match_id, rule_on)


def _adjustment(app: Referee, match: Match, hand: int, kind: str, points: list[int],
                ref: int, grades: list[str]) -> tuple[int, list[int]]:
    """The hand ruled on and the adjustment per side (see :func:`record_ruling`).
    :raises InvalidRulingError, HandNotFoundError, HandNotFinishedError:"""
    sides = len(match.match_state.scores)
    if kind in ("withdraw", "amend"):
        earlier = next((r for r in match.rulings if r["version"] == ref), None)
        if earlier is None or ref <= 0:
            raise InvalidRulingError(f"{kind} names the ruling it changes: ref must be the "
                                     f"version of a ruling of this match, not {ref}", ref=ref)
        if earlier["kind"] == REDEAL:
            raise InvalidRulingError(f"the ruling at version {ref} cancelled a hand, which "
                                     "was dealt anew: a redeal cannot be undone", ref=ref)
        if any(r["ref"] == ref for r in match.rulings if r["kind"] in ("withdraw", "amend")):
            raise InvalidRulingError(f"the ruling at version {ref} was already withdrawn or "
                                     "amended: change the newer ruling", ref=ref)
        if kind == "withdraw":
            return earlier["hand"], [-a for a in earlier["adjust"]]
        _check_points(points, sides)
        return earlier["hand"], [p - a for p, a in zip(points, earlier["adjust"], strict=True)]
    if not 1 <= hand <= len(match.hands):
        raise HandNotFoundError(
            f"hand {hand} does not exist (hands 1..{len(match.hands)})", hand=hand)
    log = match.hands[hand - 1]
    if log.result is None:
        raise HandNotFinishedError(f"hand {hand} is not over yet", hand=hand)
    played = list(log.result["points"])
    if kind == "annul":
        return hand, [-x for x in _hand_effect(app, match, hand)]
    if kind == "artificial":
        if len(grades) != sides or any(g not in GRADES for g in grades):
            raise InvalidRulingError(
                f"grades must give each of the {sides} sides one of {', '.join(GRADES)}")
        total = sum(played)
        return hand, [round(total * GRADES[g] / 100) - p
                      for g, p in zip(grades, played, strict=True)]
    _check_points(points, sides)
    if kind == "weighted":
        if any(p < 0 for p in points) or sum(points) != 100:
            raise InvalidRulingError("weighted: points are each side's percentage of the "
                                     "hand's points, >= 0 and summing to 100")
        total = sum(played)
        return hand, [round(total * w / 100) - p for w, p in zip(points, played, strict=True)]
    if kind == "penalty" and any(p < 0 for p in points):
        raise InvalidRulingError("penalty points are taken away: give them as >= 0")
    return hand, [-p for p in points] if kind == "penalty" else list(points)


def _check_points(points: list[int], sides: int) -> None:
    if len(points) != sides:
        raise InvalidRulingError(f"points must list {sides} values, one per side")
    if any(abs(p) > limits.MAX_RULING_POINTS for p in points):
        most = limits.MAX_RULING_POINTS
        raise InvalidRulingError(f"points must be within -{most}..{most}", limit=most)


def release_board(app: Referee, token: str, tournament_id: UUID, board: str,
                  command_id: str = "") -> int:
    """Let every table's callers read duplicate board ``board`` before all tables have
    played it (auditor only; an event). Returns the tournament's version."""
    app.tokens.require_auditor(token)
    limits.check_length("command_id", command_id, limits.MAX_COMMAND_ID, "characters")
    with app.updating(tournament_id) as commit:
        t = get_tournament(app, tournament_id)
        before = _replayed(t, command_id, "release", board)
        if before is not None:
            return before
        if board not in {m["board"] for m in t.matches.values()} - {""}:
            raise MalformedRequestError(f"the tournament has no board {board!r}", board=board)
        if board not in t.released:
            t.release(board, command_id)
            commit(t)
        return t.version


def finalize_results(app: Referee, token: str, tournament_id: UUID, command_id: str = ""
                     ) -> tuple[int, list[str]]:
    """Close the tournament's correction window: a ``ResultsFinalized`` event on the
    tournament and on each of its matches that is over (their results are final: later
    rulings on them must be appeals). Returns the tournament's version and the matches made
    final. A retry (``command_id``) finishes what a failed attempt left undone."""
    app.tokens.require_auditor(token)
    limits.check_length("command_id", command_id, limits.MAX_COMMAND_ID, "characters")
    with app.updating(tournament_id) as commit:
        t = get_tournament(app, tournament_id)
        version = _replayed(t, command_id, "finalize")
        if version is None:
            t.finalize("auditor", command_id)
            commit(t)
            version = t.version
        matches = list(t.matches)
    final: list[str] = []
    for mid in matches:
        def close(match: Match) -> bool:
            if match.over:
                match.finalize_results("auditor", str(tournament_id))
            return match.over
        if app.update_match(UUID(mid), close):
            final.append(mid)
    return version, final


def _hand_effect(app: Referee, match: Match, hand: int) -> list[int]:
    """How much hand ``hand`` changed the match scores (from the HandScored events)."""
    before: list[int] = [0] * len(match.match_state.scores)
    effect: list[int] | None = None
    for e in app.repository.event_store.get(match.id, lte=match.version):
        if isinstance(e, Match.HandCancelled):  # a redeal: the hands from e.hand on are void
            before = list(e.scores)
            effect = None if e.hand <= hand else effect
        elif isinstance(e, Match.HandScored):
            scores = list(e.scores)
            if e.hand == hand:
                effect = [a - b for a, b in zip(scores, before, strict=True)]
            before = scores
    if effect is None:
        raise HandNotFinishedError(f"hand {hand} is not over yet", hand=hand)
    return effect


# -- tournaments -----------------------------------------------------------------------------
def create_tournament(app: Referee, token: str, name: str, game: str, command_id: str = "",
                      abandonment: str = "") -> UUID:
    """Create a tournament; return its id. With a ``command_id`` (idempotency key) the id is
    derived from it: a retry answers the same id (COMMAND_ID_REUSED if the key created
    another tournament). ``abandonment``: how a match ended as abandoned is scored,
    ``forfeit`` (the default) or ``adjusted`` (``referee.domain.result``)."""
    return create_tournament_once(app, token, name, game, command_id, abandonment)[0]


def create_tournament_once(app: Referee, token: str, name: str, game: str,
                           command_id: str = "", abandonment: str = "") -> tuple[UUID, bool]:
    """:func:`create_tournament`, also saying whether it was a retry answered as before."""
    app.tokens.require_auditor(token)
    abandonment = abandonment or ABANDONMENT_POLICIES[0]
    if abandonment not in ABANDONMENT_POLICIES:
        raise MalformedRequestError(
            f"abandonment must be one of {', '.join(ABANDONMENT_POLICIES)}, not "
            f"{abandonment!r}", field="abandonment")
    limits.check_length("command_id", command_id, limits.MAX_COMMAND_ID, "characters")
    if not name.strip():
        raise MalformedRequestError("a tournament needs a name")
    limits.check_name("name", name, limits.MAX_TITLE)
    try:
        g = find_game(game)
    except ValueError as exc:
        raise MalformedRequestError(str(exc), game=game) from None
    t = Tournament(name=name.strip(), game=g.name, command_id=command_id,
                   abandonment=abandonment)
    with app.updating(t.id) as commit:
        if command_id:
            try:
                earlier = get_tournament(app, t.id)
            except TournamentNotFoundError:
                earlier = None
            if earlier is not None:
                if (earlier.name, earlier.game) != (t.name, t.game):
                    raise CommandIdReusedError(
                        f"command id {command_id!r} created another tournament "
                        f"({earlier.name!r})", commandId=command_id)
                return t.id, True
        commit(t)
    return t.id, False


def get_tournament(app: Referee, tournament_id: UUID) -> Tournament:
    """:raises TournamentNotFoundError: no tournament has this id (a match's id included: its
    log is never replayed here)."""
    first = app.recorder.select_events(tournament_id, limit=1)
    t: Any = None
    if first and first[0].topic == _CREATED_TOPIC:
        try:
            t = app.repository.get(tournament_id)
        except AggregateNotFoundError:
            t = None
    if not isinstance(t, Tournament):
        raise TournamentNotFoundError(f"no tournament {tournament_id}",
                                      tournamentId=tournament_id)
    return t


def _replayed(t: Tournament, command_id: str, what: str, *args: Any) -> int | None:
    """The version a command with this idempotency key made, if it was made (a retry);
    :raises CommandIdReusedError: the key was used for another command."""
    done = t.commands.get(command_id) if command_id else None
    if done is None:
        return None
    if (done[0], done[1]) != (what, args):
        raise CommandIdReusedError(f"command id {command_id!r} was used for another {done[0]}",
                                   commandId=command_id)
    return done[2]


def register_entrant(
    app: Referee, token: str, tournament_id: UUID, entrant: str, members: list[str],
    command_id: str = "",
) -> int:
    """Register an entrant; return the tournament's version after it (with a ``command_id``,
    a retry is answered with the same version)."""
    app.tokens.require_auditor(token)
    limits.check_length("command_id", command_id, limits.MAX_COMMAND_ID, "characters")
    with app.updating(tournament_id) as commit:  # the tournament's lock, the group committer
        t = get_tournament(app, tournament_id)
        before = _replayed(t, command_id, "register", entrant, list(members))
        if before is not None:
            return before
        if not entrant.strip():
            raise MalformedRequestError("an entrant needs a name")
        limits.check_name("entrant", entrant, limits.MAX_TITLE)
        for i, member in enumerate(members):
            limits.check_name(f"members[{i}]", member, limits.MAX_PLAYER_NAME)
        if entrant in t.entrants:
            raise MalformedRequestError(f"entrant {entrant!r} is already registered",
                                        entrant=entrant)
        t.register(entrant, list(members), command_id)
        commit(t)
        return t.version


def attach_match(
    app: Referee, token: str, tournament_id: UUID, match_id: UUID, sides: list[str],
    board: str = "", command_id: str = "",
) -> int:
    """Attach a match; return the tournament's version after it (with a ``command_id``, a
    retry is answered with the same version)."""
    app.tokens.require_auditor(token)
    limits.check_length("command_id", command_id, limits.MAX_COMMAND_ID, "characters")
    match = app.get_match(match_id)  # read only (a copy): its lock is not held below
    with app.updating(tournament_id) as commit:  # the tournament's lock, the group committer
        t = get_tournament(app, tournament_id)
        before = _replayed(t, command_id, "attach", str(match_id), list(sides), board)
        if before is not None:
            return before
        if match.game_name != t.game:
            raise MalformedRequestError(
                f"the match plays {match.game_name}, the tournament {t.game}")
        n = len(match.match_state.scores)
        if len(sides) != n:
            raise MalformedRequestError(f"sides must name {n} entrants, one per side")
        unknown = [s for s in sides if s not in t.entrants]
        if unknown:
            raise MalformedRequestError(f"not registered: {', '.join(unknown)}")
        if len(set(sides)) != len(sides):
            raise MalformedRequestError("an entrant cannot play both sides")
        if str(match_id) in t.matches:
            raise MalformedRequestError("the match is already attached", matchId=match_id)
        if board and not match.fixed_deals:
            raise MalformedRequestError(
                "a duplicate board needs a match created with fixed deals")
        t.attach(str(match_id), list(sides), board, command_id)
        commit(t)
        version = t.version
    if board:  # the match keeps its board: its reads are withheld while others play it
        app.update_match(match_id, lambda m: m.assign_board(str(tournament_id), board))
    return version


def abandon_match(app: Referee, token: str, match_id: UUID, at_fault: list[bool], reason: str,
                  tournament_id: UUID | None = None, command_id: str = ""
                  ) -> tuple[int, int | None, bool]:
    """End a match as abandoned, the fault assigned per side (``at_fault``), scored by the
    abandonment policy of ``tournament_id`` (which the match must be attached to; none: a
    forfeit). Returns the match's version, its official winner (``referee.domain.result``)
    and whether this was a retry answered from the record (auditor only; an event).

    :raises MalformedRequestError: no reason, ``at_fault`` not one value per side, a match
        not attached to the tournament.
    :raises MatchOverError: the match is over."""
    app.tokens.require_auditor(token)
    limits.check_length("command_id", command_id, limits.MAX_COMMAND_ID, "characters")
    if not reason.strip():
        raise MalformedRequestError("an abandonment needs a reason", field="reason")
    policy = ABANDONMENT_POLICIES[0]
    if tournament_id is not None:
        t = get_tournament(app, tournament_id)
        if str(match_id) not in t.matches:
            raise MalformedRequestError("the match is not attached to this tournament",
                                        matchId=match_id)
        policy = t.abandonment

    def abandon(match: Match) -> tuple[int, int | None, bool]:
        done = match.abandoned
        replayed = bool(done and command_id and done["command_id"] == command_id)
        if not replayed:
            sides = len(match.match_state.scores)
            if len(at_fault) != sides:
                raise MalformedRequestError(
                    f"at_fault must say for each of the {sides} sides whether it is at fault",
                    field="at_fault")
            match.abandon(list(at_fault), policy, reason.strip(), "auditor", command_id)
        result = match_result(match.match_state.scores, match.match_state.winner, True,
                              match.rulings, match.forfeit, match.abandoned)
        assert match.abandoned is not None
        return int(match.abandoned["version"]), result["winner"], replayed

    return app.update_match(match_id, abandon)
