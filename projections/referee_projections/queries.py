"""Queries over the views: scoreboard, dispute replay, exports, standings, chain check.

Authorization reuses the application's rules (``Referee.authorize``) on the token hashes the
views keep. The dispute replay re-applies the hand's actions through the pure rules core.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import threading
from collections.abc import AsyncIterator, Callable, Hashable, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

from referee.application import Credentials, LogReader, Principal, Referee, Role
from referee.application.fanout import Fanout
from referee.application.updates import Encoder
from referee.changes import LogFollower, originators_between
from referee.domain.chain import ChainReport, dict_hash, event_dict
from referee.domain.clock import Clock
from referee.domain.errors import (
    ActionIndexOutOfRangeError,
    HandNotFinishedError,
    HandNotFoundError,
    MalformedRequestError,
    PermissionDeniedError,
    ReplayNotAllowedError,
    TournamentNotFoundError,
    ViewNotReadyError,
)
from referee.domain.match import Match
from referee.domain.result import cancellation, match_result, record_rulings
from referee.integrity import (
    StoredMatchEvent,
    check_links,
    decode_all,
    event_digest,
    match_rows,
)
from referee.rules.cards import parse_card
from referee.rules.handrecord import CancelledDeal, HandRecord, MatchRecord
from referee.rules.registry import find_game
from referee.rules.render import render_hand, replay_for_view
from referee_projections.hand_states import HandStates
from referee_projections.replay import step as replay_step
from referee_projections.store import APP_NAME, Doc, DocView, open_view

SCOREBOARD = "scoreboard"
_AUDITOR, _ANYONE = Principal(Role.AUDITOR), Principal(Role.SPECTATOR)
"""The audiences of a scoreboard: the auditor's shows every board, anyone else's withholds
the cards of a board still in play at another table."""


class Queries:
    """Read side of the service over the three views."""

    def __init__(self, app: Referee, views: dict[str, DocView] | None = None) -> None:
        self.app = app
        self._views = views
        self._follower: LogFollower | None = None
        self._follower_guard = threading.Lock()
        self._fanouts: dict[int, Fanout[Any]] = {}  # the scoreboards', one per encoder
        #: The states of the hands replayed lately (a walk through a hand replays it once).
        self.hand_states = HandStates()
        app.on_close(self.close)  # the follower and the views' connections

    @property
    def views(self) -> dict[str, DocView]:
        """The view recorders, opened on first use."""
        if self._views is None:
            self._views = {n: open_view(n, self.app.settings)
                           for n in ("scoreboard", "hands", "standings")}
        return self._views

    # -- helpers -----------------------------------------------------------------------------
    def _doc(self, view: str, match_id: UUID) -> Doc:
        doc = self.views[view].read("match", str(match_id))
        if doc is None:
            self.app.get_match(match_id)  # raises MatchNotFoundError for an unknown match
            raise ViewNotReadyError(f"the {view} view has not caught up with match {match_id}"
                                    f"{self._not_ready_hint()}", matchId=match_id)
        return doc

    def _not_ready_hint(self) -> str:
        """What a VIEW_NOT_READY answer adds: retry, or which process keeps the views."""
        if self.app.settings.projections == "separate":
            return ("; this server leaves its views to `referee projections` "
                    "(REFEREE_PROJECTIONS=separate): is it running on this database?")
        return " yet; retry shortly"

    def _who(self, doc: Doc, token: str) -> Principal:
        return self.app.tokens.authorize(Credentials(**doc["auth"]), token)

    def _hand(self, match_id: UUID, hand: int, hands: int) -> Doc:
        if not 1 <= hand <= hands:
            raise HandNotFoundError(f"hand {hand} does not exist (hands 1..{hands})", hand=hand)
        doc = self.views["hands"].read("hand", f"{match_id}:{hand:05d}")
        if doc is None:
            raise ViewNotReadyError(f"the hands view has not caught up{self._not_ready_hint()}",
                                    hand=hand)
        return doc

    # -- scoreboard --------------------------------------------------------------------------
    def scoreboard(self, match_id: UUID, token: str) -> Doc:
        """The match's scoreboard (anyone who may watch the match)."""
        doc = self._doc("scoreboard", match_id)
        return self._board(match_id, doc, self._who(doc, token).role is Role.AUDITOR)

    def _board(self, match_id: UUID, doc: Doc, auditor: bool) -> Doc:
        """The scoreboard ``doc`` as the auditor (``auditor``) or anyone else may see it."""
        out = {k: v for k, v in doc.items() if k != "auth"}
        hidden = [] if auditor or not doc.get("board") else self.app.hidden_hands(match_id)
        if hidden:  # a board another table still plays: its points, not its cards
            out["hands"] = [dict(h, detail={}, withheld=True) if h["hand"] in hidden else h
                            for h in out["hands"]]
        if doc.get("clock") is not None:  # the deadline and the time left, as of now
            out["clock"] = Clock.from_state(doc["clock"]).to_json(
                None if doc["state"] == "over" else doc["to_act"], datetime.now(UTC))
        return out

    async def watch_scoreboard(self, match_id: UUID, token: str, after_version: int,
                               alive: Callable[[], bool],
                               ended: asyncio.Future[Any] | None = None,
                               encoder: Encoder[Any] | None = None) -> AsyncIterator[Any]:
        """The scoreboard each time its version passes the last one sent, encoded by
        ``encoder`` (by default the scoreboard itself, a dict). The same fan-out as the
        match's watchers (:mod:`referee.application.fanout`): the scoreboard view is read
        once per change for all the match's watchers, each audience's scoreboard (the
        auditor's, everyone else's) encoded once. Woken by the projection worker when it
        commits a change of the match's scoreboard (:meth:`boards_advanced`), by other
        processes' notifications, or (views written elsewhere without them) by one
        :class:`~referee.changes.LogFollower` of the view's position per process. Ends when
        ``ended`` is done, or ``alive()`` is false after a wake (the server wakes every
        watcher when it stops)."""
        loop = asyncio.get_running_loop()
        doc = await loop.run_in_executor(None, self._doc, "scoreboard", match_id)
        auditor = self._who(doc, token).role is Role.AUDITOR
        self._follow_views()
        fanout = self._board_fanout(encoder or _BOARDS)
        async for update in fanout.watch(match_id, _AUDITOR if auditor else _ANYONE,
                                         max(after_version, 0), None, alive, ended,
                                         first=False):
            yield update

    def _board_fanout(self, encoder: Encoder[Any]) -> Fanout[Any]:
        with self._follower_guard:
            fanout = self._fanouts.get(id(encoder))
            if fanout is None:
                changes = self.app.changes
                fanout = self._fanouts[id(encoder)] = Fanout(
                    self._boards, lambda m: changes.version((SCOREBOARD, m)), changes,
                    encoder, key=lambda m: (SCOREBOARD, m))
            return fanout

    def _boards(self, match_id: UUID, wants: Mapping[Principal, int]
                ) -> tuple[int, dict[Principal, tuple[list[Any], Any]]]:
        """(The fan-out's read, on the executor.) The match's scoreboard read once, as each
        audience of ``wants`` sees it; its version at least the last one announced, which
        the read is not older than (an event the scoreboard skips moves no version of it)."""
        announced = self.app.changes.version((SCOREBOARD, match_id))
        doc = self._doc("scoreboard", match_id)
        return max(int(doc["version"]), announced), {
            who: ([], self._board(match_id, doc, who.role is Role.AUDITOR)) for who in wants}

    def _follow_views(self) -> None:
        """Start the one follower of the scoreboard view's position (on first watch), where
        another process may write the view (``REFEREE_PROJECTIONS=separate``, or another
        replica on PostgreSQL): this process's worker wakes the watchers itself, and on
        PostgreSQL the writer's notifications do (the follower idles while they come)."""
        if (self.app.settings.projections != "separate"
                and self.app.settings.backend != "postgres"):
            return
        with self._follower_guard:
            if self._follower is None:
                self._follower = LogFollower(
                    self.app.changes, self._scoreboard_position, self._scoreboards_between,
                    self.app.settings.follow_interval / 2, "referee-follow-views",
                    paused=self.app.listening,
                )

    def _scoreboard_position(self) -> int:
        return int(self.views["scoreboard"].max_tracking_id(APP_NAME) or 0)

    def _scoreboards_between(self, after: int, upto: int) -> list[Hashable]:
        return [(SCOREBOARD, i) for i in originators_between(self.app.recorder, after, upto)]

    def close(self) -> None:
        if self._follower is not None:
            self._follower.stop()
        views, self._views = self._views, None
        for view in (views or {}).values():
            view.close()

    # -- dispute replay ----------------------------------------------------------------------
    def _replayable(self, match_id: UUID, hand: int, token: str, what: str
                    ) -> tuple[Doc, Doc]:
        """The match's and the hand's documents, for ``token`` to ``what`` (replay or view)
        the hand: any token of the match once it is over, the auditor's while it runs, and
        no board another table still plays (``check_board``)."""
        m = self._doc("hands", match_id)
        who = self._who(m, token)
        h = self._hand(match_id, hand, int(m["hands"]))
        if not h["finished"] and who.role is not Role.AUDITOR:
            raise ReplayNotAllowedError(
                f"hand {hand} is still being played: only the auditor may {what} it now"
                f"{self.app.tokens.auditor_hint}",
                hand=hand)
        self.app.check_board(match_id, hand, token)
        return m, h

    def replay(self, match_id: UUID, hand: int, index: int, token: str) -> Doc:
        """The hand's state before action ``index`` (``index == len(actions)``: the end),
        every seat's cards, the legal set, the action taken, why each other action the
        acting seat could name in its phase is illegal, the timeline with rejected attempts,
        and the scoring."""
        return next(self.replay_walk(match_id, hand, index, index, token))

    def replay_walk(self, match_id: UUID, hand: int, start: int, stop: int | None,
                    token: str) -> Iterator[Doc]:
        """:meth:`replay` of every state from ``start`` to ``stop`` (``None``: the end), the
        hand read and replayed once: a walk costs about what one step does, plus each
        state's own part (``referee_projections.replay.step``).

        :raises ActionIndexOutOfRangeError: ``start`` or ``stop`` is past the hand's end, or
            ``stop`` before ``start`` (before anything is yielded)."""
        m, h = self._replayable(match_id, hand, token, "replay")
        actions = h["actions"]
        end = len(actions) if stop is None else stop
        for i in (start, end):
            if not 0 <= i <= len(actions):
                raise ActionIndexOutOfRangeError(
                    f"action index {i} is out of range: hand {hand} has actions "
                    f"0..{len(actions) - 1} (and {len(actions)} for the end)",
                    index=i, actions=len(actions))
        if end < start:
            raise ActionIndexOutOfRangeError(
                f"the walk's last action index {end} is before its first {start}",
                index=end, actions=len(actions))
        game = find_game(m["game"])
        rules = game.rules_class.from_dict(m["rules"])
        deal = game.deal([parse_card(c) for c in h["cards"]], h["dealer"])
        key = (match_id, hand, tuple(h["cards"]), h["dealer"])
        played = [(seat, text) for seat, text, _ in actions]
        head: Doc = {"match_id": str(match_id), "game": m["game"], "hand": hand,
                     "actions": len(actions), "dealer": h["dealer"], "finished": h["finished"],
                     "timeline": self._timeline(match_id, h)}
        if h["finished"]:
            head["scoring"] = {"result": h["result"], "scores_after": h["scores"],
                               "rulings": h["rulings"]}
        for index in range(start, end + 1):
            state = self.hand_states.state(key, game, deal, h["dealer"], rules, played, index)
            yield head | replay_step(game, state, index, actions)

    def hand_view(self, match_id: UUID, hand: int, token: str) -> tuple[str, bool]:
        """The hand as a self-contained HTML page (same access as :meth:`replay`)."""
        m, h = self._replayable(match_id, hand, token, "view")
        title = f"{m['game'].capitalize()} — hand {hand} of match {match_id}"
        page = render_hand(replay_for_view(self._record(m, h).to_json()),
                           players=m["players"], title=title)
        return page, bool(h["finished"])

    def _timeline(self, match_id: UUID, h: Doc) -> list[Doc]:
        """Accepted actions and the rejected attempts made during the hand, by time."""
        items: list[Doc] = [
            {"time": ts, "type": "action", "index": i, "seat": seat, "action": text}
            for i, (seat, text, ts) in enumerate(h["actions"])
        ]
        end = h["ended"] or "9999"
        for r in self.app.rejections.list(str(match_id)):
            t = _normal_time(r.time)
            if _normal_time(h["started"]) <= t <= _normal_time(end):
                items.append({"time": r.time, "type": "rejection", "seat": r.seat,
                              "action": r.action, "reason": r.reason, "rule": r.rule,
                              "message": r.message})
        for u in h.get("proposals", ()):  # undo requests, unchecked claims, their answers
            items.append({k: v for k, v in u.items() if k != "version"})
        for w in h.get("withdrawn", ()):
            items.append({"time": w["time"], "type": "withdrawn", "index": w["index"],
                          "seat": w["seat"], "action": w["action"]})
        for t in h.get("timeouts", ()):
            items.append({"time": t["time"], "type": "timeout", "seat": t["seat"],
                          "policy": t["policy"], "deadline": t["deadline"],
                          "version": t["version"]})
        items.sort(key=lambda x: _normal_time(x["time"]))
        for ruling in h["rulings"]:
            items.append({"time": ruling["time"], "type": "ruling", **ruling})
        return items

    # -- exports -----------------------------------------------------------------------------
    def _record(self, m: Doc, h: Doc) -> HandRecord:
        game = find_game(m["game"])
        return HandRecord(
            game=game.name, rules=game.rules_class.from_dict(m["rules"]), dealer=h["dealer"],
            deal=game.deal([parse_card(c) for c in h["cards"]], h["dealer"]),
            actions=tuple((s, a) for s, a, _ in h["actions"]), result=h["result"],
            timeouts=tuple(t["index"] for t in h.get("timeouts", ()) if t["index"] is not None),
            claimed=tuple(h.get("claimed", ())),
            withdrawn=tuple({"index": w["index"], "seat": w["seat"], "action": w["action"]}
                            for w in h.get("withdrawn", ())),
        )

    def hand_record(self, match_id: UUID, hand: int, token: str) -> Doc:
        """A finished hand as a ``referee.hand/v1`` record."""
        m = self._doc("hands", match_id)
        self._who(m, token)
        h = self._hand(match_id, hand, int(m["hands"]))
        if not h["finished"]:
            raise HandNotFinishedError(f"hand {hand} is not over yet", hand=hand)
        self.app.check_board(match_id, hand, token)
        return self._record(m, h).to_json()

    def match_record(self, match_id: UUID, token: str) -> Doc:
        """The match's finished hands as a ``referee.match/v1`` record."""
        m = self._doc("hands", match_id)
        self._who(m, token)
        for hand in self.app.hidden_hands(match_id):
            self.app.check_board(match_id, hand, token)
        return self._match_record(m)

    def _match_record(self, m: Doc) -> Doc:
        game = find_game(m["game"])
        # The hand a forfeit or an abandonment ended is in the record, unfinished.
        forfeited = (m.get("forfeit") or m.get("abandoned") or {}).get("hand")
        hands = [self._record(m, h)
                 for _, h in self.views["hands"].children("hand", m["match_id"])
                 if h["finished"] or h["hand"] == forfeited]
        rulings = m.get("rulings", [])
        played = m["result"]
        result = None if played is None else match_result(
            played["scores"], played["winner"], True, rulings, m.get("forfeit"),
            m.get("abandoned"))
        record = MatchRecord(game=game.name, rules=game.rules_class.from_dict(m["rules"]),
                             players=tuple(m["players"]), hands=tuple(hands), result=result,
                             match_id=m["match_id"],
                             rulings=record_rulings(rulings),
                             substitutions=tuple(m.get("substitutions", ())),
                             cancelled=tuple(self._cancelled(m, c)
                                             for c in m.get("cancelled", ())))
        return record.to_json()

    def _cancelled(self, m: Doc, c: Doc) -> CancelledDeal:
        """A deal a ``redeal`` ruling cancelled, as the match record lists it."""
        return CancelledDeal(c["hand"], self._record(m, c), cancellation(
            c["cards"], c["commitment"], c["nonce"], c["reason"], c["rule"], c.get("replay")))

    def tournament_export(self, tournament_id: UUID, token: str) -> Iterator[str]:
        """NDJSON: one ``referee.match/v1`` record (finished hands) per attached match."""
        self._require_auditor(token)
        t = self.tournament(tournament_id)
        for mid in sorted(t["matches"]):
            m = self.views["hands"].read("match", mid)
            if m is not None:
                yield json.dumps(self._match_record(m), sort_keys=True)

    # -- tournaments -------------------------------------------------------------------------
    def tournament(self, tournament_id: UUID) -> Doc:
        doc = self.views["standings"].read("tournament", str(tournament_id))
        if doc is None:
            raise TournamentNotFoundError(f"no tournament {tournament_id}",
                                          tournamentId=tournament_id)
        return doc

    def standings(self, tournament_id: UUID) -> Doc:
        self.tournament(tournament_id)
        doc = self.views["standings"].read("standings", str(tournament_id))
        assert doc is not None
        return doc

    # -- integrity ---------------------------------------------------------------------------
    def event_log(self, match_id: UUID, token: str) -> list[Doc]:
        """The match's stored events as canonical dicts (auditor only; they hold the packs)."""
        self._require_auditor(token)
        return event_log(self.app, match_id)

    def check_chain(self, match_id: UUID, token: str, anchor_version: int = 0,
                    anchor_head: str = "") -> tuple[ChainReport, str | None]:
        """Check the match's hash chain in the store (any token of the match), and, given a
        head the caller saved earlier (``anchor_version``, ``anchor_head``), that the event at
        that version still hashes to it. Returns the report and the anchor's problem (``None``:
        no anchor given or it holds); an anchor that fails is a break at its version.

        The stored rows are read and decoded one by one and never replayed through the
        rules, so every kind of tampering (a changed, deleted, reordered, inserted or
        undecodable event, a changed topic) is a report with its position, not an error.
        The caller is authorised by the token hashes of the creation event in the log
        (the auditor always); without a creation event there, only the auditor may check."""
        if anchor_version < 0:
            raise MalformedRequestError("anchor_version must be >= 0 (0: no anchor)",
                                        field="anchor_version")
        entries = decode_all(self.app.mapper, match_rows(self.app.recorder, match_id))
        self._authorize_from_log(entries, token)
        report = check_links(entries)
        anchor = _stored_anchor(entries, anchor_version, anchor_head) if anchor_version else None
        # A failed anchor is a break at its version; one past the end of the log means the
        # events from the first missing one on were deleted after it was saved.
        at = min(anchor_version, max((e.version for e in entries), default=0) + 1)
        if anchor is not None and (report.first_break is None or at < report.first_break):
            report = dataclasses.replace(report, ok=False, first_break=at)
        return report, anchor

    def _authorize_from_log(self, entries: list[StoredMatchEvent], token: str) -> Principal:
        """``token``'s principal by the first creation event in the stored log."""
        created = next((e.event for e in entries if isinstance(e.event, Match.Created)), None)
        if created is None:
            self.app.tokens.require_auditor(
                token, "check the chain of a match whose creation event is not in its stored log")
            return Principal(Role.AUDITOR)
        hashes = getattr(created, "seat_token_hashes", None)
        auth = Credentials(  # as stored, whatever was stored: never an error
            seat_token_hashes=[_ascii(h) for h in hashes] if isinstance(hashes, list) else [],
            spectator_token_hash=_ascii(getattr(created, "spectator_token_hash", "")),
            public_spectators=getattr(created, "public_spectators", False) is True,
        )
        return self.app.tokens.authorize(auth, token)

    def _require_auditor(self, token: str) -> None:
        if not (token and self.app.tokens.is_auditor(token)):
            raise PermissionDeniedError(
                f"only the auditor may do this{self.app.tokens.auditor_hint}")


def event_log(app: Referee | LogReader, match_id: UUID) -> list[Doc]:
    """The stored events of one match (read through the application's recorder, or a log
    reader's), as canonical dicts, in version order. A row that
    does not decode is given as its version, its topic and the problem (``undecodable``),
    so a check of the exported log breaks there."""
    rows = match_rows(app.recorder, match_id)
    out: list[Doc] = []
    for row, entry in zip(rows, decode_all(app.mapper, rows), strict=True):
        if entry.event is None:
            out.append({"originator_version": entry.version, "topic": row.topic,
                        "undecodable": entry.problem})
        else:
            out.append(event_dict(entry.event, row.topic))
    return out


def _ascii(value: object) -> str:
    """A stored token hash fit for ``hmac.compare_digest`` (anything else matches nothing)."""
    return value if isinstance(value, str) and value.isascii() else ""


def _stored_anchor(entries: list[StoredMatchEvent], version: int, head: str) -> str | None:
    """:func:`check_anchor` on decoded rows, found by version (rows may be missing)."""
    entry = next((e for e in entries if e.version == version), None)
    if entry is None:
        return f"anchor version {version} is not in the log (events 1..{len(entries)})"
    actual = event_digest(entry)
    if actual is None:
        return (f"event {version} does not decode, so it cannot hash to the saved head: "
                f"events up to {version} were rewritten after it was saved")
    if actual != head:
        return (f"event {version} hashes to {actual[:12]}..., but the saved head is "
                f"{head[:12]}...: events up to {version} were rewritten after it was saved")
    return None


def check_anchor(events: list[Doc], version: int, head: str) -> str | None:
    """The chain alone cannot show a rewrite of its last events (nothing links to them yet).
    A client that saved the head hash at some version anchors the chain there: the event at
    ``version`` must still hash to ``head``; together with intact links, every event up to it
    is then the one the client saw. Returns what is wrong, or ``None``."""
    if not 1 <= version <= len(events):
        return f"anchor version {version} is not in the log (events 1..{len(events)})"
    actual = dict_hash(events[version - 1])
    if actual != head:
        return (f"event {version} hashes to {actual[:12]}..., but the saved head is "
                f"{head[:12]}...: events up to {version} were rewritten after it was saved")
    return None


def _normal_time(text: str) -> str:
    """ISO times with ``+00:00`` or ``Z`` and any precision, comparable as strings."""
    t = text.replace("Z", "+00:00").replace("T", " ")
    if "+" in t[10:]:
        t = t[: t.rindex("+")]
    if "." in t:
        head, frac = t.split(".")
        t = f"{head}.{frac.ljust(6, '0')}"
    else:
        t += ".000000"
    return t


class BoardEncoder:
    """Scoreboard updates as the scoreboards themselves (dicts), for callers in Python: the
    fan-out's :class:`~referee.application.updates.Encoder` with no events."""

    def events(self, events: Sequence[Any]) -> Any:
        return None

    def view(self, view: Any) -> Any:
        return view

    def update(self, parts: Sequence[Any], version: int) -> Any:
        return parts[-1]

    def heartbeat(self, version: int) -> Any:
        raise AssertionError("a scoreboard stream has no heartbeats")


_BOARDS = BoardEncoder()
