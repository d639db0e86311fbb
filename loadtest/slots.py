"""The generator's slots: each makes one kind of call, over and over, on connections of
its own (gRPC channels and bare HTTP/1.1 connections spread over the workers).

Moves come from dice games for two seats, which the generator can play blind: `roll` is the
only legal move at the start of a turn and `score` with no jokers is always legal after it,
so every measured call is a `MakeMove` alone, with no `ListLegalMoves` beside it. Games are
created before the timed window, with 10 rounds so that none ends during it (one that does
is replaced outside the timed call).
"""

from __future__ import annotations

import asyncio
import json
import secrets
from dataclasses import dataclass
from typing import Protocol

import grpc
from google.protobuf import field_mask_pb2

from genial.service.routes import ROUTES
from genial.v1 import dice_pb2, types_pb2
from genial.v1 import game_service_pb2 as api
from genial.v1 import game_service_pb2_grpc as api_grpc
from genial.v1 import player_service_pb2 as player_pb
from genial.v1 import player_service_pb2_grpc as player_grpc

from . import bench_worker, httpclient
from .cluster import Cluster

MAKE_MOVE_GRPC = f"/{api.DESCRIPTOR.services_by_name['GameService'].full_name}/MakeMove"
EMPTY_GRPC = bench_worker.GRPC_METHOD
EMPTY_PATH = bench_worker.HTTP_PATH
MOVE_ROUTE = next(r for r in ROUTES if r.method.name == "MakeMove")
ROLL = types_pb2.Move(dice=dice_pb2.DiceMove(roll=dice_pb2.DiceRoll()))
SCORE = types_pb2.Move(dice=dice_pb2.DiceMove(score=dice_pb2.DiceScore()))
ROLL_JSON = b'{"move":{"dice":{"roll":{}}}}'
SCORE_JSON = b'{"move":{"dice":{"score":{}}}}'
MASK = ("version", "events")
"""The read mask of the masked move lines: a bot that follows the game by its events."""
ROUNDS = 10
"""Rounds per benchmark game: ~1350 moves, more than a game gets in one measurement."""
FINISHED = types_pb2.GAME_STATUS_FINISHED
SETUP_CONCURRENCY = 16
CHANNEL_OPTIONS = [
    # Each channel its own connection: the default global subchannel pool would share one.
    ("grpc.use_local_subchannel_pool", 1),
]


class Slot(Protocol):
    answer_bytes: int
    """The size of the last answer: the message (gRPC) or the body (HTTP)."""

    async def __call__(self) -> None:
        """One timed call; raises on failure."""

    async def refresh(self) -> None:
        """Untimed upkeep after a call (a finished game is replaced)."""


@dataclass
class Game:
    """A dice game for two seats, and where the generator is in it."""

    game_id: str
    tokens: list[str]
    to_move: int
    version: int = 0
    rolled: bool = False
    finished: bool = False
    first_seat: int = 0

    def advance(self, version: int, to_move: int | None, finished: bool) -> None:
        self.version = version
        self.rolled = not self.rolled
        self.to_move = to_move if to_move is not None else self.to_move
        self.finished = finished

    def advance_by_events(self, version: int, events: set[str]) -> None:
        """After a move answered without a view (read_mask=version,events): a score passes
        the turn; a round over passes the first move of the next to the next seat."""
        to_move = self.to_move
        if "round_over" in events:
            self.first_seat = 1 - self.first_seat
            to_move = self.first_seat
        elif self.rolled:
            to_move = 1 - to_move
        self.advance(version, to_move, "game_over" in events)


class Games:
    """Creates games through the first worker's gRPC port (untimed, before a window)."""

    def __init__(self, channel: grpc.aio.Channel) -> None:
        self.stub = api_grpc.GameServiceStub(channel)  # type: ignore[no-untyped-call]

    async def new(self) -> Game:
        created = await self.stub.CreateGame(
            api.CreateGameRequest(
                kind=types_pb2.GAME_KIND_DICE, seats=2, options=types_pb2.GameOptions(rounds=ROUNDS)
            )
        )
        tokens = []
        view = created.view
        for seat in range(2):
            token, view = await self.take_seat(created.game_id, seat)
            tokens.append(token)
        return Game(created.game_id, tokens, view.to_move, first_seat=view.first_seat)

    async def take_seat(self, game_id: str, seat: int) -> tuple[str, types_pb2.GameView]:
        """The token a move of the seat carries, and the view after it was taken."""
        joined = await self.stub.JoinGame(
            api.JoinGameRequest(game_id=game_id, display_name=f"bench {seat}")
        )
        return joined.player_token, joined.view

    async def many(self, count: int) -> list[Game]:
        gate = asyncio.Semaphore(SETUP_CONCURRENCY)

        async def one() -> Game:
            async with gate:
                return await self.new()

        return list(await asyncio.gather(*(one() for _ in range(count))))


class PlayerGames(Games):
    """Games whose two seats are players' (guest sessions): moves carry their JWTs."""

    def __init__(self, channel: grpc.aio.Channel) -> None:
        super().__init__(channel)
        self.players = player_grpc.PlayerServiceStub(channel)  # type: ignore[no-untyped-call]

    async def take_seat(self, game_id: str, seat: int) -> tuple[str, types_pb2.GameView]:
        signed_in = await self.players.CreateSession(
            player_pb.CreateSessionRequest(
                device_id=secrets.token_urlsafe(24), display_name=f"bench {seat}"
            )
        )
        token = signed_in.session.access_token
        joined = await self.stub.JoinGame(
            api.JoinGameRequest(game_id=game_id), metadata=bearer(token)
        )
        return token, joined.view


def bearer(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


class GrpcEmpty:
    def __init__(self, channel: grpc.aio.Channel) -> None:
        # No serializers: bytes go out and come back as they are.
        self.call: grpc.aio.UnaryUnaryMultiCallable[bytes, bytes] = channel.unary_unary(EMPTY_GRPC)
        # The same metadata a move carries, so that only the work of the call differs.
        self.metadata = bearer(secrets.token_urlsafe(32))
        self.answer_bytes = 0

    async def __call__(self) -> None:
        self.answer_bytes = len(await self.call(b"", metadata=self.metadata))

    async def refresh(self) -> None:
        pass


class GrpcMove:
    """Moves of one game, over one channel, or in turn over several (one a worker): then
    no move finds the record its worker kept, the worst case for the move path. With
    `masked`, each asks for read_mask=version,events only."""

    def __init__(
        self, channels: list[grpc.aio.Channel], game: Game, games: Games, masked: bool = False
    ) -> None:
        self.calls: list[grpc.aio.UnaryUnaryMultiCallable[bytes, bytes]] = [
            channel.unary_unary(MAKE_MOVE_GRPC) for channel in channels
        ]
        self.game = game
        self.games = games
        self.mask = field_mask_pb2.FieldMask(paths=MASK) if masked else None
        self.answer_bytes = 0

    async def __call__(self) -> None:
        game = self.game
        request = api.MakeMoveRequest(
            game_id=game.game_id,
            move=SCORE if game.rolled else ROLL,
            request_id=f"m{game.version + 1}",
            read_mask=self.mask,
        )
        raw = await self.calls[game.version % len(self.calls)](
            request.SerializeToString(), metadata=bearer(game.tokens[game.to_move])
        )
        self.answer_bytes = len(raw)
        answer = api.MakeMoveResponse.FromString(raw)
        if self.mask is not None:
            game.advance_by_events(answer.version, {e.WhichOneof("event") for e in answer.events})
            return
        view = answer.view
        game.advance(
            answer.version,
            view.to_move if view.HasField("to_move") else None,
            view.status == FINISHED,
        )

    async def refresh(self) -> None:
        if self.game.finished:
            self.game = await self.games.new()


class RestEmpty:
    def __init__(self, conn: httpclient.Connection) -> None:
        self.conn = conn
        # The same headers and body as a move, so that only the work of the call differs.
        self.request = httpclient.request_bytes(
            "POST",
            EMPTY_PATH,
            ROLL_JSON[:-1] + b',"requestId":"m1"}',
            {"authorization": f"Bearer {secrets.token_urlsafe(32)}"},
        )
        self.answer_bytes = 0

    async def __call__(self) -> None:
        status, raw = await self.conn.request(self.request)
        self.answer_bytes = len(raw)
        if status != 200:
            raise httpclient.HttpError(f"POST {EMPTY_PATH}: {status}")

    async def refresh(self) -> None:
        pass


class RestMove:
    def __init__(
        self, conn: httpclient.Connection, game: Game, games: Games, masked: bool = False
    ) -> None:
        self.conn = conn
        self.game = game
        self.games = games
        self.mask = f',"readMask":"{",".join(MASK)}"'.encode() if masked else b""
        self.answer_bytes = 0

    async def __call__(self) -> None:
        game = self.game
        body = (SCORE_JSON if game.rolled else ROLL_JSON)[:-1]
        body += f',"requestId":"m{game.version + 1}"'.encode() + self.mask + b"}"
        request = httpclient.request_bytes(
            MOVE_ROUTE.verb,
            MOVE_ROUTE.template.format(game_id=game.game_id),
            body,
            {"authorization": f"Bearer {game.tokens[game.to_move]}"},
        )
        status, raw = await self.conn.request(request)
        self.answer_bytes = len(raw)
        if not 200 <= status < 300:
            raise httpclient.HttpError(f"MakeMove: {status} {raw[:200]!r}")
        answer = json.loads(raw)
        if self.mask:
            kinds = {key for event in answer["events"] for key in event}
            game.advance_by_events(int(answer["version"]), {_snake(k) for k in kinds})
            return
        view = answer["view"]
        game.advance(
            int(answer["version"]),
            view.get("toMove"),
            view["status"] == "GAME_STATUS_FINISHED",
        )

    async def refresh(self) -> None:
        if self.game.finished:
            self.game = await self.games.new()


def _snake(name: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in name)


# ---- the deployment's clients -------------------------------------------------------------


class Clients:
    """Connections spread evenly over the workers: slot i uses worker i mod N.

    gRPC channels live for the whole run; HTTP connections are opened for each measurement,
    since the server closes idle keep-alive connections between them."""

    def __init__(self, deployment: Cluster, slots: int) -> None:
        workers = deployment.workers
        self.deployment = deployment
        self.channels = [
            grpc.aio.insecure_channel(
                workers[i % len(workers)].grpc_target, options=CHANNEL_OPTIONS
            )
            for i in range(max(len(workers), slots // 4))
        ]
        self.connections: list[httpclient.Connection] = []
        self.games = Games(self.channels[0])
        self.player_games = PlayerGames(self.channels[0])

    def channel(self, slot: int) -> grpc.aio.Channel:
        return self.channels[slot % len(self.channels)]

    async def reconnect(self, count: int) -> list[httpclient.Connection]:
        for conn in self.connections:
            conn.close()
        workers = self.deployment.workers
        self.connections = [
            await httpclient.Connection.open("127.0.0.1", workers[i % len(workers)].http_port)
            for i in range(count)
        ]
        return self.connections

    async def close(self) -> None:
        for channel in self.channels:
            await channel.close()
        for conn in self.connections:
            conn.close()


async def slots_for(kind: str, clients: Clients, count: int) -> list[Slot]:
    """`count` slots of a kind of call; games (for moves) are created first, untimed."""
    if kind == "grpc empty":
        return [GrpcEmpty(clients.channel(i)) for i in range(count)]
    if kind == "rest empty":
        return [RestEmpty(conn) for conn in await clients.reconnect(count)]
    if kind == "grpc move player":
        played = await clients.player_games.many(count)
        return [
            GrpcMove([clients.channel(i)], g, clients.player_games) for i, g in enumerate(played)
        ]
    games = await clients.games.many(count)
    masked = kind.endswith(" masked")
    if kind in ("grpc move", "grpc move masked"):
        return [
            GrpcMove([clients.channel(i)], g, clients.games, masked) for i, g in enumerate(games)
        ]
    if kind == "grpc move elsewhere":
        # channels[w] goes to worker w, for each of the workers
        elsewhere = clients.channels[: len(clients.deployment.workers)]
        return [GrpcMove(elsewhere, g, clients.games) for g in games]
    connections = await clients.reconnect(count)
    return [
        RestMove(conn, g, clients.games, masked) for conn, g in zip(connections, games, strict=True)
    ]
