"""What a hostile or careless client tries, with the limits a deployment runs with: long and
forged credentials, floods of games, forged addresses, half-sent requests, edge inputs.

Each test here failed on the service before these limits existed (docs/reliability.md,
"Abuse and idle time", lists them with their figures).
"""

from __future__ import annotations

import json
import socket
import struct
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import httpx
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from genial.v1 import game_service_pb2 as api
from genial.v1 import game_service_pb2_grpc as api_grpc
from genial.v1 import types_pb2 as types
from tests.conftest import start_redis
from tests.service.clients import CallError, GrpcClient, RestClient
from tests.service.conftest import Worker, start_worker, stop_worker
from tests.service.scenarios import KINDS, open_table
from tests.service.sockets import ESTABLISHED, sockets

SERVING = health_pb2.HealthCheckResponse.SERVING


def worker_with_redis(tmp: Path, *flags: str) -> Iterator[Worker]:
    """A worker on a Redis of its own (quotas count per address, all workers together)."""
    proc, port = start_redis(tmp)
    worker = start_worker(f"redis://127.0.0.1:{port}/0", *flags)
    yield worker
    stop_worker(worker)
    proc.kill()


@pytest.fixture(scope="module")
def limited(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Worker]:
    """The production quotas and a short read deadline, behind a trusted proxy at
    127.0.0.1: each test stands for clients of its own by X-Forwarded-For."""
    yield from worker_with_redis(
        tmp_path_factory.mktemp("limited"),
        *("--games-per-minute", "30", "--waiting-games", "20"),
        *("--request-read-seconds", "1", "--trusted-proxies", "127.0.0.1/32"),
    )


@pytest.fixture(scope="module")
def trusting_nobody(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Worker]:
    """The quotas, and no trusted proxy: the peer is the client."""
    yield from worker_with_redis(tmp_path_factory.mktemp("nobody"), "--waiting-games", "2")


def create(http: httpx.Client, **headers: str) -> httpx.Response:
    return http.post("/v1/games", json={"kind": "GAME_KIND_DICE", "seats": 2}, headers=headers)


# ---- credentials and headers ------------------------------------------------------------


def test_an_overlong_credential_is_refused_before_any_lookup(redis_worker: Worker) -> None:
    limited = redis_worker
    game = open_table(RestClient(limited.http_port), "dice", 2)
    token = "x" * 4097
    reply = httpx.get(
        f"http://127.0.0.1:{limited.http_port}/v1/games/{game.game_id}",
        headers={"authorization": f"Bearer {token}"},
    )
    assert (reply.status_code, reply.json()["error"]["reason"]) == (401, "TOKEN_MALFORMED")
    client = GrpcClient(limited.grpc_port)
    with pytest.raises(CallError) as refused:
        client.call("GetGame", api.GetGameRequest(game_id=game.game_id), token)
    assert (refused.value.code, refused.value.reason) == ("UNAUTHENTICATED", "TOKEN_MALFORMED")
    client.close()


def test_a_huge_header_is_refused_unread(redis_worker: Worker) -> None:
    limited = redis_worker
    reply = httpx.get(
        f"http://127.0.0.1:{limited.http_port}/v1/games",
        headers={"authorization": "Bearer " + "y" * 1_000_000},
    )
    assert reply.status_code == 431
    channel = grpc.insecure_channel(f"127.0.0.1:{limited.grpc_port}")
    stub = api_grpc.GameServiceStub(channel)
    with pytest.raises(grpc.RpcError) as refused:
        stub.ListGames(api.ListGamesRequest(), metadata=[("x-junk", "z" * 100_000)], timeout=10)
    assert refused.value.code() in (
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        grpc.StatusCode.INTERNAL,  # grpc-core tells an oversized head as either
    ), refused.value
    channel.close()


# ---- games one address may create ---------------------------------------------------------


def fill(http: httpx.Client, game_id: str) -> None:
    for seat in range(2):
        joined = http.post(f"/v1/games/{game_id}/seats", json={"displayName": f"p{seat}"})
        assert joined.status_code == 200


def test_one_address_creates_a_bounded_number_of_games(limited: Worker) -> None:
    client = {"x-forwarded-for": "192.0.2.1"}
    with httpx.Client(base_url=f"http://127.0.0.1:{limited.http_port}", headers=client) as http:
        answers = [create(http) for _ in range(25)]
        codes = [a.status_code for a in answers]
        # 20 waiting games at most: the 21st is refused until one of them starts.
        assert codes == [200] * 20 + [429] * 5
        assert answers[20].json()["error"]["reason"] == "TOO_MANY_GAMES"
        fill(http, answers[0].json()["gameId"])
        created = 20
        # The started game left the count; and 30 creations a minute (refusals count none).
        while (reply := create(http)).status_code == 200:
            created += 1
            fill(http, reply.json()["gameId"])
        assert created == 30
        error = reply.json()["error"]
        assert error["reason"] == "TOO_MANY_GAMES"
        assert "a minute" in error["message"]
        assert reply.headers["retry-after"] == "60"


def test_a_forged_forwarded_for_counts_nothing(trusting_nobody: Worker) -> None:
    """Without trusted proxies, X-Forwarded-For is anybody's to send: it is not believed."""
    with httpx.Client(base_url=f"http://127.0.0.1:{trusting_nobody.http_port}") as http:
        codes = [create(http, **{"x-forwarded-for": f"10.0.0.{n}"}).status_code for n in range(8)]
    assert codes == [200, 200] + [429] * 6


def test_behind_a_trusted_proxy_the_forwarded_client_counts(limited: Worker) -> None:
    with httpx.Client(base_url=f"http://127.0.0.1:{limited.http_port}") as http:
        alice = [create(http, **{"x-forwarded-for": "203.0.113.7"}) for _ in range(21)]
        assert [a.status_code for a in alice] == [200] * 20 + [429]
        # Another client behind the same proxy has a quota of its own, and a spoofed hop
        # left of the client's own address changes nothing.
        spoofed = {"x-forwarded-for": "203.0.113.7, 203.0.113.8"}
        assert create(http, **spoofed).status_code == 200
        # Not an IP address: the walk stops there, at the proxy, whose quota is its own.
        junk = {"x-forwarded-for": "203.0.113.7, evil"}
        assert create(http, **junk).status_code == 200


# ---- slow clients ---------------------------------------------------------------------------


def test_half_sent_requests_are_closed(limited: Worker) -> None:
    """Slowloris: a request head that never ends, and a body that never comes."""
    held = []
    for head in (b"GET /v1/games HTTP/1.1\r\nhost: x\r\n", b""):
        sock = socket.create_connection(("127.0.0.1", limited.http_port))
        sock.sendall(head)
        held.append(sock)
    body = socket.create_connection(("127.0.0.1", limited.http_port))
    body.sendall(b"POST /v1/games HTTP/1.1\r\nhost: x\r\ncontent-length: 100\r\n\r\n{")
    held.append(body)
    start = time.monotonic()
    for sock in held:
        sock.settimeout(5)
        answer = b""
        while chunk := sock.recv(4096):  # a 408, then the end
            answer += chunk
        sock.close()
        head, _, error = answer.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 408 "), answer
        if sock is held[1]:  # sent nothing (a browser's spare connection): no refusal
            assert error == b"", answer
        else:
            assert json.loads(error)["error"]["reason"] == "REQUEST_TIMEOUT", answer
    assert time.monotonic() - start < 4  # request_read_seconds is 1 here


def test_a_websocket_upgrade_is_a_plain_request(limited: Worker) -> None:
    """No route speaks WebSocket: the handshake was answered by uvicorn's WebSocket protocol
    (403, outside the request guards); now the request is served as any other."""
    with socket.create_connection(("127.0.0.1", limited.http_port), timeout=10) as sock:
        sock.sendall(
            b"GET /v1/games/AAAAAAAAAAAAAAAA HTTP/1.1\r\nhost: x\r\nupgrade: websocket\r\n"
            b"connection: upgrade\r\nsec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
            b"sec-websocket-version: 13\r\n\r\n"
        )
        assert answers(sock, 1) == [404]  # the API's answer: no such game


def answers(sock: socket.socket, count: int) -> list[int]:
    """The statuses of the first `count` answers on a connection (fewer if it closes)."""
    sock.settimeout(10)
    data = b""
    while data.count(b"HTTP/1.1 ") < count and (chunk := sock.recv(65536)):
        data += chunk
    return [int(part[:3]) for part in data.split(b"HTTP/1.1 ")[1:]]


@pytest.fixture
def large_bodies(tmp_path: Path) -> Iterator[Worker]:
    """Request bodies up to 64 KiB, larger than a head may be."""
    yield from worker_with_redis(tmp_path, "--max-request-bytes", "65536")


def test_a_head_is_bounded_and_not_what_comes_behind_it(large_bodies: Worker) -> None:
    """A client writes a head and what follows it at once: a body (here one larger than the
    head's bound, which this worker allows), or many requests pipelined. Only the head
    counts towards the bound (431 is for heads)."""
    worker = large_bodies
    body = b'{"kind": "GAME_KIND_DICE", "seats": 2}' + b" " * 30_000
    head = b"POST /v1/games HTTP/1.1\r\nhost: x\r\ncontent-length: %d\r\n\r\n" % len(body)
    with socket.create_connection(("127.0.0.1", worker.http_port)) as sock:
        sock.sendall(head + body)
        assert answers(sock, 1) == [200]
    with socket.create_connection(("127.0.0.1", worker.http_port)) as sock:
        sock.sendall(b"GET /v1/games HTTP/1.1\r\nhost: x\r\n\r\n" * 500)  # 17.5 KB
        statuses = answers(sock, 500)
        assert len(statuses) == 500
        assert 431 not in statuses, statuses
    with socket.create_connection(("127.0.0.1", worker.http_port)) as sock:
        junk = b"x-junk: " + b"z" * 20_000 + b"\r\n"
        sock.sendall(head.replace(b"host: x\r\n", b"host: x\r\n" + junk) + body)
        assert answers(sock, 1) == [431]


# ---- edges of the input -----------------------------------------------------------------------


def test_ids_match_whole_strings(redis_worker: Worker) -> None:
    limited = redis_worker
    game = open_table(RestClient(limited.http_port), "dice", 2)
    reply = httpx.get(f"http://127.0.0.1:{limited.http_port}/v1/games/{game.game_id}%0A")
    assert (reply.status_code, reply.json()["error"]["reason"]) == (400, "BAD_GAME_ID")
    client = GrpcClient(limited.grpc_port)
    with pytest.raises(CallError) as refused:
        client.call(
            "MakeMove",
            api.MakeMoveRequest(game_id=game.game_id, request_id="ada-1\n"),
            game.tokens[0],
        )
    assert refused.value.reason == "BAD_REQUEST_ID"
    client.close()


@pytest.mark.parametrize(
    "name",
    ["\u3164", "\u2800", "\uffa0", " \u200b ", "a\u0301\u0302\u0303\u0304\u0305", "\u115f\u1160"],
)
def test_names_that_show_nothing_are_refused(redis_worker: Worker, name: str) -> None:
    client = RestClient(redis_worker.http_port)
    created = client.call("CreateGame", api.CreateGameRequest(kind=KINDS["dice"], seats=2))
    with pytest.raises(CallError) as refused:
        client.call("JoinGame", api.JoinGameRequest(game_id=created.game_id, display_name=name))
    assert refused.value.reason == "BAD_DISPLAY_NAME"


def test_names_are_normalised_and_unique_at_a_table(redis_worker: Worker) -> None:
    client = RestClient(redis_worker.http_port)
    created = client.call("CreateGame", api.CreateGameRequest(kind=KINDS["dice"], seats=3))
    first = client.call(
        "JoinGame", api.JoinGameRequest(game_id=created.game_id, display_name="Zoe\u0301")
    )
    assert first.view.players[0].display_name == "Zo\u00e9"  # NFC
    for twin in ("Zo\u00e9", "ZO\u00c9", "zoe\u0301"):
        with pytest.raises(CallError) as refused:
            client.call("JoinGame", api.JoinGameRequest(game_id=created.game_id, display_name=twin))
        assert refused.value.reason == "NAME_TAKEN"


def test_lobby_summaries_tell_when_a_game_was_created(redis_worker: Worker) -> None:
    before = time.time()
    for client in (RestClient(redis_worker.http_port), GrpcClient(redis_worker.grpc_port)):
        created = client.call("CreateGame", api.CreateGameRequest(kind=KINDS["tiles"], seats=4))
        page = client.call("ListGames", api.ListGamesRequest(kind=types.GAME_KIND_TILES))
        (mine,) = [g for g in page.games if g.game_id == created.game_id]
        assert before - 1 <= mine.created_at.ToMilliseconds() / 1000 <= time.time() + 1
        client.close()


def test_a_game_of_bots_only_counts_as_ten(limited: Worker) -> None:
    bots = [{"seat": s, "strength": "BOT_STRENGTH_RANDOM"} for s in range(2)]
    body = {"kind": "GAME_KIND_DICE", "seats": 2, "bots": bots}
    client = {"x-forwarded-for": "192.0.2.77"}
    with httpx.Client(base_url=f"http://127.0.0.1:{limited.http_port}", headers=client) as http:
        codes = [http.post("/v1/games", json=body).status_code for _ in range(4)]
    assert codes == [200, 200, 200, 429]  # 30 a minute: three games of bots


@pytest.fixture(scope="module")
def quick_expiry(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Worker]:
    """Games waiting for players expire after a second."""
    yield from worker_with_redis(tmp_path_factory.mktemp("expiry"), "--waiting-ttl", "1")


def test_the_lobby_lists_no_expired_game_and_no_empty_page(quick_expiry: Worker) -> None:
    client = RestClient(quick_expiry.http_port)
    for _ in range(5):
        client.call("CreateGame", api.CreateGameRequest(kind=KINDS["cards"], seats=3))
    time.sleep(1.5)  # they expire
    fresh = client.call("CreateGame", api.CreateGameRequest(kind=KINDS["cards"], seats=3))
    page = client.call("ListGames", api.ListGamesRequest(page_size=2))
    # The expired games are skipped (and dropped from the lobby), the page is filled from
    # what is left, and there is no token for a next page that would come back empty.
    assert [g.game_id for g in page.games] == [fresh.game_id]
    assert page.next_page_token == ""
    client.close()


def test_watch_streams_are_bounded_per_address(redis_url: str) -> None:
    """Games' watches and health's (which may rightly say nothing for hours) together."""
    worker = start_worker(redis_url, "--max-streams-per-address", "3")
    try:
        client = GrpcClient(worker.grpc_port)
        game = open_table(client, "dice", 2)
        channel = grpc.insecure_channel(f"127.0.0.1:{worker.grpc_port}")
        stub = api_grpc.GameServiceStub(channel)
        health = health_pb2_grpc.HealthStub(channel)
        open_ones = [stub.WatchGame(api.WatchGameRequest(game_id=game.game_id)) for _ in range(2)]
        open_ones.append(health.Watch(health_pb2.HealthCheckRequest()))
        for call in open_ones:
            next(call)  # each is open
        for one_more in (
            lambda: stub.WatchGame(api.WatchGameRequest(game_id=game.game_id)),
            lambda: health.Watch(health_pb2.HealthCheckRequest()),
        ):
            with pytest.raises(grpc.RpcError) as refused:
                next(one_more())
            assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert "TOO_MANY_STREAMS" in str(refused.value.trailing_metadata())
        for call in open_ones:
            call.cancel()
        time.sleep(0.5)
        assert next(stub.WatchGame(api.WatchGameRequest(game_id=game.game_id))).events
        assert next(health.Watch(health_pb2.HealthCheckRequest())).status == SERVING
        channel.close()
        client.close()
    finally:
        stop_worker(worker)


def test_a_grpc_connection_that_never_finishes_its_handshake_is_closed(limited: Worker) -> None:
    sock = socket.create_connection(("127.0.0.1", limited.grpc_port))
    sock.sendall(b"PRI * HTTP/2.0\r\n")  # half the connection preface, then nothing
    sock.settimeout(10)
    start = time.monotonic()
    while sock.recv(4096):
        pass
    sock.close()
    assert time.monotonic() - start < 5  # the handshake deadline is 1 s here


def half_sent(channel: grpc.Channel, method: str, sent: threading.Event) -> CallError:
    """A call of a unary `method` whose request never comes: its headers go, then nothing
    until `sent` is set. What the server answered."""

    def requests() -> Iterator[bytes]:
        sent.wait()
        yield b""

    call = channel.stream_unary(method)  # the same bytes as a unary call's, but held back
    with pytest.raises(grpc.RpcError) as refused:
        call(requests(), timeout=10)
    return GrpcClient._error(refused.value)


UNARY = ["/genial.v1.GameService/GetGame", "/grpc.health.v1.Health/Check"]
REFLECTION = "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo"


@pytest.mark.parametrize("method", [*UNARY, REFLECTION])
def test_a_grpc_call_whose_request_never_comes_is_ended(limited: Worker, method: str) -> None:
    """grpc reads a unary request before any handler runs, for as long as the client takes,
    and a stream of requests (reflection's) waits as long as the client likes: such calls
    were held for good, 26-29 KB each, and kept their connection from ever being idle. Now
    each request is due within `request_read_seconds` (1 s here)."""
    sent = threading.Event()
    started = time.monotonic()
    with grpc.insecure_channel(f"127.0.0.1:{limited.grpc_port}") as channel:
        try:
            error = half_sent(channel, method, sent)
        finally:
            sent.set()
    assert time.monotonic() - started < 5
    assert (error.code, error.reason) == ("DEADLINE_EXCEEDED", "REQUEST_TIMEOUT"), error


@pytest.mark.parametrize("method", UNARY)
def test_a_unary_grpc_call_without_its_request_is_refused(limited: Worker, method: str) -> None:
    """grpc alone never answered a call that ended without its request: the client waited
    for its deadline, or for ever without one."""
    with grpc.insecure_channel(f"127.0.0.1:{limited.grpc_port}") as channel:
        call = channel.stream_unary(method)  # the same bytes as a unary call's, less the request
        with pytest.raises(grpc.RpcError) as ended:
            call(iter(()), timeout=10)
    refusal = GrpcClient._error(ended.value)
    assert (refusal.code, refusal.reason) == ("INVALID_ARGUMENT", "BAD_REQUEST"), refusal


def test_an_idle_grpc_connection_is_closed_within_the_idle_seconds() -> None:
    """An app that called once and went to the background holds a worker's socket no longer
    than `grpc_idle_seconds` after its last call, and finds the channel working when it comes
    back; a client that keeps calling, and one with a watch open, keep theirs. grpc alone
    looks once a period, so that 300 s meant up to 600."""
    idle = 3.0
    worker = start_worker("", "--grpc-idle-seconds", str(idle))
    own = [("grpc.use_local_subchannel_pool", 1)]  # a connection per channel
    channels = [grpc.insecure_channel(worker.grpc_target, options=own) for _ in range(3)]
    background, busy = (health_pb2_grpc.HealthStub(c) for c in channels[:2])
    check = health_pb2.HealthCheckRequest()
    try:
        game = RestClient(worker.http_port).call(
            "CreateGame", api.CreateGameRequest(kind=KINDS["dice"], seats=2)
        )
        watch = api_grpc.GameServiceStub(channels[2]).WatchGame(
            api.WatchGameRequest(game_id=game.game_id)
        )
        next(watch)  # its first answer (a keep-alive at once): the watch is open
        background.Check(check, timeout=5)
        last_call = time.monotonic()
        closed_after = None
        while time.monotonic() - last_call < 2 * idle:
            busy.Check(check, timeout=5)
            if closed_after is None and sockets(worker.grpc_port, ESTABLISHED) == 2:
                closed_after = time.monotonic() - last_call
            time.sleep(0.2)
        # The GOAWAY's exchange and this loop's steps on top (before: twice `idle`, 6.3 s).
        assert closed_after is not None
        assert closed_after < idle + 1.5, closed_after
        assert sockets(worker.grpc_port, ESTABLISHED) == 2  # the busy one and the watch
        assert background.Check(check, timeout=5).status == SERVING
        watch.cancel()
    finally:
        for channel in channels:
            channel.close()
        stop_worker(worker)


def test_a_client_that_leaves_pipelined_requests_logs_no_error(tmp_path: Path) -> None:
    """A client that pipelines requests and hangs up while the first is being answered: its
    answer was written to the closed connection (uvicorn told only the queued request that
    the client had gone), an ERROR line with a traceback each time."""
    log = tmp_path / "worker.log"
    worker = start_worker(log=log)
    try:
        head = b"GET /metrics HTTP/1.1\r\nhost: genial\r\n\r\n"  # answered in slices
        for _ in range(20):
            with socket.create_connection(("127.0.0.1", worker.admin_port), timeout=10) as conn:
                conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                conn.sendall(head * 4)
                first = conn.makefile("rb")
                length = 0
                while (line := first.readline()) != b"\r\n":
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":")[1])
                first.read(length)  # the first answer whole: the second is being written
        assert httpx.get(f"{worker.admin_url}/healthz", timeout=10).status_code == 200
    finally:
        stop_worker(worker)
    errors = [line for line in log.read_text().splitlines() if '"ERROR"' in line]
    assert not errors, errors[0][:500]
