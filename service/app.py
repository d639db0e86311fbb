"""The application: the use cases by concern, wired to one store, and the table of which
use case answers which RPC of `genial.v1.GameService` (one code path for every transport).

Requests and responses are the proto messages themselves: a gRPC servicer passes them
through, the REST gateway decodes JSON into them. Errors are `ApiError`s.
"""

from __future__ import annotations

import asyncio

from .addresses import ClientAddresses
from .games import Games
from .health import StoreHealth
from .history import History
from .invoke import Gate, StreamCase, StreamSlots, UseCase
from .limits import RateLimiter
from .lobby import Lobby
from .moves import Moves
from .settings import Settings
from .store import GameStore
from .turns import Turns
from .watching import Watching


class GameApp:
    """Every use case of the API over one `GameStore`, and the worker's background work
    (the turn loop, the rate limits' sync)."""

    def __init__(self, store: GameStore, settings: Settings) -> None:
        self.store = store
        self.settings = settings
        self.gate = Gate(
            RateLimiter(store, settings.rate_limit_token, settings.rate_limit_address),
            ClientAddresses(settings.trusted_proxies),
            StreamSlots(settings.max_streams, settings.max_streams_per_address),
        )
        self.health = StoreHealth(store, settings)
        self.turns = Turns(store, settings)
        self.lobby = Lobby(store, settings)
        self.games = Games(store, settings, self.lobby, self.turns, self.health)
        self.moves = Moves(store, settings, self.turns)
        self.history = History(store, settings)
        self.watching = Watching(store, settings)
        self.unary: dict[str, UseCase] = {
            "CreateGame": self.games.create_game,
            "JoinGame": self.games.join_game,
            "GetGame": self.games.get_game,
            "ListLegalMoves": self.games.list_legal_moves,
            "MakeMove": self.moves.make_move,
            "GetHistory": self.history.get_history,
            "ListGames": self.lobby.list_games,
        }
        self.streams: dict[str, StreamCase] = {"WatchGame": self.watching.watch_game}

    async def run(self) -> None:
        """The background work of a worker, until cancelled."""
        async with asyncio.TaskGroup() as tasks:
            tasks.create_task(self.turns.run(self.moves.play_automatic_turn))
            tasks.create_task(self.gate.limiter.run())
            tasks.create_task(self.health.run())
