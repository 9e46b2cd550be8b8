"""Creating matches and dealing their hands.

Randomness lives here, never in the rules: each hand's pack is shuffled with a key drawn from
``secrets`` and mixed with the match's player entropy; the pack and a nonce are recorded in the
``HandDealt`` event, and the commitment is published at once.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Mapping, Sequence
from typing import Any

import referee
from referee import limits
from referee.application.answers import Created
from referee.application.live import LiveMatches
from referee.application.principals import Tokens, hash_token
from referee.domain.clock import TimeControl
from referee.domain.deal import shuffle
from referee.domain.errors import InvalidRulesError, MalformedRequestError, UnknownGameError
from referee.domain.match import Match
from referee.domain.policies import TablePolicies
from referee.rules.cards import CARD_NAMES, parse_card
from referee.rules.errors import InvalidActionError, RuleParameterError
from referee.rules.game import Game
from referee.rules.registry import find_game


def deal_next(match: Match, entropy: bytes = b"") -> None:
    """Deal the match's next hand: its fixed deal (unless a deal of it was cancelled), else
    a pack shuffled with a key from ``secrets`` mixed with ``entropy`` (not committed: the
    caller commits it)."""
    cards = match.fixed_pack(len(match.hands) + 1)
    if cards is None:
        key = hashlib.sha256(secrets.token_bytes(32) + entropy).digest()
        cards = shuffle([CARD_NAMES[c] for c in match.game.pack], key)
    match.deal(cards, secrets.token_hex(16))


class Creating:
    """``CreateMatch``: a new match with its first hand dealt and committed."""

    def __init__(self, live: LiveMatches, tokens: Tokens) -> None:
        self._live, self._tokens = live, tokens

    def create_match(
        self,
        game: str,
        rules: dict[str, Any] | None = None,
        players: Sequence[str] = (),
        seed_entropy: bytes = b"",
        fixed_deals: Sequence[Sequence[str]] = (),
        first_dealer: int = 0,
        public_spectators: bool = False,
        token: str = "",
        time_control: Mapping[str, Any] | None = None,
        policies: Mapping[str, Any] | None = None,
    ) -> Created:
        """Create a match, deal its first hand, and return the seats' secret tokens.
        ``time_control``: see :class:`referee.domain.clock.TimeControl` (None: untimed).
        ``policies``: the table policies (:mod:`referee.domain.policies`; None: defaults).

        :raises CreateNotAllowedError: when the server has an organiser credential and
            ``token`` is neither it nor the auditor's.
        :raises InvalidTimeControlError: for a time control that is not valid.
        :raises InvalidPolicyError: for a table policy that is not valid."""
        self._tokens.require_organiser(token)
        control = TimeControl.from_dict(time_control) if time_control is not None else None
        table = TablePolicies.from_dict(policies or {})
        try:
            g = find_game(game)
        except ValueError as exc:
            raise UnknownGameError(str(exc), game=game) from None
        try:
            ruleset = g.rules_class.from_dict(rules or {})
        except RuleParameterError as exc:
            raise InvalidRulesError(str(exc)) from None
        names = [limits.check_name(f"players[{i}]", p) for i, p in enumerate(players)]
        names = names or [f"seat {s}" for s in range(g.num_seats)]
        limits.check_length("seed_entropy", seed_entropy, limits.MAX_BYTES, "bytes")
        limits.check_length("fixed_deals", list(fixed_deals), limits.MAX_FIXED_DEALS, "deals")
        if len(names) != g.num_seats:
            raise MalformedRequestError(
                f"{g.name} has {g.num_seats} seats, got {len(names)} player names",
                seats=g.num_seats, players=len(names),
            )
        if not 0 <= first_dealer < g.num_seats:
            raise MalformedRequestError(f"first dealer must be a seat 0..{g.num_seats - 1}")
        packs = [_check_pack(g, list(d), i) for i, d in enumerate(fixed_deals)]
        tokens = [secrets.token_urlsafe(32) for _ in range(g.num_seats)]
        spectator = secrets.token_urlsafe(32)
        match = Match(
            game=g.name,
            rules=ruleset.to_dict(),
            players=names,
            seat_token_hashes=[hash_token(t) for t in tokens],
            spectator_token_hash=hash_token(spectator),
            public_spectators=public_spectators,
            first_dealer=first_dealer,
            fixed_deals=packs,
            rules_version=referee.RULES_VERSION,
        )
        if control is not None:
            match.control_time(control)
        if not table.default:
            match.set_policies(table)
        deal_next(match, seed_entropy)
        self._live.commit(match)
        return Created(match.id, names, tokens, spectator, match.version, match.hand.commitment)


def _check_pack(game: Game[Any], cards: list[str], index: int) -> list[str]:
    try:
        parsed = [parse_card(c) for c in cards]
    except InvalidActionError as exc:
        raise MalformedRequestError(f"fixed deal {index}: {exc}") from None
    if sorted(parsed) != sorted(game.pack):
        raise MalformedRequestError(
            f"fixed deal {index} is not exactly the {game.name} pack, each card once"
        )
    return [CARD_NAMES[c] for c in parsed]
