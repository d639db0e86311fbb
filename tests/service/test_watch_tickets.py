"""Watch tickets: a short-lived credential for one game's watch, for a client that cannot
send an authorization header (a browser's EventSource). A ticket shows its seat's view."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import httpx
import jwt
import pytest

from genial.v1 import game_service_pb2 as api
from tests.service.clients import CallError, RestClient, read_events
from tests.service.conftest import Worker, start_worker, stop_worker
from tests.service.scenarios import open_table

SECRET = "a-secret-of-thirty-two-characters!"


@pytest.fixture(scope="module")
def keyed(redis_url: str) -> Iterator[Worker]:
    worker = start_worker(redis_url, "--session-keys", f"k1:{SECRET}")
    yield worker
    stop_worker(worker)


def first_move_event(worker: Worker, game_id: str, ticket: str) -> dict[str, object]:
    """The first event of a watch opened as EventSource would: no header, the ticket in the
    URL."""
    url = f"http://127.0.0.1:{worker.http_port}/v1/games/{game_id}/events"
    with httpx.stream("GET", url, params={"ticket": ticket}, timeout=10) as reply:
        assert reply.status_code == 200, reply.read()
        for event in read_events(reply.iter_lines()):
            return json.loads("\n".join(event.data))  # type: ignore[no-any-return]
    raise AssertionError("the watch ended at once")


def test_a_ticket_shows_its_seats_view_without_a_header(keyed: Worker) -> None:
    client = RestClient(keyed.http_port)
    table = open_table(client, "cards", 2)
    for seat in range(2):
        made = client.call(
            "CreateWatchTicket",
            api.CreateWatchTicketRequest(game_id=table.game_id),
            table.tokens[seat],
        )
        assert made.expire_time.seconds - time.time() <= 61
        assert table.tokens[seat] not in made.ticket
        view = first_move_event(keyed, table.game_id, made.ticket)["view"]
        assert view["viewer"] == seat  # type: ignore[index]
        assert view["cards"]["hand"]  # type: ignore[index]  # its own hand
    client.close()


def test_a_ticket_is_good_for_its_game_only(keyed: Worker) -> None:
    client = RestClient(keyed.http_port)
    mine, other = open_table(client, "dice", 2), open_table(client, "dice", 2)
    ticket = client.call(
        "CreateWatchTicket", api.CreateWatchTicketRequest(game_id=mine.game_id), mine.tokens[0]
    ).ticket
    url = f"http://127.0.0.1:{keyed.http_port}/v1/games/{other.game_id}/events"
    reply = httpx.get(url, params={"ticket": ticket})
    assert (reply.status_code, reply.json()["error"]["reason"]) == (403, "TOKEN_INVALID")
    # Only the holder of a seat gets one.
    with pytest.raises(CallError) as refused:
        client.call("CreateWatchTicket", api.CreateWatchTicketRequest(game_id=mine.game_id))
    assert refused.value.reason == "TOKEN_MISSING"
    client.close()


def test_an_expired_or_forged_ticket_is_refused(keyed: Worker) -> None:
    client = RestClient(keyed.http_port)
    table = open_table(client, "dice", 2)
    url = f"http://127.0.0.1:{keyed.http_port}/v1/games/{table.game_id}/events"
    now = int(time.time())
    claims = {
        "iss": "genial",
        "aud": "genial-watch",
        "sub": f"{table.game_id}:0",
        "sid": "watch",
        "iat": now - 600,
        "exp": now - 300,
    }

    def sign(secret: str, **changes: object) -> str:
        return jwt.encode({**claims, **changes}, secret, algorithm="HS256", headers={"kid": "k1"})

    expired = sign(SECRET)
    reply = httpx.get(url, params={"ticket": expired})
    assert (reply.status_code, reply.json()["error"]["reason"]) == (401, "TOKEN_EXPIRED")
    forged = jwt.encode(
        {**claims, "exp": now + 60}, "x" * 40, algorithm="HS256", headers={"kid": "k1"}
    )
    reply = httpx.get(url, params={"ticket": forged})
    assert (reply.status_code, reply.json()["error"]["reason"]) == (401, "TOKEN_BAD_SIGNATURE")
    # A player's access token is no ticket (another audience).
    access = jwt.encode(
        {**claims, "aud": "genial", "exp": now + 60},
        SECRET,
        algorithm="HS256",
        headers={"kid": "k1"},
    )
    reply = httpx.get(url, params={"ticket": access})
    assert reply.status_code == 401
    client.close()
