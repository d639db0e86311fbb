from genial.v1 import color_pb2 as _color_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Card(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CARD_UNSPECIFIED: _ClassVar[Card]
    CARD_RED_GREEN: _ClassVar[Card]
    CARD_RED_BLUE: _ClassVar[Card]
    CARD_RED_ORANGE: _ClassVar[Card]
    CARD_RED_YELLOW: _ClassVar[Card]
    CARD_RED_PURPLE: _ClassVar[Card]
    CARD_GREEN_BLUE: _ClassVar[Card]
    CARD_GREEN_ORANGE: _ClassVar[Card]
    CARD_GREEN_YELLOW: _ClassVar[Card]
    CARD_GREEN_PURPLE: _ClassVar[Card]
    CARD_BLUE_ORANGE: _ClassVar[Card]
    CARD_BLUE_YELLOW: _ClassVar[Card]
    CARD_BLUE_PURPLE: _ClassVar[Card]
    CARD_ORANGE_YELLOW: _ClassVar[Card]
    CARD_ORANGE_PURPLE: _ClassVar[Card]
    CARD_YELLOW_PURPLE: _ClassVar[Card]

class CardsPhase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CARDS_PHASE_UNSPECIFIED: _ClassVar[CardsPhase]
    CARDS_PHASE_PLAY: _ClassVar[CardsPhase]
    CARDS_PHASE_BONUS: _ClassVar[CardsPhase]
    CARDS_PHASE_SWAP: _ClassVar[CardsPhase]
    CARDS_PHASE_OVER: _ClassVar[CardsPhase]
CARD_UNSPECIFIED: Card
CARD_RED_GREEN: Card
CARD_RED_BLUE: Card
CARD_RED_ORANGE: Card
CARD_RED_YELLOW: Card
CARD_RED_PURPLE: Card
CARD_GREEN_BLUE: Card
CARD_GREEN_ORANGE: Card
CARD_GREEN_YELLOW: Card
CARD_GREEN_PURPLE: Card
CARD_BLUE_ORANGE: Card
CARD_BLUE_YELLOW: Card
CARD_BLUE_PURPLE: Card
CARD_ORANGE_YELLOW: Card
CARD_ORANGE_PURPLE: Card
CARD_YELLOW_PURPLE: Card
CARDS_PHASE_UNSPECIFIED: CardsPhase
CARDS_PHASE_PLAY: CardsPhase
CARDS_PHASE_BONUS: CardsPhase
CARDS_PHASE_SWAP: CardsPhase
CARDS_PHASE_OVER: CardsPhase

class CardsMove(_message.Message):
    __slots__ = ("play", "swap", "decline_swap")
    PLAY_FIELD_NUMBER: _ClassVar[int]
    SWAP_FIELD_NUMBER: _ClassVar[int]
    DECLINE_SWAP_FIELD_NUMBER: _ClassVar[int]
    play: CardsPlay
    swap: CardsSwap
    decline_swap: CardsDeclineSwap
    def __init__(self, play: _Optional[_Union[CardsPlay, _Mapping]] = ..., swap: _Optional[_Union[CardsSwap, _Mapping]] = ..., decline_swap: _Optional[_Union[CardsDeclineSwap, _Mapping]] = ...) -> None: ...

class CardsPlay(_message.Message):
    __slots__ = ("card", "first")
    CARD_FIELD_NUMBER: _ClassVar[int]
    FIRST_FIELD_NUMBER: _ClassVar[int]
    card: Card
    first: _color_pb2.Color
    def __init__(self, card: _Optional[_Union[Card, str]] = ..., first: _Optional[_Union[_color_pb2.Color, str]] = ...) -> None: ...

class CardsSwap(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class CardsDeclineSwap(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class CardsView(_message.Message):
    __slots__ = ("phase", "bonus_plays", "deck_size", "discard_size", "players", "hand")
    PHASE_FIELD_NUMBER: _ClassVar[int]
    BONUS_PLAYS_FIELD_NUMBER: _ClassVar[int]
    DECK_SIZE_FIELD_NUMBER: _ClassVar[int]
    DISCARD_SIZE_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    phase: CardsPhase
    bonus_plays: int
    deck_size: int
    discard_size: int
    players: _containers.RepeatedCompositeFieldContainer[CardsPlayer]
    hand: _containers.RepeatedScalarFieldContainer[Card]
    def __init__(self, phase: _Optional[_Union[CardsPhase, str]] = ..., bonus_plays: _Optional[int] = ..., deck_size: _Optional[int] = ..., discard_size: _Optional[int] = ..., players: _Optional[_Iterable[_Union[CardsPlayer, _Mapping]]] = ..., hand: _Optional[_Iterable[_Union[Card, str]]] = ...) -> None: ...

class CardsPlayer(_message.Message):
    __slots__ = ("seat", "markers", "open_cards", "hand_size")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    MARKERS_FIELD_NUMBER: _ClassVar[int]
    OPEN_CARDS_FIELD_NUMBER: _ClassVar[int]
    HAND_SIZE_FIELD_NUMBER: _ClassVar[int]
    seat: int
    markers: _containers.RepeatedScalarFieldContainer[int]
    open_cards: _containers.RepeatedScalarFieldContainer[Card]
    hand_size: int
    def __init__(self, seat: _Optional[int] = ..., markers: _Optional[_Iterable[int]] = ..., open_cards: _Optional[_Iterable[_Union[Card, str]]] = ..., hand_size: _Optional[int] = ...) -> None: ...

class CardsEvent(_message.Message):
    __slots__ = ("deal", "draw", "reshuffle", "play", "bonus_lapsed", "swap", "decline_swap")
    DEAL_FIELD_NUMBER: _ClassVar[int]
    DRAW_FIELD_NUMBER: _ClassVar[int]
    RESHUFFLE_FIELD_NUMBER: _ClassVar[int]
    PLAY_FIELD_NUMBER: _ClassVar[int]
    BONUS_LAPSED_FIELD_NUMBER: _ClassVar[int]
    SWAP_FIELD_NUMBER: _ClassVar[int]
    DECLINE_SWAP_FIELD_NUMBER: _ClassVar[int]
    deal: CardsDealEvent
    draw: CardsDrawEvent
    reshuffle: CardsReshuffleEvent
    play: CardsPlayEvent
    bonus_lapsed: CardsBonusLapsedEvent
    swap: CardsSwapEvent
    decline_swap: CardsDeclineSwapEvent
    def __init__(self, deal: _Optional[_Union[CardsDealEvent, _Mapping]] = ..., draw: _Optional[_Union[CardsDrawEvent, _Mapping]] = ..., reshuffle: _Optional[_Union[CardsReshuffleEvent, _Mapping]] = ..., play: _Optional[_Union[CardsPlayEvent, _Mapping]] = ..., bonus_lapsed: _Optional[_Union[CardsBonusLapsedEvent, _Mapping]] = ..., swap: _Optional[_Union[CardsSwapEvent, _Mapping]] = ..., decline_swap: _Optional[_Union[CardsDeclineSwapEvent, _Mapping]] = ...) -> None: ...

class CardsDealEvent(_message.Message):
    __slots__ = ("round", "first_seat", "open_cards")
    ROUND_FIELD_NUMBER: _ClassVar[int]
    FIRST_SEAT_FIELD_NUMBER: _ClassVar[int]
    OPEN_CARDS_FIELD_NUMBER: _ClassVar[int]
    round: int
    first_seat: int
    open_cards: _containers.RepeatedCompositeFieldContainer[CardList]
    def __init__(self, round: _Optional[int] = ..., first_seat: _Optional[int] = ..., open_cards: _Optional[_Iterable[_Union[CardList, _Mapping]]] = ...) -> None: ...

class CardList(_message.Message):
    __slots__ = ("cards",)
    CARDS_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedScalarFieldContainer[Card]
    def __init__(self, cards: _Optional[_Iterable[_Union[Card, str]]] = ...) -> None: ...

class CardsDrawEvent(_message.Message):
    __slots__ = ("seat", "count")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    count: int
    def __init__(self, seat: _Optional[int] = ..., count: _Optional[int] = ...) -> None: ...

class CardsReshuffleEvent(_message.Message):
    __slots__ = ("deck_size",)
    DECK_SIZE_FIELD_NUMBER: _ClassVar[int]
    deck_size: int
    def __init__(self, deck_size: _Optional[int] = ...) -> None: ...

class CardsPlayEvent(_message.Message):
    __slots__ = ("seat", "card", "first", "scores", "bonus_plays")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    FIRST_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    BONUS_PLAYS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    card: Card
    first: _color_pb2.Color
    scores: _containers.RepeatedCompositeFieldContainer[CardsScore]
    bonus_plays: int
    def __init__(self, seat: _Optional[int] = ..., card: _Optional[_Union[Card, str]] = ..., first: _Optional[_Union[_color_pb2.Color, str]] = ..., scores: _Optional[_Iterable[_Union[CardsScore, _Mapping]]] = ..., bonus_plays: _Optional[int] = ...) -> None: ...

class CardsScore(_message.Message):
    __slots__ = ("color", "matches", "to", "lost")
    COLOR_FIELD_NUMBER: _ClassVar[int]
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    FROM_FIELD_NUMBER: _ClassVar[int]
    TO_FIELD_NUMBER: _ClassVar[int]
    LOST_FIELD_NUMBER: _ClassVar[int]
    color: _color_pb2.Color
    matches: int
    to: int
    lost: int
    def __init__(self, color: _Optional[_Union[_color_pb2.Color, str]] = ..., matches: _Optional[int] = ..., to: _Optional[int] = ..., lost: _Optional[int] = ..., **kwargs) -> None: ...

class CardsBonusLapsedEvent(_message.Message):
    __slots__ = ("seat", "count")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    count: int
    def __init__(self, seat: _Optional[int] = ..., count: _Optional[int] = ...) -> None: ...

class CardsSwapEvent(_message.Message):
    __slots__ = ("seat", "cards")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    cards: _containers.RepeatedScalarFieldContainer[Card]
    def __init__(self, seat: _Optional[int] = ..., cards: _Optional[_Iterable[_Union[Card, str]]] = ...) -> None: ...

class CardsDeclineSwapEvent(_message.Message):
    __slots__ = ("seat",)
    SEAT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    def __init__(self, seat: _Optional[int] = ...) -> None: ...
