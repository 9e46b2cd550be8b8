"""Hand and match records (``docs/hand-record.md``, format v1): reading, writing, replaying.

Like ``chess.pgn``, this sits beside the rules and uses them; it does no I/O itself (callers
pass parsed JSON and get JSON-ready dicts back).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator, Mapping, Sequence
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
    withdrawn: tuple[Mapping[str, JSON], ...] = ()
    """Actions withdrawn by consent (a match's undo policy), in order: ``{"index", "seat",
    "action"}``, ``index`` how many of ``actions`` came before it. They are not in
    ``actions``; ``replay_hand`` checks each was legal where it was made."""

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
        if self.withdrawn:
            out["withdrawn"] = [dict(w) for w in self.withdrawn]
        if self.result is not None:
            out["result"] = dict(self.result)
        return out


@dataclasses.dataclass(frozen=True)
class CancelledDeal:
    """A deal an arbiter cancelled (a ``redeal`` ruling): the hand at position ``hand`` of
    the match was dealt anew, so this deal does not count. ``record``: the deal as played
    until then; ``about``: ``pack`` (the cards in the order dealt), ``commitment`` and
    ``nonce`` (``sha256(nonce + ":" + " ".join(pack))``), ``reason``, ``rule``, ``replay``
    (the commitment of the deal that replaced it)."""

    hand: int
    record: HandRecord
    about: Mapping[str, JSON] = dataclasses.field(default_factory=dict)

    def to_json(self) -> dict[str, JSON]:
        return {"hand": self.hand, **self.record.to_json(in_match=True), **self.about}


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
    cancelled: tuple[CancelledDeal, ...] = ()
    """The deals cancelled and dealt anew, in order; ``hands`` holds the deals that count."""

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
        if self.cancelled:
            out["cancelled"] = [c.to_json() for c in self.cancelled]
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
    cancelled = _cancelled(game, rules, obj.get("cancelled", []), len(hands))
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
        # A ruling may name a cancelled hand whose replay is not finished yet.
        rulings=_rulings(obj.get("rulings", []), sides_of(game),
                         max([len(hands), *(c.hand for c in cancelled)])),
        substitutions=_substitutions(obj.get("substitutions", []), game.num_seats),
        cancelled=cancelled,
    )


def _cancelled(game: Game[Any], rules: RuleSet, data: object, hands: int
               ) -> tuple[CancelledDeal, ...]:
    """A match record's cancelled deals: each a hand record at a position of ``hands``, or
    past the last (a replay not finished, the hand dealt after a cancelled scored hand)."""
    out = []
    for where, obj in _listed(data, "cancelled", "hand records"):
        hand = _whole(obj.get("hand"), 1, hands + 2)
        if hand is None:
            raise RecordError(f"hand must be a position of hands, 1..{hands + 2}", where)
        keys = ("commitment", "nonce", "reason", "rule", "replay")
        about: dict[str, JSON] = {k: obj[k] for k in keys if k in obj}
        if not all(isinstance(v, str) for v in about.values()):
            raise RecordError("commitment, nonce, reason, rule and replay must be strings",
                              where)
        if "pack" in obj:
            about["pack"] = [CARD_NAMES[c] for c in _cards(obj["pack"], where + ".pack")]
        out.append(CancelledDeal(hand, _hand(game, rules, obj, where + "."), about))
    return tuple(out)


def _listed(data: object, name: str, what: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """Each object of the record's list ``name`` (of ``what``), with where it is."""
    if not isinstance(data, list):
        raise RecordError(f"{name} must be a list of {what}", name)
    for i, item in enumerate(data):
        where = f"{name}[{i}]"
        yield where, _object(item, where)


def _whole(value: object, lo: int, hi: int) -> int | None:
    """``value`` if it is a whole number in ``lo..hi`` (not a boolean), else None."""
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        return None
    return value


def _substitutions(data: object, seats: int) -> tuple[Mapping[str, JSON], ...]:
    """A match record's substitutions: each names a seat and two players."""
    out = []
    for where, obj in _listed(data, "substitutions", "objects"):
        if _whole(obj.get("seat"), 0, seats - 1) is None:
            raise RecordError(f"seat must be 0..{seats - 1}", where)
        if not isinstance(obj.get("player"), str) or not isinstance(obj.get("previous"), str):
            raise RecordError("player and previous must be names", where)
        out.append(obj)
    return tuple(out)


def _rulings(data: object, sides: int, hands: int) -> tuple[Mapping[str, JSON], ...]:
    """A match record's rulings: each names a hand of the record and adjusts every side."""
    out = []
    for where, obj in _listed(data, "rulings", "ruling objects"):
        adjust = obj.get("adjust")
        if _whole(obj.get("hand"), 1, hands) is None:
            raise RecordError(f"hand must be a hand of this record, 1..{hands}", where)
        if (not isinstance(adjust, list) or len(adjust) != sides
                or not all(isinstance(a, int) and not isinstance(a, bool) for a in adjust)):
            raise RecordError(f"adjust must list {sides} whole numbers, one per side", where)
        out.append(obj)
    return tuple(out)


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
    dealer = _whole(obj.get("dealer"), 0, game.num_seats - 1)
    if dealer is None:
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
    flagged: dict[str, list[int]] = {"timeout": [], "claim": []}
    for i, a in enumerate(actions_data):
        where = f"{prefix}actions[{i}]"
        a = _object(a, where)
        actions.append(_seat_action(game, a, where))
        for flag, indices in flagged.items():
            on = a.get(flag, False)
            if not isinstance(on, bool):
                raise RecordError(f"{flag} must be true or false, not {on!r}", where)
            if on:
                indices.append(i)
    return HandRecord(
        game=game.name,
        rules=rules,
        dealer=dealer,
        deal=deal,
        actions=tuple(actions),
        result=_optional_object(obj.get("result"), prefix + "result"),
        timeouts=tuple(flagged["timeout"]),
        claimed=tuple(flagged["claim"]),
        withdrawn=_withdrawn(game, obj.get("withdrawn", []), len(actions), prefix),
    )


def _withdrawn(game: Game[Any], data: object, actions: int, prefix: str
               ) -> tuple[Mapping[str, JSON], ...]:
    """A hand record's withdrawn actions: each an index into its actions, a seat and an
    action in record notation."""
    if not isinstance(data, list):
        raise RecordError("must be a list of {index, seat, action} objects", prefix + "withdrawn")
    out = []
    for i, w in enumerate(data):
        where = f"{prefix}withdrawn[{i}]"
        obj = _object(w, where)
        index = _whole(obj.get("index"), 0, actions)
        if index is None:
            raise RecordError(f"index must be 0..{actions} (actions before it)", where)
        seat, text = _seat_action(game, obj, where)
        out.append({"index": index, "seat": seat, "action": text})
    return tuple(out)


def _seat_action(game: Game[Any], obj: dict[str, Any], where: str) -> tuple[Seat, str]:
    """An action object's ``seat`` (one of the game's) and ``action`` (in its notation)."""
    raw, text = obj.get("seat"), obj.get("action")
    seat = _whole(raw, 0, game.num_seats - 1)
    if seat is None:
        raise RecordError(f"seat must be 0..{game.num_seats - 1}, not {raw!r}", where)
    if not isinstance(text, str):
        raise RecordError(f"action must be a string, not {text!r}", where)
    try:
        game.parse_action(text)
    except InvalidActionError as exc:
        raise RecordError(str(exc), where) from None
    return seat, text


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
    for n, w in enumerate(record.withdrawn):  # each was legal where it was made
        index, seat, text = int(w["index"]), int(w["seat"]), str(w["action"])
        *_, last = replay(game, record.deal, record.dealer, record.rules,
                          [*record.actions[:index], (seat, text)])
        if last.error is not None:
            return Replay(steps, state, error={
                "index": index, "seat": seat, "action": text, "withdrawn": n,
                "reason": last.error.reason,
                "message": f"withdrawn action {n} was not legal where it was made: "
                           f"{last.error.message}"})
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
