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

class TicketStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TICKET_STATUS_UNSPECIFIED: _ClassVar[TicketStatus]
    TICKET_STATUS_WAITING: _ClassVar[TicketStatus]
    TICKET_STATUS_MATCHED: _ClassVar[TicketStatus]
    TICKET_STATUS_CANCELLED: _ClassVar[TicketStatus]
    TICKET_STATUS_EXPIRED: _ClassVar[TicketStatus]
TICKET_STATUS_UNSPECIFIED: TicketStatus
TICKET_STATUS_WAITING: TicketStatus
TICKET_STATUS_MATCHED: TicketStatus
TICKET_STATUS_CANCELLED: TicketStatus
TICKET_STATUS_EXPIRED: TicketStatus

class FindMatchRequest(_message.Message):
    __slots__ = ("kind", "min_seats", "max_seats", "options", "rated", "accept_bots")
    KIND_FIELD_NUMBER: _ClassVar[int]
    MIN_SEATS_FIELD_NUMBER: _ClassVar[int]
    MAX_SEATS_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    RATED_FIELD_NUMBER: _ClassVar[int]
    ACCEPT_BOTS_FIELD_NUMBER: _ClassVar[int]
    kind: _types_pb2.GameKind
    min_seats: int
    max_seats: int
    options: _types_pb2.GameOptions
    rated: bool
    accept_bots: bool
    def __init__(self, kind: _Optional[_Union[_types_pb2.GameKind, str]] = ..., min_seats: _Optional[int] = ..., max_seats: _Optional[int] = ..., options: _Optional[_Union[_types_pb2.GameOptions, _Mapping]] = ..., rated: _Optional[bool] = ..., accept_bots: _Optional[bool] = ...) -> None: ...

class MatchTicket(_message.Message):
    __slots__ = ("ticket_id", "status", "kind", "rated", "created_at", "game_id", "seat")
    TICKET_ID_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    RATED_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ticket_id: str
    status: TicketStatus
    kind: _types_pb2.GameKind
    rated: bool
    created_at: _timestamp_pb2.Timestamp
    game_id: str
    seat: int
    def __init__(self, ticket_id: _Optional[str] = ..., status: _Optional[_Union[TicketStatus, str]] = ..., kind: _Optional[_Union[_types_pb2.GameKind, str]] = ..., rated: _Optional[bool] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., game_id: _Optional[str] = ..., seat: _Optional[int] = ...) -> None: ...

class FindMatchResponse(_message.Message):
    __slots__ = ("ticket",)
    TICKET_FIELD_NUMBER: _ClassVar[int]
    ticket: MatchTicket
    def __init__(self, ticket: _Optional[_Union[MatchTicket, _Mapping]] = ...) -> None: ...

class CancelMatchRequest(_message.Message):
    __slots__ = ("ticket_id",)
    TICKET_ID_FIELD_NUMBER: _ClassVar[int]
    ticket_id: str
    def __init__(self, ticket_id: _Optional[str] = ...) -> None: ...

class CancelMatchResponse(_message.Message):
    __slots__ = ("ticket",)
    TICKET_FIELD_NUMBER: _ClassVar[int]
    ticket: MatchTicket
    def __init__(self, ticket: _Optional[_Union[MatchTicket, _Mapping]] = ...) -> None: ...

class GetMatchTicketRequest(_message.Message):
    __slots__ = ("ticket_id",)
    TICKET_ID_FIELD_NUMBER: _ClassVar[int]
    ticket_id: str
    def __init__(self, ticket_id: _Optional[str] = ...) -> None: ...

class GetMatchTicketResponse(_message.Message):
    __slots__ = ("ticket",)
    TICKET_FIELD_NUMBER: _ClassVar[int]
    ticket: MatchTicket
    def __init__(self, ticket: _Optional[_Union[MatchTicket, _Mapping]] = ...) -> None: ...

class GetRatingsRequest(_message.Message):
    __slots__ = ("player_id",)
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    def __init__(self, player_id: _Optional[str] = ...) -> None: ...

class Rating(_message.Message):
    __slots__ = ("kind", "mu", "sigma", "displayed", "games")
    KIND_FIELD_NUMBER: _ClassVar[int]
    MU_FIELD_NUMBER: _ClassVar[int]
    SIGMA_FIELD_NUMBER: _ClassVar[int]
    DISPLAYED_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    kind: _types_pb2.GameKind
    mu: float
    sigma: float
    displayed: float
    games: int
    def __init__(self, kind: _Optional[_Union[_types_pb2.GameKind, str]] = ..., mu: _Optional[float] = ..., sigma: _Optional[float] = ..., displayed: _Optional[float] = ..., games: _Optional[int] = ...) -> None: ...

class GetRatingsResponse(_message.Message):
    __slots__ = ("player_id", "bot", "ratings")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    RATINGS_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    bot: bool
    ratings: _containers.RepeatedCompositeFieldContainer[Rating]
    def __init__(self, player_id: _Optional[str] = ..., bot: _Optional[bool] = ..., ratings: _Optional[_Iterable[_Union[Rating, _Mapping]]] = ...) -> None: ...

class ListLeaderboardRequest(_message.Message):
    __slots__ = ("kind", "page_size", "page_token")
    KIND_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    kind: _types_pb2.GameKind
    page_size: int
    page_token: str
    def __init__(self, kind: _Optional[_Union[_types_pb2.GameKind, str]] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class LeaderboardEntry(_message.Message):
    __slots__ = ("rank", "player_id", "display_name", "bot", "rating")
    RANK_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    RATING_FIELD_NUMBER: _ClassVar[int]
    rank: int
    player_id: str
    display_name: str
    bot: bool
    rating: Rating
    def __init__(self, rank: _Optional[int] = ..., player_id: _Optional[str] = ..., display_name: _Optional[str] = ..., bot: _Optional[bool] = ..., rating: _Optional[_Union[Rating, _Mapping]] = ...) -> None: ...

class ListLeaderboardResponse(_message.Message):
    __slots__ = ("entries", "next_page_token", "your_rank", "min_games")
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    YOUR_RANK_FIELD_NUMBER: _ClassVar[int]
    MIN_GAMES_FIELD_NUMBER: _ClassVar[int]
    entries: _containers.RepeatedCompositeFieldContainer[LeaderboardEntry]
    next_page_token: str
    your_rank: int
    min_games: int
    def __init__(self, entries: _Optional[_Iterable[_Union[LeaderboardEntry, _Mapping]]] = ..., next_page_token: _Optional[str] = ..., your_rank: _Optional[int] = ..., min_games: _Optional[int] = ...) -> None: ...
