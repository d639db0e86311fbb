"""Edges an independent client found (Node's @grpc/grpc-js and a standard-library REST client):
a resumed watch that said nothing for 15 s, keep-alives that looked like states, reflection
that answered only v1alpha, deadlines with float artefacts."""

from __future__ import annotations

import queue
import threading
import time

import grpc
import httpx
from grpc_reflection.v1alpha import reflection_pb2

from genial.v1 import game_service_pb2 as api
from genial.v1 import types_pb2 as types
from tests.service.clients import ApiClient, GrpcClient, RestClient
from tests.service.conftest import Worker, start_worker, stop_worker
from tests.service.scenarios import KINDS, open_table


def test_a_watch_resumed_at_the_last_event_answers_at_once(worker: Worker) -> None:
    """Headers and a first comment at once, on every store, whatever there is to send."""
    table = open_table(RestClient(worker.http_port), "dice", 2)
    url = f"http://127.0.0.1:{worker.http_port}/v1/games/{table.game_id}/events"
    start = time.monotonic()
    with httpx.stream("GET", url, headers={"last-event-id": "0-2"}, timeout=10) as reply:
        assert reply.status_code == 200
        first = next(reply.iter_lines())
    assert first == ": keep-alive"
    assert time.monotonic() - start < 5  # the keep-alive interval is 15 s


def test_grpc_keep_alives_say_so(redis_url: str) -> None:
    worker = start_worker(redis_url, "--watch-keepalive", "0.2")
    try:
        client = GrpcClient(worker.grpc_port)
        table = open_table(client, "dice", 2)
        answers = client.watch(api.WatchGameRequest(game_id=table.game_id, from_version=0))
        seen = [next(answers) for _ in range(4)]
        joins, quiet = seen[:2], seen[2:]
        assert all(not a.keep_alive and a.events and a.HasField("view") for a in joins)
        assert all(a.keep_alive and not a.events and not a.HasField("view") for a in quiet)
        client.close()
    finally:
        stop_worker(worker)


def reflect(port: int, service: str, request: reflection_pb2.ServerReflectionRequest) -> object:
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    call = channel.stream_stream(
        f"/{service}/ServerReflectionInfo",
        request_serializer=reflection_pb2.ServerReflectionRequest.SerializeToString,
        response_deserializer=reflection_pb2.ServerReflectionResponse.FromString,
    )
    (answer,) = list(call(iter([request]), timeout=10))
    channel.close()
    return answer


def test_reflection_answers_v1_and_v1alpha(worker: Worker) -> None:
    for version in ("v1", "v1alpha"):
        service = f"grpc.reflection.{version}.ServerReflection"
        listed = reflect(
            worker.grpc_port, service, reflection_pb2.ServerReflectionRequest(list_services="")
        )
        names = {s.name for s in listed.list_services_response.service}  # type: ignore[attr-defined]
        assert {"genial.v1.GameService", "grpc.reflection.v1.ServerReflection"} <= names
        described = reflect(
            worker.grpc_port,
            service,
            reflection_pb2.ServerReflectionRequest(file_containing_symbol=service),
        )
        assert described.file_descriptor_response.file_descriptor_proto  # type: ignore[attr-defined]


def test_turn_deadlines_are_whole_milliseconds(worker: Worker) -> None:
    client = GrpcClient(worker.grpc_port)
    created = client.call(
        "CreateGame", api.CreateGameRequest(kind=KINDS["cards"], seats=2, turn_seconds=60)
    )
    view = None
    for seat in range(2):
        view = client.call(
            "JoinGame", api.JoinGameRequest(game_id=created.game_id, display_name=f"p{seat}")
        ).view
    assert view is not None
    assert view.status == types.GAME_STATUS_PLAYING
    assert view.turn_deadline.nanos % 1_000_000 == 0
    assert view.turn_deadline.ToJsonString().count(".") <= 1
    assert len(view.turn_deadline.ToJsonString().split(".")[-1]) <= 4  # "123Z"
    client.close()


def test_a_watch_opened_before_the_start_shows_each_turn(client: ApiClient) -> None:
    """The metadata a watch shows follows the game: seats taken while it waits, then whose
    turn it is and until when (a watch used to keep the waiting game's metadata)."""
    created = client.call(
        "CreateGame", api.CreateGameRequest(kind=KINDS["cards"], seats=2, turn_seconds=60)
    )
    watched: queue.Queue[api.WatchGameResponse] = queue.Queue()

    def watch() -> None:
        for answer in client.watch(api.WatchGameRequest(game_id=created.game_id)):
            if not answer.keep_alive:
                watched.put(answer)
                if answer.version == 3:
                    return

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    time.sleep(0.5)  # open before anybody sits down
    tokens = [
        client.call(
            "JoinGame", api.JoinGameRequest(game_id=created.game_id, display_name=f"p{seat}")
        ).player_token
        for seat in range(2)
    ]
    joins = [watched.get(timeout=10), watched.get(timeout=10)]
    assert joins[-1].view.status == types.GAME_STATUS_PLAYING
    for _ in range(3):
        view = client.call("GetGame", api.GetGameRequest(game_id=created.game_id)).view
        token = tokens[view.to_move]
        legal = client.call(
            "ListLegalMoves", api.ListLegalMovesRequest(game_id=created.game_id), token
        )
        moved = client.call(
            "MakeMove", api.MakeMoveRequest(game_id=created.game_id, move=legal.moves[0]), token
        )
        seen = watched.get(timeout=10)
        assert seen.version == moved.version
        assert seen.view.to_move == moved.view.to_move
        assert seen.view.turn_deadline == moved.view.turn_deadline
    watcher.join(10)
