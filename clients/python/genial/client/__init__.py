"""The Python SDK of the genial game service: a typed, asynchronous wrapper of its gRPC API.

The messages are the generated `genial.v1` modules (`genial.v1.types_pb2` for moves and
views, `genial.v1.game_service_pb2` and `genial.v1.player_service_pb2` for requests and
responses). See the README of the
`genial-client` distribution for a first game.
"""

from .client import (
    DEFAULT_TARGET,
    Credential,
    GenialClient,
    Kind,
    RetryPolicy,
    Strength,
    TokenSource,
    kind_name,
)
from .errors import GenialError
from .player import PlayerSession
from .seat import Seat

__all__ = [
    "DEFAULT_TARGET",
    "Credential",
    "GenialClient",
    "GenialError",
    "Kind",
    "PlayerSession",
    "RetryPolicy",
    "Seat",
    "Strength",
    "TokenSource",
    "kind_name",
]
