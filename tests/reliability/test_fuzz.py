"""Bad input by the thousand: schemathesis over REST, and over gRPC messages generated from
the request types' descriptors, random and mutated wire bytes, oversized and deeply nested
messages. No answer is a server error (5xx, INTERNAL, UNKNOWN), the worker stays up, and
its memory stays bounded."""

from __future__ import annotations

import os
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass

import grpc
import httpx
import pytest
import schemathesis
from google.protobuf.message import Message
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from genial.service.invoke import SERVICE, SERVICE_NAME
from genial.service.routes import ROUTES, Route
from genial.v1 import game_service_pb2 as api
from genial.v1 import types_pb2 as types
from tests.reliability.harness import (
    LoggedWorker,
    assert_no_internal_errors,
    assert_no_secret_in_logs,
    count,
    documented_errors,
    start_logged_worker,
    stop_all,
)
from tests.reliability.protofuzz import messages, nested_groups, nested_messages, wire_bytes
from tests.service.clients import CallError, GrpcClient
from tests.service.scenarios import Table, open_table, play_to_the_end
from tests.service.test_schemathesis import CHECKS

MESSAGES_PER_METHOD = 500
BYTES_PER_METHOD = 200
REST_CASES_PER_OPERATION = 250
MAX_GROWTH = 64 * 2**20
"""How much the worker's resident memory may grow over the whole module."""
MAX_REQUEST = 4096
SERVER_ERRORS = {"INTERNAL", "UNKNOWN", "DATA_LOSS", "UNIMPLEMENTED", "DEADLINE_EXCEEDED"}
DOCUMENTED = documented_errors()


@dataclass
class Target:
    """The worker under fire, and real games to aim at."""

    worker: LoggedWorker
    playing: Table
    finished: Table
    waiting: str
    rss_before: int

    @property
    def game_ids(self) -> list[str]:
        return [self.playing.game_id, self.finished.game_id, self.waiting]

    @property
    def tokens(self) -> list[str]:
        return self.playing.tokens + self.finished.tokens


@pytest.fixture(scope="module")
def target(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Target]:
    log = tmp_path_factory.mktemp("fuzz") / "worker.log"
    worker = start_logged_worker(
        redis_url, log, "--watch-keepalive", "0.5", "--max-request-bytes", str(MAX_REQUEST)
    )
    client = GrpcClient(worker.grpc_port)
    playing = open_table(client, "cards", 3)
    finished = open_table(client, "dice", 2)
    play_to_the_end(client, finished, random.Random(3))
    waiting = client.call(
        "CreateGame", api.CreateGameRequest(kind=types.GAME_KIND_CARDS, seats=4)
    ).game_id
    client.close()
    yield Target(worker, playing, finished, waiting, worker.rss_bytes())
    stop_all([worker])


# ---- gRPC ---------------------------------------------------------------------------------


def exchange(channel: grpc.Channel, method: str, payload: bytes, token: str | None) -> str:
    """Send raw request bytes; the status code name, after checking the answer's shape."""
    path = f"/{SERVICE_NAME}/{method}"
    metadata = (("authorization", f"Bearer {token}"),) if token else ()
    try:
        if method == "WatchGame":
            stream = channel.unary_stream(path)(payload, metadata=metadata, timeout=10)
            next(stream, None)  # the first answer or the end; then hang up
            stream.cancel()
        else:
            channel.unary_unary(path)(payload, metadata=metadata, timeout=10)
        return "OK"
    except grpc.RpcError as err:
        if err.code() == grpc.StatusCode.CANCELLED:
            return "OK"  # our own hang-up of a watch
        refused: CallError = GrpcClient._error(err)
        assert refused.code not in SERVER_ERRORS, f"{method}: {refused}"
        # Every refusal is one docs/api.md documents, except gRPC's own size limit.
        if refused.code != "RESOURCE_EXHAUSTED" or refused.reason:
            assert (refused.code, refused.reason) in DOCUMENTED, f"{method}: {refused}"
        return refused.code


@pytest.fixture(scope="module")
def channel(target: Target) -> Iterator[grpc.Channel]:
    with grpc.insecure_channel(f"127.0.0.1:{target.worker.grpc_port}") as ch:
        yield ch


def valid_request(target: Target, method: str) -> Message:
    """A request of `method` the service takes, for the generated ones to start from."""
    playing = target.playing.game_id
    move = types.Move()
    move.cards.play.card = 1
    move.cards.play.first = 1
    return {
        "CreateGame": api.CreateGameRequest(kind=types.GAME_KIND_CARDS, seats=3),
        "JoinGame": api.JoinGameRequest(game_id=target.waiting, display_name="fuzz"),
        "GetGame": api.GetGameRequest(game_id=playing),
        "ListLegalMoves": api.ListLegalMovesRequest(game_id=playing),
        "MakeMove": api.MakeMoveRequest(game_id=playing, move=move, request_id="fuzz"),
        "WatchGame": api.WatchGameRequest(game_id=target.finished.game_id),
        "GetHistory": api.GetHistoryRequest(game_id=playing),
        "ListGames": api.ListGamesRequest(page_size=5),
        "CreateWatchTicket": api.CreateWatchTicketRequest(game_id=playing),
        "Resign": api.ResignRequest(game_id=target.finished.game_id),
        "Rematch": api.RematchRequest(game_id=target.finished.game_id),
    }[method]


FUZZ = settings(
    max_examples=MESSAGES_PER_METHOD,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    database=None,
    # CI replays the same cases on every run (a failure there reproduces); elsewhere each
    # run tries new ones.
    derandomize=bool(os.environ.get("CI")),
)


@pytest.mark.parametrize("method", list(SERVICE.methods), ids=lambda m: m.name)
def test_generated_messages_get_no_server_error(
    target: Target, channel: grpc.Channel, method: object
) -> None:
    ids = st.one_of(st.sampled_from(target.game_ids), st.text(max_size=20))
    strings = {"game_id": ids, "request_id": st.text(alphabet="abc!~ ", max_size=70)}
    tokens = st.one_of(
        st.none(), st.sampled_from(target.tokens), st.text(alphabet="ab-_=", max_size=50)
    )
    codes: dict[str, int] = {}
    base = valid_request(target, method.name)  # type: ignore[attr-defined]

    @given(message=messages(method.input_type, strings, base=base), token=tokens)  # type: ignore[attr-defined]
    @FUZZ
    def send(message: Message, token: str | None) -> None:
        code = exchange(channel, method.name, message.SerializeToString(), token)  # type: ignore[attr-defined]
        codes[code] = codes.get(code, 0) + 1

    send()
    assert sum(codes.values()) >= MESSAGES_PER_METHOD // 2, codes
    assert len(codes) > 1, f"the cases reached more than one outcome: {codes}"
    count(grpc_generated_messages=sum(codes.values()))


@pytest.mark.parametrize("method", list(SERVICE.methods), ids=lambda m: m.name)
def test_random_and_mutated_bytes_get_no_server_error(
    target: Target, channel: grpc.Channel, method: object
) -> None:
    valid = [
        api.MakeMoveRequest(game_id=target.playing.game_id, request_id="x").SerializeToString(),
        api.CreateGameRequest(kind=types.GAME_KIND_DICE, seats=3).SerializeToString(),
        api.JoinGameRequest(game_id=target.waiting, display_name="fuzz").SerializeToString(),
        api.GetGameRequest(game_id=target.finished.game_id).SerializeToString(),
    ]
    sent = 0

    @given(payload=wire_bytes(valid), token=st.sampled_from([None, target.playing.tokens[0]]))
    @settings(FUZZ, max_examples=BYTES_PER_METHOD)
    def send(payload: bytes, token: str | None) -> None:
        nonlocal sent
        exchange(channel, method.name, payload, token)  # type: ignore[attr-defined]
        sent += 1

    send()
    count(grpc_random_bytes=sent)


@pytest.mark.parametrize("method", list(SERVICE.methods), ids=lambda m: m.name)
def test_oversized_and_deeply_nested_messages_are_refused(
    target: Target, channel: grpc.Channel, method: object
) -> None:
    name: str = method.name  # type: ignore[attr-defined]
    big = api.JoinGameRequest(game_id=target.waiting, display_name="x" * 2 * MAX_REQUEST)
    oversized = [
        big.SerializeToString(),
        b"\x00" * (MAX_REQUEST + 1),
        random.Random(1).randbytes(64 * MAX_REQUEST),
    ]
    for payload in oversized:
        assert exchange(channel, name, payload, None) == "RESOURCE_EXHAUSTED"
    nested = [
        payload
        for depth in (10, 64, 100, 101, 200, 1000)
        for payload in (nested_groups(depth), nested_messages(min(depth, 600)))
        if len(payload) <= MAX_REQUEST
    ]
    for payload in nested:
        exchange(channel, name, payload, None)
    count(grpc_oversized_or_nested=len(oversized) + len(nested))


# ---- REST ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def api_schema(target: Target) -> schemathesis.BaseSchema:
    return schemathesis.openapi.from_url(f"{target.worker.url}/openapi.json")


@pytest.mark.parametrize("route", ROUTES, ids=lambda route: route.method.name)
def test_schemathesis_finds_no_server_error(
    api_schema: schemathesis.BaseSchema, target: Target, route: Route
) -> None:
    operation = api_schema.find_operation_by_id(route.method.name)
    strategies = [
        operation.as_strategy(generation_mode=mode) for mode in schemathesis.GenerationMode
    ]
    if route.path_fields:
        # A watch of a game in play never ends: only the finished game is watched.
        live = route.method.server_streaming
        for game_id in [target.finished.game_id] if live else target.game_ids:
            real = {field.name: game_id for field in route.path_fields}
            strategies.append(operation.as_strategy(path_parameters=real))
    cases = 0

    @given(case=st.one_of(strategies))
    @settings(FUZZ, max_examples=REST_CASES_PER_OPERATION)
    def exchange_case(case: schemathesis.Case) -> None:
        nonlocal cases
        case.call_and_validate(checks=CHECKS, timeout=10)
        cases += 1

    exchange_case()
    # A request with no field (GetPlayer: the caller is all it names) has one case only.
    assert cases >= (REST_CASES_PER_OPERATION // 2 if route.method.input_type.fields else 1)
    count(rest_schemathesis_cases=cases)


def test_oversized_and_deeply_nested_json_is_refused(target: Target) -> None:
    path = f"{target.worker.url}/v1/games/{target.playing.game_id}/moves"
    bodies = {
        413: [b'{"requestId": "' + b"x" * 2 * MAX_REQUEST + b'"}'],
        400: [
            b'{"move": ' * 40 + b"{}" + b"}" * 40,
            b"[" * 1500 + b"]" * 1500,
            b'{"a": ' + b"[" * 1000,
            b"\xff\xfe\x00garbage",
            b'{"move": {"cards": {"play": {"card": 99999999999999999999}}}}',
        ],
    }
    tried = 0
    with httpx.Client(timeout=10) as http:
        for status, payloads in bodies.items():
            for body in payloads:
                reply = http.post(
                    path,
                    content=body,
                    headers={
                        "content-type": "application/json",
                        "authorization": f"Bearer {target.playing.tokens[0]}",
                    },
                )
                assert reply.status_code == status, reply.text
                assert reply.json()["error"]["status"] == status
                tried += 1
    count(rest_oversized_or_nested=tried)


# ---- afterwards ---------------------------------------------------------------------------


def test_the_worker_survived_with_bounded_memory(target: Target) -> None:
    """Runs last in this module: after every case above, the same worker still serves."""
    worker = target.worker
    assert worker.proc.poll() is None, "the worker died"
    client = GrpcClient(worker.grpc_port)
    view = client.call("GetGame", api.GetGameRequest(game_id=target.finished.game_id)).view
    assert view.game_id == target.finished.game_id
    client.close()
    growth = worker.rss_bytes() - target.rss_before
    assert growth < MAX_GROWTH, f"the worker grew by {growth / 2**20:.0f} MiB"
    assert_no_internal_errors([worker])
    assert_no_secret_in_logs([worker], target.tokens)
    metrics = httpx.get(f"{worker.admin_url}/metrics", timeout=10).text
    internal = re.findall(r'genial_errors_total\{[^}]*code="INTERNAL"[^}]*\} (\S+)', metrics)
    assert not any(float(v) for v in internal), internal
    count(fuzz_worker_rss_growth_kib=growth // 1024)
