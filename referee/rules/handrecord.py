"""Hand and match records (``docs/hand-record.md``, format v1): reading, writing, replaying.

Like ``chess.pgn``, this sits beside the rules and uses them; it does no I/O itself (callers
pass parsed JSON and get JSON-ready dicts back).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from referee.rules.cards import CARD_NAMES, Card, parse_card
from referee.rules.errors import InvalidActionError, RecordError, RuleParameterError, RulesError
from referee.rules.game import JSON, Deal, Fact, Game, HandResult, MatchState, sides_of
from referee.rules.params import RuleSet
from referee.rules.registry import find_game
from referee.rules.seats import Seat

HAND_FORMAT = "referee.hand/v1"
MATCH_FORMAT = "referee.match/v1"


@dataclasses.dataclass(frozen=True)
class HandRecord:
    """One deal: who dealt, the cards, every decision in order, and optionally the result."""

    game: str
    rules: RuleSet
    dealer: Seat
    deal: Deal
    actions: tuple[tuple[Seat, str], ...]
    result: Mapping[str, JSON] | None = None
    timeouts: tuple[int, ...] = ()
    """Indices of the actions the referee took for a seat whose time ran out (written as
    ``"timeout": true`` on those actions)."""
    claimed: tuple[int, ...] = ()
    """Indices of the actions an accepted claim or a concession played out (written as
    ``"claim": true`` on those actions; docs/claims.md)."""

    def to_json(self, *, in_match: bool = False) -> dict[str, JSON]:
        """The record as JSON, cards in canonical notation."""
        out: dict[str, JSON] = {}
        if not in_match:
            out = {"format": HAND_FORMAT, "game": self.game, "rules": self.rules.to_dict()}
        out["dealer"] = self.dealer
        out["deal"] = {
            "hands": [[CARD_NAMES[c] for c in h] for h in self.deal.hands],
            "stock": [CARD_NAMES[c] for c in self.deal.stock],
        }
        actions: list[JSON] = []
        for i, (s, a) in enumerate(self.actions):
            entry: dict[str, JSON] = {"seat": s, "action": a}
            if i in self.timeouts:
                entry["timeout"] = True
            if i in self.claimed:
                entry["claim"] = True
            actions.append(entry)
        out["actions"] = actions
        if self.result is not None:
            out["result"] = dict(self.result)
        return out


@dataclasses.dataclass(frozen=True)
class MatchRecord:
    """A whole match: its players and every hand in order."""

    game: str
    rules: RuleSet
    players: tuple[str, ...]
    hands: tuple[HandRecord, ...]
    result: Mapping[str, JSON] | None = None
    match_id: str = ""
    rulings: tuple[Mapping[str, JSON], ...] = ()
    """The arbiter's rulings in order: ``hand``, ``kind``, ``adjust`` (added to each side's
    score), ``reason``; the result's ``scores`` and ``winner`` are after them, its
    ``as_played`` before."""
    substitutions: tuple[Mapping[str, JSON], ...] = ()
    """Players replaced during the match, in order: ``seat``, ``player`` (from then on),
    ``previous``, ``hand`` and ``action`` (how many of that hand's actions came before);
    ``players`` are the players at the end."""

    def to_json(self) -> dict[str, JSON]:
        out: dict[str, JSON] = {"format": MATCH_FORMAT}
        if self.match_id:
            out["match_id"] = self.match_id
        out.update({
            "game": self.game,
            "rules": self.rules.to_dict(),
            "players": list(self.players),
            "hands": [h.to_json(in_match=True) for h in self.hands],
        })
        if self.rulings:
            out["rulings"] = [dict(r) for r in self.rulings]
        if self.substitutions:
            out["substitutions"] = [dict(r) for r in self.substitutions]
        if self.result is not None:
            out["result"] = dict(self.result)
        return out


# -- reading ------------------------------------------------------------------------------


def read_record(data: object) -> HandRecord | MatchRecord:
    """Validate parsed JSON as a hand or match record.

    :raises RecordError: saying where and why the data is not a valid record (unknown game,
        a card twice or missing, an unknown rule parameter, an action in bad syntax, ...).
    """
    obj = _object(data, "record")
    fmt = obj.get("format")
    if fmt not in (HAND_FORMAT, MATCH_FORMAT):
        raise RecordError(
            f"format must be {HAND_FORMAT!r} or {MATCH_FORMAT!r}, not {fmt!r}", "format"
        )
    name = obj.get("game")
    if not isinstance(name, str):
        raise RecordError("game must be a string naming a registered game", "game")
    try:
        game = find_game(name)
    except ValueError as exc:
        raise RecordError(str(exc), "game") from None
    rules = _rules(game, obj.get("rules", {}))
    if fmt == HAND_FORMAT:
        return _hand(game, rules, obj, "")
    players = obj.get("players", [])
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise RecordError("players must be a list of names", "players")
    if players and len(players) != game.num_seats:
        raise RecordError(
            f"{game.name} has {game.num_seats} seats, players lists {len(players)}", "players"
        )
    hands = obj.get("hands")
    if not isinstance(hands, list):
        raise RecordError("hands must be a list of hand records", "hands")
    match_id = obj.get("match_id", "")
    if not isinstance(match_id, str):
        raise RecordError("match_id must be a string", "match_id")
    return MatchRecord(
        game=game.name,
        rules=rules,
        players=tuple(players),
        hands=tuple(
            _hand(game, rules, _object(h, f"hands[{i}]"), f"hands[{i}].")
            for i, h in enumerate(hands)
        ),
        result=_optional_object(obj.get("result"), "result"),
        match_id=match_id,
        rulings=_rulings(obj.get("rulings", []), sides_of(game), len(hands)),
        substitutions=_substitutions(obj.get("substitutions", []), game.num_seats),
    )


def _substitutions(data: object, seats: int) -> tuple[Mapping[str, JSON], ...]:
    """A match record's substitutions: each names a seat and two players."""

    def check(obj: dict[str, Any], where: str) -> None:
        if not _whole(obj.get("seat"), 0, seats - 1):
            raise RecordError(f"seat must be 0..{seats - 1}", where)
        if not isinstance(obj.get("player"), str) or not isinstance(obj.get("previous"), str):
            raise RecordError("player and previous must be names", where)

    return _entries(data, "substitutions", "objects", check)


def _rulings(data: object, sides: int, hands: int) -> tuple[Mapping[str, JSON], ...]:
    """A match record's rulings: each names a hand of the record and adjusts every side."""

    def check(obj: dict[str, Any], where: str) -> None:
        if not _whole(obj.get("hand"), 1, hands):
            raise RecordError(f"hand must be a hand of this record, 1..{hands}", where)
        adjust = obj.get("adjust")
        if (not isinstance(adjust, list) or len(adjust) != sides
                or not all(isinstance(a, int) and not isinstance(a, bool) for a in adjust)):
            raise RecordError(f"adjust must list {sides} whole numbers, one per side", where)

    return _entries(data, "rulings", "ruling objects", check)


def _entries(
    data: object, name: str, what: str, check: Callable[[dict[str, Any], str], None]
) -> tuple[Mapping[str, JSON], ...]:
    """The list ``name`` of a record: JSON objects, each passing ``check(obj, where)``."""
    if not isinstance(data, list):
        raise RecordError(f"{name} must be a list of {what}", name)
    out = []
    for i, r in enumerate(data):
        obj = _object(r, f"{name}[{i}]")
        check(obj, f"{name}[{i}]")
        out.append(obj)
    return tuple(out)


def _whole(x: object, low: int, high: int) -> bool:
    """Whether ``x`` is a whole number (not a bool) from ``low`` to ``high``."""
    return isinstance(x, int) and not isinstance(x, bool) and low <= x <= high


def _object(data: object, where: str) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise RecordError("must be a JSON object", where)
    return data


def _optional_object(data: object, where: str) -> dict[str, Any] | None:
    return None if data is None else _object(data, where)


def _rules(game: Game[Any], data: object) -> RuleSet:
    try:
        return game.rules_class.from_dict(_object(data, "rules"))
    except RuleParameterError as exc:
        raise RecordError(str(exc), "rules") from None


def _cards(data: object, where: str) -> tuple[Card, ...]:
    if not isinstance(data, list):
        raise RecordError("must be a list of cards", where)
    out = []
    for i, text in enumerate(data):
        if not isinstance(text, str):
            raise RecordError(f"{text!r} is not a card", f"{where}[{i}]")
        try:
            out.append(parse_card(text))
        except InvalidActionError as exc:
            raise RecordError(str(exc), f"{where}[{i}]") from None
    return tuple(out)


def _hand(game: Game[Any], rules: RuleSet, obj: dict[str, Any], prefix: str) -> HandRecord:
    dealer = obj.get("dealer")
    if isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer < game.num_seats:
        raise RecordError(f"dealer must be a seat 0..{game.num_seats - 1}", prefix + "dealer")
    deal_obj = _object(obj.get("deal"), prefix + "deal")
    hands_data = deal_obj.get("hands")
    if not isinstance(hands_data, list):
        raise RecordError("must be a list with one list of cards per seat", prefix + "deal.hands")
    deal = Deal(
        hands=tuple(_cards(h, f"{prefix}deal.hands[{i}]") for i, h in enumerate(hands_data)),
        stock=_cards(deal_obj.get("stock", []), prefix + "deal.stock"),
    )
    try:
        game.new_hand(deal, dealer, rules)
    except RecordError as exc:
        raise RecordError(exc.detail, prefix + exc.where) from None
    actions_data = obj.get("actions", [])
    if not isinstance(actions_data, list):
        raise RecordError("must be a list of {seat, action} objects", prefix + "actions")
    actions = []
    timeouts = []
    claimed = []
    for i, a in enumerate(actions_data):
        where = f"{prefix}actions[{i}]"
        a = _object(a, where)
        seat, text = a.get("seat"), a.get("action")
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < game.num_seats:
            raise RecordError(f"seat must be 0..{game.num_seats - 1}, not {seat!r}", where)
        if not isinstance(text, str):
            raise RecordError(f"action must be a string, not {text!r}", where)
        try:
            game.parse_action(text)
        except InvalidActionError as exc:
            raise RecordError(str(exc), where) from None
        timeout = a.get("timeout", False)
        if not isinstance(timeout, bool):
            raise RecordError(f"timeout must be true or false, not {timeout!r}", where)
        if timeout:
            timeouts.append(i)
        claim = a.get("claim", False)
        if not isinstance(claim, bool):
            raise RecordError(f"claim must be true or false, not {claim!r}", where)
        if claim:
            claimed.append(i)
        actions.append((seat, text))
    return HandRecord(
        game=game.name,
        rules=rules,
        dealer=dealer,
        deal=deal,
        actions=tuple(actions),
        result=_optional_object(obj.get("result"), prefix + "result"),
        timeouts=tuple(timeouts),
        claimed=tuple(claimed),
    )


# -- replaying ----------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Played:
    """One action of a hand replayed: the state before it and what applying it gave (the
    state after and the facts), or the rules' refusal."""

    index: int
    seat: Seat
    text: str
    before: Any
    after: Any = None
    facts: tuple[Fact, ...] = ()
    error: RulesError | None = None


def replay(game: Game[Any], deal: Deal, dealer: Seat, rules: RuleSet,
           actions: Iterable[tuple[Seat, str]]) -> Iterator[Played]:
    """The one replay loop: apply ``actions`` (record notation) from the deal, yielding each
    step; stop after the first action the rules refuse (its :class:`Played` has ``error``).
    The record checker, the viewer and the dispute replay all walk hands with it (the
    aggregate applies the same ``Game.apply`` one event at a time)."""
    state = game.new_hand(deal, dealer, rules)
    for i, (seat, text) in enumerate(actions):
        try:
            step = game.apply(state, seat, game.parse_action(text))
        except RulesError as exc:
            yield Played(i, seat, text, state, error=exc)
            return
        yield Played(i, seat, text, state, step.state, step.facts)
        state = step.state


def replay_to(game: Game[Any], deal: Deal, dealer: Seat, rules: RuleSet,
              actions: Sequence[tuple[Seat, str]]) -> Any:
    """The state after ``actions`` (from the deal). :raises RulesError: one is refused."""
    state = game.new_hand(deal, dealer, rules)
    for played in replay(game, deal, dealer, rules, actions):
        if played.error is not None:
            raise played.error
        state = played.after
    return state


@dataclasses.dataclass
class Replay:
    """The outcome of replaying one hand record through the rules."""

    steps: list[dict[str, JSON]]
    state: Any
    result: HandResult | None = None
    error: dict[str, JSON] | None = None


def replay_hand(game: Game[Any], record: HandRecord, *, legal: bool = False) -> Replay:
    """Replay ``record``'s actions; stop at the first one the rules refuse.

    With ``legal``, each step lists the sorted legal set before the action (for differential
    testing against another engine).
    """
    state = game.new_hand(record.deal, record.dealer, record.rules)
    steps: list[dict[str, JSON]] = []
    for played in replay(game, record.deal, record.dealer, record.rules, record.actions):
        step: dict[str, JSON] = {"index": played.index, "seat": played.seat,
                                 "action": played.text}
        if legal:
            step["legal"] = sorted(game.format_action(a)
                                   for a in game.legal_actions(played.before))
        steps.append(step)
        exc = played.error
        if exc is not None:
            error: dict[str, JSON] = {"index": played.index, "seat": played.seat,
                                      "action": played.text, "reason": exc.reason}
            error["message"] = exc.message + (f" ({exc.rule})" if exc.rule else "")
            if exc.rule:
                error["rule"] = exc.rule
            return Replay(steps, played.before, error=error)
        state = played.after
    result = game.result(state) if game.is_terminal(state) else None
    return Replay(steps, state, result=result)


def result_mismatch(expected: Mapping[str, JSON], computed: Mapping[str, JSON]) -> str | None:
    """Describe the first field of ``expected`` that differs from ``computed``, if any."""
    for key, value in expected.items():
        if key not in computed:
            return f"result.{key} is not something this game computes"
        if computed[key] != value:
            return f"result.{key} is {value!r} in the record but {computed[key]!r} by the rules"
    return None


def match_state_json(match: MatchState) -> dict[str, JSON]:
    """The match-level result in the record's shape."""
    return {"scores": list(match.scores), "winner": match.winner, "over": match.over}
