"""Traces: a worker with `otlp_endpoint` set exports its spans over OTLP/gRPC to a receiver
of the test's own (the OTLP proto package's TraceService, served by grpcio: no collector).
Every move, through either transport, is one trace: the server span of the request and
the Redis spans of its reads and its write script under it. A caller's `traceparent`
is continued."""

from __future__ import annotations

import random
import subprocess
import sys
import threading
from collections import defaultdict
from collections.abc import Iterator
from concurrent import futures
from dataclasses import dataclass, field

import grpc
import httpx
import pytest
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2 as otlp
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2_grpc as otlp_grpc
from opentelemetry.proto.trace.v1 import trace_pb2

from genial.v1 import game_service_pb2 as api
from tests.service.clients import ApiClient, GrpcClient, RestClient
from tests.service.conftest import start_worker, stop_worker
from tests.service.scenarios import open_table

MOVES = 6
"""Moves made through each transport."""
SERVER = trace_pb2.Span.SPAN_KIND_SERVER
CLIENT = trace_pb2.Span.SPAN_KIND_CLIENT


@dataclass
class Receiver(otlp_grpc.TraceServiceServicer):
    """An OTLP trace receiver that keeps every span it is sent."""

    spans: list[trace_pb2.Span] = field(default_factory=list)
    services: set[str] = field(default_factory=set)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def Export(
        self, request: otlp.ExportTraceServiceRequest, context: grpc.ServicerContext
    ) -> otlp.ExportTraceServiceResponse:
        with self.lock:
            for resource_spans in request.resource_spans:
                for attribute in resource_spans.resource.attributes:
                    if attribute.key == "service.name":
                        self.services.add(attribute.value.string_value)
                for scope_spans in resource_spans.scope_spans:
                    self.spans.extend(scope_spans.spans)
        return otlp.ExportTraceServiceResponse()


@pytest.fixture
def receiver() -> Iterator[tuple[Receiver, int]]:
    found = Receiver()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    otlp_grpc.add_TraceServiceServicer_to_server(found, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    yield found, port
    server.stop(None)


def attributes(span: trace_pb2.Span) -> dict[str, object]:
    values: dict[str, object] = {}
    for attribute in span.attributes:
        value = attribute.value
        kind = value.WhichOneof("value")
        values[attribute.key] = (
            [v.string_value for v in value.array_value.values]
            if kind == "array_value"
            else getattr(value, kind)
        )
    return values


def make_moves(client: ApiClient, table_tokens: list[str], game_id: str, count: int) -> int:
    """`count` moves of a game by its seats in turn; the version after them."""
    rnd = random.Random(7)
    version = 0
    for _ in range(count):
        view = client.call("GetGame", api.GetGameRequest(game_id=game_id)).view
        token = table_tokens[view.to_move]
        legal = client.call("ListLegalMoves", api.ListLegalMovesRequest(game_id=game_id), token)
        made = client.call(
            "MakeMove",
            api.MakeMoveRequest(
                game_id=game_id, move=rnd.choice(legal.moves), expected_version=legal.version
            ),
            token,
        )
        version = made.version
    return version


def test_one_trace_per_move_with_its_redis_spans(
    redis_url: str, receiver: tuple[Receiver, int]
) -> None:
    found, port = receiver
    worker = start_worker(redis_url, "--otlp-endpoint", f"http://127.0.0.1:{port}")
    try:
        grpc_client = GrpcClient(worker.grpc_port)
        rest_client = RestClient(worker.http_port)
        table = open_table(grpc_client, "cards", 2)
        make_moves(grpc_client, table.tokens, table.game_id, MOVES)
        version = make_moves(rest_client, table.tokens, table.game_id, MOVES)
        assert version == 2 * MOVES
        # A caller's trace is continued: the server span is its child.
        caller_trace, caller_span = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
        reply = httpx.get(
            f"{worker.http_url}/v1/games/{table.game_id}",
            headers={"traceparent": f"00-{caller_trace}-{caller_span}-01"},
        )
        assert reply.status_code == 200
        grpc_client.close()
        rest_client.close()
    finally:
        stop_worker(worker)  # the worker flushes its spans as it stops

    assert found.services == {"genial"}
    by_trace: dict[bytes, list[trace_pb2.Span]] = defaultdict(list)
    for span in found.spans:
        by_trace[span.trace_id].append(span)
    moves = {
        trace_id: spans
        for trace_id, spans in by_trace.items()
        if any(s.kind == SERVER and "MakeMove" in attributes(s).values() for s in spans)
        or any(s.kind == SERVER and s.name == "POST /v1/games/{game_id}/moves" for s in spans)
    }
    assert len(moves) == 2 * MOVES, "one trace per move"
    transports = defaultdict(int)
    for spans in moves.values():
        (server,) = [s for s in spans if s.kind == SERVER]
        assert not server.parent_span_id  # a trace of its own: the client sent none
        redis = [s for s in spans if s.kind == CLIENT]
        assert redis, "the move's Redis commands are in its trace"
        assert all(s.parent_span_id == server.span_id for s in redis)
        assert all(attributes(s)["db.system"] == "redis" for s in redis)
        operations = {attributes(s)["db.operation.name"] for s in redis}
        assert "EVALSHA" in operations, operations  # the write script
        assert server.start_time_unix_nano <= min(s.start_time_unix_nano for s in redis)
        assert server.end_time_unix_nano >= max(s.end_time_unix_nano for s in redis)
        server_attributes = attributes(server)
        if server_attributes.get("rpc.system") == "grpc":
            assert server.name == "genial.v1.GameService/MakeMove"
            assert server_attributes["rpc.grpc.status_code"] == 0
            transports["grpc"] += 1
        else:
            assert server_attributes["http.route"] == "/v1/games/{game_id}/moves"
            assert server_attributes["http.response.status_code"] == 200
            transports["http"] += 1
    assert transports == {"grpc": MOVES, "http": MOVES}
    # redis-py's commands too: a new game enters the lobby (ZADD) in its creation's trace.
    created = [
        spans
        for spans in by_trace.values()
        if any(s.kind == SERVER and s.name == "genial.v1.GameService/CreateGame" for s in spans)
    ]
    assert len(created) == 1
    assert "ZADD" in {s.name for s in created[0] if s.kind == CLIENT}

    servers = [s for s in by_trace[bytes.fromhex(caller_trace)] if s.kind == SERVER]
    assert [s.parent_span_id for s in servers] == [bytes.fromhex(caller_span)]
    assert servers[0].name == "GET /v1/games/{game_id}"


def test_without_an_endpoint_no_tracer_loads() -> None:
    # A worker's imports, and what `serve` does about tracing, in a fresh interpreter.
    # (redis-py imports OpenTelemetry's API and metrics when they are installed, for an
    # observability of its own that stays off unless initialised; not its tracing SDK.)
    script = (
        "import sys\n"
        "from genial.service import server\n"
        "from genial.service.settings import Settings\n"
        "from genial.service.store.memory import MemoryStore\n"
        "assert server.start_tracing(Settings(), MemoryStore()) is None\n"
        "tracer = ('genial.service.tracing', 'opentelemetry.sdk.trace', 'opentelemetry.exporter')\n"
        "loaded = sorted(m for m in sys.modules if m.startswith(tracer))\n"
        "assert not loaded, loaded\n"
    )
    subprocess.run([sys.executable, "-c", script], check=True, timeout=60)
