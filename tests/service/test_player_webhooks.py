"""Players' own webhook endpoints: refused at internal addresses (127.0.0.1,
169.254.169.254, 10.0.0.1, a name that resolves to loopback) when set and again at send
time; allowed ones get the player's notifications, signed with the secret SetPlayerWebhook
returned; off unless the operator allows hosts."""

from __future__ import annotations

import asyncio
import json
import random
import secrets
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from genial.service.store.redis import RedisStore
from genial.service.webhooks.guard import AddressGuard, Refused, guarded_client
from genial.v1 import webhook_service_pb2 as wpb
from tests.service.clients import ApiClient, CallError, GrpcClient, RestClient
from tests.service.conftest import Worker, start_worker, stop_worker
from tests.service.players import play_seat, sign_in
from tests.service.webhooks import faulty_receiver, received, start_a_game, wait_received

HOSTS = "localhost,127.0.0.1,169.254.169.254,10.0.0.1,*.example.org"
"""Hosts allowed by name: the addresses are what refuses most of them."""


def refused(call: Callable[[], object]) -> tuple[str, str]:
    with pytest.raises(CallError) as caught:
        call()
    return caught.value.code, caught.value.reason


def set_webhook(client: ApiClient, token: str, url: str, *events: str) -> str:
    request = wpb.SetPlayerWebhookRequest(url=url, events=events)
    return str(client.call("SetPlayerWebhook", request, token).secret)


@pytest.mark.parametrize("transport", ["grpc", "rest"])
def test_internal_addresses_are_refused_when_set(transport: str) -> None:
    worker = start_worker("", "--webhook-player-hosts", HOSTS)
    client: ApiClient = (
        GrpcClient(worker.grpc_port) if transport == "grpc" else RestClient(worker.http_port)
    )
    try:
        token = sign_in(client, secrets.token_urlsafe(16)).access_token
        for url in (
            "http://127.0.0.1:8900/hook",
            "http://169.254.169.254/latest/meta-data",
            "https://10.0.0.1/hook",
            "http://localhost:8900/hook",  # a name that resolves to loopback
            "http://[::ffff:127.0.0.1]/hook",
            "https://evil.test/hook",  # not an allowed host
            "ftp://push.example.org/hook",
            "https://user:pw@push.example.org/hook",
            "https://push.example.org/" + "x" * 2048,
        ):
            assert refused(lambda u=url: set_webhook(client, token, u)) == (  # type: ignore[misc]
                "INVALID_ARGUMENT",
                "BAD_WEBHOOK",
            ), url
        assert refused(lambda: set_webhook(client, token, "https://a.example.org/", "x")) == (
            "INVALID_ARGUMENT",
            "BAD_WEBHOOK",
        )
        assert set_webhook(client, token, "") == ""  # removing one is always fine
        no_player = wpb.SetPlayerWebhookRequest(url="https://a.example.org/")
        assert refused(lambda: client.call("SetPlayerWebhook", no_player))[1] == "TOKEN_MISSING"
    finally:
        client.close()
        stop_worker(worker)


def test_players_webhooks_are_off_unless_hosts_are_allowed(memory_worker: Worker) -> None:
    client = RestClient(memory_worker.http_port)
    token = sign_in(client, secrets.token_urlsafe(16)).access_token
    assert refused(lambda: set_webhook(client, token, "https://a.example.org/")) == (
        "FAILED_PRECONDITION",
        "WEBHOOKS_OFF",
    )
    client.close()


async def test_the_guard_checks_the_address_at_every_connection() -> None:
    """The client deliveries to players' endpoints go through resolves the name itself when
    it connects: a name resolving to loopback is refused unless loopback is allowed."""
    limits = httpx.Limits(max_connections=4)
    refusing = guarded_client(AddressGuard(["localhost"], []), limits)
    allowing = guarded_client(AddressGuard(["localhost"], ["127.0.0.0/8", "::1/128"]), limits)
    server = await asyncio.start_server(_answer_204, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    async with server, refusing, allowing:
        with pytest.raises(Refused, match="resolves to an address"):
            await refusing.post(f"http://localhost:{port}/hook", content=b"{}")
        with pytest.raises(Refused):
            await refusing.post(f"http://127.0.0.1:{port}/hook", content=b"{}")
        assert (
            await allowing.post(f"http://127.0.0.1:{port}/hook", content=b"{}")
        ).status_code == 204


async def _answer_204(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    await reader.readuntil(b"\r\n\r\n")
    writer.write(b"HTTP/1.1 204 No Content\r\ncontent-length: 0\r\n\r\n")
    await writer.drain()
    writer.close()


def test_a_players_endpoint_gets_its_notifications_and_is_checked_again_at_send_time(
    redis_url: str, tmp_path: Path
) -> None:
    """Set while loopback is allowed (a private network's backend), the endpoint gets the
    player's notifications signed with its own secret; a worker that does not allow
    loopback refuses to send to it: the notifications go to the dead letters."""
    url = redis_url[:-2] + "/4"  # an outbox of its own
    record = tmp_path / "received.jsonl"
    allowing = start_worker(
        url,
        "--webhook-player-hosts",
        "localhost",
        "--webhook-player-networks",
        "127.0.0.0/8,::1/128",
    )
    client = RestClient(allowing.http_port)
    session = sign_in(client, secrets.token_urlsafe(16), "Ada")
    token = session.access_token
    try:
        with faulty_receiver(record, "whsec_" + "A" * 32) as (receiver, port):
            secret = set_webhook(client, token, f"http://localhost:{port}/me", "game_over")
            receiver.webhook = type(receiver.webhook)(secret)  # the endpoint's own secret
            game_id = start_a_game(client, token)
            play_seat(client, game_id, token, random.Random(game_id))
            (over,) = wait_received(record, lambda found: len(found) == 1)
            assert (over["type"], over["data"]["game_id"]) == ("game_over", game_id)
            assert over["data"]["player_id"] == session.player.player_id
        client.close()
        stop_worker(allowing)

        refusing = start_worker(url, "--webhook-player-hosts", "localhost")
        client = RestClient(refusing.http_port)
        with faulty_receiver(record, secret, port) as (receiver, _):
            game_id = start_a_game(client, token)
            play_seat(client, game_id, token, random.Random(game_id))
            deadline = time.monotonic() + 20
            while not _dead(url, "address refused"):
                assert time.monotonic() < deadline, "nothing refused"
                time.sleep(0.2)
            assert receiver.requests == 0
        assert len(received(record)) == 1
        stop_worker(refusing)
    finally:
        client.close()


def _dead(url: str, why: str) -> list[str]:
    async def read() -> list[str]:
        store = RedisStore.from_url(url)
        try:
            found = await store.dead_notifications(100)
        finally:
            await store.close()
        return [json.loads(item)["id"] for _, item, reason in found if reason == why]

    return asyncio.run(read())
