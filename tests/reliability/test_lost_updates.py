"""Lost updates: three workers and 36 clients in four processes race on the same four games
over gRPC and REST, half of the moves with `expected_version`; no acknowledged move is lost
or applied twice, and each game replays from its seed to the state Redis holds. The same
with players' seats, while the players list their games: a listing is never stale."""

from __future__ import annotations

import secrets

from genial.v1 import game_service_pb2 as api
from genial.v1 import player_service_pb2 as pb
from genial.v1 import types_pb2 as types
from tests.reliability.conftest import Spawn
from tests.reliability.harness import LoggedWorker, StoreAccess, assert_no_internal_errors, count
from tests.reliability.race import (
    Listing,
    check_games,
    check_listings,
    endpoints,
    list_my_games_meanwhile,
    run_race,
)
from tests.service.clients import GrpcClient
from tests.service.players import sign_in
from tests.service.scenarios import KINDS, Table, open_table

PROCESSES = 4
CLIENTS_PER_PROCESS = 9
SECONDS = 25.0
PLAYERS_SECONDS = 12.0


def open_race_tables(client: GrpcClient) -> list[Table]:
    """Four games long enough (several rounds) to outlast the race."""
    return [
        open_table(client, "cards", 4, rounds=3),
        open_table(client, "dice", 2, rounds=3),
        open_table(client, "tiles", 3, rounds=3),
        open_table(client, "cards", 2, rounds=4),
    ]


def lost_update_race(workers: list[LoggedWorker], access: StoreAccess, label: str) -> None:
    """The race and its checks, against any store the workers share."""
    client = GrpcClient(workers[0].grpc_port)
    tables = open_race_tables(client)
    result = run_race(
        endpoints(workers),
        tables,
        processes=PROCESSES,
        clients_per_process=CLIENTS_PER_PROCESS,
        seconds=SECONDS,
    )
    assert not result.errors, "\n".join(result.errors[:10])
    stale = result.refused["STALE_VERSION"]
    assert stale > 0, "clients with expected_version lost races"
    totals = check_games(access, client, tables, result.acks)
    assert totals["raced"] == len({(a.game_id, a.request_id) for a in result.acks})
    assert totals["raced"] > 300, f"the race made progress: {totals}"
    for worker in workers:
        assert worker.proc.poll() is None
    assert_no_internal_errors(workers)
    client.close()
    count(
        **{
            f"{label}_clients": PROCESSES * CLIENTS_PER_PROCESS,
            f"{label}_workers": len(workers),
            f"{label}_games": len(tables),
            f"{label}_move_attempts": result.attempts,
            f"{label}_moves_sent": result.sends,
            f"{label}_moves_acknowledged": totals["raced"],
            f"{label}_moves_refused": sum(result.refused.values()),
            f"{label}_moves_lost": 0,
        }
    )


def test_racing_clients_lose_no_update(redis_url: str, spawn: Spawn) -> None:
    workers = spawn(redis_url, 3)
    lost_update_race(workers, StoreAccess(redis_url), "race")


def open_players_table(client: GrpcClient, kind: str, seats: int, rounds: int) -> Table:
    """A game whose seats are players' (guest sessions): the table's tokens are their
    access tokens."""
    created = client.call(
        "CreateGame",
        api.CreateGameRequest(
            kind=KINDS[kind], seats=seats, options=types.GameOptions(rounds=rounds)
        ),
    )
    table = Table(created.game_id, kind, seats)
    for seat in range(seats):
        token = sign_in(client, secrets.token_urlsafe(24), f"player {seat}").access_token
        assert (
            client.call("JoinGame", api.JoinGameRequest(game_id=table.game_id), token).seat == seat
        )
        table.tokens.append(token)
    return table


def test_racing_players_lists_of_games_are_never_stale(redis_url: str, spawn: Spawn) -> None:
    """The race, with players' seats (their access tokens as the tables' tokens), while the
    players list their games over and over through every worker: no update is lost, and
    every listing shows its game as it was at a version between the reads around it."""
    workers = spawn(redis_url, 3)
    client = GrpcClient(workers[0].grpc_port)
    tables = [
        open_players_table(client, "cards", 3, 2),
        open_players_table(client, "dice", 2, 2),
        open_players_table(client, "tiles", 2, 2),
    ]
    listings: list[Listing] = []
    players = [token for table in tables for token in table.tokens]
    ports = endpoints(workers)
    result = run_race(
        ports,
        tables,
        processes=2,
        clients_per_process=6,
        seconds=PLAYERS_SECONDS,
        during=list_my_games_meanwhile(ports, players, PLAYERS_SECONDS, listings),
    )
    assert not result.errors, "\n".join(result.errors[:10])
    totals = check_games(StoreAccess(redis_url), client, tables, result.acks)
    assert totals["raced"] > 50, totals
    checked = check_listings(client, tables, listings)
    assert checked > 20, checked
    # At the end each player lists its game as finished.
    for table in tables:
        for seat, token in enumerate(table.tokens):
            (game,) = client.call("ListMyGames", pb.ListMyGamesRequest(), token).games
            assert (game.game_id, game.seat, game.status) == (
                table.game_id,
                seat,
                types.GAME_STATUS_FINISHED,
            )
    assert_no_internal_errors(workers)
    client.close()
    count(
        players_race_moves_acknowledged=totals["raced"],
        players_race_listings_checked=checked,
        players_race_players=len(players),
    )
