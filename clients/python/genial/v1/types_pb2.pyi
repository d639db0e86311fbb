import datetime

from genial.v1 import cards_pb2 as _cards_pb2
from genial.v1 import dice_pb2 as _dice_pb2
from genial.v1 import tiles_pb2 as _tiles_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class GameKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    GAME_KIND_UNSPECIFIED: _ClassVar[GameKind]
    GAME_KIND_CARDS: _ClassVar[GameKind]
    GAME_KIND_DICE: _ClassVar[GameKind]
    GAME_KIND_TILES: _ClassVar[GameKind]

class GameStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    GAME_STATUS_UNSPECIFIED: _ClassVar[GameStatus]
    GAME_STATUS_WAITING: _ClassVar[GameStatus]
    GAME_STATUS_PLAYING: _ClassVar[GameStatus]
    GAME_STATUS_FINISHED: _ClassVar[GameStatus]

class BotStrength(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    BOT_STRENGTH_UNSPECIFIED: _ClassVar[BotStrength]
    BOT_STRENGTH_RANDOM: _ClassVar[BotStrength]
    BOT_STRENGTH_GREEDY: _ClassVar[BotStrength]
    BOT_STRENGTH_STRONG: _ClassVar[BotStrength]
GAME_KIND_UNSPECIFIED: GameKind
GAME_KIND_CARDS: GameKind
GAME_KIND_DICE: GameKind
GAME_KIND_TILES: GameKind
GAME_STATUS_UNSPECIFIED: GameStatus
GAME_STATUS_WAITING: GameStatus
GAME_STATUS_PLAYING: GameStatus
GAME_STATUS_FINISHED: GameStatus
BOT_STRENGTH_UNSPECIFIED: BotStrength
BOT_STRENGTH_RANDOM: BotStrength
BOT_STRENGTH_GREEDY: BotStrength
BOT_STRENGTH_STRONG: BotStrength

class GameOptions(_message.Message):
    __slots__ = ("rounds", "variant_e", "sections", "line_length")
    ROUNDS_FIELD_NUMBER: _ClassVar[int]
    VARIANT_E_FIELD_NUMBER: _ClassVar[int]
    SECTIONS_FIELD_NUMBER: _ClassVar[int]
    LINE_LENGTH_FIELD_NUMBER: _ClassVar[int]
    rounds: int
    variant_e: bool
    sections: _containers.RepeatedScalarFieldContainer[int]
    line_length: int
    def __init__(self, rounds: _Optional[int] = ..., variant_e: _Optional[bool] = ..., sections: _Optional[_Iterable[int]] = ..., line_length: _Optional[int] = ...) -> None: ...

class Player(_message.Message):
    __slots__ = ("seat", "display_name", "joined", "bot", "away", "resigned", "bot_account")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    JOINED_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    AWAY_FIELD_NUMBER: _ClassVar[int]
    RESIGNED_FIELD_NUMBER: _ClassVar[int]
    BOT_ACCOUNT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    display_name: str
    joined: bool
    bot: BotStrength
    away: bool
    resigned: bool
    bot_account: bool
    def __init__(self, seat: _Optional[int] = ..., display_name: _Optional[str] = ..., joined: _Optional[bool] = ..., bot: _Optional[_Union[BotStrength, str]] = ..., away: _Optional[bool] = ..., resigned: _Optional[bool] = ..., bot_account: _Optional[bool] = ...) -> None: ...

class Standing(_message.Message):
    __slots__ = ("seat", "rank", "points")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    RANK_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    rank: int
    points: int
    def __init__(self, seat: _Optional[int] = ..., rank: _Optional[int] = ..., points: _Optional[int] = ...) -> None: ...

class RoundOver(_message.Message):
    __slots__ = ("round", "ranks", "points", "totals")
    ROUND_FIELD_NUMBER: _ClassVar[int]
    RANKS_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    TOTALS_FIELD_NUMBER: _ClassVar[int]
    round: int
    ranks: _containers.RepeatedScalarFieldContainer[int]
    points: _containers.RepeatedScalarFieldContainer[int]
    totals: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, round: _Optional[int] = ..., ranks: _Optional[_Iterable[int]] = ..., points: _Optional[_Iterable[int]] = ..., totals: _Optional[_Iterable[int]] = ...) -> None: ...

class GameOver(_message.Message):
    __slots__ = ("standings",)
    STANDINGS_FIELD_NUMBER: _ClassVar[int]
    standings: _containers.RepeatedCompositeFieldContainer[Standing]
    def __init__(self, standings: _Optional[_Iterable[_Union[Standing, _Mapping]]] = ...) -> None: ...

class PlayerJoined(_message.Message):
    __slots__ = ("seat", "display_name")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    seat: int
    display_name: str
    def __init__(self, seat: _Optional[int] = ..., display_name: _Optional[str] = ...) -> None: ...

class GameStarted(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GameSummary(_message.Message):
    __slots__ = ("game_id", "kind", "status", "seats", "open_seats", "options", "created_at")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    OPEN_SEATS_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    kind: GameKind
    status: GameStatus
    seats: int
    open_seats: int
    options: GameOptions
    created_at: _timestamp_pb2.Timestamp
    def __init__(self, game_id: _Optional[str] = ..., kind: _Optional[_Union[GameKind, str]] = ..., status: _Optional[_Union[GameStatus, str]] = ..., seats: _Optional[int] = ..., open_seats: _Optional[int] = ..., options: _Optional[_Union[GameOptions, _Mapping]] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class Move(_message.Message):
    __slots__ = ("cards", "dice", "tiles")
    CARDS_FIELD_NUMBER: _ClassVar[int]
    DICE_FIELD_NUMBER: _ClassVar[int]
    TILES_FIELD_NUMBER: _ClassVar[int]
    cards: _cards_pb2.CardsMove
    dice: _dice_pb2.DiceMove
    tiles: _tiles_pb2.TilesMove
    def __init__(self, cards: _Optional[_Union[_cards_pb2.CardsMove, _Mapping]] = ..., dice: _Optional[_Union[_dice_pb2.DiceMove, _Mapping]] = ..., tiles: _Optional[_Union[_tiles_pb2.TilesMove, _Mapping]] = ...) -> None: ...

class Event(_message.Message):
    __slots__ = ("cards", "dice", "tiles", "round_over", "game_over", "player_joined", "game_started", "turn_timed_out", "seat_reclaimed", "seat_resigned")
    CARDS_FIELD_NUMBER: _ClassVar[int]
    DICE_FIELD_NUMBER: _ClassVar[int]
    TILES_FIELD_NUMBER: _ClassVar[int]
    ROUND_OVER_FIELD_NUMBER: _ClassVar[int]
    GAME_OVER_FIELD_NUMBER: _ClassVar[int]
    PLAYER_JOINED_FIELD_NUMBER: _ClassVar[int]
    GAME_STARTED_FIELD_NUMBER: _ClassVar[int]
    TURN_TIMED_OUT_FIELD_NUMBER: _ClassVar[int]
    SEAT_RECLAIMED_FIELD_NUMBER: _ClassVar[int]
    SEAT_RESIGNED_FIELD_NUMBER: _ClassVar[int]
    cards: _cards_pb2.CardsEvent
    dice: _dice_pb2.DiceEvent
    tiles: _tiles_pb2.TilesEvent
    round_over: RoundOver
    game_over: GameOver
    player_joined: PlayerJoined
    game_started: GameStarted
    turn_timed_out: TurnTimedOut
    seat_reclaimed: SeatReclaimed
    seat_resigned: SeatResigned
    def __init__(self, cards: _Optional[_Union[_cards_pb2.CardsEvent, _Mapping]] = ..., dice: _Optional[_Union[_dice_pb2.DiceEvent, _Mapping]] = ..., tiles: _Optional[_Union[_tiles_pb2.TilesEvent, _Mapping]] = ..., round_over: _Optional[_Union[RoundOver, _Mapping]] = ..., game_over: _Optional[_Union[GameOver, _Mapping]] = ..., player_joined: _Optional[_Union[PlayerJoined, _Mapping]] = ..., game_started: _Optional[_Union[GameStarted, _Mapping]] = ..., turn_timed_out: _Optional[_Union[TurnTimedOut, _Mapping]] = ..., seat_reclaimed: _Optional[_Union[SeatReclaimed, _Mapping]] = ..., seat_resigned: _Optional[_Union[SeatResigned, _Mapping]] = ...) -> None: ...

class TurnTimedOut(_message.Message):
    __slots__ = ("seat",)
    SEAT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    def __init__(self, seat: _Optional[int] = ...) -> None: ...

class SeatReclaimed(_message.Message):
    __slots__ = ("seat",)
    SEAT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    def __init__(self, seat: _Optional[int] = ...) -> None: ...

class SeatResigned(_message.Message):
    __slots__ = ("seat",)
    SEAT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    def __init__(self, seat: _Optional[int] = ...) -> None: ...

class GameView(_message.Message):
    __slots__ = ("game_id", "kind", "version", "status", "to_move", "viewer", "seats", "players", "seed_sha256", "seed", "options", "round", "first_seat", "points", "standings", "last_events", "cards", "dice", "tiles", "turn_seconds", "turn_deadline")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    TO_MOVE_FIELD_NUMBER: _ClassVar[int]
    VIEWER_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    SEED_SHA256_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    FIRST_SEAT_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    STANDINGS_FIELD_NUMBER: _ClassVar[int]
    LAST_EVENTS_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    DICE_FIELD_NUMBER: _ClassVar[int]
    TILES_FIELD_NUMBER: _ClassVar[int]
    TURN_SECONDS_FIELD_NUMBER: _ClassVar[int]
    TURN_DEADLINE_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    kind: GameKind
    version: int
    status: GameStatus
    to_move: int
    viewer: int
    seats: int
    players: _containers.RepeatedCompositeFieldContainer[Player]
    seed_sha256: str
    seed: str
    options: GameOptions
    round: int
    first_seat: int
    points: _containers.RepeatedScalarFieldContainer[int]
    standings: _containers.RepeatedCompositeFieldContainer[Standing]
    last_events: _containers.RepeatedCompositeFieldContainer[Event]
    cards: _cards_pb2.CardsView
    dice: _dice_pb2.DiceView
    tiles: _tiles_pb2.TilesView
    turn_seconds: int
    turn_deadline: _timestamp_pb2.Timestamp
    def __init__(self, game_id: _Optional[str] = ..., kind: _Optional[_Union[GameKind, str]] = ..., version: _Optional[int] = ..., status: _Optional[_Union[GameStatus, str]] = ..., to_move: _Optional[int] = ..., viewer: _Optional[int] = ..., seats: _Optional[int] = ..., players: _Optional[_Iterable[_Union[Player, _Mapping]]] = ..., seed_sha256: _Optional[str] = ..., seed: _Optional[str] = ..., options: _Optional[_Union[GameOptions, _Mapping]] = ..., round: _Optional[int] = ..., first_seat: _Optional[int] = ..., points: _Optional[_Iterable[int]] = ..., standings: _Optional[_Iterable[_Union[Standing, _Mapping]]] = ..., last_events: _Optional[_Iterable[_Union[Event, _Mapping]]] = ..., cards: _Optional[_Union[_cards_pb2.CardsView, _Mapping]] = ..., dice: _Optional[_Union[_dice_pb2.DiceView, _Mapping]] = ..., tiles: _Optional[_Union[_tiles_pb2.TilesView, _Mapping]] = ..., turn_seconds: _Optional[int] = ..., turn_deadline: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...
