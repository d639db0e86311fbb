import datetime

from genial.v1 import types_pb2 as _types_pb2
from google.api import annotations_pb2 as _annotations_pb2
from google.protobuf import field_mask_pb2 as _field_mask_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class CreateGameRequest(_message.Message):
    __slots__ = ("kind", "seats", "options", "bots", "turn_seconds")
    KIND_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    BOTS_FIELD_NUMBER: _ClassVar[int]
    TURN_SECONDS_FIELD_NUMBER: _ClassVar[int]
    kind: _types_pb2.GameKind
    seats: int
    options: _types_pb2.GameOptions
    bots: _containers.RepeatedCompositeFieldContainer[SeatBot]
    turn_seconds: int
    def __init__(self, kind: _Optional[_Union[_types_pb2.GameKind, str]] = ..., seats: _Optional[int] = ..., options: _Optional[_Union[_types_pb2.GameOptions, _Mapping]] = ..., bots: _Optional[_Iterable[_Union[SeatBot, _Mapping]]] = ..., turn_seconds: _Optional[int] = ...) -> None: ...

class SeatBot(_message.Message):
    __slots__ = ("seat", "strength")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    STRENGTH_FIELD_NUMBER: _ClassVar[int]
    seat: int
    strength: _types_pb2.BotStrength
    def __init__(self, seat: _Optional[int] = ..., strength: _Optional[_Union[_types_pb2.BotStrength, str]] = ...) -> None: ...

class CreateGameResponse(_message.Message):
    __slots__ = ("game_id", "view", "seed_sha256")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    SEED_SHA256_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    view: _types_pb2.GameView
    seed_sha256: str
    def __init__(self, game_id: _Optional[str] = ..., view: _Optional[_Union[_types_pb2.GameView, _Mapping]] = ..., seed_sha256: _Optional[str] = ...) -> None: ...

class JoinGameRequest(_message.Message):
    __slots__ = ("game_id", "display_name", "seat")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    display_name: str
    seat: int
    def __init__(self, game_id: _Optional[str] = ..., display_name: _Optional[str] = ..., seat: _Optional[int] = ...) -> None: ...

class JoinGameResponse(_message.Message):
    __slots__ = ("seat", "player_token", "view")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYER_TOKEN_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    seat: int
    player_token: str
    view: _types_pb2.GameView
    def __init__(self, seat: _Optional[int] = ..., player_token: _Optional[str] = ..., view: _Optional[_Union[_types_pb2.GameView, _Mapping]] = ...) -> None: ...

class GetGameRequest(_message.Message):
    __slots__ = ("game_id", "read_mask")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    READ_MASK_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    read_mask: _field_mask_pb2.FieldMask
    def __init__(self, game_id: _Optional[str] = ..., read_mask: _Optional[_Union[_field_mask_pb2.FieldMask, _Mapping]] = ...) -> None: ...

class GetGameResponse(_message.Message):
    __slots__ = ("view",)
    VIEW_FIELD_NUMBER: _ClassVar[int]
    view: _types_pb2.GameView
    def __init__(self, view: _Optional[_Union[_types_pb2.GameView, _Mapping]] = ...) -> None: ...

class ListLegalMovesRequest(_message.Message):
    __slots__ = ("game_id",)
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    def __init__(self, game_id: _Optional[str] = ...) -> None: ...

class ListLegalMovesResponse(_message.Message):
    __slots__ = ("moves", "version")
    MOVES_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    moves: _containers.RepeatedCompositeFieldContainer[_types_pb2.Move]
    version: int
    def __init__(self, moves: _Optional[_Iterable[_Union[_types_pb2.Move, _Mapping]]] = ..., version: _Optional[int] = ...) -> None: ...

class MakeMoveRequest(_message.Message):
    __slots__ = ("game_id", "move", "expected_version", "request_id", "read_mask")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    MOVE_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_VERSION_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    READ_MASK_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    move: _types_pb2.Move
    expected_version: int
    request_id: str
    read_mask: _field_mask_pb2.FieldMask
    def __init__(self, game_id: _Optional[str] = ..., move: _Optional[_Union[_types_pb2.Move, _Mapping]] = ..., expected_version: _Optional[int] = ..., request_id: _Optional[str] = ..., read_mask: _Optional[_Union[_field_mask_pb2.FieldMask, _Mapping]] = ...) -> None: ...

class MakeMoveResponse(_message.Message):
    __slots__ = ("view", "events", "version")
    VIEW_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    view: _types_pb2.GameView
    events: _containers.RepeatedCompositeFieldContainer[_types_pb2.Event]
    version: int
    def __init__(self, view: _Optional[_Union[_types_pb2.GameView, _Mapping]] = ..., events: _Optional[_Iterable[_Union[_types_pb2.Event, _Mapping]]] = ..., version: _Optional[int] = ...) -> None: ...

class WatchGameRequest(_message.Message):
    __slots__ = ("game_id", "from_version", "ticket", "read_mask")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    FROM_VERSION_FIELD_NUMBER: _ClassVar[int]
    TICKET_FIELD_NUMBER: _ClassVar[int]
    READ_MASK_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    from_version: int
    ticket: str
    read_mask: _field_mask_pb2.FieldMask
    def __init__(self, game_id: _Optional[str] = ..., from_version: _Optional[int] = ..., ticket: _Optional[str] = ..., read_mask: _Optional[_Union[_field_mask_pb2.FieldMask, _Mapping]] = ...) -> None: ...

class CreateWatchTicketRequest(_message.Message):
    __slots__ = ("game_id",)
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    def __init__(self, game_id: _Optional[str] = ...) -> None: ...

class CreateWatchTicketResponse(_message.Message):
    __slots__ = ("ticket", "expire_time")
    TICKET_FIELD_NUMBER: _ClassVar[int]
    EXPIRE_TIME_FIELD_NUMBER: _ClassVar[int]
    ticket: str
    expire_time: _timestamp_pb2.Timestamp
    def __init__(self, ticket: _Optional[str] = ..., expire_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class WatchGameResponse(_message.Message):
    __slots__ = ("version", "events", "view", "keep_alive")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    KEEP_ALIVE_FIELD_NUMBER: _ClassVar[int]
    version: int
    events: _containers.RepeatedCompositeFieldContainer[_types_pb2.Event]
    view: _types_pb2.GameView
    keep_alive: bool
    def __init__(self, version: _Optional[int] = ..., events: _Optional[_Iterable[_Union[_types_pb2.Event, _Mapping]]] = ..., view: _Optional[_Union[_types_pb2.GameView, _Mapping]] = ..., keep_alive: _Optional[bool] = ...) -> None: ...

class GetHistoryRequest(_message.Message):
    __slots__ = ("game_id", "page_size", "page_token")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    page_size: int
    page_token: str
    def __init__(self, game_id: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class GetHistoryResponse(_message.Message):
    __slots__ = ("kind", "seats", "options", "seed_sha256", "seed", "entries", "next_page_token")
    KIND_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    SEED_SHA256_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    kind: _types_pb2.GameKind
    seats: int
    options: _types_pb2.GameOptions
    seed_sha256: str
    seed: str
    entries: _containers.RepeatedCompositeFieldContainer[HistoryEntry]
    next_page_token: str
    def __init__(self, kind: _Optional[_Union[_types_pb2.GameKind, str]] = ..., seats: _Optional[int] = ..., options: _Optional[_Union[_types_pb2.GameOptions, _Mapping]] = ..., seed_sha256: _Optional[str] = ..., seed: _Optional[str] = ..., entries: _Optional[_Iterable[_Union[HistoryEntry, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class HistoryEntry(_message.Message):
    __slots__ = ("version", "seat", "move", "events", "automatic")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    MOVE_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    AUTOMATIC_FIELD_NUMBER: _ClassVar[int]
    version: int
    seat: int
    move: _types_pb2.Move
    events: _containers.RepeatedCompositeFieldContainer[_types_pb2.Event]
    automatic: bool
    def __init__(self, version: _Optional[int] = ..., seat: _Optional[int] = ..., move: _Optional[_Union[_types_pb2.Move, _Mapping]] = ..., events: _Optional[_Iterable[_Union[_types_pb2.Event, _Mapping]]] = ..., automatic: _Optional[bool] = ...) -> None: ...

class ListGamesRequest(_message.Message):
    __slots__ = ("kind", "page_size", "page_token")
    KIND_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    kind: _types_pb2.GameKind
    page_size: int
    page_token: str
    def __init__(self, kind: _Optional[_Union[_types_pb2.GameKind, str]] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListGamesResponse(_message.Message):
    __slots__ = ("games", "next_page_token")
    GAMES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    games: _containers.RepeatedCompositeFieldContainer[_types_pb2.GameSummary]
    next_page_token: str
    def __init__(self, games: _Optional[_Iterable[_Union[_types_pb2.GameSummary, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class ResignRequest(_message.Message):
    __slots__ = ("game_id",)
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    def __init__(self, game_id: _Optional[str] = ...) -> None: ...

class ResignResponse(_message.Message):
    __slots__ = ("view",)
    VIEW_FIELD_NUMBER: _ClassVar[int]
    view: _types_pb2.GameView
    def __init__(self, view: _Optional[_Union[_types_pb2.GameView, _Mapping]] = ...) -> None: ...

class RematchRequest(_message.Message):
    __slots__ = ("game_id",)
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    def __init__(self, game_id: _Optional[str] = ...) -> None: ...

class RematchResponse(_message.Message):
    __slots__ = ("game_id", "view")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    view: _types_pb2.GameView
    def __init__(self, game_id: _Optional[str] = ..., view: _Optional[_Union[_types_pb2.GameView, _Mapping]] = ...) -> None: ...
