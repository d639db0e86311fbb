"""Webhooks as the tests drive them: the example receiver (clients/webhook-receiver) in a
process of its own or in this one (with faults), endpoints for `--webhook-endpoints`, and
what the receiver recorded."""

from __future__ import annotations

import base64
import contextlib
import importlib.util
import json
import os
import random
import secrets
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx

from genial.v1 import game_service_pb2 as api
from genial.v1 import player_service_pb2 as pb
from genial.v1 import types_pb2 as types
from loadtest.processes import free_port, stop, wait_for_port
from tests.service.clients import CallError, RestClient
from tests.service.players import play_seat, sign_in

RECEIVER = Path(__file__).parents[2] / "clients" / "webhook-receiver" / "receiver.py"


def load_receiver() -> ModuleType:
    """The example receiver's module (its folder is no package)."""
    spec = importlib.util.spec_from_file_location("webhook_receiver", RECEIVER)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


receiver_module = load_receiver()


def new_secret() -> str:
    return "whsec_" + base64.b64encode(secrets.token_bytes(24)).decode()


def endpoints(*found: dict[str, Any]) -> str:
    """The `--webhook-endpoints` flag's value."""
    return json.dumps(list(found))


def endpoint(name: str, port: int, secret: str, **more: Any) -> dict[str, Any]:
    url = f"http://127.0.0.1:{port}/genial"
    return {"name": name, "url": url, "secrets": [secret], **more}


@contextmanager
def receiver_process(record: Path, secret: str, port: int | None = None) -> Iterator[int]:
    """The example receiver as a user runs it, recording into `record`; its port."""
    port = port or free_port()
    proc = subprocess.Popen(
        [sys.executable, str(RECEIVER), "--port", str(port), "--record", str(record)],
        env={**os.environ, "WEBHOOK_SECRET": secret},
        stdout=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port, proc=proc)
        yield port
    finally:
        stop(proc)


class FaultyReceiver(receiver_module.Receiver):  # type: ignore[misc, name-defined]
    """The example receiver in this process, with faults: `answer` may answer a request
    before the receiver sees it (a status, and a Retry-After), or `delay` it; every request
    is logged."""

    def __init__(self, secret: str, record: Path) -> None:
        super().__init__(secret, record)
        self.answer: Callable[[dict[str, str]], int | None] = lambda _headers: None
        self.retry_after = ""
        self.delay = 0.0
        self.requests = 0
        self.taken: list[tuple[float, str, int]] = []
        """(when, webhook-id, status) of every request."""
        self.counted = threading.Lock()

    def handle(self, headers: dict[str, str], body: bytes) -> tuple[int, str]:
        with self.counted:
            self.requests += 1
        if self.delay:
            time.sleep(self.delay)
        status = self.answer(headers)
        found: tuple[int, str] = (
            (status, "fault") if status is not None else super().handle(headers, body)
        )
        with self.counted:
            self.taken.append((time.time(), headers.get("webhook-id", ""), found[0]))
        return found

    def push(self, webhook_id: str, payload: dict[str, Any], now: float) -> None:
        assert self.record is not None
        with self.record.open("a") as out:  # as the example's, without the print
            out.write(json.dumps({"webhook_id": webhook_id, "received": now, **payload}) + "\n")


@contextmanager
def faulty_receiver(
    record: Path, secret: str, port: int | None = None
) -> Iterator[tuple[FaultyReceiver, int]]:
    receiver = FaultyReceiver(secret, record)
    port = port or free_port()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length") or 0))
            status, text = receiver.handle(dict(self.headers.items()), body)
            self.send_response(status)
            if status != 200 and receiver.retry_after:
                self.send_header("retry-after", receiver.retry_after)
            self.send_header("content-length", str(len(text.encode())))
            with contextlib.suppress(ConnectionError):  # the sender gave up waiting
                self.end_headers()
                self.wfile.write(text.encode())

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield receiver, port
    finally:
        server.shutdown()
        server.server_close()


def received(record: Path) -> list[dict[str, Any]]:
    """What the receiver took, in the order it took it (each webhook-id once)."""
    if not record.exists():
        return []
    return [json.loads(line) for line in record.read_text().splitlines() if line]


def wait_received(
    record: Path, enough: Callable[[list[dict[str, Any]]], bool], timeout: float = 30
) -> list[dict[str, Any]]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = received(record)
        if enough(found):
            return found
        time.sleep(0.05)
    raise AssertionError(f"not received within {timeout} s; got {received(record)}")


Fact = tuple[str, str, str, int, int]


def fact(note: dict[str, Any]) -> Fact:
    """What a notification is about: a second one with the same facts is a double."""
    data = note["data"]
    return note["type"], data["player_id"], data["game_id"], data["version"], data["seat"]


EVENT_NAMES = {
    number: name.removeprefix("PLAYER_EVENT_TYPE_").lower()
    for name, number in pb.PlayerEventType.items()
}


def feed_fact(player: str, event: pb.PlayerEvent) -> Fact:
    return EVENT_NAMES[event.type], player, event.game_id, event.version, event.seat


def start_a_game(client: RestClient, token: str, turn_seconds: int | None = None) -> str:
    """A game of dice against a bot, the player at seat 0: its id."""
    created = client.call(
        "CreateGame",
        api.CreateGameRequest(
            kind=types.GAME_KIND_DICE,
            seats=2,
            bots=[api.SeatBot(seat=1, strength=types.BOT_STRENGTH_GREEDY)],
            turn_seconds=turn_seconds,
        ),
    )
    client.call("JoinGame", api.JoinGameRequest(game_id=created.game_id, seat=0), token)
    return str(created.game_id)


def play_to_the_end(http_port: int) -> tuple[str, str, str]:
    """A new player's game against a bot, to the end, and a rematch asked for: the player,
    its token and the game."""
    client = RestClient(http_port)
    try:
        session = sign_in(client, secrets.token_urlsafe(16), "Ada")
        token = session.access_token
        game_id = start_a_game(client, token)
        play_seat(client, game_id, token, random.Random(game_id))
        client.call("Rematch", api.RematchRequest(game_id=game_id), token)
        return session.player.player_id, token, game_id
    finally:
        client.close()


def feed(http_port: int, player: str, token: str, seconds: float = 1.5) -> list[Fact]:
    """Every event in the player's feed, in its order (what its notifications should be)."""
    client = RestClient(http_port)
    events = []
    try:
        request = pb.WatchPlayerRequest(cursor="0")
        for answer in client.watch_player(request, token, seconds):
            if answer.HasField("event"):
                events.append(feed_fact(player, answer.event))
    except (httpx.TimeoutException, CallError):
        pass  # the watch ran its time
    finally:
        client.close()
    return events
