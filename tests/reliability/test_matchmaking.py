"""Matchmaking under races, and ratings across a worker's death.

The race: 4 workers on one Redis, 400 players (guest sessions) whose tickets arrive at
random through any worker, every worker's matcher proposing tables from the same pool at
once. Every ticket ends matched, once, at a game that exists and is full (its players'
seats as the tickets say, bots in the others); no player sits at two games.

The death: a worker that is about to save a rated game's ratings is killed (SIGKILL, by a
test hook) after the game's last move; another worker's follow-ups sweeper rates the game,
once: both players have one game counted and exactly the ratings one update gives.
"""

from __future__ import annotations

import random
import secrets
import threading
import time
from collections import Counter, defaultdict

import pytest

from genial.service.ratings import KILL_BEFORE_RATING, Skill, rated
from genial.v1 import game_service_pb2 as api
from genial.v1 import match_service_pb2 as mm
from genial.v1 import player_service_pb2 as pb
from genial.v1 import types_pb2 as types
from tests.reliability.conftest import Spawn
from tests.reliability.harness import assert_no_internal_errors, count
from tests.service.clients import ApiClient, CallError, GrpcClient, RestClient
from tests.service.players import sign_in

PLAYERS = 400
WORKERS = 4
ARRIVALS = 8.0
"""Seconds over which the tickets arrive, at random times."""


def test_the_matchmaking_race(redis_url: str, spawn: Spawn) -> None:
    workers = spawn(redis_url, WORKERS)
    clients: list[ApiClient] = [GrpcClient(w.grpc_port) for w in workers]
    rnd = random.Random(7)
    options = types.GameOptions(rounds=rnd.randint(2, 10), variant_e=True)  # a pool of its own
    tokens = [
        sign_in(clients[i % WORKERS], secrets.token_urlsafe(24)).access_token
        for i in range(PLAYERS)
    ]
    arrivals = sorted((rnd.uniform(0, ARRIVALS), i) for i in range(PLAYERS))
    sizes = {i: sorted(rnd.sample(range(2, 5), 2)) for i in range(PLAYERS)}
    tickets: dict[int, str] = {}
    errors: list[BaseException] = []

    def arrive(lane: int) -> None:
        client = GrpcClient(workers[lane].grpc_port)
        start = time.monotonic()
        try:
            for at, i in arrivals[lane::WORKERS]:
                time.sleep(max(0.0, start + at - time.monotonic()))
                least, most = sizes[i]
                ask = mm.FindMatchRequest(
                    kind=types.GAME_KIND_DICE,
                    min_seats=least,
                    max_seats=most,
                    options=options,
                    accept_bots=True,
                )
                tickets[i] = client.call("FindMatch", ask, tokens[i]).ticket.ticket_id
        except BaseException as err:
            errors.append(err)
        finally:
            client.close()

    lanes = [threading.Thread(target=arrive, args=(lane,)) for lane in range(WORKERS)]
    started = time.monotonic()
    for lane in lanes:
        lane.start()
    for lane in lanes:
        lane.join()
    assert not errors, errors
    assert len(tickets) == PLAYERS
    # Everyone accepts bots: whoever is left alone gets some within seconds.
    found: dict[int, mm.MatchTicket] = {}
    deadline = time.monotonic() + 60
    while len(found) < PLAYERS and time.monotonic() < deadline:
        for i, ticket_id in tickets.items():
            if i not in found:
                got = (
                    clients[i % WORKERS]
                    .call(
                        "GetMatchTicket", mm.GetMatchTicketRequest(ticket_id=ticket_id), tokens[i]
                    )
                    .ticket
                )
                if got.status != mm.TICKET_STATUS_WAITING:
                    found[i] = got
        time.sleep(0.2)
    took = time.monotonic() - started
    assert Counter(t.status for t in found.values()) == {mm.TICKET_STATUS_MATCHED: PLAYERS}
    tables: dict[str, list[int]] = defaultdict(list)
    for i, ticket in found.items():
        tables[ticket.game_id].append(i)
    bots = 0
    for game_id, players in tables.items():
        seats = [found[i].seat for i in players]
        assert len(seats) == len(set(seats)), f"two tickets at one seat of {game_id}"
        view = clients[0].call("GetGame", api.GetGameRequest(game_id=game_id)).view
        assert all(p.joined for p in view.players), f"{game_id} is not full"
        assert view.status in (types.GAME_STATUS_PLAYING, types.GAME_STATUS_FINISHED)
        for i in players:
            least, most = sizes[i]
            assert least <= view.seats <= most, "a table of a size its player refused"
            mine = clients[1].call("GetGame", api.GetGameRequest(game_id=game_id), tokens[i])
            assert mine.view.viewer == found[i].seat
        humans = {p.seat for p in view.players if not p.HasField("bot")}
        assert humans == set(seats), f"{game_id}: seats of people without a ticket"
        bots += view.seats - len(players)
    # No player at two games: each one's list holds its one game.
    for i in rnd.sample(range(PLAYERS), 40):
        games = clients[2].call("ListMyGames", pb.ListMyGamesRequest(), tokens[i]).games
        assert [g.game_id for g in games] == [found[i].game_id]
    assert_no_internal_errors(workers)
    for client in clients:
        client.close()
    count(
        matchmaking_players=PLAYERS,
        matchmaking_games=len(tables),
        matchmaking_bot_seats=bots,
        matchmaking_seconds=round(took, 1),
    )


def play_out(clients: list[ApiClient], game_id: str, tokens: list[str]) -> int:
    """Both seats played at random until the game ends, each move through `clients[0]`
    until it fails UNAVAILABLE (its worker died), then through `clients[1]`; the number of
    such failovers."""
    rnd = random.Random(game_id)
    failovers = 0
    while True:
        view = clients[-1].call("GetGame", api.GetGameRequest(game_id=game_id)).view
        if view.status == types.GAME_STATUS_FINISHED:
            return failovers
        token = tokens[view.to_move]
        legal = clients[-1].call(
            "ListLegalMoves", api.ListLegalMovesRequest(game_id=game_id), token
        )
        request = api.MakeMoveRequest(
            game_id=game_id,
            move=rnd.choice(legal.moves),
            expected_version=legal.version,
            request_id=f"m{legal.version}",
        )
        try:
            clients[0].call("MakeMove", request, token)
        except CallError as err:
            if err.code != "UNAVAILABLE":
                raise
            failovers += 1
            clients[0] = clients[1]
            clients[0].call("MakeMove", request, token)  # applied already: its result


def test_a_worker_killed_before_the_ratings_update_loses_and_doubles_none(
    redis_url: str, spawn: Spawn, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KILL_BEFORE_RATING, "1")
    (doomed,) = spawn(redis_url, 1, "--follow-up-lease-seconds", "1")
    monkeypatch.delenv(KILL_BEFORE_RATING)
    (survivor,) = spawn(redis_url, 1, "--follow-up-lease-seconds", "1")
    mover, rescue = GrpcClient(doomed.grpc_port), RestClient(survivor.http_port)
    sessions = [sign_in(rescue, secrets.token_urlsafe(24), name) for name in ("Ada", "Bob")]
    ask = mm.FindMatchRequest(
        kind=types.GAME_KIND_DICE,
        min_seats=2,
        max_seats=2,
        rated=True,
        options=types.GameOptions(rounds=1),
    )
    ids = [rescue.call("FindMatch", ask, s.access_token).ticket.ticket_id for s in sessions]
    deadline = time.monotonic() + 20
    while True:
        tickets = [
            rescue.call(
                "GetMatchTicket", mm.GetMatchTicketRequest(ticket_id=t), s.access_token
            ).ticket
            for t, s in zip(ids, sessions, strict=True)
        ]
        if all(t.status == mm.TICKET_STATUS_MATCHED for t in tickets):
            break
        assert time.monotonic() < deadline, tickets
        time.sleep(0.1)
    game_id = tickets[0].game_id
    by_seat = {t.seat: s for t, s in zip(tickets, sessions, strict=True)}
    tokens = [by_seat[0].access_token, by_seat[1].access_token]
    failovers = play_out([mover, rescue], game_id, tokens)
    assert doomed.proc.wait(10) == -9, "the worker was killed by its hook"
    assert failovers <= 1
    final = rescue.call("GetGame", api.GetGameRequest(game_id=game_id)).view
    seats = [(by_seat[s.seat].player.player_id, s.rank) for s in final.standings]
    expected = rated({p: Skill() for p, _ in seats}, seats)
    deadline = time.monotonic() + 15
    got: dict[str, mm.Rating] = {}
    while len(got) < 2:
        assert time.monotonic() < deadline, "the game was never rated"
        for player, _ in seats:
            answer = rescue.call("GetRatings", mm.GetRatingsRequest(player_id=player))
            if answer.ratings:
                got[player] = answer.ratings[0]
        time.sleep(0.1)
    time.sleep(2.5)  # another sweep, another lease: a second update would show by now
    for player, skill in expected.items():
        (now,) = rescue.call("GetRatings", mm.GetRatingsRequest(player_id=player)).ratings
        assert (now.games, now.mu, now.sigma) == (
            1,
            pytest.approx(skill.mu),
            pytest.approx(skill.sigma),
        )
    assert_no_internal_errors([survivor])
    mover.close()
    rescue.close()
    count(ratings_workers_killed=1)
