"""The REST gateway beyond the scenarios both transports play (test_api): the JSON it
speaks, its limits and errors, the probes, the metrics and the OpenAPI document."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn

from genial.service import openapi
from genial.service.admin import create_admin_app
from genial.service.census import Census
from genial.service.errors import Code
from genial.service.health import StoreHealth
from genial.service.http_server import start_http
from genial.service.routes import ROUTES
from genial.service.settings import Settings
from genial.service.store.memory import MemoryStore
from genial.v1 import types_pb2
from tests.conftest import free_port
from tests.service.conftest import Worker, start_worker, stop_worker

ROOT = Path(__file__).parents[2]


@pytest.fixture
def http(memory_worker: Worker) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=f"http://127.0.0.1:{memory_worker.http_port}", timeout=10) as c:
        yield c


def refused(reply: httpx.Response, status: int, code: str, reason: str) -> dict[str, Any]:
    """The error body of a refusal, checked against its status, code and reason."""
    assert reply.status_code == status, reply.text
    assert reply.headers["content-type"] == "application/json"
    error: dict[str, Any] = reply.json()["error"]
    assert (error["status"], error["code"], error["reason"]) == (status, code, reason), error
    assert error["message"]
    return error


def test_json_follows_the_protobuf_mapping(http: httpx.Client) -> None:
    # Requests take the proto's field names as well as the JSON (lowerCamelCase) ones.
    created = http.post("/v1/games", json={"kind": "GAME_KIND_DICE", "seats": 2}).json()
    joined = http.post(f"/v1/games/{created['gameId']}/seats", json={"display_name": "Ada"})
    assert joined.status_code == 200  # not 201: the answer is the RPC's, as over gRPC
    view = joined.json()["view"]
    assert view["kind"] == "GAME_KIND_DICE"  # enums by name
    assert view["version"] == "0"  # int64 as a string
    assert view["seed"] == ""  # fields without presence print their defaults
    assert "toMove" not in view  # an unset optional field is left out
    assert view["players"][0] == {
        "seat": 0,
        "displayName": "Ada",
        "joined": True,
        "away": False,
        "resigned": False,
        "botAccount": False,
    }


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"{", "not JSON"),
        (b"\xff\xfe{}", "not JSON"),
        (b"", "not JSON"),
        (b"[]", "not a JSON object"),
        (b'{"kind": "GAME_KIND_DICE", "seats": 2, "colour": 1}', "no field named"),
        (b'{"kind": "CHESS"}', "Invalid enum value"),
        (b'{"seats": "two"}', "seats"),
        (b'{"seats": 99999999999}', "out of range"),
        (b'{"options": {"sections": {"a": 1}}}', "sections"),
        (b'{"bots": [' + b"[" * 40 + b"]" * 40 + b"]}", "deeper than 32"),
    ],
)
def test_a_malformed_body_is_a_400_with_a_clear_message(
    http: httpx.Client, body: bytes, message: str
) -> None:
    reply = http.post("/v1/games", content=body, headers={"content-type": "application/json"})
    assert message in refused(reply, 400, "INVALID_ARGUMENT", "BAD_REQUEST")["message"]


def test_a_body_over_the_limit_is_refused_unread(http: httpx.Client) -> None:
    body = json.dumps({"displayName": "x" * 5000}).encode()
    reply = http.post("/v1/games/AAAAAAAAAAAAAAAA/seats", content=body)
    refused(reply, 413, "RESOURCE_EXHAUSTED", "REQUEST_TOO_LARGE")
    # Without a Content-Length (chunked), the body is counted as it comes.
    reply = http.post("/v1/games/AAAAAAAAAAAAAAAA/seats", content=iter([body[:3000], body[3000:]]))
    refused(reply, 413, "RESOURCE_EXHAUSTED", "REQUEST_TOO_LARGE")


def test_a_client_that_hangs_up_mid_body_is_no_internal_error(memory_worker: Worker) -> None:
    """A phone that loses its signal halfway through a request is the client's doing: counted
    as a bad request, never INTERNAL (which pages the operator, and logs a traceback)."""

    def counted(reason: str) -> float:
        metrics = httpx.get(f"{memory_worker.admin_url}/metrics", timeout=10).text
        label = f'code="{reason}"' if reason == "INTERNAL" else f'reason="{reason}"'
        return sum(
            float(line.rpartition(" ")[2])
            for line in metrics.splitlines()
            if line.startswith("genial_errors_total{")
            and label in line
            and 'transport="http"' in line
        )

    before = counted("BAD_REQUEST"), counted("INTERNAL")
    for path in ("/v1/games", "/v1/games/AAAAAAAAAAAAAAAA/moves"):
        with socket.create_connection(("127.0.0.1", memory_worker.http_port), timeout=10) as conn:
            head = f"POST {path} HTTP/1.1\r\nhost: genial\r\ncontent-length: 100\r\n\r\n"
            conn.sendall(head.encode() + b'{"kind":')
            time.sleep(0.2)  # the handler is reading the body when the connection goes
    deadline = time.monotonic() + 10
    while counted("BAD_REQUEST") < before[0] + 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert (counted("BAD_REQUEST"), counted("INTERNAL")) == (before[0] + 2, before[1])


@pytest.mark.parametrize(
    ("query", "reason"),
    [
        ("colour=red", "BAD_REQUEST"),
        ("page_size=2&page_size=3", "BAD_REQUEST"),
        ("page_size=two", "BAD_REQUEST"),
        ("kind=GAME_KIND_CHESS", "BAD_REQUEST"),
        ("page_size=2&pageSize=3", "BAD_REQUEST"),  # one field by both of its names
        ("pageSize=1000", "BAD_PAGE"),
        ("page_size=1000", "BAD_PAGE"),  # the service's own limit
    ],
)
def test_bad_query_parameters_are_a_400(http: httpx.Client, query: str, reason: str) -> None:
    refused(http.get(f"/v1/games?{query}"), 400, "INVALID_ARGUMENT", reason)


def test_query_parameters_fill_the_request(http: httpx.Client) -> None:
    for _ in range(2):
        http.post("/v1/games", json={"kind": "GAME_KIND_TILES", "seats": 2})
    page = http.get("/v1/games", params={"kind": "GAME_KIND_TILES", "page_size": 1}).json()
    assert len(page["games"]) == 1
    assert page["games"][0]["kind"] == "GAME_KIND_TILES"
    assert page["nextPageToken"]
    # The JSON names do as well as the proto's, as they do in bodies.
    following = http.get("/v1/games", params={"pageToken": page["nextPageToken"], "pageSize": 1})
    assert following.status_code == 200
    assert following.json()["games"][0]["gameId"] != page["games"][0]["gameId"]


def test_a_path_variable_is_one_segment_whatever_it_holds(http: httpx.Client) -> None:
    # An escaped "/" stays in the game id: the service refuses the id, the router does not.
    refused(http.get("/v1/games/..%2F..%2Fetc"), 400, "INVALID_ARGUMENT", "BAD_GAME_ID")
    refused(http.get("/v1/games/a%25b/history"), 400, "INVALID_ARGUMENT", "BAD_GAME_ID")


def test_unknown_routes_and_methods_answer_in_the_error_shape(http: httpx.Client) -> None:
    refused(http.get("/v1/chess"), 404, "NOT_FOUND", "NO_ROUTE")
    reply = http.delete("/v1/games")
    refused(reply, 405, "UNIMPLEMENTED", "METHOD_NOT_ALLOWED")
    assert {"GET", "POST"} <= set(reply.headers["allow"].split(", "))


def test_the_token_is_the_bearer_of_the_authorization_header(http: httpx.Client) -> None:
    created = http.post("/v1/games", json={"kind": "GAME_KIND_DICE", "seats": 2}).json()
    game = f"/v1/games/{created['gameId']}"
    token = http.post(f"{game}/seats", json={"displayName": "Ada"}).json()["playerToken"]
    http.post(f"{game}/seats", json={"displayName": "Bob"})
    reply = http.get(f"{game}/legal-moves", headers={"authorization": f"bearer {token}"})
    assert reply.status_code == 200
    assert reply.json()["moves"]
    basic = http.get(f"{game}/legal-moves", headers={"authorization": f"Basic {token}"})
    refused(basic, 401, "UNAUTHENTICATED", "TOKEN_MISSING")
    forged = http.get(f"{game}/legal-moves", headers={"authorization": "Bearer forged"})
    refused(forged, 403, "PERMISSION_DENIED", "TOKEN_INVALID")


def test_probes_are_on_the_admin_port(memory_worker: Worker, redis_worker: Worker) -> None:
    for worker in (memory_worker, redis_worker):
        assert httpx.get(f"{worker.admin_url}/healthz").status_code == 200
        assert httpx.get(f"{worker.admin_url}/readyz").status_code == 200


def test_the_api_port_serves_no_probes_nor_metrics(http: httpx.Client) -> None:
    for path in ("/healthz", "/readyz", "/metrics"):
        refused(http.get(path), 404, "NOT_FOUND", "NO_ROUTE")


def test_without_redis_the_worker_lives_but_is_not_ready() -> None:
    worker = start_worker(f"redis://127.0.0.1:{free_port()}/0")
    try:
        with httpx.Client(base_url=worker.admin_url, timeout=10) as admin:
            assert admin.get("/healthz").status_code == 200
            refused(admin.get("/readyz"), 503, "UNAVAILABLE", "STORE_UNAVAILABLE")
        reply = httpx.get(f"{worker.http_url}/v1/games/AAAAAAAAAAAAAAAA", timeout=10)
        refused(reply, 503, "UNAVAILABLE", "STORE_UNAVAILABLE")
    finally:
        stop_worker(worker)


def test_metrics_are_served_on_the_admin_port(http: httpx.Client, memory_worker: Worker) -> None:
    http.get("/v1/games/AAAAAAAAAAAAAAAA")
    reply = httpx.get(f"{memory_worker.admin_url}/metrics")
    assert reply.status_code == 200
    assert 'genial_request_seconds_count{method="GetGame",transport="http"}' in reply.text
    assert 'genial_errors_total{code="NOT_FOUND",reason="GAME_NOT_FOUND",transport="http"}' in (
        reply.text
    )


def test_the_openapi_document_is_served_with_a_docs_page(http: httpx.Client) -> None:
    reply = http.get("/openapi.json")
    assert reply.headers["content-type"] == "application/json"
    assert reply.text == (ROOT / "clients/openapi.json").read_text()
    page = http.get("/docs")
    assert page.headers["content-type"].startswith("text/html")
    assert '"/openapi.json"' in page.text


def test_the_web_client_and_the_docs_can_be_switched_off(http: httpx.Client) -> None:
    pages = ("/", "/docs", "/docs/assets/swagger-ui.css")
    for path in pages:
        assert http.get(path).status_code == 200, path  # served by default
    worker = start_worker("", "--no-serve-web", "--no-serve-docs")
    try:
        with httpx.Client(base_url=worker.http_url, timeout=10) as off:
            for path in pages:
                refused(off.get(path), 404, "NOT_FOUND", "NO_ROUTE")
            # The API and its description stay.
            assert off.get("/openapi.json").status_code == 200
            refused(off.get("/v1/games/AAAAAAAAAAAAAAAA"), 404, "NOT_FOUND", "GAME_NOT_FOUND")
    finally:
        stop_worker(worker)


async def test_a_draining_worker_is_not_ready_but_alive() -> None:
    # The admin application as `serve` runs it, on a socket of its own.
    settings = Settings()
    draining = asyncio.Event()
    admin = create_admin_app(StoreHealth(MemoryStore(), settings, Census(settings)), draining)
    server, task, port = start_http(admin, settings, "127.0.0.1", 0)
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=10) as http:
            assert (await http.get("/readyz")).status_code == 200
            draining.set()
            refused(await http.get("/readyz"), 503, "UNAVAILABLE", "DRAINING")
            assert (await http.get("/healthz")).status_code == 200
            refused(await http.get("/v1/games"), 404, "NOT_FOUND", "NO_ROUTE")
            refused(await http.post("/healthz"), 405, "UNIMPLEMENTED", "METHOD_NOT_ALLOWED")
    finally:
        server.should_exit = True
        await task


async def test_a_port_lost_in_a_race_stops_the_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    # Two workers started in the same moment with the same port both bind it (uvicorn binds
    # with SO_REUSEADDR) and the first to listen wins; the other used to run on without it,
    # its log saying it served the port. Here the other process listens just after the bind.
    rival = socket.socket()
    rival.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    rival.bind(("127.0.0.1", 0))
    port = rival.getsockname()[1]
    bind = uvicorn.Config.bind_socket

    def bind_then_lose(config: uvicorn.Config) -> socket.socket:
        sock = bind(config)
        rival.listen()
        return sock

    monkeypatch.setattr(uvicorn.Config, "bind_socket", bind_then_lose)
    settings = Settings()
    admin = create_admin_app(
        StoreHealth(MemoryStore(), settings, Census(settings)), asyncio.Event()
    )
    try:
        with pytest.raises(SystemExit, match=f"cannot listen on 127.0.0.1:{port}"):
            start_http(admin, settings, "127.0.0.1", port)
    finally:
        rival.close()


def test_the_committed_openapi_document_is_current(tmp_path: Path) -> None:
    """`make generate` was run after the last change to proto/ (or to the document's code)."""
    fresh = tmp_path / "descriptors.binpb"
    protos = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "proto/genial/v1").glob("*.proto"))
    protoc = [sys.executable, "-m", "grpc_tools.protoc", "-I", "proto", "-I", "third_party"]
    options = ["--include_source_info", f"--descriptor_set_out={fresh}"]
    subprocess.run([*protoc, *options, *protos], cwd=ROOT, check=True)
    assert fresh.read_bytes() == openapi.DESCRIPTORS.read_bytes(), "run make generate"
    document = openapi.render(openapi.document(openapi.load_descriptors(fresh)))
    assert document == (ROOT / "clients/openapi.json").read_text(), "run make generate"


def test_the_openapi_document_describes_every_route_message_and_enum() -> None:
    doc = json.loads((ROOT / "clients/openapi.json").read_text())
    assert doc["openapi"].startswith("3.1")
    operations = {op["operationId"]: op for path in doc["paths"].values() for op in path.values()}
    assert set(operations) == {route.method.name for route in ROUTES}
    for route in ROUTES:
        operation = doc["paths"][route.template][route.verb.lower()]
        assert operation["summary"]
        assert {str(code.http) for code in Code} < set(operation["responses"])
    schemas = doc["components"]["schemas"]
    for name in types_pb2.DESCRIPTOR.message_types_by_name:
        assert schemas[name]["description"], name  # every message has its comment
        for prop in schemas[name]["properties"].values():
            assert prop["description"]
    for name in types_pb2.DESCRIPTOR.enum_types_by_name:
        assert schemas[name]["type"] == "string"
    assert doc["components"]["securitySchemes"]["bearer"]["scheme"] == "bearer"
    assert "Error" in schemas
