from genial.v1 import color_pb2 as _color_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class TilesPhase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TILES_PHASE_UNSPECIFIED: _ClassVar[TilesPhase]
    TILES_PHASE_START: _ClassVar[TilesPhase]
    TILES_PHASE_DECIDE: _ClassVar[TilesPhase]

class TilesRevealOutcome(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TILES_REVEAL_OUTCOME_UNSPECIFIED: _ClassVar[TilesRevealOutcome]
    TILES_REVEAL_OUTCOME_SUCCESS: _ClassVar[TilesRevealOutcome]
    TILES_REVEAL_OUTCOME_NO_MATCH: _ClassVar[TilesRevealOutcome]
    TILES_REVEAL_OUTCOME_CONFLICT: _ClassVar[TilesRevealOutcome]
TILES_PHASE_UNSPECIFIED: TilesPhase
TILES_PHASE_START: TilesPhase
TILES_PHASE_DECIDE: TilesPhase
TILES_REVEAL_OUTCOME_UNSPECIFIED: TilesRevealOutcome
TILES_REVEAL_OUTCOME_SUCCESS: TilesRevealOutcome
TILES_REVEAL_OUTCOME_NO_MATCH: TilesRevealOutcome
TILES_REVEAL_OUTCOME_CONFLICT: TilesRevealOutcome

class TilesMove(_message.Message):
    __slots__ = ("reveal", "take", "alternative")
    REVEAL_FIELD_NUMBER: _ClassVar[int]
    TAKE_FIELD_NUMBER: _ClassVar[int]
    ALTERNATIVE_FIELD_NUMBER: _ClassVar[int]
    reveal: TilesReveal
    take: TilesTake
    alternative: TilesAlternative
    def __init__(self, reveal: _Optional[_Union[TilesReveal, _Mapping]] = ..., take: _Optional[_Union[TilesTake, _Mapping]] = ..., alternative: _Optional[_Union[TilesAlternative, _Mapping]] = ...) -> None: ...

class TilesReveal(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class TilesTake(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class TilesAlternative(_message.Message):
    __slots__ = ("color",)
    COLOR_FIELD_NUMBER: _ClassVar[int]
    color: _color_pb2.Color
    def __init__(self, color: _Optional[_Union[_color_pb2.Color, str]] = ...) -> None: ...

class TilesView(_message.Message):
    __slots__ = ("phase", "bonus_moves", "line_length", "reserve_size", "centre", "zone", "players")
    PHASE_FIELD_NUMBER: _ClassVar[int]
    BONUS_MOVES_FIELD_NUMBER: _ClassVar[int]
    LINE_LENGTH_FIELD_NUMBER: _ClassVar[int]
    RESERVE_SIZE_FIELD_NUMBER: _ClassVar[int]
    CENTRE_FIELD_NUMBER: _ClassVar[int]
    ZONE_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    phase: TilesPhase
    bonus_moves: int
    line_length: int
    reserve_size: int
    centre: _containers.RepeatedScalarFieldContainer[int]
    zone: _containers.RepeatedScalarFieldContainer[_color_pb2.Color]
    players: _containers.RepeatedCompositeFieldContainer[TilesPlayer]
    def __init__(self, phase: _Optional[_Union[TilesPhase, str]] = ..., bonus_moves: _Optional[int] = ..., line_length: _Optional[int] = ..., reserve_size: _Optional[int] = ..., centre: _Optional[_Iterable[int]] = ..., zone: _Optional[_Iterable[_Union[_color_pb2.Color, str]]] = ..., players: _Optional[_Iterable[_Union[TilesPlayer, _Mapping]]] = ...) -> None: ...

class TilesPlayer(_message.Message):
    __slots__ = ("seat", "collection", "lines")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    COLLECTION_FIELD_NUMBER: _ClassVar[int]
    LINES_FIELD_NUMBER: _ClassVar[int]
    seat: int
    collection: _containers.RepeatedScalarFieldContainer[int]
    lines: _containers.RepeatedScalarFieldContainer[_color_pb2.Color]
    def __init__(self, seat: _Optional[int] = ..., collection: _Optional[_Iterable[int]] = ..., lines: _Optional[_Iterable[_Union[_color_pb2.Color, str]]] = ...) -> None: ...

class TilesEvent(_message.Message):
    __slots__ = ("setup", "refill", "reveal", "take", "alternative", "bonus", "turn_end")
    SETUP_FIELD_NUMBER: _ClassVar[int]
    REFILL_FIELD_NUMBER: _ClassVar[int]
    REVEAL_FIELD_NUMBER: _ClassVar[int]
    TAKE_FIELD_NUMBER: _ClassVar[int]
    ALTERNATIVE_FIELD_NUMBER: _ClassVar[int]
    BONUS_FIELD_NUMBER: _ClassVar[int]
    RETURN_FIELD_NUMBER: _ClassVar[int]
    PASS_FIELD_NUMBER: _ClassVar[int]
    TURN_END_FIELD_NUMBER: _ClassVar[int]
    setup: TilesSetupEvent
    refill: TilesRefillEvent
    reveal: TilesRevealEvent
    take: TilesTakeEvent
    alternative: TilesAlternativeEvent
    bonus: TilesBonusEvent
    turn_end: TilesTurnEndEvent
    def __init__(self, setup: _Optional[_Union[TilesSetupEvent, _Mapping]] = ..., refill: _Optional[_Union[TilesRefillEvent, _Mapping]] = ..., reveal: _Optional[_Union[TilesRevealEvent, _Mapping]] = ..., take: _Optional[_Union[TilesTakeEvent, _Mapping]] = ..., alternative: _Optional[_Union[TilesAlternativeEvent, _Mapping]] = ..., bonus: _Optional[_Union[TilesBonusEvent, _Mapping]] = ..., turn_end: _Optional[_Union[TilesTurnEndEvent, _Mapping]] = ..., **kwargs) -> None: ...

class TilesSetupEvent(_message.Message):
    __slots__ = ("round", "first_seat", "centre")
    ROUND_FIELD_NUMBER: _ClassVar[int]
    FIRST_SEAT_FIELD_NUMBER: _ClassVar[int]
    CENTRE_FIELD_NUMBER: _ClassVar[int]
    round: int
    first_seat: int
    centre: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, round: _Optional[int] = ..., first_seat: _Optional[int] = ..., centre: _Optional[_Iterable[int]] = ...) -> None: ...

class TilesRefillEvent(_message.Message):
    __slots__ = ("colors",)
    COLORS_FIELD_NUMBER: _ClassVar[int]
    colors: _containers.RepeatedScalarFieldContainer[_color_pb2.Color]
    def __init__(self, colors: _Optional[_Iterable[_Union[_color_pb2.Color, str]]] = ...) -> None: ...

class TilesRevealEvent(_message.Message):
    __slots__ = ("seat", "color", "outcome")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    COLOR_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    seat: int
    color: _color_pb2.Color
    outcome: TilesRevealOutcome
    def __init__(self, seat: _Optional[int] = ..., color: _Optional[_Union[_color_pb2.Color, str]] = ..., outcome: _Optional[_Union[TilesRevealOutcome, str]] = ...) -> None: ...

class TilesTakeEvent(_message.Message):
    __slots__ = ("seat", "tiles")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TILES_FIELD_NUMBER: _ClassVar[int]
    seat: int
    tiles: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, seat: _Optional[int] = ..., tiles: _Optional[_Iterable[int]] = ...) -> None: ...

class TilesAlternativeEvent(_message.Message):
    __slots__ = ("seat", "color")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    COLOR_FIELD_NUMBER: _ClassVar[int]
    seat: int
    color: _color_pb2.Color
    def __init__(self, seat: _Optional[int] = ..., color: _Optional[_Union[_color_pb2.Color, str]] = ...) -> None: ...

class TilesBonusEvent(_message.Message):
    __slots__ = ("seat", "colors")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    COLORS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    colors: _containers.RepeatedScalarFieldContainer[_color_pb2.Color]
    def __init__(self, seat: _Optional[int] = ..., colors: _Optional[_Iterable[_Union[_color_pb2.Color, str]]] = ...) -> None: ...

class TilesReturnEvent(_message.Message):
    __slots__ = ("seat", "tiles")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TILES_FIELD_NUMBER: _ClassVar[int]
    seat: int
    tiles: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, seat: _Optional[int] = ..., tiles: _Optional[_Iterable[int]] = ...) -> None: ...

class TilesPassEvent(_message.Message):
    __slots__ = ("seat",)
    SEAT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    def __init__(self, seat: _Optional[int] = ...) -> None: ...

class TilesTurnEndEvent(_message.Message):
    __slots__ = ("seat",)
    SEAT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    def __init__(self, seat: _Optional[int] = ...) -> None: ...
