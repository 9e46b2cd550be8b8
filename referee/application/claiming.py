"""Claims and concessions (issue 20; docs/claims.md), and substitutions: commands on a live
match, run under the match's lock and committed like the other commands
(``Acting.update_match``).

A claim the referee accepts ends the hand along the winning line (one ``ClaimAccepted`` event
and the line's ``ActionTaken`` events); a refused one changes nothing and goes to the
rejection trail with the defence that beats it, which only the auditor reads there. Both
answer as an action does (:class:`~referee.application.answers.Answer`), and a retry with the
same ``command_id`` is answered from the record.
"""

from __future__ import annotations

import secrets
from typing import Any
from uuid import UUID

from referee import limits
from referee.application.acting import Acting, Refusal
from referee.application.answers import Answer
from referee.application.clocks import Now, utc_now
from referee.application.creating import deal_next
from referee.application.principals import Principal, Role, Tokens, hash_token
from referee.domain.errors import (
    CommandIdReusedError,
    MalformedRequestError,
    MatchNotFoundError,
    PermissionDeniedError,
    TimedOutError,
)
from referee.domain.match import Match
from referee.rules.claims import ALL

#: The most tricks a claim may name (every game has fewer per hand).
MAX_CLAIM_TRICKS = 64


class SeatCommands:
    """Commands a seat makes on a live match that are no action (claims, concessions, undo
    requests and answers): run under the match's lock, answered as an action is, retried
    with the same ``command_id`` answered from the record, refusals in the rejection trail."""

    def __init__(self, acting: Acting, tokens: Tokens, now: Now = utc_now) -> None:
        self._acting, self._tokens, self._now = acting, tokens, now

    def _run(self, match_id: UUID, token: str, command_id: str, text: str,
             command: Any, what: str = "claim or concede") -> Answer:
        asking: list[Principal] = []

        def run(match: Match) -> Answer:
            principal = self._tokens.authorize(match, token)
            asking.append(principal)
            if principal.role is not Role.SEAT or principal.seat is None:
                raise PermissionDeniedError(
                    f"a {principal.role.value} may not {what}",
                    role=principal.role.value)
            seat = principal.seat
            if command_id:
                done = match.outcomes.get(Match.command_key(seat, command_id))
                if done is not None:
                    if done.action != text:
                        raise CommandIdReusedError(
                            f"command id {command_id!r} was used for {done.action!r}",
                            commandId=command_id, action=done.action)
                    return Acting._answer(match, done, replayed=True)
            if match.clock is not None and match.clock.expired(match.to_act, self._now()):
                raise TimedOutError(
                    f"seat {match.to_act}'s time ran out: the referee records the timeout "
                    f"first", seat=match.to_act)
            command(match, seat)
            if match.needs_deal:
                deal_next(match)
            assert match.last_outcome is not None
            return Acting._answer(match, match.last_outcome)

        try:
            return self._acting.update_match(match_id, run)
        except Refusal as exc:
            if not isinstance(exc, MatchNotFoundError):
                self._acting.reject(match_id, asking[0] if asking else None, text, exc)
            raise


class Claiming(SeatCommands):
    """``SubmitClaim`` and ``Concede``."""

    def claim(self, match_id: UUID, token: str, tricks: int = ALL, command_id: str = "",
              unchecked: bool = False) -> Answer:
        """The seat of ``token`` claims ``tricks`` more tricks for its side (:data:`ALL`:
        all the remaining ones). ``unchecked``: put the claim (of all the tricks) to the
        other sides instead, where the match's unchecked claims policy allows it.

        :raises ClaimRefusedError: the claim does not hold (nothing changes).
        :raises ClaimNotAllowedError: no claim may be made now."""
        if tricks != ALL and not 1 <= tricks <= MAX_CLAIM_TRICKS:
            raise MalformedRequestError(
                f"tricks must be 1..{MAX_CLAIM_TRICKS}, or all of them", field="tricks")
        if unchecked:
            if tricks != ALL:
                raise MalformedRequestError("an unchecked claim is of all the remaining "
                                            "tricks (tricks 0)", field="tricks")
            return self._run(match_id, token, command_id, "claim:unchecked",
                             lambda match, seat: match.propose_claim(seat, command_id))
        text = Match.claim_text("claim", tricks)
        return self._run(match_id, token, command_id, text,
                         lambda match, seat: match.claim(seat, tricks, command_id))

    def answer(self, match_id: UUID, token: str, accept: bool, command_id: str = ""
               ) -> Answer:
        """The seat of ``token`` answers the pending unchecked claim for its side; the last
        acceptance plays the hand out for the claiming side.

        :raises ClaimNotAllowedError: nothing pending, or the seat may not answer it."""
        text = "claim:accept" if accept else "claim:reject"
        return self._run(match_id, token, command_id, text,
                         lambda match, seat: match.answer_claim(seat, accept, command_id),
                         "answer a claim")

    def concede(self, match_id: UUID, token: str, command_id: str = "",
                whole_match: bool = False) -> Answer:
        """The side of ``token``'s seat concedes the remaining tricks of the hand (or, with
        ``whole_match``, the match)."""
        if whole_match:
            return self._run(match_id, token, command_id, "concede:match",
                             lambda match, seat: match.concede_match(seat, command_id))
        return self._run(match_id, token, command_id, Match.claim_text("concession", ALL),
                         lambda match, seat: match.concede(seat, command_id))


class Seats:
    """``SubstitutePlayer``: the auditor gives a seat to another player (issue 20, item 4)."""

    def __init__(self, acting: Acting, tokens: Tokens) -> None:
        self._acting, self._tokens = acting, tokens

    def substitute(self, match_id: UUID, token: str, seat: int, player: str
                   ) -> tuple[str, int]:
        """Replace the player of ``seat`` by ``player``: return the seat's new token (shown
        once) and the match's version. The old token stops working at once; the hand goes
        on. Auditor only.

        :raises MalformedRequestError: a seat the match does not have, a bad name."""
        self._tokens.require_auditor(token, "substitute a player")
        name = limits.check_name("player", player)
        new = secrets.token_urlsafe(32)

        def run(match: Match) -> int:
            if not 0 <= seat < match.game.num_seats:
                raise MalformedRequestError(
                    f"seat must be 0..{match.game.num_seats - 1}, not {seat}", field="seat")
            match.substitute(seat, name, hash_token(new))
            return match.version
        return new, int(self._acting.update_match(match_id, run))
