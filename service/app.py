"""The application: the use cases by concern, wired to one store, and the table of which
use case answers which RPC of the API's services (one code path for every transport).

Requests and responses are the proto messages themselves: a gRPC servicer passes them
through, the REST gateway decodes JSON into them. Errors are `ApiError`s.
"""

from __future__ import annotations

import asyncio

from .addresses import ClientAddresses
from .census import Census
from .credentials import Credentials
from .followups import FollowUps
from .games import Games
from .health import StoreHealth
from .history import History
from .invoke import Gate, StreamCase, StreamSlots, UseCase
from .limits import RateLimiter
from .lobby import Lobby
from .matchmaking import Matchmaker
from .moves import Moves
from .players.feed import PlayerFeed
from .players.my_games import MyGames
from .players.seats import Seats
from .players.sessions import PlayerSessions
from .ratings import Ratings
from .settings import Settings
from .store import GameStore
from .turns import Turns
from .watch_tickets import WatchTickets
from .watching import Watching
from .webhooks.delivery import Deliveries
from .webhooks.endpoints import parse_endpoints
from .webhooks.notifier import Notifier
from .webhooks.players import PlayerWebhooks


class GameApp:
    """Every use case of the API over one `GameStore`, and the worker's background work
    (the turn loop, the follow-ups' sweeper, the rate limits' sync, revocations, webhook
    deliveries)."""

    def __init__(self, store: GameStore, settings: Settings) -> None:
        self.store = store
        self.settings = settings
        self.credentials = Credentials(store, settings)
        self.gate = Gate(
            RateLimiter(store, settings.rate_limit_token, settings.rate_limit_address),
            ClientAddresses(settings.trusted_proxies),
            StreamSlots(settings.max_streams, settings.max_streams_per_address),
            self.credentials,
        )
        self.health = StoreHealth(store, settings, Census(settings))
        self.turns = Turns(store, settings)
        self.lobby = Lobby(store, settings)
        self.followups = FollowUps(store, settings)
        self.sessions = PlayerSessions(store, settings, self.credentials)
        self.games = Games(
            store,
            settings,
            self.lobby,
            self.turns,
            self.health,
            self.followups,
            self._profile_name,
        )
        self.moves = Moves(store, settings, self.turns, self.followups, self.health.census)
        self.history = History(store, settings)
        self.tickets = WatchTickets(store, self.credentials)
        self.watching = Watching(store, settings, self.tickets)
        self.my_games = MyGames(store, settings)
        self.feed = PlayerFeed(store, settings, self.my_games)
        self.followups.consumers.append(self.feed)
        endpoints = parse_endpoints(settings.webhook_endpoints)
        self.player_webhooks = PlayerWebhooks(store, settings)
        self.deliveries = Deliveries(store, settings, endpoints, self.player_webhooks)
        self.notifier = Notifier(
            store, settings, endpoints, self.player_webhooks, self.deliveries.wake
        )
        self.followups.consumers.append(self.notifier)
        self.seats = Seats(store, settings, self.games, self.turns, self.followups)
        self.ratings = Ratings(store, settings, self._profile_name, self.sessions.is_bot)
        self.followups.consumers.append(self.ratings)
        self.matchmaker = Matchmaker(
            store, settings, self.games, self.followups, self.ratings, self._profile_name
        )
        self.unary: dict[str, UseCase] = {
            "CreateGame": self.games.create_game,
            "JoinGame": self.games.join_game,
            "GetGame": self.games.get_game,
            "ListLegalMoves": self.games.list_legal_moves,
            "MakeMove": self.moves.make_move,
            "GetHistory": self.history.get_history,
            "ListGames": self.lobby.list_games,
            "Resign": self.seats.resign,
            "Rematch": self.seats.rematch,
            "CreateSession": self.sessions.create_session,
            "RefreshSession": self.sessions.refresh_session,
            "RevokeSession": self.sessions.revoke_session,
            "GetPlayer": self.sessions.get_player,
            "UpdatePlayer": self.sessions.update_player,
            "ListMyGames": self.my_games.list_my_games,
            "CreateWatchTicket": self.tickets.create_watch_ticket,
            "SetPlayerWebhook": self.player_webhooks.set_player_webhook,
            "FindMatch": self.matchmaker.find_match,
            "CancelMatch": self.matchmaker.cancel_match,
            "GetMatchTicket": self.matchmaker.get_match_ticket,
            "GetRatings": self.ratings.get_ratings,
            "ListLeaderboard": self.ratings.list_leaderboard,
        }
        self.streams: dict[str, StreamCase] = {
            "WatchGame": self.watching.watch_game,
            "WatchPlayer": self.feed.watch_player,
        }

    async def _profile_name(self, player: str) -> str:
        return (await self.sessions.profile(player)).display_name

    async def run(self) -> None:
        """The background work of a worker, until cancelled."""
        async with asyncio.TaskGroup() as tasks:
            tasks.create_task(self.turns.run(self.moves.play_automatic_turn))
            tasks.create_task(self.followups.run())
            tasks.create_task(self.gate.limiter.run())
            tasks.create_task(self.credentials.run())
            tasks.create_task(self.health.run())
            tasks.create_task(self.deliveries.run())
            tasks.create_task(self.matchmaker.run())
