"""A move's follow-ups survive the death of its worker: a worker killed (SIGKILL, by a test
hook) right after a compare-and-set, before it did the move's follow-ups, loses and doubles
none of the players' events; another worker's sweeper does them.

Two players (guest sessions) play a whole dice game through worker A, each turn a roll and
a score, each player beginning its turn only once its own WatchPlayer (on worker B) said
"your turn" for that version: so a lost follow-up stalls the game, and every event can be
counted. Worker A kills itself right after the write of a score (which passes the turn);
its client sends the unanswered move again, same request id, to worker B (which finds it
applied), and play goes on there.

On one Redis that score's write carries its players' events itself (an inline follow-up);
on a Cluster it records an intent, and worker B's sweeper does the follow-up: both ways.
"""

from __future__ import annotations

import random
import secrets
import time
from collections import Counter

import pytest

from genial.service.followups import KILL_AFTER_WRITE
from genial.v1 import game_service_pb2 as api
from genial.v1 import player_service_pb2 as pb
from genial.v1 import types_pb2 as types
from tests.reliability.conftest import Spawn
from tests.reliability.harness import assert_no_internal_errors, assert_no_secret_in_logs, count
from tests.service.clients import CallError, GrpcClient, RestClient
from tests.service.players import Watcher, sign_in

KILLED_AT = 2 + 3
"""Worker A's write with follow-ups after which it dies: the 2 joins, then the 3rd move with
some, the score of the third turn (a roll calls for nothing: it is written without any)."""
LEASE = "1"


@pytest.mark.parametrize("topology", ["redis", "cluster"])
def test_a_worker_killed_after_the_compare_and_set_loses_no_follow_up(
    topology: str, request: pytest.FixtureRequest, spawn: Spawn, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = request.getfixturevalue(f"{topology}_url")
    options = ["--follow-up-lease-seconds", LEASE]
    if topology == "cluster":
        options.append("--redis-cluster")
    monkeypatch.setenv(KILL_AFTER_WRITE, str(KILLED_AT))
    (doomed,) = spawn(url, 1, *options)
    monkeypatch.delenv(KILL_AFTER_WRITE)
    (survivor,) = spawn(url, 1, *options)
    mover = GrpcClient(doomed.grpc_port)
    rescue = RestClient(survivor.http_port)
    sessions = [sign_in(rescue, secrets.token_urlsafe(24), name) for name in ("Ada", "Bob")]
    tokens = [s.access_token for s in sessions]
    game_id = mover.call(
        "CreateGame",
        api.CreateGameRequest(
            kind=types.GAME_KIND_DICE, seats=2, options=types.GameOptions(rounds=1)
        ),
    ).game_id
    watchers = [Watcher(lambda: GrpcClient(survivor.grpc_port), t) for t in tokens]
    rnd = random.Random(game_id)
    failovers = 0
    moves = 0
    turns: list[int] = []
    """The versions at which a turn began."""
    try:
        for token in tokens:
            mover.call("JoinGame", api.JoinGameRequest(game_id=game_id), token)
        last_seat = None
        while True:
            view = rescue.call("GetGame", api.GetGameRequest(game_id=game_id)).view
            if view.status == types.GAME_STATUS_FINISHED:
                break
            seat, version = view.to_move, view.version
            if seat != last_seat:  # the turn passed: its player hears of it first
                watchers[seat].wait_for(
                    lambda e, v=version: (
                        e.type == pb.PLAYER_EVENT_TYPE_YOUR_TURN
                        and e.game_id == game_id
                        and e.version == v
                    ),
                    timeout=15,
                )
                turns.append(version)
            last_seat = seat
            legal = rescue.call(
                "ListLegalMoves", api.ListLegalMovesRequest(game_id=game_id), tokens[seat]
            ).moves
            scores = [m for m in legal if m.dice.WhichOneof("move") == "score"]
            request = api.MakeMoveRequest(
                game_id=game_id,
                move=rnd.choice(scores or legal),
                expected_version=version,
                request_id=f"m{version}",
            )
            try:
                made = mover.call("MakeMove", request, tokens[seat])
            except CallError as err:
                if err.code != "UNAVAILABLE":
                    raise
                failovers += 1  # the worker died: the same request again, elsewhere
                mover.close()
                mover = GrpcClient(survivor.grpc_port)
                made = mover.call("MakeMove", request, tokens[seat])
            assert made.version == version + 1
            moves += 1
        for watcher in watchers:
            watcher.wait_for(
                lambda e: e.type == pb.PLAYER_EVENT_TYPE_GAME_OVER and e.game_id == game_id
            )
        time.sleep(0.5)  # anything doubled would show by now
    finally:
        for watcher in watchers:
            watcher.stop()
    assert doomed.proc.wait(10) == -9, "worker A was killed by its hook"
    assert failovers == 1
    for seat, watcher in enumerate(watchers):
        ids = [e.id for e in watcher.events]
        assert len(ids) == len(set(ids)), "an event was delivered twice"
        kinds = Counter(pb.PlayerEventType.Name(e.type) for e in watcher.events)
        assert kinds["PLAYER_EVENT_TYPE_SEAT_TAKEN"] <= 2  # the watch began after a join
        assert kinds["PLAYER_EVENT_TYPE_GAME_OVER"] == 1
        own = sorted(e.version for e in watcher.events if e.type == pb.PLAYER_EVENT_TYPE_YOUR_TURN)
        assert len(own) == len(set(own)), f"seat {seat}: a turn announced twice"
    # Every turn was announced, once, to its player, and nothing else was.
    announced = sorted(
        e.version
        for watcher in watchers
        for e in watcher.events
        if e.type == pb.PLAYER_EVENT_TYPE_YOUR_TURN
    )
    assert announced == turns, (announced, turns)
    assert len(turns) * 2 <= moves
    assert_no_internal_errors([survivor])
    assert_no_secret_in_logs(
        [doomed, survivor], [t for s in sessions for t in (s.access_token, s.refresh_token)]
    )
    mover.close()
    rescue.close()
    count(followups_workers_killed=1, followups_moves=moves, followups_failovers=failovers)
