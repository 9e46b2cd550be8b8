import datetime

from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Role(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ROLE_UNSPECIFIED: _ClassVar[Role]
    ROLE_SEAT: _ClassVar[Role]
    ROLE_SPECTATOR: _ClassVar[Role]
    ROLE_AUDITOR: _ClassVar[Role]

class FactKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    FACT_KIND_UNSPECIFIED: _ClassVar[FactKind]
    FACT_KIND_TRICK_TAKEN: _ClassVar[FactKind]
    FACT_KIND_ANNOUNCED: _ClassVar[FactKind]
    FACT_KIND_HAND_ENDED: _ClassVar[FactKind]
    FACT_KIND_MATCH_ENDED: _ClassVar[FactKind]
    FACT_KIND_HAND_DEALT: _ClassVar[FactKind]
    FACT_KIND_TIMED_OUT: _ClassVar[FactKind]
    FACT_KIND_CLOCK_PAUSED: _ClassVar[FactKind]
    FACT_KIND_CLOCK_RESUMED: _ClassVar[FactKind]
    FACT_KIND_CLAIM_ACCEPTED: _ClassVar[FactKind]
    FACT_KIND_MATCH_CONCEDED: _ClassVar[FactKind]
    FACT_KIND_SEAT_SUBSTITUTED: _ClassVar[FactKind]
    FACT_KIND_UNDO_REQUESTED: _ClassVar[FactKind]
    FACT_KIND_UNDO_ANSWERED: _ClassVar[FactKind]
    FACT_KIND_ACTION_WITHDRAWN: _ClassVar[FactKind]
    FACT_KIND_MATCH_ABANDONED: _ClassVar[FactKind]
    FACT_KIND_CLAIM_PROPOSED: _ClassVar[FactKind]
    FACT_KIND_CLAIM_ANSWERED: _ClassVar[FactKind]
    FACT_KIND_HAND_CANCELLED: _ClassVar[FactKind]

class TimeoutPolicy(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TIMEOUT_POLICY_UNSPECIFIED: _ClassVar[TimeoutPolicy]
    TIMEOUT_POLICY_AUTO: _ClassVar[TimeoutPolicy]
    TIMEOUT_POLICY_FORFEIT: _ClassVar[TimeoutPolicy]
    TIMEOUT_POLICY_PAUSE: _ClassVar[TimeoutPolicy]
ROLE_UNSPECIFIED: Role
ROLE_SEAT: Role
ROLE_SPECTATOR: Role
ROLE_AUDITOR: Role
FACT_KIND_UNSPECIFIED: FactKind
FACT_KIND_TRICK_TAKEN: FactKind
FACT_KIND_ANNOUNCED: FactKind
FACT_KIND_HAND_ENDED: FactKind
FACT_KIND_MATCH_ENDED: FactKind
FACT_KIND_HAND_DEALT: FactKind
FACT_KIND_TIMED_OUT: FactKind
FACT_KIND_CLOCK_PAUSED: FactKind
FACT_KIND_CLOCK_RESUMED: FactKind
FACT_KIND_CLAIM_ACCEPTED: FactKind
FACT_KIND_MATCH_CONCEDED: FactKind
FACT_KIND_SEAT_SUBSTITUTED: FactKind
FACT_KIND_UNDO_REQUESTED: FactKind
FACT_KIND_UNDO_ANSWERED: FactKind
FACT_KIND_ACTION_WITHDRAWN: FactKind
FACT_KIND_MATCH_ABANDONED: FactKind
FACT_KIND_CLAIM_PROPOSED: FactKind
FACT_KIND_CLAIM_ANSWERED: FactKind
FACT_KIND_HAND_CANCELLED: FactKind
TIMEOUT_POLICY_UNSPECIFIED: TimeoutPolicy
TIMEOUT_POLICY_AUTO: TimeoutPolicy
TIMEOUT_POLICY_FORFEIT: TimeoutPolicy
TIMEOUT_POLICY_PAUSE: TimeoutPolicy

class RuleValue(_message.Message):
    __slots__ = ("bool_value", "int_value", "string_value")
    BOOL_VALUE_FIELD_NUMBER: _ClassVar[int]
    INT_VALUE_FIELD_NUMBER: _ClassVar[int]
    STRING_VALUE_FIELD_NUMBER: _ClassVar[int]
    bool_value: bool
    int_value: int
    string_value: str
    def __init__(self, bool_value: _Optional[bool] = ..., int_value: _Optional[int] = ..., string_value: _Optional[str] = ...) -> None: ...

class RuleParameter(_message.Message):
    __slots__ = ("name", "type", "default_value", "rule", "doc", "choices", "minimum", "maximum")
    NAME_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_VALUE_FIELD_NUMBER: _ClassVar[int]
    RULE_FIELD_NUMBER: _ClassVar[int]
    DOC_FIELD_NUMBER: _ClassVar[int]
    CHOICES_FIELD_NUMBER: _ClassVar[int]
    MINIMUM_FIELD_NUMBER: _ClassVar[int]
    MAXIMUM_FIELD_NUMBER: _ClassVar[int]
    name: str
    type: str
    default_value: RuleValue
    rule: str
    doc: str
    choices: _containers.RepeatedScalarFieldContainer[str]
    minimum: int
    maximum: int
    def __init__(self, name: _Optional[str] = ..., type: _Optional[str] = ..., default_value: _Optional[_Union[RuleValue, _Mapping]] = ..., rule: _Optional[str] = ..., doc: _Optional[str] = ..., choices: _Optional[_Iterable[str]] = ..., minimum: _Optional[int] = ..., maximum: _Optional[int] = ...) -> None: ...

class GameInfo(_message.Message):
    __slots__ = ("name", "aliases", "title", "seats", "parameters", "partnerships", "sides", "match_length", "hidden_verbs")
    NAME_FIELD_NUMBER: _ClassVar[int]
    ALIASES_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    PARAMETERS_FIELD_NUMBER: _ClassVar[int]
    PARTNERSHIPS_FIELD_NUMBER: _ClassVar[int]
    SIDES_FIELD_NUMBER: _ClassVar[int]
    MATCH_LENGTH_FIELD_NUMBER: _ClassVar[int]
    HIDDEN_VERBS_FIELD_NUMBER: _ClassVar[int]
    name: str
    aliases: _containers.RepeatedScalarFieldContainer[str]
    title: str
    seats: int
    parameters: _containers.RepeatedCompositeFieldContainer[RuleParameter]
    partnerships: bool
    sides: int
    match_length: str
    hidden_verbs: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, name: _Optional[str] = ..., aliases: _Optional[_Iterable[str]] = ..., title: _Optional[str] = ..., seats: _Optional[int] = ..., parameters: _Optional[_Iterable[_Union[RuleParameter, _Mapping]]] = ..., partnerships: _Optional[bool] = ..., sides: _Optional[int] = ..., match_length: _Optional[str] = ..., hidden_verbs: _Optional[_Iterable[str]] = ...) -> None: ...

class ListGamesRequest(_message.Message):
    __slots__ = ("page_size", "page_token")
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    page_size: int
    page_token: str
    def __init__(self, page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListGamesResponse(_message.Message):
    __slots__ = ("games", "next_page_token")
    GAMES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    games: _containers.RepeatedCompositeFieldContainer[GameInfo]
    next_page_token: str
    def __init__(self, games: _Optional[_Iterable[_Union[GameInfo, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class FixedDeal(_message.Message):
    __slots__ = ("cards",)
    CARDS_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, cards: _Optional[_Iterable[str]] = ...) -> None: ...

class CreateMatchRequest(_message.Message):
    __slots__ = ("game", "rules", "players", "seed_entropy", "fixed_deals", "first_dealer", "public_spectators", "time_control", "policies")
    class RulesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: RuleValue
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[RuleValue, _Mapping]] = ...) -> None: ...
    GAME_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    SEED_ENTROPY_FIELD_NUMBER: _ClassVar[int]
    FIXED_DEALS_FIELD_NUMBER: _ClassVar[int]
    FIRST_DEALER_FIELD_NUMBER: _ClassVar[int]
    PUBLIC_SPECTATORS_FIELD_NUMBER: _ClassVar[int]
    TIME_CONTROL_FIELD_NUMBER: _ClassVar[int]
    POLICIES_FIELD_NUMBER: _ClassVar[int]
    game: str
    rules: _containers.MessageMap[str, RuleValue]
    players: _containers.RepeatedScalarFieldContainer[str]
    seed_entropy: bytes
    fixed_deals: _containers.RepeatedCompositeFieldContainer[FixedDeal]
    first_dealer: int
    public_spectators: bool
    time_control: TimeControl
    policies: TablePolicies
    def __init__(self, game: _Optional[str] = ..., rules: _Optional[_Mapping[str, RuleValue]] = ..., players: _Optional[_Iterable[str]] = ..., seed_entropy: _Optional[bytes] = ..., fixed_deals: _Optional[_Iterable[_Union[FixedDeal, _Mapping]]] = ..., first_dealer: _Optional[int] = ..., public_spectators: _Optional[bool] = ..., time_control: _Optional[_Union[TimeControl, _Mapping]] = ..., policies: _Optional[_Union[TablePolicies, _Mapping]] = ...) -> None: ...

class TablePolicies(_message.Message):
    __slots__ = ("undo", "unchecked_claims")
    UNDO_FIELD_NUMBER: _ClassVar[int]
    UNCHECKED_CLAIMS_FIELD_NUMBER: _ClassVar[int]
    undo: str
    unchecked_claims: str
    def __init__(self, undo: _Optional[str] = ..., unchecked_claims: _Optional[str] = ...) -> None: ...

class TimeControl(_message.Message):
    __slots__ = ("action_ms", "bank_ms", "increment_ms", "lag_ms", "policy")
    ACTION_MS_FIELD_NUMBER: _ClassVar[int]
    BANK_MS_FIELD_NUMBER: _ClassVar[int]
    INCREMENT_MS_FIELD_NUMBER: _ClassVar[int]
    LAG_MS_FIELD_NUMBER: _ClassVar[int]
    POLICY_FIELD_NUMBER: _ClassVar[int]
    action_ms: int
    bank_ms: int
    increment_ms: int
    lag_ms: int
    policy: TimeoutPolicy
    def __init__(self, action_ms: _Optional[int] = ..., bank_ms: _Optional[int] = ..., increment_ms: _Optional[int] = ..., lag_ms: _Optional[int] = ..., policy: _Optional[_Union[TimeoutPolicy, str]] = ...) -> None: ...

class ClockView(_message.Message):
    __slots__ = ("control", "banks_ms", "paused", "to_act", "deadline", "left_ms")
    CONTROL_FIELD_NUMBER: _ClassVar[int]
    BANKS_MS_FIELD_NUMBER: _ClassVar[int]
    PAUSED_FIELD_NUMBER: _ClassVar[int]
    TO_ACT_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_FIELD_NUMBER: _ClassVar[int]
    LEFT_MS_FIELD_NUMBER: _ClassVar[int]
    control: TimeControl
    banks_ms: _containers.RepeatedScalarFieldContainer[int]
    paused: bool
    to_act: int
    deadline: _timestamp_pb2.Timestamp
    left_ms: int
    def __init__(self, control: _Optional[_Union[TimeControl, _Mapping]] = ..., banks_ms: _Optional[_Iterable[int]] = ..., paused: _Optional[bool] = ..., to_act: _Optional[int] = ..., deadline: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., left_ms: _Optional[int] = ...) -> None: ...

class PauseClocksRequest(_message.Message):
    __slots__ = ("match_id", "reason")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    reason: str
    def __init__(self, match_id: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class ResumeClocksRequest(_message.Message):
    __slots__ = ("match_id", "add_ms")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    ADD_MS_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    add_ms: int
    def __init__(self, match_id: _Optional[str] = ..., add_ms: _Optional[int] = ...) -> None: ...

class PauseClocksResponse(_message.Message):
    __slots__ = ("version",)
    VERSION_FIELD_NUMBER: _ClassVar[int]
    version: int
    def __init__(self, version: _Optional[int] = ...) -> None: ...

class ResumeClocksResponse(_message.Message):
    __slots__ = ("version",)
    VERSION_FIELD_NUMBER: _ClassVar[int]
    version: int
    def __init__(self, version: _Optional[int] = ...) -> None: ...

class SeatToken(_message.Message):
    __slots__ = ("seat", "player", "token")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    seat: int
    player: str
    token: str
    def __init__(self, seat: _Optional[int] = ..., player: _Optional[str] = ..., token: _Optional[str] = ...) -> None: ...

class CreateMatchResponse(_message.Message):
    __slots__ = ("match_id", "seat_tokens", "spectator_token", "version", "deal_commitment")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    SPECTATOR_TOKEN_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    DEAL_COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seat_tokens: _containers.RepeatedCompositeFieldContainer[SeatToken]
    spectator_token: str
    version: int
    deal_commitment: str
    def __init__(self, match_id: _Optional[str] = ..., seat_tokens: _Optional[_Iterable[_Union[SeatToken, _Mapping]]] = ..., spectator_token: _Optional[str] = ..., version: _Optional[int] = ..., deal_commitment: _Optional[str] = ...) -> None: ...

class Play(_message.Message):
    __slots__ = ("seat", "card")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    seat: int
    card: str
    def __init__(self, seat: _Optional[int] = ..., card: _Optional[str] = ...) -> None: ...

class Trick(_message.Message):
    __slots__ = ("number", "plays", "winner", "points")
    NUMBER_FIELD_NUMBER: _ClassVar[int]
    PLAYS_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    number: int
    plays: _containers.RepeatedCompositeFieldContainer[Play]
    winner: int
    points: int
    def __init__(self, number: _Optional[int] = ..., plays: _Optional[_Iterable[_Union[Play, _Mapping]]] = ..., winner: _Optional[int] = ..., points: _Optional[int] = ...) -> None: ...

class Cards(_message.Message):
    __slots__ = ("cards",)
    CARDS_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, cards: _Optional[_Iterable[str]] = ...) -> None: ...

class Table(_message.Message):
    __slots__ = ("phase", "hand_sizes", "hand", "hands", "trick", "tricks", "tricks_taken", "detail")
    PHASE_FIELD_NUMBER: _ClassVar[int]
    HAND_SIZES_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    HANDS_FIELD_NUMBER: _ClassVar[int]
    TRICK_FIELD_NUMBER: _ClassVar[int]
    TRICKS_FIELD_NUMBER: _ClassVar[int]
    TRICKS_TAKEN_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    phase: str
    hand_sizes: _containers.RepeatedScalarFieldContainer[int]
    hand: _containers.RepeatedScalarFieldContainer[str]
    hands: _containers.RepeatedCompositeFieldContainer[Cards]
    trick: Trick
    tricks: _containers.RepeatedCompositeFieldContainer[Trick]
    tricks_taken: _containers.RepeatedScalarFieldContainer[int]
    detail: _struct_pb2.Struct
    def __init__(self, phase: _Optional[str] = ..., hand_sizes: _Optional[_Iterable[int]] = ..., hand: _Optional[_Iterable[str]] = ..., hands: _Optional[_Iterable[_Union[Cards, _Mapping]]] = ..., trick: _Optional[_Union[Trick, _Mapping]] = ..., tricks: _Optional[_Iterable[_Union[Trick, _Mapping]]] = ..., tricks_taken: _Optional[_Iterable[int]] = ..., detail: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class Fact(_message.Message):
    __slots__ = ("kind", "seat", "trick", "what", "hand", "dealer", "commitment", "points", "scores", "winner", "deadline", "detail")
    KIND_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TRICK_FIELD_NUMBER: _ClassVar[int]
    WHAT_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    kind: FactKind
    seat: int
    trick: Trick
    what: str
    hand: int
    dealer: int
    commitment: str
    points: _containers.RepeatedScalarFieldContainer[int]
    scores: _containers.RepeatedScalarFieldContainer[int]
    winner: int
    deadline: _timestamp_pb2.Timestamp
    detail: _struct_pb2.Struct
    def __init__(self, kind: _Optional[_Union[FactKind, str]] = ..., seat: _Optional[int] = ..., trick: _Optional[_Union[Trick, _Mapping]] = ..., what: _Optional[str] = ..., hand: _Optional[int] = ..., dealer: _Optional[int] = ..., commitment: _Optional[str] = ..., points: _Optional[_Iterable[int]] = ..., scores: _Optional[_Iterable[int]] = ..., winner: _Optional[int] = ..., deadline: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., detail: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class SubmitActionRequest(_message.Message):
    __slots__ = ("match_id", "action", "command_id", "expected_version", "seat")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    COMMAND_ID_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_VERSION_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    action: str
    command_id: str
    expected_version: int
    seat: int
    def __init__(self, match_id: _Optional[str] = ..., action: _Optional[str] = ..., command_id: _Optional[str] = ..., expected_version: _Optional[int] = ..., seat: _Optional[int] = ...) -> None: ...

class SubmitClaimRequest(_message.Message):
    __slots__ = ("match_id", "tricks", "command_id", "unchecked")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    TRICKS_FIELD_NUMBER: _ClassVar[int]
    COMMAND_ID_FIELD_NUMBER: _ClassVar[int]
    UNCHECKED_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    tricks: int
    command_id: str
    unchecked: bool
    def __init__(self, match_id: _Optional[str] = ..., tricks: _Optional[int] = ..., command_id: _Optional[str] = ..., unchecked: _Optional[bool] = ...) -> None: ...

class AnswerClaimRequest(_message.Message):
    __slots__ = ("match_id", "accept", "command_id")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    ACCEPT_FIELD_NUMBER: _ClassVar[int]
    COMMAND_ID_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    accept: bool
    command_id: str
    def __init__(self, match_id: _Optional[str] = ..., accept: _Optional[bool] = ..., command_id: _Optional[str] = ...) -> None: ...

class ConcedeRequest(_message.Message):
    __slots__ = ("match_id", "command_id", "match")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    COMMAND_ID_FIELD_NUMBER: _ClassVar[int]
    MATCH_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    command_id: str
    match: bool
    def __init__(self, match_id: _Optional[str] = ..., command_id: _Optional[str] = ..., match: _Optional[bool] = ...) -> None: ...

class SubstitutePlayerRequest(_message.Message):
    __slots__ = ("match_id", "seat", "player")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seat: int
    player: str
    def __init__(self, match_id: _Optional[str] = ..., seat: _Optional[int] = ..., player: _Optional[str] = ...) -> None: ...

class RequestUndoRequest(_message.Message):
    __slots__ = ("match_id", "command_id")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    COMMAND_ID_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    command_id: str
    def __init__(self, match_id: _Optional[str] = ..., command_id: _Optional[str] = ...) -> None: ...

class AnswerUndoRequest(_message.Message):
    __slots__ = ("match_id", "agree", "command_id")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    AGREE_FIELD_NUMBER: _ClassVar[int]
    COMMAND_ID_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    agree: bool
    command_id: str
    def __init__(self, match_id: _Optional[str] = ..., agree: _Optional[bool] = ..., command_id: _Optional[str] = ...) -> None: ...

class SubstitutePlayerResponse(_message.Message):
    __slots__ = ("seat_token", "version")
    SEAT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    seat_token: str
    version: int
    def __init__(self, seat_token: _Optional[str] = ..., version: _Optional[int] = ...) -> None: ...

class ActionOutcome(_message.Message):
    __slots__ = ("version", "seat", "action", "facts", "hand_over", "match_over", "scores", "replayed")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    FACTS_FIELD_NUMBER: _ClassVar[int]
    HAND_OVER_FIELD_NUMBER: _ClassVar[int]
    MATCH_OVER_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    REPLAYED_FIELD_NUMBER: _ClassVar[int]
    version: int
    seat: int
    action: str
    facts: _containers.RepeatedCompositeFieldContainer[Fact]
    hand_over: bool
    match_over: bool
    scores: _containers.RepeatedScalarFieldContainer[int]
    replayed: bool
    def __init__(self, version: _Optional[int] = ..., seat: _Optional[int] = ..., action: _Optional[str] = ..., facts: _Optional[_Iterable[_Union[Fact, _Mapping]]] = ..., hand_over: _Optional[bool] = ..., match_over: _Optional[bool] = ..., scores: _Optional[_Iterable[int]] = ..., replayed: _Optional[bool] = ...) -> None: ...

class SubmitActionResponse(_message.Message):
    __slots__ = ("outcome",)
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    outcome: ActionOutcome
    def __init__(self, outcome: _Optional[_Union[ActionOutcome, _Mapping]] = ...) -> None: ...

class SubmitClaimResponse(_message.Message):
    __slots__ = ("outcome",)
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    outcome: ActionOutcome
    def __init__(self, outcome: _Optional[_Union[ActionOutcome, _Mapping]] = ...) -> None: ...

class ConcedeResponse(_message.Message):
    __slots__ = ("outcome",)
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    outcome: ActionOutcome
    def __init__(self, outcome: _Optional[_Union[ActionOutcome, _Mapping]] = ...) -> None: ...

class RequestUndoResponse(_message.Message):
    __slots__ = ("outcome",)
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    outcome: ActionOutcome
    def __init__(self, outcome: _Optional[_Union[ActionOutcome, _Mapping]] = ...) -> None: ...

class AnswerUndoResponse(_message.Message):
    __slots__ = ("outcome",)
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    outcome: ActionOutcome
    def __init__(self, outcome: _Optional[_Union[ActionOutcome, _Mapping]] = ...) -> None: ...

class AnswerClaimResponse(_message.Message):
    __slots__ = ("outcome",)
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    outcome: ActionOutcome
    def __init__(self, outcome: _Optional[_Union[ActionOutcome, _Mapping]] = ...) -> None: ...

class GetViewRequest(_message.Message):
    __slots__ = ("match_id",)
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    def __init__(self, match_id: _Optional[str] = ...) -> None: ...

class GetViewResponse(_message.Message):
    __slots__ = ("match_id", "version", "game", "role", "seat", "hand", "dealer", "to_act", "legal_actions", "scores", "match_over", "winner", "table", "players", "deal_commitment", "clock", "undo", "claim")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    TO_ACT_FIELD_NUMBER: _ClassVar[int]
    LEGAL_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    MATCH_OVER_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    TABLE_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    DEAL_COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    CLOCK_FIELD_NUMBER: _ClassVar[int]
    UNDO_FIELD_NUMBER: _ClassVar[int]
    CLAIM_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    version: int
    game: str
    role: Role
    seat: int
    hand: int
    dealer: int
    to_act: int
    legal_actions: _containers.RepeatedScalarFieldContainer[str]
    scores: _containers.RepeatedScalarFieldContainer[int]
    match_over: bool
    winner: int
    table: Table
    players: _containers.RepeatedScalarFieldContainer[str]
    deal_commitment: str
    clock: ClockView
    undo: PendingUndo
    claim: PendingClaim
    def __init__(self, match_id: _Optional[str] = ..., version: _Optional[int] = ..., game: _Optional[str] = ..., role: _Optional[_Union[Role, str]] = ..., seat: _Optional[int] = ..., hand: _Optional[int] = ..., dealer: _Optional[int] = ..., to_act: _Optional[int] = ..., legal_actions: _Optional[_Iterable[str]] = ..., scores: _Optional[_Iterable[int]] = ..., match_over: _Optional[bool] = ..., winner: _Optional[int] = ..., table: _Optional[_Union[Table, _Mapping]] = ..., players: _Optional[_Iterable[str]] = ..., deal_commitment: _Optional[str] = ..., clock: _Optional[_Union[ClockView, _Mapping]] = ..., undo: _Optional[_Union[PendingUndo, _Mapping]] = ..., claim: _Optional[_Union[PendingClaim, _Mapping]] = ...) -> None: ...

class PendingClaim(_message.Message):
    __slots__ = ("seat", "agreed_sides", "version")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    AGREED_SIDES_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    seat: int
    agreed_sides: _containers.RepeatedScalarFieldContainer[int]
    version: int
    def __init__(self, seat: _Optional[int] = ..., agreed_sides: _Optional[_Iterable[int]] = ..., version: _Optional[int] = ...) -> None: ...

class PendingUndo(_message.Message):
    __slots__ = ("seat", "index", "action", "agreed_sides", "version")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    INDEX_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    AGREED_SIDES_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    seat: int
    index: int
    action: str
    agreed_sides: _containers.RepeatedScalarFieldContainer[int]
    version: int
    def __init__(self, seat: _Optional[int] = ..., index: _Optional[int] = ..., action: _Optional[str] = ..., agreed_sides: _Optional[_Iterable[int]] = ..., version: _Optional[int] = ...) -> None: ...

class WatchMatchRequest(_message.Message):
    __slots__ = ("match_id", "after_version", "heartbeat_seconds")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    AFTER_VERSION_FIELD_NUMBER: _ClassVar[int]
    HEARTBEAT_SECONDS_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    after_version: int
    heartbeat_seconds: int
    def __init__(self, match_id: _Optional[str] = ..., after_version: _Optional[int] = ..., heartbeat_seconds: _Optional[int] = ...) -> None: ...

class MatchEvent(_message.Message):
    __slots__ = ("version", "hand", "seat", "action", "facts")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    FACTS_FIELD_NUMBER: _ClassVar[int]
    version: int
    hand: int
    seat: int
    action: str
    facts: _containers.RepeatedCompositeFieldContainer[Fact]
    def __init__(self, version: _Optional[int] = ..., hand: _Optional[int] = ..., seat: _Optional[int] = ..., action: _Optional[str] = ..., facts: _Optional[_Iterable[_Union[Fact, _Mapping]]] = ...) -> None: ...

class WatchMatchResponse(_message.Message):
    __slots__ = ("events", "view", "heartbeat", "version")
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    HEARTBEAT_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    events: _containers.RepeatedCompositeFieldContainer[MatchEvent]
    view: GetViewResponse
    heartbeat: bool
    version: int
    def __init__(self, events: _Optional[_Iterable[_Union[MatchEvent, _Mapping]]] = ..., view: _Optional[_Union[GetViewResponse, _Mapping]] = ..., heartbeat: _Optional[bool] = ..., version: _Optional[int] = ...) -> None: ...

class GetHandRecordRequest(_message.Message):
    __slots__ = ("match_id", "hand")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    hand: int
    def __init__(self, match_id: _Optional[str] = ..., hand: _Optional[int] = ...) -> None: ...

class GetHandRecordResponse(_message.Message):
    __slots__ = ("record_json", "finished")
    RECORD_JSON_FIELD_NUMBER: _ClassVar[int]
    FINISHED_FIELD_NUMBER: _ClassVar[int]
    record_json: str
    finished: bool
    def __init__(self, record_json: _Optional[str] = ..., finished: _Optional[bool] = ...) -> None: ...

class GetMatchRecordRequest(_message.Message):
    __slots__ = ("match_id",)
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    def __init__(self, match_id: _Optional[str] = ...) -> None: ...

class GetMatchRecordResponse(_message.Message):
    __slots__ = ("record_json", "finished")
    RECORD_JSON_FIELD_NUMBER: _ClassVar[int]
    FINISHED_FIELD_NUMBER: _ClassVar[int]
    record_json: str
    finished: bool
    def __init__(self, record_json: _Optional[str] = ..., finished: _Optional[bool] = ...) -> None: ...

class VerifyDealRequest(_message.Message):
    __slots__ = ("match_id", "hand")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    hand: int
    def __init__(self, match_id: _Optional[str] = ..., hand: _Optional[int] = ...) -> None: ...

class VerifyDealResponse(_message.Message):
    __slots__ = ("commitment", "nonce", "cards", "valid")
    COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    NONCE_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    VALID_FIELD_NUMBER: _ClassVar[int]
    commitment: str
    nonce: str
    cards: _containers.RepeatedScalarFieldContainer[str]
    valid: bool
    def __init__(self, commitment: _Optional[str] = ..., nonce: _Optional[str] = ..., cards: _Optional[_Iterable[str]] = ..., valid: _Optional[bool] = ...) -> None: ...

class ListRejectionsRequest(_message.Message):
    __slots__ = ("match_id", "page_size", "page_token")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    page_size: int
    page_token: str
    def __init__(self, match_id: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class Rejection(_message.Message):
    __slots__ = ("match_id", "seat", "action", "reason", "rule", "message", "time")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    RULE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    TIME_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seat: int
    action: str
    reason: str
    rule: str
    message: str
    time: _timestamp_pb2.Timestamp
    def __init__(self, match_id: _Optional[str] = ..., seat: _Optional[int] = ..., action: _Optional[str] = ..., reason: _Optional[str] = ..., rule: _Optional[str] = ..., message: _Optional[str] = ..., time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class ListRejectionsResponse(_message.Message):
    __slots__ = ("rejections", "next_page_token")
    REJECTIONS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    rejections: _containers.RepeatedCompositeFieldContainer[Rejection]
    next_page_token: str
    def __init__(self, rejections: _Optional[_Iterable[_Union[Rejection, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...
