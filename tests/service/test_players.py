"""Players end to end, over gRPC and REST, on the memory store and on Redis: a guest who
comes back on another device finds its game and its turn, finishes it and plays a rematch;
seats bound to players; resigning; sessions refreshed, reused and revoked."""

from __future__ import annotations

import random
import re
import secrets
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
from redis import Redis

from genial.v1 import game_service_pb2 as api
from genial.v1 import player_service_pb2 as pb
from genial.v1 import types_pb2 as types
from tests.conftest import start_redis, stop
from tests.service.clients import ApiClient, CallError, GrpcClient, RestClient
from tests.service.conftest import MakeClient, Worker, start_worker, stop_worker
from tests.service.oidc import AUDIENCE, ISSUER, Provider
from tests.service.players import Watcher, of_type, play_seat, sign_in


def device() -> str:
    return secrets.token_urlsafe(24)


def refused(call: Callable[[], object]) -> tuple[str, str]:
    with pytest.raises(CallError) as caught:
        call()
    return caught.value.code, caught.value.reason


def test_a_guest_comes_back_on_another_device_and_plays_a_rematch(
    make_client: MakeClient,
) -> None:
    """As a new user would: a game started on one device with a guest session; the client
    gone; the same device id signed in from another client, the game found with
    ListMyGames, "your turn" on WatchPlayer, the game finished, a rematch."""
    device_id = device()
    first = make_client()
    session = sign_in(first, device_id, "Ada")
    created = first.call(
        "CreateGame",
        api.CreateGameRequest(
            kind=types.GAME_KIND_DICE,
            seats=2,
            bots=[api.SeatBot(seat=1, strength=types.BOT_STRENGTH_GREEDY)],
        ),
    )
    game_id = created.game_id
    joined = first.call(
        "JoinGame", api.JoinGameRequest(game_id=game_id, seat=0), session.access_token
    )
    assert (joined.seat, joined.player_token) == (0, "")  # the seat is the player's
    assert joined.view.players[0].display_name == "Ada"  # the profile's name
    first.close()  # the app is killed

    again = make_client()
    resumed = sign_in(again, device_id)
    assert resumed.player.player_id == session.player.player_id
    assert resumed.access_token != session.access_token
    token = resumed.access_token
    mine = again.call("ListMyGames", pb.ListMyGamesRequest(), token)
    assert [g.game_id for g in mine.games] == [game_id]
    assert mine.games[0].seat == 0
    watcher = Watcher(make_client, token)
    try:
        assert [g.game_id for g in watcher.snapshots[0].games] == [game_id]
        # It is the player's turn, or the bot's: either way, once the player has played
        # its turn, a "your turn" comes when the bot has played its own.
        view = again.call("GetGame", api.GetGameRequest(game_id=game_id), token).view
        assert view.viewer == 0
        assert mine.games[0].your_turn == (view.to_move == 0)
        rnd = random.Random(game_id)
        legal = again.call("ListLegalMoves", api.ListLegalMovesRequest(game_id=game_id), token)
        while not legal.moves:
            time.sleep(0.05)
            legal = again.call("ListLegalMoves", api.ListLegalMovesRequest(game_id=game_id), token)
        while legal.moves:
            move = rnd.choice(legal.moves)
            again.call("MakeMove", api.MakeMoveRequest(game_id=game_id, move=move), token)
            legal = again.call("ListLegalMoves", api.ListLegalMovesRequest(game_id=game_id), token)
        turn = watcher.wait_for(
            lambda e: e.type == pb.PLAYER_EVENT_TYPE_YOUR_TURN and e.version > legal.version
        )
        assert turn.seat == 0
        assert turn.game_id == game_id
        final = play_seat(again, game_id, token, rnd)
        assert final.status == types.GAME_STATUS_FINISHED
        over = watcher.wait_for(of_type(pb.PLAYER_EVENT_TYPE_GAME_OVER, game_id))
        assert [s.seat for s in over.standings] == [s.seat for s in final.standings]
        done = again.call("ListMyGames", pb.ListMyGamesRequest(), token)
        assert [(g.game_id, g.status) for g in done.games] == [
            (game_id, types.GAME_STATUS_FINISHED)
        ]

        rematch = again.call("Rematch", api.RematchRequest(game_id=game_id), token)
        assert rematch.game_id != game_id
        same = again.call("Rematch", api.RematchRequest(game_id=game_id), token)
        assert same.game_id == rematch.game_id  # asked twice: one rematch
        offered = watcher.wait_for(of_type(pb.PLAYER_EVENT_TYPE_REMATCH_OFFERED, game_id))
        assert (offered.rematch_game_id, offered.seat) == (rematch.game_id, 0)
        invited = again.call("ListMyGames", pb.ListMyGamesRequest(), token).games[0]
        assert (invited.game_id, invited.invited, invited.seat) == (rematch.game_id, True, 0)
        # Somebody else cannot take the kept seat (the other one is the bot's).
        assert refused(
            lambda: again.call(
                "JoinGame", api.JoinGameRequest(game_id=rematch.game_id, display_name="Eve")
            )
        ) == ("FAILED_PRECONDITION", "SEAT_TAKEN")
    finally:
        watcher.stop()
    retaken = again.call("JoinGame", api.JoinGameRequest(game_id=rematch.game_id), token)
    assert retaken.seat == 0
    assert retaken.view.status == types.GAME_STATUS_PLAYING
    assert retaken.view.options == final.options


def test_a_players_seat_from_any_device_and_only_its_own(make_client: MakeClient) -> None:
    client = make_client()
    ada, bob = sign_in(client, device(), "Ada"), sign_in(client, device(), "Bob")
    created = client.call("CreateGame", api.CreateGameRequest(kind=types.GAME_KIND_CARDS, seats=3))
    gid = created.game_id
    assert client.call("JoinGame", api.JoinGameRequest(game_id=gid), ada.access_token).seat == 0
    # Joining again is the same seat; another seat for the same player is refused.
    assert client.call("JoinGame", api.JoinGameRequest(game_id=gid), ada.access_token).seat == 0
    assert refused(
        lambda: client.call("JoinGame", api.JoinGameRequest(game_id=gid, seat=2), ada.access_token)
    ) == ("FAILED_PRECONDITION", "ALREADY_SEATED")
    assert refused(
        lambda: client.call("JoinGame", api.JoinGameRequest(game_id=gid, seat=0), bob.access_token)
    ) == ("FAILED_PRECONDITION", "SEAT_TAKEN")
    joined_bob = client.call("JoinGame", api.JoinGameRequest(game_id=gid), bob.access_token)
    assert joined_bob.seat == 1
    # A seat token still works beside players' seats.
    anonymous = client.call("JoinGame", api.JoinGameRequest(game_id=gid, display_name="Cy"))
    assert anonymous.seat == 2
    assert anonymous.player_token
    tokens = {0: ada.access_token, 1: bob.access_token, 2: anonymous.player_token}
    view = client.call("GetGame", api.GetGameRequest(game_id=gid)).view
    mover = view.to_move
    # The same view whichever credential: the seat's own hand, for its player only.
    for seat, token in tokens.items():
        own = client.call("GetGame", api.GetGameRequest(game_id=gid), token).view
        assert own.viewer == seat
        assert own.cards.hand
    # A player acts for its own seat and no other; a stranger is a spectator.
    stranger = sign_in(client, device())
    assert not client.call(
        "GetGame", api.GetGameRequest(game_id=gid), stranger.access_token
    ).view.HasField("viewer")
    assert refused(
        lambda: client.call(
            "ListLegalMoves", api.ListLegalMovesRequest(game_id=gid), stranger.access_token
        )
    ) == ("PERMISSION_DENIED", "TOKEN_INVALID")
    legal = client.call("ListLegalMoves", api.ListLegalMovesRequest(game_id=gid), tokens[mover])
    other = tokens[(mover + 1) % 3]
    assert refused(
        lambda: client.call(
            "MakeMove", api.MakeMoveRequest(game_id=gid, move=legal.moves[0]), other
        )
    ) == ("FAILED_PRECONDITION", "NOT_YOUR_TURN")
    made = client.call(
        "MakeMove", api.MakeMoveRequest(game_id=gid, move=legal.moves[0]), tokens[mover]
    )
    assert made.version == 1
    # Each player lists its own games only.
    assert [
        g.game_id
        for g in client.call("ListMyGames", pb.ListMyGamesRequest(), stranger.access_token).games
    ] == []
    listed = client.call("ListMyGames", pb.ListMyGamesRequest(), bob.access_token).games
    assert [(g.game_id, g.seat) for g in listed] == [(gid, 1)]
    # Calls of a player need a player's token.
    assert refused(
        lambda: client.call("ListMyGames", pb.ListMyGamesRequest(), anonymous.player_token)
    ) == ("UNAUTHENTICATED", "TOKEN_MISSING")


def test_resigning_hands_the_seat_to_a_bot_and_everyone_hears(make_client: MakeClient) -> None:
    """Every person resigns: the bots play the game out; the standings rank every seat, the
    resigned ones marked; watchers of the game and the players' feeds hear of it."""
    client = make_client()
    ada, bob = sign_in(client, device(), "Ada"), sign_in(client, device(), "Bob")
    gid = client.call(
        "CreateGame", api.CreateGameRequest(kind=types.GAME_KIND_DICE, seats=2)
    ).game_id
    for player in (ada, bob):
        client.call("JoinGame", api.JoinGameRequest(game_id=gid), player.access_token)
    assert refused(
        lambda: client.call("Rematch", api.RematchRequest(game_id=gid), ada.access_token)
    ) == ("FAILED_PRECONDITION", "GAME_NOT_OVER")
    watcher = Watcher(make_client, bob.access_token)
    try:
        resigned = client.call("Resign", api.ResignRequest(game_id=gid), ada.access_token)
        assert resigned.view.players[0].resigned
        assert watcher.wait_for(of_type(pb.PLAYER_EVENT_TYPE_RESIGNED, gid)).seat == 0
        again = client.call("Resign", api.ResignRequest(game_id=gid), ada.access_token)
        assert again.view.players[0].resigned  # resigning again changes nothing
        legal = client.call(
            "ListLegalMoves", api.ListLegalMovesRequest(game_id=gid), ada.access_token
        )
        assert not legal.moves
        client.call("Resign", api.ResignRequest(game_id=gid), bob.access_token)
        watcher.wait_for(of_type(pb.PLAYER_EVENT_TYPE_GAME_OVER, gid), timeout=60)
    finally:
        watcher.stop()
    final = client.call("GetGame", api.GetGameRequest(game_id=gid)).view
    assert final.status == types.GAME_STATUS_FINISHED
    assert sorted(s.seat for s in final.standings) == [0, 1]
    assert all(p.resigned for p in final.players)
    history = client.call("GetHistory", api.GetHistoryRequest(game_id=gid))
    assert history.entries
    assert all(e.automatic for e in history.entries)
    watched = [
        e.WhichOneof("event")
        for answer in client.watch(api.WatchGameRequest(game_id=gid), timeout=30)
        for e in answer.events
    ]
    assert watched.count("seat_resigned") == 2
    assert refused(
        lambda: client.call("Resign", api.ResignRequest(game_id=gid), ada.access_token)
    ) == ("FAILED_PRECONDITION", "GAME_OVER")


def test_sessions_refresh_rotate_and_revoke(make_client: MakeClient) -> None:
    client = make_client()
    device_id = device()
    session = sign_in(client, device_id, "Ada")
    assert session.access_token_expires_at.ToSeconds() > time.time() + 3000
    refreshed = client.call(
        "RefreshSession", pb.RefreshSessionRequest(refresh_token=session.refresh_token)
    ).session
    assert refreshed.refresh_token != session.refresh_token
    assert refreshed.player.player_id == session.player.player_id
    profile = client.call("GetPlayer", pb.GetPlayerRequest(), refreshed.access_token).player
    assert profile.display_name == "Ada"
    renamed = client.call(
        "UpdatePlayer", pb.UpdatePlayerRequest(display_name="Ada L."), refreshed.access_token
    )
    assert renamed.player.display_name == "Ada L."
    assert refused(
        lambda: client.call(
            "UpdatePlayer", pb.UpdatePlayerRequest(display_name=" "), refreshed.access_token
        )
    ) == ("INVALID_ARGUMENT", "BAD_DISPLAY_NAME")
    # The spent refresh token again: the whole session ends, its access tokens with it.
    assert refused(
        lambda: client.call(
            "RefreshSession", pb.RefreshSessionRequest(refresh_token=session.refresh_token)
        )
    ) == ("UNAUTHENTICATED", "TOKEN_REVOKED")
    assert refused(
        lambda: client.call(
            "RefreshSession", pb.RefreshSessionRequest(refresh_token=refreshed.refresh_token)
        )
    ) == ("UNAUTHENTICATED", "TOKEN_REVOKED")
    time.sleep(1)
    assert refused(
        lambda: client.call("GetPlayer", pb.GetPlayerRequest(), refreshed.access_token)
    ) == ("UNAUTHENTICATED", "TOKEN_REVOKED")
    # Signing in again is a new session of the same player; signing out ends it.
    fresh = sign_in(client, device_id)
    assert fresh.player.display_name == "Ada L."
    client.call("RevokeSession", pb.RevokeSessionRequest(), fresh.access_token)
    assert refused(lambda: client.call("GetPlayer", pb.GetPlayerRequest(), fresh.access_token)) == (
        "UNAUTHENTICATED",
        "TOKEN_REVOKED",
    )
    assert refused(
        lambda: client.call("CreateSession", pb.CreateSessionRequest(device_id="short"))
    ) == ("INVALID_ARGUMENT", "BAD_DEVICE_ID")
    assert refused(
        lambda: client.call("GetPlayer", pb.GetPlayerRequest(), fresh.refresh_token)
    ) == ("UNAUTHENTICATED", "TOKEN_BAD_AUDIENCE")
    assert refused(lambda: client.call("GetPlayer", pb.GetPlayerRequest(), "a.b.c")) == (
        "UNAUTHENTICATED",
        "TOKEN_MALFORMED",
    )


@pytest.fixture(scope="module")
def provider() -> Iterator[Provider]:
    served = Provider()
    yield served
    served.close()


@pytest.fixture(scope="module")
def oidc_worker(provider: Provider) -> Iterator[Worker]:
    worker = start_worker(
        "",
        "--oidc-issuer",
        ISSUER,
        "--oidc-audience",
        AUDIENCE,
        "--oidc-jwks-url",
        provider.url,
    )
    yield worker
    stop_worker(worker)


@pytest.mark.parametrize("transport", ["grpc", "rest"])
def test_an_identity_providers_token_works_the_same(
    oidc_worker: Worker, provider: Provider, transport: str
) -> None:
    """A player signed in by the app's own OpenID Connect provider (keys generated here,
    its JWKS served on loopback) plays as a guest does."""
    client: ApiClient = (
        GrpcClient(oidc_worker.grpc_port)
        if transport == "grpc"
        else RestClient(oidc_worker.http_port)
    )
    subject = secrets.token_hex(8)
    token = provider.token(sub=subject, kid="ec-1")
    me = client.call("UpdatePlayer", pb.UpdatePlayerRequest(display_name="Grace"), token).player
    assert me.player_id == client.call("GetPlayer", pb.GetPlayerRequest(), token).player.player_id
    gid = client.call(
        "CreateGame",
        api.CreateGameRequest(
            kind=types.GAME_KIND_TILES,
            seats=2,
            bots=[api.SeatBot(seat=1, strength=types.BOT_STRENGTH_RANDOM)],
        ),
    ).game_id
    assert client.call("JoinGame", api.JoinGameRequest(game_id=gid), token).seat == 0
    # Another token of the same subject (another device) is the same player.
    again = provider.token(sub=subject, kid="rsa-1")
    assert [
        g.game_id for g in client.call("ListMyGames", pb.ListMyGamesRequest(), again).games
    ] == [gid]
    final = play_seat(client, gid, again, random.Random(gid))
    assert final.players[0].display_name == "Grace"
    assert refused(
        lambda: client.call("GetPlayer", pb.GetPlayerRequest(), provider.token(aud="other"))
    ) == ("UNAUTHENTICATED", "TOKEN_BAD_AUDIENCE")
    client.close()


def scripts_run(worker: Worker) -> Counter[str]:
    """The Redis scripts a worker has run so far, by name (its genial_redis_seconds count)."""
    text = httpx.get(f"{worker.admin_url}/metrics", timeout=10).text
    found = re.findall(r'^genial_redis_seconds_count\{operation="(\w+)"\} (\S+)$', text, re.M)
    return Counter({name: int(float(n)) for name, n in found})


def test_a_move_that_passes_the_turn_adds_its_event_itself(tmp_path: Path) -> None:
    """On one Redis a move that passes the turn adds the "your turn" event in its own write
    (an inline follow-up): no intent, no follow-up scripts after it, and the event is there
    when the answer is. A Redis and a worker of its own, which nothing else uses."""
    server, port = start_redis(tmp_path)
    worker = start_worker(f"redis://127.0.0.1:{port}/0")
    client = GrpcClient(worker.grpc_port)
    redis = Redis(port=port)
    try:
        sessions = [sign_in(client, device(), name) for name in ("Ada", "Bob")]
        tokens = [s.access_token for s in sessions]
        players = [
            client.call("GetPlayer", pb.GetPlayerRequest(), t).player.player_id for t in tokens
        ]
        gid = client.call(
            "CreateGame", api.CreateGameRequest(kind=types.GAME_KIND_DICE, seats=2)
        ).game_id
        for token in tokens:
            client.call("JoinGame", api.JoinGameRequest(game_id=gid), token)
        time.sleep(0.5)  # the joins' follow-ups (not inline: a join files the game) are done
        before = scripts_run(worker)
        passed = 0
        while passed < 4:
            view = client.call("GetGame", api.GetGameRequest(game_id=gid)).view
            mover = view.to_move
            legal = client.call(
                "ListLegalMoves", api.ListLegalMovesRequest(game_id=gid), tokens[mover]
            ).moves
            scores = [m for m in legal if m.dice.WhichOneof("move") == "score"]
            made = client.call(
                "MakeMove",
                api.MakeMoveRequest(game_id=gid, move=(scores or legal)[0]),
                tokens[mover],
            )
            if made.view.to_move == mover:
                continue
            event_id = f"{gid}:{made.version}:your_turn"
            next_player = players[made.view.to_move]
            assert redis.zscore(f"genial:{{p:{next_player}}}:events", event_id) is not None
            passed += 1
        ran = scripts_run(worker) - before
        assert ran["write_followed"] == passed
        assert ran["add_player_events"] == ran["followed"] == ran["reschedule"] == 0
    finally:
        client.close()
        redis.close()
        stop_worker(worker)
        stop(server)
