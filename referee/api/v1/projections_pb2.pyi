import datetime

from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from referee.api.v1 import referee_pb2 as _referee_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class GetScoreboardRequest(_message.Message):
    __slots__ = ("match_id",)
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    def __init__(self, match_id: _Optional[str] = ...) -> None: ...

class WatchScoreboardRequest(_message.Message):
    __slots__ = ("match_id", "after_version")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    AFTER_VERSION_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    after_version: int
    def __init__(self, match_id: _Optional[str] = ..., after_version: _Optional[int] = ...) -> None: ...

class GetScoreboardResponse(_message.Message):
    __slots__ = ("scoreboard",)
    SCOREBOARD_FIELD_NUMBER: _ClassVar[int]
    scoreboard: Scoreboard
    def __init__(self, scoreboard: _Optional[_Union[Scoreboard, _Mapping]] = ...) -> None: ...

class WatchScoreboardResponse(_message.Message):
    __slots__ = ("scoreboard",)
    SCOREBOARD_FIELD_NUMBER: _ClassVar[int]
    scoreboard: Scoreboard
    def __init__(self, scoreboard: _Optional[_Union[Scoreboard, _Mapping]] = ...) -> None: ...

class Ruling(_message.Message):
    __slots__ = ("hand", "kind", "adjust", "reason", "version", "rule", "ref", "commitment", "hands")
    HAND_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    ADJUST_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    RULE_FIELD_NUMBER: _ClassVar[int]
    REF_FIELD_NUMBER: _ClassVar[int]
    COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    HANDS_FIELD_NUMBER: _ClassVar[int]
    hand: int
    kind: str
    adjust: _containers.RepeatedScalarFieldContainer[int]
    reason: str
    version: int
    rule: str
    ref: int
    commitment: str
    hands: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, hand: _Optional[int] = ..., kind: _Optional[str] = ..., adjust: _Optional[_Iterable[int]] = ..., reason: _Optional[str] = ..., version: _Optional[int] = ..., rule: _Optional[str] = ..., ref: _Optional[int] = ..., commitment: _Optional[str] = ..., hands: _Optional[_Iterable[int]] = ...) -> None: ...

class HandScore(_message.Message):
    __slots__ = ("hand", "dealer", "points", "scores_after", "detail", "rulings")
    HAND_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    SCORES_AFTER_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    RULINGS_FIELD_NUMBER: _ClassVar[int]
    hand: int
    dealer: int
    points: _containers.RepeatedScalarFieldContainer[int]
    scores_after: _containers.RepeatedScalarFieldContainer[int]
    detail: _struct_pb2.Struct
    rulings: _containers.RepeatedCompositeFieldContainer[Ruling]
    def __init__(self, hand: _Optional[int] = ..., dealer: _Optional[int] = ..., points: _Optional[_Iterable[int]] = ..., scores_after: _Optional[_Iterable[int]] = ..., detail: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., rulings: _Optional[_Iterable[_Union[Ruling, _Mapping]]] = ...) -> None: ...

class Scoreboard(_message.Message):
    __slots__ = ("match_id", "game", "state", "version", "hand", "dealer", "to_act", "scores", "adjusted_scores", "winner", "players", "hands", "rulings", "head_hash", "clock", "timeouts", "as_played_winner", "abandoned")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    TO_ACT_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    ADJUSTED_SCORES_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    HANDS_FIELD_NUMBER: _ClassVar[int]
    RULINGS_FIELD_NUMBER: _ClassVar[int]
    HEAD_HASH_FIELD_NUMBER: _ClassVar[int]
    CLOCK_FIELD_NUMBER: _ClassVar[int]
    TIMEOUTS_FIELD_NUMBER: _ClassVar[int]
    AS_PLAYED_WINNER_FIELD_NUMBER: _ClassVar[int]
    ABANDONED_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    game: str
    state: str
    version: int
    hand: int
    dealer: int
    to_act: int
    scores: _containers.RepeatedScalarFieldContainer[int]
    adjusted_scores: _containers.RepeatedScalarFieldContainer[int]
    winner: int
    players: _containers.RepeatedScalarFieldContainer[str]
    hands: _containers.RepeatedCompositeFieldContainer[HandScore]
    rulings: _containers.RepeatedCompositeFieldContainer[Ruling]
    head_hash: str
    clock: _referee_pb2.ClockView
    timeouts: _containers.RepeatedCompositeFieldContainer[Timeout]
    as_played_winner: int
    abandoned: Abandonment
    def __init__(self, match_id: _Optional[str] = ..., game: _Optional[str] = ..., state: _Optional[str] = ..., version: _Optional[int] = ..., hand: _Optional[int] = ..., dealer: _Optional[int] = ..., to_act: _Optional[int] = ..., scores: _Optional[_Iterable[int]] = ..., adjusted_scores: _Optional[_Iterable[int]] = ..., winner: _Optional[int] = ..., players: _Optional[_Iterable[str]] = ..., hands: _Optional[_Iterable[_Union[HandScore, _Mapping]]] = ..., rulings: _Optional[_Iterable[_Union[Ruling, _Mapping]]] = ..., head_hash: _Optional[str] = ..., clock: _Optional[_Union[_referee_pb2.ClockView, _Mapping]] = ..., timeouts: _Optional[_Iterable[_Union[Timeout, _Mapping]]] = ..., as_played_winner: _Optional[int] = ..., abandoned: _Optional[_Union[Abandonment, _Mapping]] = ...) -> None: ...

class Abandonment(_message.Message):
    __slots__ = ("at_fault", "policy", "hand", "reason")
    AT_FAULT_FIELD_NUMBER: _ClassVar[int]
    POLICY_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    at_fault: _containers.RepeatedScalarFieldContainer[bool]
    policy: str
    hand: int
    reason: str
    def __init__(self, at_fault: _Optional[_Iterable[bool]] = ..., policy: _Optional[str] = ..., hand: _Optional[int] = ..., reason: _Optional[str] = ...) -> None: ...

class Timeout(_message.Message):
    __slots__ = ("seat", "policy", "hand", "version", "deadline")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    POLICY_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_FIELD_NUMBER: _ClassVar[int]
    seat: int
    policy: _referee_pb2.TimeoutPolicy
    hand: int
    version: int
    deadline: _timestamp_pb2.Timestamp
    def __init__(self, seat: _Optional[int] = ..., policy: _Optional[_Union[_referee_pb2.TimeoutPolicy, str]] = ..., hand: _Optional[int] = ..., version: _Optional[int] = ..., deadline: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class GetReplayRequest(_message.Message):
    __slots__ = ("match_id", "hand", "action_index")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    ACTION_INDEX_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    hand: int
    action_index: int
    def __init__(self, match_id: _Optional[str] = ..., hand: _Optional[int] = ..., action_index: _Optional[int] = ...) -> None: ...

class IllegalAction(_message.Message):
    __slots__ = ("action", "rule", "reason", "message")
    ACTION_FIELD_NUMBER: _ClassVar[int]
    RULE_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    action: str
    rule: str
    reason: str
    message: str
    def __init__(self, action: _Optional[str] = ..., rule: _Optional[str] = ..., reason: _Optional[str] = ..., message: _Optional[str] = ...) -> None: ...

class ReplayAction(_message.Message):
    __slots__ = ("index", "seat", "action", "time")
    INDEX_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    TIME_FIELD_NUMBER: _ClassVar[int]
    index: int
    seat: int
    action: str
    time: _timestamp_pb2.Timestamp
    def __init__(self, index: _Optional[int] = ..., seat: _Optional[int] = ..., action: _Optional[str] = ..., time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class TimelineEntry(_message.Message):
    __slots__ = ("time", "action", "rejection", "timeout", "ruling", "event")
    TIME_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    REJECTION_FIELD_NUMBER: _ClassVar[int]
    TIMEOUT_FIELD_NUMBER: _ClassVar[int]
    RULING_FIELD_NUMBER: _ClassVar[int]
    EVENT_FIELD_NUMBER: _ClassVar[int]
    time: _timestamp_pb2.Timestamp
    action: ReplayAction
    rejection: _referee_pb2.Rejection
    timeout: Timeout
    ruling: Ruling
    event: TableEvent
    def __init__(self, time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., action: _Optional[_Union[ReplayAction, _Mapping]] = ..., rejection: _Optional[_Union[_referee_pb2.Rejection, _Mapping]] = ..., timeout: _Optional[_Union[Timeout, _Mapping]] = ..., ruling: _Optional[_Union[Ruling, _Mapping]] = ..., event: _Optional[_Union[TableEvent, _Mapping]] = ...) -> None: ...

class TableEvent(_message.Message):
    __slots__ = ("type", "seat", "detail")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    type: str
    seat: int
    detail: _struct_pb2.Struct
    def __init__(self, type: _Optional[str] = ..., seat: _Optional[int] = ..., detail: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class WalkReplayRequest(_message.Message):
    __slots__ = ("match_id", "hand", "from_index", "to_index")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    FROM_INDEX_FIELD_NUMBER: _ClassVar[int]
    TO_INDEX_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    hand: int
    from_index: int
    to_index: int
    def __init__(self, match_id: _Optional[str] = ..., hand: _Optional[int] = ..., from_index: _Optional[int] = ..., to_index: _Optional[int] = ...) -> None: ...

class WalkReplayResponse(_message.Message):
    __slots__ = ("step",)
    STEP_FIELD_NUMBER: _ClassVar[int]
    step: GetReplayResponse
    def __init__(self, step: _Optional[_Union[GetReplayResponse, _Mapping]] = ...) -> None: ...

class GetReplayResponse(_message.Message):
    __slots__ = ("match_id", "hand", "action_index", "actions", "to_act", "legal", "action", "illegal", "cards", "table", "timeline", "scoring", "finished")
    class CardsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: _referee_pb2.Cards
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[_referee_pb2.Cards, _Mapping]] = ...) -> None: ...
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    ACTION_INDEX_FIELD_NUMBER: _ClassVar[int]
    ACTIONS_FIELD_NUMBER: _ClassVar[int]
    TO_ACT_FIELD_NUMBER: _ClassVar[int]
    LEGAL_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    ILLEGAL_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    TABLE_FIELD_NUMBER: _ClassVar[int]
    TIMELINE_FIELD_NUMBER: _ClassVar[int]
    SCORING_FIELD_NUMBER: _ClassVar[int]
    FINISHED_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    hand: int
    action_index: int
    actions: int
    to_act: int
    legal: _containers.RepeatedScalarFieldContainer[str]
    action: ReplayAction
    illegal: _containers.RepeatedCompositeFieldContainer[IllegalAction]
    cards: _containers.MessageMap[str, _referee_pb2.Cards]
    table: _referee_pb2.Table
    timeline: _containers.RepeatedCompositeFieldContainer[TimelineEntry]
    scoring: HandScore
    finished: bool
    def __init__(self, match_id: _Optional[str] = ..., hand: _Optional[int] = ..., action_index: _Optional[int] = ..., actions: _Optional[int] = ..., to_act: _Optional[int] = ..., legal: _Optional[_Iterable[str]] = ..., action: _Optional[_Union[ReplayAction, _Mapping]] = ..., illegal: _Optional[_Iterable[_Union[IllegalAction, _Mapping]]] = ..., cards: _Optional[_Mapping[str, _referee_pb2.Cards]] = ..., table: _Optional[_Union[_referee_pb2.Table, _Mapping]] = ..., timeline: _Optional[_Iterable[_Union[TimelineEntry, _Mapping]]] = ..., scoring: _Optional[_Union[HandScore, _Mapping]] = ..., finished: _Optional[bool] = ...) -> None: ...

class ExportHandRequest(_message.Message):
    __slots__ = ("match_id", "hand")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    hand: int
    def __init__(self, match_id: _Optional[str] = ..., hand: _Optional[int] = ...) -> None: ...

class ExportMatchRequest(_message.Message):
    __slots__ = ("match_id",)
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    def __init__(self, match_id: _Optional[str] = ...) -> None: ...

class ExportHandResponse(_message.Message):
    __slots__ = ("record_json",)
    RECORD_JSON_FIELD_NUMBER: _ClassVar[int]
    record_json: str
    def __init__(self, record_json: _Optional[str] = ...) -> None: ...

class ExportMatchResponse(_message.Message):
    __slots__ = ("record_json",)
    RECORD_JSON_FIELD_NUMBER: _ClassVar[int]
    record_json: str
    def __init__(self, record_json: _Optional[str] = ...) -> None: ...

class ExportTournamentResponse(_message.Message):
    __slots__ = ("record_json",)
    RECORD_JSON_FIELD_NUMBER: _ClassVar[int]
    record_json: str
    def __init__(self, record_json: _Optional[str] = ...) -> None: ...

class RecordRulingRequest(_message.Message):
    __slots__ = ("match_id", "hand", "kind", "points", "reason", "command_id", "rule", "ref", "grades")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    COMMAND_ID_FIELD_NUMBER: _ClassVar[int]
    RULE_FIELD_NUMBER: _ClassVar[int]
    REF_FIELD_NUMBER: _ClassVar[int]
    GRADES_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    hand: int
    kind: str
    points: _containers.RepeatedScalarFieldContainer[int]
    reason: str
    command_id: str
    rule: str
    ref: int
    grades: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, match_id: _Optional[str] = ..., hand: _Optional[int] = ..., kind: _Optional[str] = ..., points: _Optional[_Iterable[int]] = ..., reason: _Optional[str] = ..., command_id: _Optional[str] = ..., rule: _Optional[str] = ..., ref: _Optional[int] = ..., grades: _Optional[_Iterable[str]] = ...) -> None: ...

class RecordRulingResponse(_message.Message):
    __slots__ = ("version", "adjust", "replayed")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    ADJUST_FIELD_NUMBER: _ClassVar[int]
    REPLAYED_FIELD_NUMBER: _ClassVar[int]
    version: int
    adjust: _containers.RepeatedScalarFieldContainer[int]
    replayed: bool
    def __init__(self, version: _Optional[int] = ..., adjust: _Optional[_Iterable[int]] = ..., replayed: _Optional[bool] = ...) -> None: ...

class CheckChainRequest(_message.Message):
    __slots__ = ("match_id", "anchor_version", "anchor_head")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    ANCHOR_VERSION_FIELD_NUMBER: _ClassVar[int]
    ANCHOR_HEAD_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    anchor_version: int
    anchor_head: str
    def __init__(self, match_id: _Optional[str] = ..., anchor_version: _Optional[int] = ..., anchor_head: _Optional[str] = ...) -> None: ...

class CheckChainResponse(_message.Message):
    __slots__ = ("ok", "events", "head", "first_break", "message", "version", "anchor_ok")
    OK_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    HEAD_FIELD_NUMBER: _ClassVar[int]
    FIRST_BREAK_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    ANCHOR_OK_FIELD_NUMBER: _ClassVar[int]
    ok: bool
    events: int
    head: str
    first_break: int
    message: str
    version: int
    anchor_ok: bool
    def __init__(self, ok: _Optional[bool] = ..., events: _Optional[int] = ..., head: _Optional[str] = ..., first_break: _Optional[int] = ..., message: _Optional[str] = ..., version: _Optional[int] = ..., anchor_ok: _Optional[bool] = ...) -> None: ...

class GetHandViewRequest(_message.Message):
    __slots__ = ("match_id", "hand")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    hand: int
    def __init__(self, match_id: _Optional[str] = ..., hand: _Optional[int] = ...) -> None: ...

class GetHandViewResponse(_message.Message):
    __slots__ = ("html", "finished")
    HTML_FIELD_NUMBER: _ClassVar[int]
    FINISHED_FIELD_NUMBER: _ClassVar[int]
    html: str
    finished: bool
    def __init__(self, html: _Optional[str] = ..., finished: _Optional[bool] = ...) -> None: ...

class CreateTournamentRequest(_message.Message):
    __slots__ = ("name", "game", "command_id", "abandonment")
    NAME_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    COMMAND_ID_FIELD_NUMBER: _ClassVar[int]
    ABANDONMENT_FIELD_NUMBER: _ClassVar[int]
    name: str
    game: str
    command_id: str
    abandonment: str
    def __init__(self, name: _Optional[str] = ..., game: _Optional[str] = ..., command_id: _Optional[str] = ..., abandonment: _Optional[str] = ...) -> None: ...

class AbandonMatchRequest(_message.Message):
    __slots__ = ("match_id", "tournament_id", "at_fault", "reason", "command_id")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    AT_FAULT_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    COMMAND_ID_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    tournament_id: str
    at_fault: _containers.RepeatedScalarFieldContainer[bool]
    reason: str
    command_id: str
    def __init__(self, match_id: _Optional[str] = ..., tournament_id: _Optional[str] = ..., at_fault: _Optional[_Iterable[bool]] = ..., reason: _Optional[str] = ..., command_id: _Optional[str] = ...) -> None: ...

class AbandonMatchResponse(_message.Message):
    __slots__ = ("version", "winner", "replayed")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    REPLAYED_FIELD_NUMBER: _ClassVar[int]
    version: int
    winner: int
    replayed: bool
    def __init__(self, version: _Optional[int] = ..., winner: _Optional[int] = ..., replayed: _Optional[bool] = ...) -> None: ...

class CreateTournamentResponse(_message.Message):
    __slots__ = ("tournament_id", "replayed")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    REPLAYED_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    replayed: bool
    def __init__(self, tournament_id: _Optional[str] = ..., replayed: _Optional[bool] = ...) -> None: ...

class RegisterEntrantRequest(_message.Message):
    __slots__ = ("tournament_id", "entrant", "members", "command_id")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    ENTRANT_FIELD_NUMBER: _ClassVar[int]
    MEMBERS_FIELD_NUMBER: _ClassVar[int]
    COMMAND_ID_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    entrant: str
    members: _containers.RepeatedScalarFieldContainer[str]
    command_id: str
    def __init__(self, tournament_id: _Optional[str] = ..., entrant: _Optional[str] = ..., members: _Optional[_Iterable[str]] = ..., command_id: _Optional[str] = ...) -> None: ...

class AttachMatchRequest(_message.Message):
    __slots__ = ("tournament_id", "match_id", "sides", "board", "command_id")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SIDES_FIELD_NUMBER: _ClassVar[int]
    BOARD_FIELD_NUMBER: _ClassVar[int]
    COMMAND_ID_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    match_id: str
    sides: _containers.RepeatedScalarFieldContainer[str]
    board: str
    command_id: str
    def __init__(self, tournament_id: _Optional[str] = ..., match_id: _Optional[str] = ..., sides: _Optional[_Iterable[str]] = ..., board: _Optional[str] = ..., command_id: _Optional[str] = ...) -> None: ...

class RegisterEntrantResponse(_message.Message):
    __slots__ = ("version",)
    VERSION_FIELD_NUMBER: _ClassVar[int]
    version: int
    def __init__(self, version: _Optional[int] = ...) -> None: ...

class AttachMatchResponse(_message.Message):
    __slots__ = ("version",)
    VERSION_FIELD_NUMBER: _ClassVar[int]
    version: int
    def __init__(self, version: _Optional[int] = ...) -> None: ...

class ReleaseBoardResponse(_message.Message):
    __slots__ = ("version",)
    VERSION_FIELD_NUMBER: _ClassVar[int]
    version: int
    def __init__(self, version: _Optional[int] = ...) -> None: ...

class GetStandingsRequest(_message.Message):
    __slots__ = ("tournament_id",)
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    def __init__(self, tournament_id: _Optional[str] = ...) -> None: ...

class Standing(_message.Message):
    __slots__ = ("entrant", "played", "won", "lost", "drawn", "points_for", "points_against", "duplicate", "matchpoints", "scaled", "abandoned")
    ENTRANT_FIELD_NUMBER: _ClassVar[int]
    PLAYED_FIELD_NUMBER: _ClassVar[int]
    WON_FIELD_NUMBER: _ClassVar[int]
    LOST_FIELD_NUMBER: _ClassVar[int]
    DRAWN_FIELD_NUMBER: _ClassVar[int]
    POINTS_FOR_FIELD_NUMBER: _ClassVar[int]
    POINTS_AGAINST_FIELD_NUMBER: _ClassVar[int]
    DUPLICATE_FIELD_NUMBER: _ClassVar[int]
    MATCHPOINTS_FIELD_NUMBER: _ClassVar[int]
    SCALED_FIELD_NUMBER: _ClassVar[int]
    ABANDONED_FIELD_NUMBER: _ClassVar[int]
    entrant: str
    played: int
    won: int
    lost: int
    drawn: int
    points_for: int
    points_against: int
    duplicate: int
    matchpoints: int
    scaled: int
    abandoned: int
    def __init__(self, entrant: _Optional[str] = ..., played: _Optional[int] = ..., won: _Optional[int] = ..., lost: _Optional[int] = ..., drawn: _Optional[int] = ..., points_for: _Optional[int] = ..., points_against: _Optional[int] = ..., duplicate: _Optional[int] = ..., matchpoints: _Optional[int] = ..., scaled: _Optional[int] = ..., abandoned: _Optional[int] = ...) -> None: ...

class BoardTable(_message.Message):
    __slots__ = ("match_id", "sides", "points", "duplicate", "matchpoints", "scaled")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SIDES_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    DUPLICATE_FIELD_NUMBER: _ClassVar[int]
    MATCHPOINTS_FIELD_NUMBER: _ClassVar[int]
    SCALED_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    sides: _containers.RepeatedScalarFieldContainer[str]
    points: _containers.RepeatedScalarFieldContainer[int]
    duplicate: _containers.RepeatedScalarFieldContainer[int]
    matchpoints: _containers.RepeatedScalarFieldContainer[int]
    scaled: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, match_id: _Optional[str] = ..., sides: _Optional[_Iterable[str]] = ..., points: _Optional[_Iterable[int]] = ..., duplicate: _Optional[_Iterable[int]] = ..., matchpoints: _Optional[_Iterable[int]] = ..., scaled: _Optional[_Iterable[int]] = ...) -> None: ...

class BoardComparison(_message.Message):
    __slots__ = ("board", "hand", "tables")
    BOARD_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    TABLES_FIELD_NUMBER: _ClassVar[int]
    board: str
    hand: int
    tables: _containers.RepeatedCompositeFieldContainer[BoardTable]
    def __init__(self, board: _Optional[str] = ..., hand: _Optional[int] = ..., tables: _Optional[_Iterable[_Union[BoardTable, _Mapping]]] = ...) -> None: ...

class GetStandingsResponse(_message.Message):
    __slots__ = ("tournament_id", "name", "game", "standings", "boards", "final", "abandonment", "matches")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    STANDINGS_FIELD_NUMBER: _ClassVar[int]
    BOARDS_FIELD_NUMBER: _ClassVar[int]
    FINAL_FIELD_NUMBER: _ClassVar[int]
    ABANDONMENT_FIELD_NUMBER: _ClassVar[int]
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    name: str
    game: str
    standings: _containers.RepeatedCompositeFieldContainer[Standing]
    boards: _containers.RepeatedCompositeFieldContainer[BoardComparison]
    final: bool
    abandonment: str
    matches: _containers.RepeatedCompositeFieldContainer[StandingMatch]
    def __init__(self, tournament_id: _Optional[str] = ..., name: _Optional[str] = ..., game: _Optional[str] = ..., standings: _Optional[_Iterable[_Union[Standing, _Mapping]]] = ..., boards: _Optional[_Iterable[_Union[BoardComparison, _Mapping]]] = ..., final: _Optional[bool] = ..., abandonment: _Optional[str] = ..., matches: _Optional[_Iterable[_Union[StandingMatch, _Mapping]]] = ...) -> None: ...

class StandingMatch(_message.Message):
    __slots__ = ("match_id", "sides", "players", "over", "scores", "winner", "abandoned")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SIDES_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    OVER_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    ABANDONED_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    sides: _containers.RepeatedScalarFieldContainer[str]
    players: _containers.RepeatedScalarFieldContainer[str]
    over: bool
    scores: _containers.RepeatedScalarFieldContainer[int]
    winner: int
    abandoned: Abandonment
    def __init__(self, match_id: _Optional[str] = ..., sides: _Optional[_Iterable[str]] = ..., players: _Optional[_Iterable[str]] = ..., over: _Optional[bool] = ..., scores: _Optional[_Iterable[int]] = ..., winner: _Optional[int] = ..., abandoned: _Optional[_Union[Abandonment, _Mapping]] = ...) -> None: ...

class ReleaseBoardRequest(_message.Message):
    __slots__ = ("tournament_id", "board", "command_id")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    BOARD_FIELD_NUMBER: _ClassVar[int]
    COMMAND_ID_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    board: str
    command_id: str
    def __init__(self, tournament_id: _Optional[str] = ..., board: _Optional[str] = ..., command_id: _Optional[str] = ...) -> None: ...

class FinalizeResultsRequest(_message.Message):
    __slots__ = ("tournament_id", "command_id")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    COMMAND_ID_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    command_id: str
    def __init__(self, tournament_id: _Optional[str] = ..., command_id: _Optional[str] = ...) -> None: ...

class FinalizeResultsResponse(_message.Message):
    __slots__ = ("version", "final_matches")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    FINAL_MATCHES_FIELD_NUMBER: _ClassVar[int]
    version: int
    final_matches: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, version: _Optional[int] = ..., final_matches: _Optional[_Iterable[str]] = ...) -> None: ...

class ExportTournamentRequest(_message.Message):
    __slots__ = ("tournament_id",)
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    def __init__(self, tournament_id: _Optional[str] = ...) -> None: ...
