import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class DeliveryState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DELIVERY_STATE_UNSPECIFIED: _ClassVar[DeliveryState]
    DELIVERY_STATE_PENDING: _ClassVar[DeliveryState]
    DELIVERY_STATE_DELIVERED: _ClassVar[DeliveryState]
    DELIVERY_STATE_FAILED: _ClassVar[DeliveryState]
    DELIVERY_STATE_CANCELLED: _ClassVar[DeliveryState]
DELIVERY_STATE_UNSPECIFIED: DeliveryState
DELIVERY_STATE_PENDING: DeliveryState
DELIVERY_STATE_DELIVERED: DeliveryState
DELIVERY_STATE_FAILED: DeliveryState
DELIVERY_STATE_CANCELLED: DeliveryState

class AddWebhookRequest(_message.Message):
    __slots__ = ("tournament_id", "match_id", "url", "secret", "event_types")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    SECRET_FIELD_NUMBER: _ClassVar[int]
    EVENT_TYPES_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    match_id: str
    url: str
    secret: str
    event_types: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, tournament_id: _Optional[str] = ..., match_id: _Optional[str] = ..., url: _Optional[str] = ..., secret: _Optional[str] = ..., event_types: _Optional[_Iterable[str]] = ...) -> None: ...

class WebhookEndpoint(_message.Message):
    __slots__ = ("endpoint_id", "tournament_id", "match_id", "url", "secret_fingerprint", "event_types", "created", "disabled")
    ENDPOINT_ID_FIELD_NUMBER: _ClassVar[int]
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    SECRET_FINGERPRINT_FIELD_NUMBER: _ClassVar[int]
    EVENT_TYPES_FIELD_NUMBER: _ClassVar[int]
    CREATED_FIELD_NUMBER: _ClassVar[int]
    DISABLED_FIELD_NUMBER: _ClassVar[int]
    endpoint_id: str
    tournament_id: str
    match_id: str
    url: str
    secret_fingerprint: str
    event_types: _containers.RepeatedScalarFieldContainer[str]
    created: _timestamp_pb2.Timestamp
    disabled: str
    def __init__(self, endpoint_id: _Optional[str] = ..., tournament_id: _Optional[str] = ..., match_id: _Optional[str] = ..., url: _Optional[str] = ..., secret_fingerprint: _Optional[str] = ..., event_types: _Optional[_Iterable[str]] = ..., created: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., disabled: _Optional[str] = ...) -> None: ...

class AddWebhookResponse(_message.Message):
    __slots__ = ("endpoint", "secret")
    ENDPOINT_FIELD_NUMBER: _ClassVar[int]
    SECRET_FIELD_NUMBER: _ClassVar[int]
    endpoint: WebhookEndpoint
    secret: str
    def __init__(self, endpoint: _Optional[_Union[WebhookEndpoint, _Mapping]] = ..., secret: _Optional[str] = ...) -> None: ...

class ListWebhooksRequest(_message.Message):
    __slots__ = ("tournament_id", "match_id")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    match_id: str
    def __init__(self, tournament_id: _Optional[str] = ..., match_id: _Optional[str] = ...) -> None: ...

class ListWebhooksResponse(_message.Message):
    __slots__ = ("endpoints",)
    ENDPOINTS_FIELD_NUMBER: _ClassVar[int]
    endpoints: _containers.RepeatedCompositeFieldContainer[WebhookEndpoint]
    def __init__(self, endpoints: _Optional[_Iterable[_Union[WebhookEndpoint, _Mapping]]] = ...) -> None: ...

class RemoveWebhookRequest(_message.Message):
    __slots__ = ("endpoint_id",)
    ENDPOINT_ID_FIELD_NUMBER: _ClassVar[int]
    endpoint_id: str
    def __init__(self, endpoint_id: _Optional[str] = ...) -> None: ...

class RemoveWebhookResponse(_message.Message):
    __slots__ = ("endpoint",)
    ENDPOINT_FIELD_NUMBER: _ClassVar[int]
    endpoint: WebhookEndpoint
    def __init__(self, endpoint: _Optional[_Union[WebhookEndpoint, _Mapping]] = ...) -> None: ...

class WebhookAttempt(_message.Message):
    __slots__ = ("time", "status", "error", "duration_ms")
    TIME_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    DURATION_MS_FIELD_NUMBER: _ClassVar[int]
    time: _timestamp_pb2.Timestamp
    status: int
    error: str
    duration_ms: int
    def __init__(self, time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., status: _Optional[int] = ..., error: _Optional[str] = ..., duration_ms: _Optional[int] = ...) -> None: ...

class WebhookDelivery(_message.Message):
    __slots__ = ("message_id", "endpoint_id", "event_type", "match_id", "tournament_id", "state", "attempts", "created", "next_attempt", "done", "error")
    MESSAGE_ID_FIELD_NUMBER: _ClassVar[int]
    ENDPOINT_ID_FIELD_NUMBER: _ClassVar[int]
    EVENT_TYPE_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    ATTEMPTS_FIELD_NUMBER: _ClassVar[int]
    CREATED_FIELD_NUMBER: _ClassVar[int]
    NEXT_ATTEMPT_FIELD_NUMBER: _ClassVar[int]
    DONE_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    message_id: str
    endpoint_id: str
    event_type: str
    match_id: str
    tournament_id: str
    state: DeliveryState
    attempts: _containers.RepeatedCompositeFieldContainer[WebhookAttempt]
    created: _timestamp_pb2.Timestamp
    next_attempt: _timestamp_pb2.Timestamp
    done: _timestamp_pb2.Timestamp
    error: str
    def __init__(self, message_id: _Optional[str] = ..., endpoint_id: _Optional[str] = ..., event_type: _Optional[str] = ..., match_id: _Optional[str] = ..., tournament_id: _Optional[str] = ..., state: _Optional[_Union[DeliveryState, str]] = ..., attempts: _Optional[_Iterable[_Union[WebhookAttempt, _Mapping]]] = ..., created: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., next_attempt: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., done: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., error: _Optional[str] = ...) -> None: ...

class ListWebhookDeliveriesRequest(_message.Message):
    __slots__ = ("endpoint_id", "state", "page_size", "page_token")
    ENDPOINT_ID_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    endpoint_id: str
    state: DeliveryState
    page_size: int
    page_token: str
    def __init__(self, endpoint_id: _Optional[str] = ..., state: _Optional[_Union[DeliveryState, str]] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListWebhookDeliveriesResponse(_message.Message):
    __slots__ = ("deliveries", "next_page_token")
    DELIVERIES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    deliveries: _containers.RepeatedCompositeFieldContainer[WebhookDelivery]
    next_page_token: str
    def __init__(self, deliveries: _Optional[_Iterable[_Union[WebhookDelivery, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...
