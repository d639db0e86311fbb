"""Bots and turn timers in the service: bot seats play themselves, through any worker."""

from __future__ import annotations

import random
import signal
import time

from genial.v1 import game_service_pb2 as api
from genial.v1 import types_pb2 as types
from tests.service.clients import ApiClient, GrpcClient, whole_history
from tests.service.conftest import start_worker, stop_worker
from tests.service.scenarios import KINDS, Table, play_to_the_end, replay_history


def bot_table(
    client: ApiClient, kind: str, seats: int, bots: dict[int, int], **extra: int
) -> Table:
    created = client.call(
        "CreateGame",
        api.CreateGameRequest(
            kind=KINDS[kind],
            seats=seats,
            bots=[api.SeatBot(seat=s, strength=b) for s, b in bots.items()],
            **extra,
        ),
    )
    table = Table(created.game_id, kind, seats, [""] * seats)
    for seat in range(seats):
        if seat not in bots:
            joined = client.call(
                "JoinGame",
                api.JoinGameRequest(game_id=table.game_id, display_name=f"human {seat}", seat=seat),
            )
            table.tokens[seat] = joined.player_token
    return table


def wait_until_over(client: ApiClient, table: Table, seconds: float) -> types.GameView:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        view = client.call("GetGame", api.GetGameRequest(game_id=table.game_id)).view
        if view.status == types.GAME_STATUS_FINISHED:
            return view
        time.sleep(0.1)
    raise AssertionError(f"the game did not end in {seconds} s: {view}")


def test_a_human_and_three_bots_finish_a_game_where_the_human_only_moves(
    client: ApiClient,
) -> None:
    bots = {
        1: types.BOT_STRENGTH_RANDOM,
        2: types.BOT_STRENGTH_GREEDY,
        3: types.BOT_STRENGTH_GREEDY,
    }
    table = bot_table(client, "cards", 4, bots)
    view = client.call("GetGame", api.GetGameRequest(game_id=table.game_id)).view
    assert [p.HasField("bot") for p in view.players] == [False, True, True, True]
    assert view.status == types.GAME_STATUS_PLAYING
    final = play_to_the_end(client, table, random.Random(3), only_seats={0})
    assert final.status == types.GAME_STATUS_FINISHED
    history = whole_history(client, table.game_id)
    assert {e.seat for e in history.entries if e.automatic} == {1, 2, 3}
    assert not any(e.automatic for e in history.entries if e.seat == 0)
    replay_history(client, table)


def test_a_game_of_bots_plays_itself(client: ApiClient) -> None:
    bots = {0: types.BOT_STRENGTH_GREEDY, 1: types.BOT_STRENGTH_RANDOM}
    for kind in KINDS:
        table = bot_table(client, kind, 2, bots)
        wait_until_over(client, table, 60)
        replay_history(client, table)


def test_a_timed_out_seat_is_played_for_and_reclaimed(client: ApiClient) -> None:
    table = bot_table(client, "dice", 2, {}, turn_seconds=1)
    view = client.call("GetGame", api.GetGameRequest(game_id=table.game_id)).view
    assert view.turn_seconds == 1
    assert view.HasField("turn_deadline")
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        view = client.call("GetGame", api.GetGameRequest(game_id=table.game_id)).view
        if view.players[0].away and view.to_move == 1:
            break
        time.sleep(0.1)
    assert view.players[0].away, "seat 0 ran out of time"
    history = whole_history(client, table.game_id)
    first = history.entries[0]
    assert (first.seat, first.automatic) == (0, True)
    assert first.events[0].turn_timed_out.seat == 0
    # Seat 1 moves in time; then seat 0 comes back and moves itself: the seat is reclaimed.
    while True:
        view = client.call("GetGame", api.GetGameRequest(game_id=table.game_id)).view
        seat = view.to_move
        legal = client.call(
            "ListLegalMoves", api.ListLegalMovesRequest(game_id=table.game_id), table.tokens[seat]
        )
        made = client.call(
            "MakeMove",
            api.MakeMoveRequest(game_id=table.game_id, move=legal.moves[0]),
            table.tokens[seat],
        )
        if seat == 0:
            break
    assert made.events[0].seat_reclaimed.seat == 0
    assert not made.view.players[0].away


def test_killing_the_worker_during_bot_turns_does_not_stop_the_game(redis_url: str) -> None:
    first, second = start_worker(redis_url), start_worker(redis_url)
    try:
        client = GrpcClient(first.grpc_port)
        bots = {0: types.BOT_STRENGTH_STRONG, 1: types.BOT_STRENGTH_STRONG}
        table = bot_table(client, "cards", 2, bots)
        while True:  # the bots are playing, on either worker
            view = client.call("GetGame", api.GetGameRequest(game_id=table.game_id)).view
            if view.version >= 3:
                break
            time.sleep(0.01)
        first.proc.send_signal(signal.SIGKILL)
        first.proc.wait(10)
        assert view.status == types.GAME_STATUS_PLAYING, "killed in the middle of the game"
        survivor = GrpcClient(second.grpc_port)
        view = wait_until_over(survivor, table, 120)
        assert view.status == types.GAME_STATUS_FINISHED
        replay_history(survivor, table)
        survivor.close()
        client.close()
    finally:
        for worker in (first, second):
            stop_worker(worker)
