"""Authorisation: every RPC, over gRPC and REST, with no token, the right one, a token of
another seat, of another game, forged ones, and odd `authorization` values. A token acts for
its own seat of its own game and nothing else; calls that need no token answer the same
whatever token comes with them. Players' tokens likewise: a player acts for its own seats,
lists and hears of its own games only, and a revoked session is refused by every worker
within a second."""

from __future__ import annotations

import random
import secrets
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import grpc
import httpx
import jwt
import pytest
from google.protobuf import json_format
from google.protobuf.message import Message

from genial.service.routes import ROUTES
from genial.v1 import game_service_pb2 as api
from genial.v1 import game_service_pb2_grpc as api_grpc
from genial.v1 import match_service_pb2 as mm
from genial.v1 import player_service_pb2 as api_pb
from genial.v1 import types_pb2 as types
from genial.v1 import webhook_service_pb2 as webhook_pb
from tests.reliability.conftest import Spawn
from tests.reliability.harness import LoggedWorker, assert_no_secret_in_logs, count
from tests.service.clients import ApiClient, CallError, GrpcClient, RestClient
from tests.service.players import Watcher, sign_in
from tests.service.scenarios import Table, open_table

DENIED = ("PERMISSION_DENIED", "TOKEN_INVALID")
MISSING = ("UNAUTHENTICATED", "TOKEN_MISSING")


@dataclass
class Games:
    game: Table
    """A cards game in play, 3 seats."""
    other: Table
    """Another game in play."""
    waiting: str
    """A game with open seats."""
    mover: int

    def forged(self) -> dict[str, str]:
        own = self.game.tokens[self.mover]
        return {
            "random": secrets.token_urlsafe(32),
            "one character off": own[:-1] + ("A" if own[-1] != "A" else "B"),
            "truncated": own[:-1],
            "doubled": own + own,
            "long": "x" * 2000,
        }


@pytest.fixture
def worker(redis_url: str, spawn: Spawn) -> LoggedWorker:
    (worker,) = spawn(redis_url, 1, "--log-level", "DEBUG")
    return worker


@pytest.fixture
def games(worker: LoggedWorker) -> Games:
    client = GrpcClient(worker.grpc_port)
    game = open_table(client, "cards", 3)
    other = open_table(client, "cards", 2)
    waiting = client.call(
        "CreateGame", api.CreateGameRequest(kind=types.GAME_KIND_CARDS, seats=4)
    ).game_id
    mover = client.call("GetGame", api.GetGameRequest(game_id=game.game_id)).view.to_move
    client.close()
    return Games(game, other, waiting, mover)


@pytest.fixture(params=["grpc", "rest"])
def client(request: pytest.FixtureRequest, worker: LoggedWorker) -> Iterator[ApiClient]:
    c: ApiClient = (
        GrpcClient(worker.grpc_port) if request.param == "grpc" else RestClient(worker.http_port)
    )
    yield c
    c.close()


def outcome(call: Callable[[], Message]) -> Message | tuple[str, str]:
    try:
        return call()
    except CallError as err:
        return err.code, err.reason


def test_every_rpc_with_every_kind_of_token(
    worker: LoggedWorker, games: Games, client: ApiClient
) -> None:
    game, mover = games.game, games.mover
    gid = game.game_id
    not_mover = (mover + 1) % game.seats
    own = game.tokens[mover]
    legal = client.call("ListLegalMoves", api.ListLegalMovesRequest(game_id=gid), own)
    move = random.Random(1).choice(legal.moves)
    # (name, token, what it should be to the service)
    tokens: list[tuple[str, str | None, str]] = [
        ("none", None, "none"),
        ("own", own, "own"),
        ("another seat", game.tokens[not_mover], "other seat"),
        ("another game", games.other.tokens[0], "invalid"),
        ("another game, same seat", games.other.tokens[mover % 2], "invalid"),
        *((f"forged: {name}", t, "invalid") for name, t in games.forged().items()),
    ]
    history_answers: set[bytes] = set()
    lobby_answers: set[bytes] = set()
    tried = 0
    for name, token, kind in tokens:
        # GetGame: a spectator without a token, the token's own seat with one.
        got = outcome(lambda t=token: client.call("GetGame", api.GetGameRequest(game_id=gid), t))
        if kind == "invalid":
            assert got == DENIED, name
        else:
            view = got.view  # type: ignore[union-attr]
            seat = {"none": None, "own": mover, "other seat": not_mover}[kind]
            assert (view.viewer if view.HasField("viewer") else None) == seat, name
            assert bool(view.cards.hand) == (seat is not None), name
        # ListLegalMoves: a seat's own moves, on its own turn only.
        got = outcome(
            lambda t=token: client.call("ListLegalMoves", api.ListLegalMovesRequest(game_id=gid), t)
        )
        if kind in ("invalid", "none"):
            assert got == (DENIED if kind == "invalid" else MISSING), name
        else:
            assert bool(got.moves) == (kind == "own"), name  # type: ignore[union-attr]
        # MakeMove: only the mover's own token moves (tried last, below).
        if kind != "own":
            got = outcome(
                lambda t=token: client.call(
                    "MakeMove", api.MakeMoveRequest(game_id=gid, move=move), t
                )
            )
            expected = {
                "none": MISSING,
                "invalid": DENIED,
                "other seat": ("FAILED_PRECONDITION", "NOT_YOUR_TURN"),
            }[kind]
            assert got == expected, name
        # WatchGame: like GetGame, as a stream.
        got = outcome(
            lambda t=token: next(iter(client.watch(api.WatchGameRequest(game_id=gid), t, 10)))
        )
        if kind == "invalid":
            assert got == DENIED, name
        else:
            assert got.view.HasField("viewer") == (kind != "none"), name  # type: ignore[union-attr]
        # No token needed: the answer is the same whatever the token.
        history = client.call("GetHistory", api.GetHistoryRequest(game_id=gid), token)
        assert history.seed == ""
        history_answers.add(history.SerializeToString(deterministic=True))
        lobby = client.call("ListGames", api.ListGamesRequest(page_size=100), token)
        lobby_answers.add(lobby.SerializeToString(deterministic=True))
        created = client.call(
            "CreateGame", api.CreateGameRequest(kind=types.GAME_KIND_DICE, seats=2), token
        )
        if token:  # no seat of a new game is bound to a token sent when creating it
            assert (
                outcome(
                    lambda t=token, g=created.game_id: client.call(
                        "ListLegalMoves", api.ListLegalMovesRequest(game_id=g), t
                    )
                )
                == DENIED
            )
        joined = client.call(
            "JoinGame", api.JoinGameRequest(game_id=created.game_id, display_name="j"), token
        )
        assert joined.player_token not in (token, own)
        tried += 8
    assert len(history_answers) == 1, "GetHistory answers alike whatever the token"
    # The lobby may change as games are created; each answer is still a lobby.
    assert lobby_answers
    # The rightful mover, at last, moves.
    made = client.call("MakeMove", api.MakeMoveRequest(game_id=gid, move=move), own)
    assert made.version == 1
    assert_no_secret_in_logs(
        [worker], [*game.tokens, *games.other.tokens, *(t for _, t, _ in tokens if t)]
    )
    count(authorisation_calls=tried + 1)


AUTHORIZATIONS: list[tuple[str, str]] = [
    ("Basic {own}", "none"),
    ("{own}", "none"),
    ("Bearer", "none"),
    ("Bearer -", "invalid"),
    ("bearer {own}", "own"),
    ("BEARER {own}", "own"),
    ("Bearer  {own}", "own"),
    ("Bearer {own}x", "invalid"),
    ("Bearer {other}", "invalid"),
    ("Bearer {own},Bearer {other}", "invalid"),
]
"""`authorization` values, and who the service should take the caller for."""


def test_odd_authorization_values(worker: LoggedWorker, games: Games) -> None:
    """Only `Bearer <token>` (any case) names a seat; anything else is no token at all, or
    a token that binds nothing."""
    gid = games.game.game_id
    own, other = games.game.tokens[games.mover], games.other.tokens[0]
    route = next(r for r in ROUTES if r.method.name == "ListLegalMoves")
    channel = grpc.insecure_channel(f"127.0.0.1:{worker.grpc_port}")
    stub = api_grpc.GameServiceStub(channel)
    tried = 0
    with httpx.Client(base_url=worker.url, timeout=10) as http:
        for template, kind in AUTHORIZATIONS:
            value = template.format(own=own, other=other)
            expected = {"none": MISSING, "invalid": DENIED, "own": None}[kind]
            reply = http.get(route.template.format(game_id=gid), headers={"authorization": value})
            if expected is None:
                assert reply.status_code == 200, (value, reply.text)
                legal = json_format.Parse(reply.content, api.ListLegalMovesResponse())
                assert legal.moves
            else:
                error = reply.json()["error"]
                assert (error["code"], error["reason"]) == expected, value
            try:
                got = stub.ListLegalMoves(
                    api.ListLegalMovesRequest(game_id=gid),
                    metadata=(("authorization", value),),
                    timeout=10,
                )
                assert expected is None, value
                assert got.moves, value
            except grpc.RpcError as err:
                refused = GrpcClient._error(err)
                assert (refused.code, refused.reason) == expected, (value, refused)
            tried += 2
    channel.close()
    count(authorisation_calls=tried)


# ---- players -------------------------------------------------------------------------------


def forged_player_token(session: api_pb.Session) -> str:
    """The player's access token with its claims kept and its signature another key's."""
    claims = jwt.decode(session.access_token, options={"verify_signature": False})
    return jwt.encode(claims, "k" * 40, algorithm="HS256", headers={"kid": "store"})


def test_a_player_acts_for_its_own_seats_and_reads_its_own_feed(
    worker: LoggedWorker, client: ApiClient
) -> None:
    """Players Ada and Bob at game G (with an anonymous seat token), Bob and Eve at game O.
    A player acts for its own seat and no other, sees its own hand only, lists its own games
    and hears of its own games only; a forged or revoked token is refused; calls of players
    need a player's token."""
    make: Callable[[], ApiClient] = (
        (lambda: GrpcClient(worker.grpc_port))
        if isinstance(client, GrpcClient)
        else (lambda: RestClient(worker.http_port))
    )
    devices = {name: secrets.token_urlsafe(24) for name in ("ada", "bob", "eve", "gone")}
    session = {name: sign_in(client, device, name) for name, device in devices.items()}
    token = {name: s.access_token for name, s in session.items()}
    g = client.call("CreateGame", api.CreateGameRequest(kind=types.GAME_KIND_CARDS, seats=3))
    o = client.call("CreateGame", api.CreateGameRequest(kind=types.GAME_KIND_DICE, seats=2))
    gid, oid = g.game_id, o.game_id
    watchers = {name: Watcher(make, token[name]) for name in ("ada", "eve")}
    try:
        for name in ("ada", "bob"):
            client.call("JoinGame", api.JoinGameRequest(game_id=gid), token[name])
        seat_token = client.call(
            "JoinGame", api.JoinGameRequest(game_id=gid, display_name="anon")
        ).player_token
        for name in ("bob", "eve"):
            client.call("JoinGame", api.JoinGameRequest(game_id=oid), token[name])
        client.call("RevokeSession", api_pb.RevokeSessionRequest(), token["gone"])
        seats = {"ada": 0, "bob": 1}
        mover = client.call("GetGame", api.GetGameRequest(game_id=gid)).view.to_move
        move = client.call(
            "ListLegalMoves",
            api.ListLegalMovesRequest(game_id=gid),
            {0: token["ada"], 1: token["bob"], 2: seat_token}[mover],
        ).moves[0]
        credentials = {
            "ada": token["ada"],
            "bob": token["bob"],
            "eve (not seated)": token["eve"],
            "forged": forged_player_token(session["ada"]),
            "revoked": token["gone"],
            "refresh token": session["ada"].refresh_token,
        }
        unauthenticated = {
            "forged": ("UNAUTHENTICATED", "TOKEN_BAD_SIGNATURE"),
            "revoked": ("UNAUTHENTICATED", "TOKEN_REVOKED"),
            "refresh token": ("UNAUTHENTICATED", "TOKEN_BAD_AUDIENCE"),
        }
        tried = 0
        for name, credential in credentials.items():
            calls: dict[str, Callable[[], Message]] = {
                "GetGame": lambda c=credential: client.call(
                    "GetGame", api.GetGameRequest(game_id=gid), c
                ),
                "ListLegalMoves": lambda c=credential: client.call(
                    "ListLegalMoves", api.ListLegalMovesRequest(game_id=gid), c
                ),
                "MakeMove": lambda c=credential: client.call(
                    "MakeMove", api.MakeMoveRequest(game_id=gid, move=move), c
                ),
                "Resign": lambda c=credential: client.call(
                    "Resign", api.ResignRequest(game_id=oid if c == token["ada"] else gid), c
                ),
                "Rematch": lambda c=credential: client.call(
                    "Rematch", api.RematchRequest(game_id=oid if c == token["ada"] else gid), c
                ),
                "ListMyGames": lambda c=credential: client.call(
                    "ListMyGames", api_pb.ListMyGamesRequest(), c
                ),
            }
            if name == "bob":  # seated at both games: leaving one is no refusal to test
                del calls["Resign"], calls["Rematch"]
            if seats.get(name) == mover:  # its move would be made: only refusals here
                del calls["MakeMove"]
            for rpc, call in calls.items():
                got = outcome(call)
                tried += 1
                if name in unauthenticated:
                    assert got == unauthenticated[name], (name, rpc)
                elif rpc == "GetGame":
                    view = got.view  # type: ignore[union-attr]
                    seat = seats.get(name)
                    assert (view.viewer if view.HasField("viewer") else None) == seat, name
                    assert bool(view.cards.hand) == (seat is not None), name
                elif rpc == "ListMyGames":
                    listed = {g.game_id for g in got.games}  # type: ignore[union-attr]
                    expected = {"ada": {gid}, "bob": {gid, oid}, "eve (not seated)": {oid}}
                    assert listed == expected[name], name
                elif name == "eve (not seated)" or rpc in ("Resign", "Rematch"):
                    # Not seated at the game: no seat to act for (Ada tries Bob's game O).
                    assert got == DENIED, (name, rpc)
                elif rpc == "ListLegalMoves":
                    assert bool(got.moves) == (seats[name] == mover), name  # type: ignore[union-attr]
                elif rpc == "MakeMove":
                    assert got == ("FAILED_PRECONDITION", "NOT_YOUR_TURN"), name
        # Each hears of its own game's start, and of nothing else.
        started = api_pb.PLAYER_EVENT_TYPE_GAME_STARTED
        watchers["eve"].wait_for(lambda e: e.game_id == oid and e.type == started)
        watchers["ada"].wait_for(lambda e: e.game_id == gid and e.type == started)
        time.sleep(0.5)
        assert {e.game_id for e in watchers["ada"].events} == {gid}
        assert {e.game_id for e in watchers["eve"].events} == {oid}
        # Calls of a player need a player's token: a seat token is no player.
        for rpc, request in (
            ("GetPlayer", api_pb.GetPlayerRequest()),
            ("ListMyGames", api_pb.ListMyGamesRequest()),
            ("SetPlayerWebhook", webhook_pb.SetPlayerWebhookRequest(url="https://a.example/")),
        ):
            assert outcome(lambda r=rpc, q=request: client.call(r, q, seat_token)) == MISSING
        # A matchmaking ticket is its player's alone; a seat token opens none.
        ask = mm.FindMatchRequest(kind=types.GAME_KIND_TILES, min_seats=4, rated=True)
        assert outcome(lambda: client.call("FindMatch", ask, seat_token)) == MISSING
        ticket = client.call("FindMatch", ask, token["ada"]).ticket.ticket_id
        for name, credential in credentials.items():
            for rpc, request in (
                ("GetMatchTicket", mm.GetMatchTicketRequest(ticket_id=ticket)),
                ("CancelMatch", mm.CancelMatchRequest(ticket_id=ticket)),
            ):
                if name == "ada":
                    continue
                got = outcome(lambda r=rpc, q=request, c=credential: client.call(r, q, c))
                tried += 1
                assert got == unauthenticated.get(name, ("NOT_FOUND", "TICKET_NOT_FOUND")), name
        mine = client.call(
            "GetMatchTicket", mm.GetMatchTicketRequest(ticket_id=ticket), token["ada"]
        )
        assert mine.ticket.status == mm.TICKET_STATUS_WAITING  # nobody else cancelled it
        client.call("CancelMatch", mm.CancelMatchRequest(ticket_id=ticket), token["ada"])
    finally:
        for watcher in watchers.values():
            watcher.stop()
    assert_no_secret_in_logs(
        [worker],
        [
            seat_token,
            *devices.values(),
            *(t for s in session.values() for t in (s.access_token, s.refresh_token)),
        ],
    )
    count(authorisation_calls=tried, authorisation_player_credentials=len(credentials))


def test_a_revoked_session_is_refused_by_every_worker_within_a_second(
    redis_url: str, spawn: Spawn
) -> None:
    workers = spawn(redis_url, 3, "--log-level", "DEBUG")
    clients = [GrpcClient(w.grpc_port) for w in workers]
    session = sign_in(clients[0], secrets.token_urlsafe(24), "Ada")
    for c in clients:  # every worker has verified (and keeps) the token
        c.call("GetPlayer", api_pb.GetPlayerRequest(), session.access_token)
    RestClient(workers[1].http_port).call(
        "RevokeSession", api_pb.RevokeSessionRequest(refresh_token=session.refresh_token)
    )
    revoked = time.monotonic()
    refused_after: list[float] = []
    for c in clients:
        while outcome(
            lambda c=c: c.call("GetPlayer", api_pb.GetPlayerRequest(), session.access_token)
        ) != ("UNAUTHENTICATED", "TOKEN_REVOKED"):
            assert time.monotonic() - revoked < 1.0, "accepted a second after it was revoked"
            time.sleep(0.01)
        refused_after.append(time.monotonic() - revoked)
    assert outcome(
        lambda: clients[2].call(
            "RefreshSession", api_pb.RefreshSessionRequest(refresh_token=session.refresh_token)
        )
    ) == ("UNAUTHENTICATED", "TOKEN_REVOKED")
    for c in clients:
        c.close()
    assert_no_secret_in_logs(workers, [session.access_token, session.refresh_token])
    count(revocation_workers=len(workers), revocation_slowest_ms=int(max(refused_after) * 1000))
