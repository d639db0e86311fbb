"""Locust users that play whole games, over gRPC and over HTTP/JSON (`make loadtest`).

Each user sits at a table alone and plays every seat of it, as that many clients would one
after another: it looks at the lobby, creates a game of a random kind and size, joins every
seat (one token each), then for the seat to move asks for its legal moves and sends one of
them, until the game ends, and reads the game's history. Moves carry a request id and the
version they were chosen at, as a careful client's do. Every request is reported under its
RPC's name, so `MakeMove` is a line of its own; the type column tells the transport.

Run by `loadtest/run_locust.py`, which passes the workers' addresses:
`--grpc-targets host:port,...` and `--rest-hosts http://host:port,...`; users are spread
over the workers in turn.
"""

from __future__ import annotations

import itertools
import json
import random
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import grpc
import grpc.experimental.gevent as grpc_gevent
from locust import User, between, events, task
from locust.contrib.fasthttp import FastHttpUser
from locust.env import Environment

from genial.service.routes import ROUTES
from genial.v1 import game_service_pb2 as api
from genial.v1 import game_service_pb2_grpc as api_grpc
from genial.v1 import types_pb2 as types

# gRPC's own threads must cooperate with gevent's, or a call blocks every greenlet.
grpc_gevent.init_gevent()

KINDS = (types.GAME_KIND_CARDS, types.GAME_KIND_DICE, types.GAME_KIND_TILES)
KIND_NAMES = {k: types.GameKind.Name(k) for k in KINDS}
SEATS = (2, 3, 4)
LOBBY_PAGE = 10
MAX_MOVES = 2000
"""A game longer than any the engine plays is a bug: the user gives up on it."""
THINK = between(0.0, 0.1)
"""Seconds a player takes before each move."""
ROUTE = {route.method.name: route for route in ROUTES}


@events.init_command_line_parser.add_listener  # type: ignore[untyped-decorator]
def _arguments(parser: Any) -> None:
    parser.add_argument("--grpc-targets", default="", help="host:port of each worker's gRPC")
    parser.add_argument("--rest-hosts", default="", help="http://host:port of each worker")


def _targets(environment: Environment, option: str) -> Iterator[str]:
    """The workers' addresses, in turn, for users as they start."""
    listed = getattr(environment.parsed_options, option, "") if environment.parsed_options else ""
    return itertools.cycle([t for t in listed.split(",") if t])


# ---- gRPC ---------------------------------------------------------------------------------


class LocustInterceptor(grpc.UnaryUnaryClientInterceptor):
    """Reports every unary call to Locust, named by its RPC (`/genial.v1.GameService/X`: X)."""

    def __init__(self, environment: Environment) -> None:
        self.environment = environment

    def intercept_unary_unary(
        self,
        continuation: Any,
        client_call_details: grpc.ClientCallDetails,
        request: Any,
    ) -> Any:
        start = time.perf_counter()
        call = continuation(client_call_details, request)
        exception: BaseException | None = None
        length = 0
        try:
            length = call.result().ByteSize()
        except grpc.RpcError as err:
            exception = err
        self.environment.events.request.fire(  # type: ignore[no-untyped-call]
            request_type="grpc",
            name=client_call_details.method.rsplit("/", 1)[-1],
            response_time=(time.perf_counter() - start) * 1000,
            response_length=length,
            exception=exception,
            context={},
        )
        return call


class GrpcPlayer(User):
    """Plays whole games over gRPC with the generated stubs."""

    wait_time = THINK
    _workers: Iterator[str] | None = None

    def __init__(self, environment: Environment) -> None:
        super().__init__(environment)
        if GrpcPlayer._workers is None:
            GrpcPlayer._workers = _targets(environment, "grpc_targets")
        target = next(GrpcPlayer._workers)
        self.channel = grpc.intercept_channel(
            grpc.insecure_channel(target), LocustInterceptor(environment)
        )
        self.stub = api_grpc.GameServiceStub(self.channel)  # type: ignore[no-untyped-call]

    def on_stop(self) -> None:
        self.channel.close()

    @staticmethod
    def _auth(token: str) -> tuple[tuple[str, str], ...]:
        return (("authorization", f"Bearer {token}"),)

    @task
    def play_a_game(self) -> None:
        kind, seats = random.choice(KINDS), random.choice(SEATS)
        try:
            self.stub.ListGames(api.ListGamesRequest(kind=kind, page_size=LOBBY_PAGE))
            game_id = self.stub.CreateGame(api.CreateGameRequest(kind=kind, seats=seats)).game_id
            tokens = []
            for seat in range(seats):
                joined = self.stub.JoinGame(
                    api.JoinGameRequest(game_id=game_id, display_name=f"locust {seat}")
                )
                tokens.append(joined.player_token)
            game = self.stub.GetGame(
                api.GetGameRequest(game_id=game_id), metadata=self._auth(tokens[0])
            )
            view = game.view
            for _ in range(MAX_MOVES):
                if view.status == types.GAME_STATUS_FINISHED:
                    break
                token = tokens[view.to_move]
                legal = self.stub.ListLegalMoves(
                    api.ListLegalMovesRequest(game_id=game_id), metadata=self._auth(token)
                )
                if not legal.moves:
                    return  # never in a game in play: the seat to move has a legal move
                self.wait()  # type: ignore[no-untyped-call]
                moved = self.stub.MakeMove(
                    api.MakeMoveRequest(
                        game_id=game_id,
                        move=random.choice(legal.moves),
                        expected_version=legal.version,
                        request_id=f"{game_id}-{legal.version + 1}",
                    ),
                    metadata=self._auth(token),
                )
                view = moved.view
            self.stub.GetHistory(api.GetHistoryRequest(game_id=game_id))
        except grpc.RpcError:
            pass  # reported by the interceptor; this game is abandoned, the next one starts


# ---- HTTP/JSON ----------------------------------------------------------------------------


class RestPlayer(FastHttpUser):
    """Plays whole games over the HTTP/JSON gateway, at the routes the proto gives."""

    wait_time = THINK
    _workers: Iterator[str] | None = None

    def __init__(self, environment: Environment) -> None:
        if RestPlayer._workers is None:
            RestPlayer._workers = _targets(environment, "rest_hosts")
        self.host = next(RestPlayer._workers, None) or environment.host
        super().__init__(environment)

    def _call(
        self,
        method: str,
        fields: dict[str, Any] | None = None,
        token: str | None = None,
        **path: str,
    ) -> dict[str, Any] | None:
        """One RPC over HTTP: path variables, then the body or the query string."""
        route = ROUTE[method]
        url = route.template.format(**{k: quote(v, safe="") for k, v in path.items()})
        headers = {"authorization": f"Bearer {token}"} if token else {}
        options: dict[str, Any] = {"headers": headers, "name": method, "catch_response": True}
        if route.body:
            options["data"] = json.dumps(fields or {})
            headers["content-type"] = "application/json"
        elif fields:
            options["params"] = fields
        with self.client.request(route.verb, url, **options) as reply:
            if reply.status_code is None or not 200 <= reply.status_code < 300:
                reply.failure(f"{reply.status_code}: {(reply.text or '')[:200]}")
                return None
            return reply.json()  # type: ignore[no-any-return]

    @task
    def play_a_game(self) -> None:
        kind, seats = KIND_NAMES[random.choice(KINDS)], random.choice(SEATS)
        self._call("ListGames", {"kind": kind, "page_size": LOBBY_PAGE})
        created = self._call("CreateGame", {"kind": kind, "seats": seats})
        if created is None:
            return
        game_id = created["gameId"]
        tokens = []
        for seat in range(seats):
            joined = self._call("JoinGame", {"displayName": f"locust {seat}"}, game_id=game_id)
            if joined is None:
                return
            tokens.append(joined["playerToken"])
        game = self._call("GetGame", token=tokens[0], game_id=game_id)
        view = game["view"] if game else None
        for _ in range(MAX_MOVES):
            if view is None or view["status"] == "GAME_STATUS_FINISHED":
                break
            token = tokens[view["toMove"]]
            legal = self._call("ListLegalMoves", token=token, game_id=game_id)
            if legal is None or not legal.get("moves"):
                return
            version = int(legal["version"])
            self.wait()  # type: ignore[no-untyped-call]
            moved = self._call(
                "MakeMove",
                {
                    "move": random.choice(legal["moves"]),
                    "expectedVersion": str(version),
                    "requestId": f"{game_id}-{version + 1}",
                },
                token=token,
                game_id=game_id,
            )
            view = moved["view"] if moved else None
        self._call("GetHistory", game_id=game_id)
