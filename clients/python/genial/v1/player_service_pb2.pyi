import datetime

from genial.v1 import types_pb2 as _types_pb2
from google.api import annotations_pb2 as _annotations_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class PlayerEventType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PLAYER_EVENT_TYPE_UNSPECIFIED: _ClassVar[PlayerEventType]
    PLAYER_EVENT_TYPE_SEAT_TAKEN: _ClassVar[PlayerEventType]
    PLAYER_EVENT_TYPE_GAME_STARTED: _ClassVar[PlayerEventType]
    PLAYER_EVENT_TYPE_YOUR_TURN: _ClassVar[PlayerEventType]
    PLAYER_EVENT_TYPE_TURN_TIMED_OUT: _ClassVar[PlayerEventType]
    PLAYER_EVENT_TYPE_GAME_OVER: _ClassVar[PlayerEventType]
    PLAYER_EVENT_TYPE_RESIGNED: _ClassVar[PlayerEventType]
    PLAYER_EVENT_TYPE_REMATCH_OFFERED: _ClassVar[PlayerEventType]
PLAYER_EVENT_TYPE_UNSPECIFIED: PlayerEventType
PLAYER_EVENT_TYPE_SEAT_TAKEN: PlayerEventType
PLAYER_EVENT_TYPE_GAME_STARTED: PlayerEventType
PLAYER_EVENT_TYPE_YOUR_TURN: PlayerEventType
PLAYER_EVENT_TYPE_TURN_TIMED_OUT: PlayerEventType
PLAYER_EVENT_TYPE_GAME_OVER: PlayerEventType
PLAYER_EVENT_TYPE_RESIGNED: PlayerEventType
PLAYER_EVENT_TYPE_REMATCH_OFFERED: PlayerEventType

class CreateSessionRequest(_message.Message):
    __slots__ = ("device_id", "display_name")
    DEVICE_ID_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    device_id: str
    display_name: str
    def __init__(self, device_id: _Optional[str] = ..., display_name: _Optional[str] = ...) -> None: ...

class Session(_message.Message):
    __slots__ = ("access_token", "access_token_expires_at", "refresh_token", "refresh_token_expires_at", "player")
    ACCESS_TOKEN_FIELD_NUMBER: _ClassVar[int]
    ACCESS_TOKEN_EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    REFRESH_TOKEN_FIELD_NUMBER: _ClassVar[int]
    REFRESH_TOKEN_EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    access_token: str
    access_token_expires_at: _timestamp_pb2.Timestamp
    refresh_token: str
    refresh_token_expires_at: _timestamp_pb2.Timestamp
    player: PlayerProfile
    def __init__(self, access_token: _Optional[str] = ..., access_token_expires_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., refresh_token: _Optional[str] = ..., refresh_token_expires_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., player: _Optional[_Union[PlayerProfile, _Mapping]] = ...) -> None: ...

class CreateSessionResponse(_message.Message):
    __slots__ = ("session",)
    SESSION_FIELD_NUMBER: _ClassVar[int]
    session: Session
    def __init__(self, session: _Optional[_Union[Session, _Mapping]] = ...) -> None: ...

class RefreshSessionRequest(_message.Message):
    __slots__ = ("refresh_token",)
    REFRESH_TOKEN_FIELD_NUMBER: _ClassVar[int]
    refresh_token: str
    def __init__(self, refresh_token: _Optional[str] = ...) -> None: ...

class RefreshSessionResponse(_message.Message):
    __slots__ = ("session",)
    SESSION_FIELD_NUMBER: _ClassVar[int]
    session: Session
    def __init__(self, session: _Optional[_Union[Session, _Mapping]] = ...) -> None: ...

class RevokeSessionRequest(_message.Message):
    __slots__ = ("refresh_token",)
    REFRESH_TOKEN_FIELD_NUMBER: _ClassVar[int]
    refresh_token: str
    def __init__(self, refresh_token: _Optional[str] = ...) -> None: ...

class RevokeSessionResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class PlayerProfile(_message.Message):
    __slots__ = ("player_id", "display_name", "created_at")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    display_name: str
    created_at: _timestamp_pb2.Timestamp
    def __init__(self, player_id: _Optional[str] = ..., display_name: _Optional[str] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class GetPlayerRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetPlayerResponse(_message.Message):
    __slots__ = ("player",)
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    player: PlayerProfile
    def __init__(self, player: _Optional[_Union[PlayerProfile, _Mapping]] = ...) -> None: ...

class UpdatePlayerRequest(_message.Message):
    __slots__ = ("display_name",)
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    display_name: str
    def __init__(self, display_name: _Optional[str] = ...) -> None: ...

class UpdatePlayerResponse(_message.Message):
    __slots__ = ("player",)
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    player: PlayerProfile
    def __init__(self, player: _Optional[_Union[PlayerProfile, _Mapping]] = ...) -> None: ...

class ListMyGamesRequest(_message.Message):
    __slots__ = ("page_size", "page_token")
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    page_size: int
    page_token: str
    def __init__(self, page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class MyGame(_message.Message):
    __slots__ = ("game_id", "kind", "status", "seats", "seat", "your_turn", "version", "to_move", "turn_deadline", "standings", "resigned", "invited", "reserved_until", "rematch_game_id")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    YOUR_TURN_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    TO_MOVE_FIELD_NUMBER: _ClassVar[int]
    TURN_DEADLINE_FIELD_NUMBER: _ClassVar[int]
    STANDINGS_FIELD_NUMBER: _ClassVar[int]
    RESIGNED_FIELD_NUMBER: _ClassVar[int]
    INVITED_FIELD_NUMBER: _ClassVar[int]
    RESERVED_UNTIL_FIELD_NUMBER: _ClassVar[int]
    REMATCH_GAME_ID_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    kind: _types_pb2.GameKind
    status: _types_pb2.GameStatus
    seats: int
    seat: int
    your_turn: bool
    version: int
    to_move: int
    turn_deadline: _timestamp_pb2.Timestamp
    standings: _containers.RepeatedCompositeFieldContainer[_types_pb2.Standing]
    resigned: bool
    invited: bool
    reserved_until: _timestamp_pb2.Timestamp
    rematch_game_id: str
    def __init__(self, game_id: _Optional[str] = ..., kind: _Optional[_Union[_types_pb2.GameKind, str]] = ..., status: _Optional[_Union[_types_pb2.GameStatus, str]] = ..., seats: _Optional[int] = ..., seat: _Optional[int] = ..., your_turn: _Optional[bool] = ..., version: _Optional[int] = ..., to_move: _Optional[int] = ..., turn_deadline: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., standings: _Optional[_Iterable[_Union[_types_pb2.Standing, _Mapping]]] = ..., resigned: _Optional[bool] = ..., invited: _Optional[bool] = ..., reserved_until: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., rematch_game_id: _Optional[str] = ...) -> None: ...

class ListMyGamesResponse(_message.Message):
    __slots__ = ("games", "next_page_token")
    GAMES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    games: _containers.RepeatedCompositeFieldContainer[MyGame]
    next_page_token: str
    def __init__(self, games: _Optional[_Iterable[_Union[MyGame, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class WatchPlayerRequest(_message.Message):
    __slots__ = ("cursor",)
    CURSOR_FIELD_NUMBER: _ClassVar[int]
    cursor: str
    def __init__(self, cursor: _Optional[str] = ...) -> None: ...

class LiveGames(_message.Message):
    __slots__ = ("games",)
    GAMES_FIELD_NUMBER: _ClassVar[int]
    games: _containers.RepeatedCompositeFieldContainer[MyGame]
    def __init__(self, games: _Optional[_Iterable[_Union[MyGame, _Mapping]]] = ...) -> None: ...

class PlayerEvent(_message.Message):
    __slots__ = ("id", "type", "game_id", "version", "seat", "display_name", "turn_deadline", "standings", "rematch_game_id", "resigned_seats")
    ID_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    TURN_DEADLINE_FIELD_NUMBER: _ClassVar[int]
    STANDINGS_FIELD_NUMBER: _ClassVar[int]
    REMATCH_GAME_ID_FIELD_NUMBER: _ClassVar[int]
    RESIGNED_SEATS_FIELD_NUMBER: _ClassVar[int]
    id: str
    type: PlayerEventType
    game_id: str
    version: int
    seat: int
    display_name: str
    turn_deadline: _timestamp_pb2.Timestamp
    standings: _containers.RepeatedCompositeFieldContainer[_types_pb2.Standing]
    rematch_game_id: str
    resigned_seats: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, id: _Optional[str] = ..., type: _Optional[_Union[PlayerEventType, str]] = ..., game_id: _Optional[str] = ..., version: _Optional[int] = ..., seat: _Optional[int] = ..., display_name: _Optional[str] = ..., turn_deadline: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., standings: _Optional[_Iterable[_Union[_types_pb2.Standing, _Mapping]]] = ..., rematch_game_id: _Optional[str] = ..., resigned_seats: _Optional[_Iterable[int]] = ...) -> None: ...

class WatchPlayerResponse(_message.Message):
    __slots__ = ("games", "event", "cursor")
    GAMES_FIELD_NUMBER: _ClassVar[int]
    EVENT_FIELD_NUMBER: _ClassVar[int]
    CURSOR_FIELD_NUMBER: _ClassVar[int]
    games: LiveGames
    event: PlayerEvent
    cursor: str
    def __init__(self, games: _Optional[_Union[LiveGames, _Mapping]] = ..., event: _Optional[_Union[PlayerEvent, _Mapping]] = ..., cursor: _Optional[str] = ...) -> None: ...
