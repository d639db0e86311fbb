from genial.v1 import color_pb2 as _color_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class DicePhase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DICE_PHASE_UNSPECIFIED: _ClassVar[DicePhase]
    DICE_PHASE_ROLL: _ClassVar[DicePhase]
    DICE_PHASE_DECIDE: _ClassVar[DicePhase]
DICE_PHASE_UNSPECIFIED: DicePhase
DICE_PHASE_ROLL: DicePhase
DICE_PHASE_DECIDE: DicePhase

class DiceMove(_message.Message):
    __slots__ = ("roll", "reroll", "score")
    ROLL_FIELD_NUMBER: _ClassVar[int]
    REROLL_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    roll: DiceRoll
    reroll: DiceReroll
    score: DiceScore
    def __init__(self, roll: _Optional[_Union[DiceRoll, _Mapping]] = ..., reroll: _Optional[_Union[DiceReroll, _Mapping]] = ..., score: _Optional[_Union[DiceScore, _Mapping]] = ...) -> None: ...

class DiceRoll(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class DiceReroll(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class DiceScore(_message.Message):
    __slots__ = ("jokers",)
    JOKERS_FIELD_NUMBER: _ClassVar[int]
    jokers: _containers.RepeatedCompositeFieldContainer[DiceJoker]
    def __init__(self, jokers: _Optional[_Iterable[_Union[DiceJoker, _Mapping]]] = ...) -> None: ...

class DiceJoker(_message.Message):
    __slots__ = ("group", "color")
    GROUP_FIELD_NUMBER: _ClassVar[int]
    COLOR_FIELD_NUMBER: _ClassVar[int]
    group: _color_pb2.Color
    color: _color_pb2.Color
    def __init__(self, group: _Optional[_Union[_color_pb2.Color, str]] = ..., color: _Optional[_Union[_color_pb2.Color, str]] = ...) -> None: ...

class DiceView(_message.Message):
    __slots__ = ("phase", "rerolls_left", "sections", "players")
    PHASE_FIELD_NUMBER: _ClassVar[int]
    REROLLS_LEFT_FIELD_NUMBER: _ClassVar[int]
    SECTIONS_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    phase: DicePhase
    rerolls_left: int
    sections: _containers.RepeatedScalarFieldContainer[int]
    players: _containers.RepeatedCompositeFieldContainer[DicePlayer]
    def __init__(self, phase: _Optional[_Union[DicePhase, str]] = ..., rerolls_left: _Optional[int] = ..., sections: _Optional[_Iterable[int]] = ..., players: _Optional[_Iterable[_Union[DicePlayer, _Mapping]]] = ...) -> None: ...

class DicePlayer(_message.Message):
    __slots__ = ("seat", "dice", "sheet")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    DICE_FIELD_NUMBER: _ClassVar[int]
    SHEET_FIELD_NUMBER: _ClassVar[int]
    seat: int
    dice: _containers.RepeatedScalarFieldContainer[_color_pb2.Color]
    sheet: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, seat: _Optional[int] = ..., dice: _Optional[_Iterable[_Union[_color_pb2.Color, str]]] = ..., sheet: _Optional[_Iterable[int]] = ...) -> None: ...

class DiceEvent(_message.Message):
    __slots__ = ("setup", "roll", "score")
    SETUP_FIELD_NUMBER: _ClassVar[int]
    ROLL_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    setup: DiceSetupEvent
    roll: DiceRollEvent
    score: DiceScoreEvent
    def __init__(self, setup: _Optional[_Union[DiceSetupEvent, _Mapping]] = ..., roll: _Optional[_Union[DiceRollEvent, _Mapping]] = ..., score: _Optional[_Union[DiceScoreEvent, _Mapping]] = ...) -> None: ...

class DiceSetupEvent(_message.Message):
    __slots__ = ("round", "first_seat", "dice")
    ROUND_FIELD_NUMBER: _ClassVar[int]
    FIRST_SEAT_FIELD_NUMBER: _ClassVar[int]
    DICE_FIELD_NUMBER: _ClassVar[int]
    round: int
    first_seat: int
    dice: _containers.RepeatedCompositeFieldContainer[DiceList]
    def __init__(self, round: _Optional[int] = ..., first_seat: _Optional[int] = ..., dice: _Optional[_Iterable[_Union[DiceList, _Mapping]]] = ...) -> None: ...

class DiceList(_message.Message):
    __slots__ = ("dice",)
    DICE_FIELD_NUMBER: _ClassVar[int]
    dice: _containers.RepeatedScalarFieldContainer[_color_pb2.Color]
    def __init__(self, dice: _Optional[_Iterable[_Union[_color_pb2.Color, str]]] = ...) -> None: ...

class DiceRollEvent(_message.Message):
    __slots__ = ("seat", "dice", "rerolls_left", "reroll")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    DICE_FIELD_NUMBER: _ClassVar[int]
    REROLLS_LEFT_FIELD_NUMBER: _ClassVar[int]
    REROLL_FIELD_NUMBER: _ClassVar[int]
    seat: int
    dice: _containers.RepeatedScalarFieldContainer[_color_pb2.Color]
    rerolls_left: int
    reroll: bool
    def __init__(self, seat: _Optional[int] = ..., dice: _Optional[_Iterable[_Union[_color_pb2.Color, str]]] = ..., rerolls_left: _Optional[int] = ..., reroll: _Optional[bool] = ...) -> None: ...

class DiceScoreEvent(_message.Message):
    __slots__ = ("seat", "jokers", "crosses", "lost")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    JOKERS_FIELD_NUMBER: _ClassVar[int]
    CROSSES_FIELD_NUMBER: _ClassVar[int]
    LOST_FIELD_NUMBER: _ClassVar[int]
    seat: int
    jokers: _containers.RepeatedCompositeFieldContainer[DiceJoker]
    crosses: _containers.RepeatedScalarFieldContainer[int]
    lost: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, seat: _Optional[int] = ..., jokers: _Optional[_Iterable[_Union[DiceJoker, _Mapping]]] = ..., crosses: _Optional[_Iterable[int]] = ..., lost: _Optional[_Iterable[int]] = ...) -> None: ...
