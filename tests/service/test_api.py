"""The API through real sockets, against both stores: games, auth, errors, retries, watching."""

from __future__ import annotations

import random
import threading

import pytest

from genial import engine
from genial.engine.cards import CARD_NAMES
from genial.service import convert
from genial.v1 import game_service_pb2 as api
from genial.v1 import types_pb2 as types
from tests.service.clients import ApiClient, CallError, whole_history
from tests.service.scenarios import KINDS, open_table, play_to_the_end, replay_history


def expect_error(
    code: str,
    reason: str,
    client: ApiClient,
    method: str,
    request: object,
    token: str | None = None,
) -> CallError:
    with pytest.raises(CallError) as err:
        client.call(method, request, token)
    assert (err.value.code, err.value.reason) == (code, reason), err.value
    return err.value


@pytest.mark.parametrize(
    ("kind", "seats"), [("cards", 2), ("cards", 4), ("dice", 3), ("tiles", 2), ("tiles", 4)]
)
def test_full_game_through_the_api_replays_from_the_revealed_seed(
    client: ApiClient, kind: str, seats: int
) -> None:
    table = open_table(client, kind, seats)
    final = play_to_the_end(client, table, random.Random(seats))
    assert final.status == types.GAME_STATUS_FINISHED
    assert not final.HasField("to_move")
    assert sorted(s.rank for s in final.standings)[0] == 1
    replayed = replay_history(client, table)
    # The replayed game shows every seat exactly what the server shows it.
    for seat in range(seats):
        view = client.call(
            "GetGame", api.GetGameRequest(game_id=table.game_id), table.tokens[seat]
        ).view
        expected = types.GameView()
        convert.table_to_proto(kind, replayed.view(seat)["table"], expected)
        assert getattr(view, kind) == getattr(expected, kind)
        assert list(view.points) == replayed.points


def test_the_seed_is_committed_at_creation_and_hidden_until_the_end(client: ApiClient) -> None:
    created = client.call("CreateGame", api.CreateGameRequest(kind=types.GAME_KIND_DICE, seats=2))
    assert len(created.seed_sha256) == 64
    assert created.view.seed == ""
    assert created.view.status == types.GAME_STATUS_WAITING
    history = whole_history(client, created.game_id)
    assert history.seed == ""
    assert history.seed_sha256 == created.seed_sha256


def test_the_game_starts_when_the_last_seat_is_taken(client: ApiClient) -> None:
    created = client.call("CreateGame", api.CreateGameRequest(kind=types.GAME_KIND_CARDS, seats=2))
    gid = created.game_id
    first = client.call("JoinGame", api.JoinGameRequest(game_id=gid, display_name="Ada", seat=1))
    assert first.seat == 1
    assert first.view.status == types.GAME_STATUS_WAITING
    expect_error(
        "FAILED_PRECONDITION",
        "SEAT_TAKEN",
        client,
        "JoinGame",
        api.JoinGameRequest(game_id=gid, display_name="Bob", seat=1),
    )
    expect_error(
        "FAILED_PRECONDITION",
        "GAME_NOT_STARTED",
        client,
        "MakeMove",
        api.MakeMoveRequest(game_id=gid, move=convert.proto_move("cards", {"type": "swap"})),
        first.player_token,
    )
    second = client.call("JoinGame", api.JoinGameRequest(game_id=gid, display_name="Bob"))
    assert second.seat == 0
    assert second.view.status == types.GAME_STATUS_PLAYING
    assert second.view.to_move == 0
    assert [p.display_name for p in second.view.players] == ["Bob", "Ada"]
    expect_error(
        "FAILED_PRECONDITION",
        "GAME_FULL",
        client,
        "JoinGame",
        api.JoinGameRequest(game_id=gid, display_name="Cy"),
    )


def test_views_show_a_hand_only_to_its_seat(client: ApiClient) -> None:
    table = open_table(client, "cards", 3)
    hands = []
    for seat in range(3):
        view = client.call(
            "GetGame", api.GetGameRequest(game_id=table.game_id), table.tokens[seat]
        ).view
        assert view.viewer == seat
        assert len(view.cards.hand) == 6
        hands.append(list(view.cards.hand))
    spectator = client.call("GetGame", api.GetGameRequest(game_id=table.game_id)).view
    assert not spectator.HasField("viewer")
    assert list(spectator.cards.hand) == []
    assert [p.hand_size for p in spectator.cards.players] == [6, 6, 6]


def test_auth_refusals(client: ApiClient) -> None:
    table = open_table(client, "cards", 2)
    other = open_table(client, "cards", 2)
    gid = table.game_id
    legal = client.call("ListLegalMoves", api.ListLegalMovesRequest(game_id=gid), table.tokens[0])
    move = api.MakeMoveRequest(game_id=gid, move=legal.moves[0])
    expect_error("UNAUTHENTICATED", "TOKEN_MISSING", client, "MakeMove", move)
    expect_error(
        "UNAUTHENTICATED",
        "TOKEN_MISSING",
        client,
        "ListLegalMoves",
        api.ListLegalMovesRequest(game_id=gid),
    )
    expect_error("PERMISSION_DENIED", "TOKEN_INVALID", client, "MakeMove", move, "forged-token")
    expect_error("PERMISSION_DENIED", "TOKEN_INVALID", client, "MakeMove", move, other.tokens[0])
    expect_error(
        "PERMISSION_DENIED",
        "TOKEN_INVALID",
        client,
        "GetGame",
        api.GetGameRequest(game_id=gid),
        other.tokens[1],
    )
    # A token binds its seat: seat 1 cannot move while seat 0 is to move.
    expect_error("FAILED_PRECONDITION", "NOT_YOUR_TURN", client, "MakeMove", move, table.tokens[1])
    assert (
        client.call("ListLegalMoves", api.ListLegalMovesRequest(game_id=gid), table.tokens[1]).moves
        == []
    )


def test_error_reasons(client: ApiClient) -> None:
    table = open_table(client, "cards", 2)
    gid, token = table.game_id, table.tokens[0]
    view = client.call("GetGame", api.GetGameRequest(game_id=gid), token).view
    hand = convert.from_proto(view.cards)["hand"]
    missing = next(name for name in CARD_NAMES if name not in hand)
    play = {"type": "play", "card": missing, "first": missing.split("_")[0]}
    expect_error(
        "FAILED_PRECONDITION",
        "CARD_NOT_IN_HAND",
        client,
        "MakeMove",
        api.MakeMoveRequest(game_id=gid, move=convert.proto_move("cards", play)),
        token,
    )
    expect_error(
        "FAILED_PRECONDITION",
        "SWAP_NOT_ALLOWED",
        client,
        "MakeMove",
        api.MakeMoveRequest(game_id=gid, move=convert.proto_move("cards", {"type": "swap"})),
        token,
    )
    expect_error(
        "INVALID_ARGUMENT",
        "MALFORMED_MOVE",
        client,
        "MakeMove",
        api.MakeMoveRequest(game_id=gid, move=types.Move()),
        token,
    )
    dice_move = convert.proto_move("dice", {"type": "roll"})
    expect_error(
        "INVALID_ARGUMENT",
        "MALFORMED_MOVE",
        client,
        "MakeMove",
        api.MakeMoveRequest(game_id=gid, move=dice_move),
        token,
    )
    expect_error(
        "NOT_FOUND", "GAME_NOT_FOUND", client, "GetGame", api.GetGameRequest(game_id="A" * 16)
    )
    expect_error(
        "INVALID_ARGUMENT",
        "BAD_GAME_ID",
        client,
        "GetGame",
        api.GetGameRequest(game_id="../../etc"),
    )
    expect_error(
        "INVALID_ARGUMENT",
        "BAD_REQUEST_ID",
        client,
        "MakeMove",
        api.MakeMoveRequest(game_id=gid, move=types.Move(), request_id="x" * 65),
        token,
    )
    expect_error(
        "INVALID_ARGUMENT", "UNKNOWN_GAME", client, "CreateGame", api.CreateGameRequest(seats=2)
    )
    expect_error(
        "INVALID_ARGUMENT",
        "BAD_SEAT",
        client,
        "CreateGame",
        api.CreateGameRequest(kind=types.GAME_KIND_TILES, seats=5),
    )
    expect_error(
        "INVALID_ARGUMENT",
        "BAD_OPTION",
        client,
        "CreateGame",
        api.CreateGameRequest(
            kind=types.GAME_KIND_CARDS, seats=2, options=types.GameOptions(variant_e=True)
        ),
    )
    expect_error(
        "INVALID_ARGUMENT",
        "BAD_OPTION",
        client,
        "CreateGame",
        api.CreateGameRequest(
            kind=types.GAME_KIND_DICE, seats=2, options=types.GameOptions(rounds=99)
        ),
    )
    expect_error(
        "INVALID_ARGUMENT",
        "BAD_DISPLAY_NAME",
        client,
        "JoinGame",
        api.JoinGameRequest(game_id=gid, display_name=""),
    )
    expect_error(
        "INVALID_ARGUMENT",
        "BAD_PAGE",
        client,
        "ListGames",
        api.ListGamesRequest(kind=types.GAME_KIND_CARDS, page_size=1000),
    )
    for token in ("zz", "nan", "inf", "-1e999"):  # found by the fuzzer: "inf" reached Redis
        expect_error(
            "INVALID_ARGUMENT",
            "BAD_PAGE",
            client,
            "ListGames",
            api.ListGamesRequest(kind=types.GAME_KIND_CARDS, page_token=token),
        )


def test_a_stale_expected_version_is_aborted_with_the_current_version(client: ApiClient) -> None:
    table = open_table(client, "dice", 2)
    gid, token = table.game_id, table.tokens[0]
    roll = convert.proto_move("dice", {"type": "roll"})
    client.call("MakeMove", api.MakeMoveRequest(game_id=gid, move=roll, expected_version=0), token)
    reroll = convert.proto_move("dice", {"type": "reroll"})
    err = expect_error(
        "ABORTED",
        "STALE_VERSION",
        client,
        "MakeMove",
        api.MakeMoveRequest(game_id=gid, move=reroll, expected_version=0),
        token,
    )
    assert err.metadata == {"current_version": "1"}


def test_a_retried_request_id_returns_the_first_result_and_applies_once(client: ApiClient) -> None:
    table = open_table(client, "dice", 2)
    gid, token = table.game_id, table.tokens[0]
    request = api.MakeMoveRequest(
        game_id=gid, move=convert.proto_move("dice", {"type": "roll"}), request_id="roll-once"
    )
    first = client.call("MakeMove", request, token)
    again = client.call("MakeMove", request, token)
    assert first == again
    assert first.version == 1
    # Later moves do not change what the retry answers.
    client.call(
        "MakeMove",
        api.MakeMoveRequest(game_id=gid, move=convert.proto_move("dice", {"type": "reroll"})),
        token,
    )
    assert client.call("MakeMove", request, token) == first
    history = whole_history(client, gid)
    assert [e.version for e in history.entries] == [1, 2]


def test_watch_from_zero_replays_everything_then_follows_live_moves(client: ApiClient) -> None:
    table = open_table(client, "cards", 2)
    gid = table.game_id
    rnd = random.Random(5)

    def move() -> api.MakeMoveResponse:
        view = client.call("GetGame", api.GetGameRequest(game_id=gid)).view
        token = table.tokens[view.to_move]
        legal = client.call("ListLegalMoves", api.ListLegalMovesRequest(game_id=gid), token)
        return client.call(
            "MakeMove", api.MakeMoveRequest(game_id=gid, move=rnd.choice(legal.moves)), token
        )  # type: ignore[no-any-return]

    made = [move() for _ in range(3)]
    received: list[api.WatchGameResponse] = []
    stream = client.watch(api.WatchGameRequest(game_id=gid, from_version=0), table.tokens[1])
    done = threading.Event()

    def follow() -> None:
        for response in stream:
            if response.events:
                received.append(response)
            if response.version == 6:
                break
        done.set()

    thread = threading.Thread(target=follow, daemon=True)
    thread.start()
    made += [move() for _ in range(3)]
    assert done.wait(20)
    joins = [r for r in received if r.version == 0]
    moves = [r for r in received if r.version > 0]
    assert [r.events[0].player_joined.seat for r in joins] == [0, 1]
    assert [r.version for r in moves] == [1, 2, 3, 4, 5, 6]
    assert [list(r.events) for r in moves] == [list(m.events) for m in made]
    assert all(r.view.viewer == 1 for r in moves)
    assert moves[-1].view.version == 6
    own = client.call("GetGame", api.GetGameRequest(game_id=gid), table.tokens[1]).view
    assert moves[-1].view.cards == own.cards

    # Resuming from a version gets exactly what came after it.
    later = client.watch(api.WatchGameRequest(game_id=gid, from_version=4))
    first = next(r for r in later if r.events)
    assert first.version == 5
    assert list(first.view.cards.hand) == []  # a spectator sees no hand


def test_the_lobby_lists_open_games(client: ApiClient) -> None:
    created = client.call("CreateGame", api.CreateGameRequest(kind=types.GAME_KIND_TILES, seats=2))
    games: list[str] = []
    token = ""
    while True:
        page = client.call(
            "ListGames",
            api.ListGamesRequest(kind=types.GAME_KIND_TILES, page_size=2, page_token=token),
        )
        games += [g.game_id for g in page.games]
        assert all(g.open_seats > 0 for g in page.games)
        token = page.next_page_token
        if not token:
            break
    assert created.game_id in games
    for name in ("a", "b"):
        client.call("JoinGame", api.JoinGameRequest(game_id=created.game_id, display_name=name))
    page = client.call("ListGames", api.ListGamesRequest(kind=types.GAME_KIND_TILES, page_size=100))
    assert created.game_id not in [g.game_id for g in page.games]


def test_oversized_requests_are_refused(client: ApiClient) -> None:
    created = client.call("CreateGame", api.CreateGameRequest(kind=types.GAME_KIND_DICE, seats=2))
    with pytest.raises(CallError) as err:
        client.call(
            "JoinGame", api.JoinGameRequest(game_id=created.game_id, display_name="x" * 10_000)
        )
    assert err.value.code in ("RESOURCE_EXHAUSTED", "INVALID_ARGUMENT")


def test_engine_kinds_match_the_api() -> None:
    assert set(KINDS) == set(engine.GAMES)


def test_bot_seats_outside_the_table_or_twice_are_bad_seats(client: ApiClient) -> None:
    greedy = types.BOT_STRENGTH_GREEDY
    for seats in ([2], [-1], [0, 0]):  # found by the fuzzer: this was an INTERNAL error
        expect_error(
            "INVALID_ARGUMENT",
            "BAD_SEAT",
            client,
            "CreateGame",
            api.CreateGameRequest(
                kind=types.GAME_KIND_DICE,
                seats=2,
                bots=[api.SeatBot(seat=s, strength=greedy) for s in seats],
            ),
        )
