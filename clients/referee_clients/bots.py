"""Bots that play through the referee: a random legal bot and a cheap greedy one.

Both choose from the legal actions the referee lists in the seat's view, so they never need the
rules. The greedy heuristic is game-agnostic: in the auction it bids the cheapest contract in its
longest suit when nobody has bid yet and passes otherwise; in play it takes the trick with its
highest winning card when it can, else throws its lowest card.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from referee.rules.render import CARD_VERBS, RANKS
from referee_clients.render import trump_of
from trick_referee_client.errors import NotYourTurn, RefereeError, ResumeExhausted, VersionConflict
from trick_referee_client.sdk import ActionResult, Backoff, RefereeClient, View

Strategy = Callable[[View, random.Random], str]
STANDING_KEYS = ("contract", "standing_bid", "high_bid", "current_bid", "maker", "declarer")
PASSIVE = ("pass", "partner", "defend_partner", "stand")
AGGRESSIVE_VERBS = ("coinche", "surcoinche", "contra", "recontra", "surcontra", "kontra",
                    "rekontra", "pickup", "alone", "defend_alone")


def random_strategy(view: View, rng: random.Random) -> str:
    """Any legal action, uniformly."""
    return rng.choice(view.legal_actions)


def _cards_of(action: str) -> list[str]:
    _, _, arg = action.partition(":")
    return [c for c in arg.split(",") if len(c) == 2 and c[1] in "CDHS"] if arg else []


def _rank(card: str) -> int:
    return RANKS.find(card[0])


def _strength(card: str, led: str | None, trump: str | None) -> int:
    if trump and card[1] == trump:
        return 100 + _rank(card)
    if led is None or card[1] == led:
        return 50 + _rank(card)
    return _rank(card)


def _suit_of_bid(action: str) -> str | None:
    _, _, arg = action.partition(":")
    return arg[-1] if arg and arg[-1] in "CDHS" and arg[-2:] not in ("SA", "TA") else None


def _cost(action: str, legal: list[str]) -> int:
    digits = "".join(ch for ch in action.partition(":")[2] if ch.isdigit())
    return int(digits) if digits else 1000 + legal.index(action)


def _standing(state: dict[str, Any]) -> bool:
    return any(state.get(k) not in (None, 0, "", [], {}) for k in STANDING_KEYS)


def greedy_strategy(view: View, rng: random.Random) -> str:
    """Cheap, game-agnostic play from the view (see the module docstring)."""
    legal = view.legal_actions
    state = view.state
    hand: list[str] = list(state.get("hand") or [])
    plays = [a for a in legal if a.partition(":")[0] in CARD_VERBS]
    if plays:
        return _greedy_play(plays, state)
    declares = [a for a in legal if a.startswith(("declare:", "announce:"))]
    if declares:  # free points
        return max(declares, key=lambda a: len(_cards_of(a)))
    discards = [a for a in legal if a.startswith("discard:")]
    if discards:
        trump = trump_of(state)
        return min(discards, key=lambda a: (
            sum(100 + _rank(c) for c in _cards_of(a) if c[1] == trump)
            - 20 * len(_cards_of(a)) * (trump is not None)
            + sum(_rank(c) for c in _cards_of(a))))
    takes = [a for a in legal if a.startswith("take:")]
    if takes:
        trump = trump_of(state)
        return max(takes, key=lambda a: _strength(_cards_of(a)[0], None, trump))
    counts = {s: sum(1 for c in hand if c[1] == s) for s in "CDHS"}
    bids = [a for a in legal if a.startswith(("bid:", "name:")) or a == "order_up"]
    calm = [a for a in legal if a in PASSIVE or a.startswith(("pass", "stand"))]
    if bids and (not _standing(state) or not calm):
        upcard = state.get("upcard")

        def suit(a: str) -> str | None:
            if a == "order_up" and isinstance(upcard, str):
                return upcard[1]
            return _suit_of_bid(a)

        best = max(counts.values() or [0])
        strong = [a for a in bids if suit(a) and counts.get(suit(a) or "", 0) == best]
        suitless = [a for a in bids if suit(a) is None and not a.startswith("name:")]
        pick = min(strong or suitless or bids, key=lambda a: _cost(a, bids))
        threshold = max(2, (len(hand) + 2) // 3)
        if not calm or counts.get(suit(pick) or "", best) >= threshold:
            return pick
    if calm:
        return "pass" if "pass" in calm else calm[0]
    quiet = [a for a in legal if a.partition(":")[0] not in AGGRESSIVE_VERBS]
    return (quiet or legal)[0]


def _greedy_play(plays: list[str], state: dict[str, Any]) -> str:
    trump = trump_of(state)
    trick = state.get("trick") or []
    led = trick[0]["card"][1] if trick else None
    best = max((_strength(p["card"], led, trump) for p in trick), default=-1)
    by_card: dict[str, str] = {}
    for a in plays:  # prefer the announcing verb (belot/belote) for the same card
        card = _cards_of(a)[0]
        if card not in by_card or a.partition(":")[0] != "play":
            by_card[card] = a
    cards = list(by_card)
    winners = [c for c in cards if _strength(c, led, trump) > best]
    if winners:
        return by_card[max(winners, key=lambda c: _strength(c, led, trump))]
    return by_card[min(cards, key=lambda c: (_strength(c, led, trump), _rank(c)))]


STRATEGIES: dict[str, Strategy] = {"random": random_strategy, "greedy": greedy_strategy}


@dataclass
class Seat:
    """One seat played by a bot."""

    seat: int
    token: str
    strategy: Strategy
    rng: random.Random = field(default_factory=random.Random)
    think: float = 0.0
    """Seconds to wait before each action (a human pace)."""


def act_once(client: RefereeClient, match_id: str, bot: Seat,
             view: View | None = None) -> ActionResult | None:
    """If it is ``bot``'s turn, choose and submit one action (guarded by the view's version)."""
    view = view or client.get_view(match_id, bot.token)
    if not view.my_turn:
        return None
    if bot.think > 0:
        time.sleep(bot.think)
    action = bot.strategy(view, bot.rng)
    try:
        return client.submit_action(match_id, bot.token, action, expected_version=view.version,
                                    seat=bot.seat)
    except (VersionConflict, NotYourTurn):
        return None  # someone else moved first: look again


def transient(exc: RefereeError) -> bool:
    """An error that a restart or a failover causes (the referee unreachable, stopping, its
    store down, a lost deadline): try again later. Any other is an answer."""
    return exc.code in ("UNAVAILABLE", "DEADLINE_EXCEEDED", "CANCELLED") and not isinstance(
        exc, ResumeExhausted)


def play_seat(client: RefereeClient, match_id: str, bot: Seat,
              on_action: Callable[[ActionResult], None] | None = None, *,
              resume_for: float = 60.0) -> View:
    """Play one seat until the match is over, following the match with ``WatchMatch``.

    Survives restarts: the watch resumes from the last version seen (:meth:`RefereeClient.
    watch`), and an action whose call fails on the way (the referee unreachable) is chosen
    again from the next view or heartbeat (``expected_version`` keeps it from being made
    twice). :raises ResumeExhausted: when the referee stays unreachable ``resume_for``
    seconds."""
    last: View | None = None
    again = False  # an action failed for a transient reason: look again on the next beat
    for update in client.watch(match_id, bot.token, heartbeat_seconds=5, resume_for=resume_for):
        if update.view is None and not again:
            continue  # a heartbeat
        try:
            last = update.view or client.get_view(match_id, bot.token)
            again = False
            if last.match_over:
                break
            if last.my_turn:
                result = act_once(client, match_id, bot, last)
                if result and on_action:
                    on_action(result)
        except RefereeError as exc:
            if not transient(exc):
                raise
            again = True  # the watch resumes, or the next heartbeat retries
    if last is not None and last.match_over:
        return last
    return client.get_view(match_id, bot.token)


def play_all(client: RefereeClient, match_id: str, bots: Sequence[Seat], *,
             max_actions: int = 100_000,
             on_action: Callable[[ActionResult], None] | None = None,
             resume_for: float = 60.0) -> View:
    """Play every seat of a match in turn until it is over; returns the last view. A call that
    fails for a transient reason (a restart) is tried again with jittered backoff until
    ``resume_for`` seconds pass without an answer (then :class:`ResumeExhausted`)."""
    by_seat = {b.seat: b for b in bots}
    backoff = Backoff(client.backoff, resume_for)

    def step(view: View | None) -> View:
        while True:
            try:
                return turn(view)
            except RefereeError as exc:
                if not transient(exc):
                    raise
                if not backoff.wait():
                    raise ResumeExhausted(
                        f"gave up after {resume_for:g}s without an answer from the referee at "
                        f"{client.address}: playing match {match_id} (last: {exc})",
                        code="UNAVAILABLE") from None
                view = None  # read it again

    def turn(view: View | None) -> View:
        view = view or client.get_view(match_id, bots[0].token)
        backoff.reset()
        if view.match_over:
            return view
        if view.to_act is None or view.to_act not in by_seat:
            raise RuntimeError(f"seat {view.to_act} is to act but has no bot")
        bot = by_seat[view.to_act]
        if view.seat != bot.seat:
            view = client.get_view(match_id, bot.token)
        result = act_once(client, match_id, bot, view)
        if result and on_action:
            on_action(result)
        nxt = by_seat.get((bot.seat + 1) % (len(view.players) or len(bots)), bot)
        return client.get_view(match_id, nxt.token)

    view = step(None)
    for _ in range(max_actions):
        if view.match_over:
            return view
        view = step(view)
    raise RuntimeError(f"the match did not end within {max_actions} actions")
