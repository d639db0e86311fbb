"""Webhooks end to end: the example receiver (clients/webhook-receiver) gets each player's
events of a game played to the end, signed, exactly once after dedupe, exactly those of the
player's feed; "your turn" coalesced; signatures that fail; endpoints refused."""

from __future__ import annotations

import random
import secrets
import time
from collections import Counter
from pathlib import Path

import pytest

from genial.service.webhooks.endpoints import parse_endpoints
from genial.v1 import game_service_pb2 as api
from genial.v1 import player_service_pb2 as pb
from tests.service.clients import RestClient
from tests.service.conftest import start_worker, stop_worker
from tests.service.players import Watcher, of_type, play_seat, sign_in
from tests.service.webhooks import (
    Fact,
    endpoint,
    endpoints,
    fact,
    feed_fact,
    new_secret,
    received,
    receiver_module,
    receiver_process,
    start_a_game,
    wait_received,
)


@pytest.mark.parametrize("store", ["redis", "memory"])
def test_a_game_to_the_end_notifies_each_event_once_signed(
    store: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """Every event of the player's feed arrives at the receiver, verified (by the
    receiver, with standardwebhooks), none doubled, nothing else; the endpoint signs with
    two secrets (a rotation) and the receiver knows the older one. Without coalescing on
    Redis, with it (one "your turn" a game) in memory."""
    old, new = new_secret(), new_secret()
    record = tmp_path / "received.jsonl"
    # An outbox of its own: the suite's Redis is shared, the {wh} keys are global.
    url = request.getfixturevalue("redis_url")[:-2] + "/3" if store == "redis" else ""
    coalesce = ["--webhook-coalesce-seconds", "0"] if store == "redis" else []
    with receiver_process(record, old) as port:
        config = endpoints(endpoint("app", port, new) | {"secrets": [new, old]})
        worker = start_worker(url, "--webhook-endpoints", config, *coalesce)
        client = RestClient(worker.http_port)
        session = sign_in(client, secrets.token_urlsafe(16), "Ada")
        player, token = session.player.player_id, session.access_token
        watcher = Watcher(lambda: RestClient(worker.http_port), token)
        try:
            game_id = start_a_game(client, token, 1 if store == "redis" else None)
            if store == "redis":  # a turn runs out: the timeout bot moves for the player
                watcher.wait_for(of_type(pb.PLAYER_EVENT_TYPE_TURN_TIMED_OUT, game_id))
            play_seat(client, game_id, token, random.Random(game_id))
            client.call("Rematch", api.RematchRequest(game_id=game_id), token)
            watcher.wait_for(of_type(pb.PLAYER_EVENT_TYPE_REMATCH_OFFERED, game_id))
            feed = Counter(feed_fact(player, e) for e in watcher.events)
        finally:
            watcher.stop()
            client.close()
        turns = sum(n for f, n in feed.items() if f[0] == "your_turn")
        if store == "memory":  # coalesced: the turn came back within the window
            feed = Counter({f: n for f, n in feed.items() if f[0] != "your_turn"})
            feed[next(f for f in feed_turns(watcher, player))] = 1
        wanted = sum(feed.values())
        got = wait_received(record, lambda found: len(found) >= wanted)
        time.sleep(1.0)  # and nothing more comes
        stop_worker(worker)
    got = received(record)
    assert Counter(fact(n) for n in got) == feed
    assert len({n["webhook_id"] for n in got}) == len(got)
    assert turns >= 2
    kinds = {n["type"] for n in got}
    assert {"seat_taken", "game_started", "your_turn", "game_over", "rematch_offered"} <= kinds
    if store == "redis":
        assert "turn_timed_out" in kinds
        assert all("turn_deadline" in n["data"] for n in got if n["type"] == "your_turn")
    over = next(n for n in got if n["type"] == "game_over")
    assert [row["seat"] for row in over["data"]["standings"]] in ([0, 1], [1, 0])


def feed_turns(watcher: Watcher, player: str) -> list[Fact]:
    return [
        feed_fact(player, e) for e in watcher.events if e.type == pb.PLAYER_EVENT_TYPE_YOUR_TURN
    ]


def signed(secret: str, body: bytes, webhook_id: str, at: int) -> dict[str, str]:
    (found,) = parse_endpoints(endpoints(endpoint("x", 1, secret))).values()
    signature = found.signature(webhook_id, at, body.decode())
    return {"webhook-id": webhook_id, "webhook-timestamp": str(at), "webhook-signature": signature}


def test_the_receiver_refuses_altered_and_old_requests_and_dedupes(tmp_path: Path) -> None:
    secret = new_secret()
    receiver = receiver_module.Receiver(secret, tmp_path / "r.jsonl")
    body = b'{"type":"your_turn","timestamp":"x","data":{"player_id":"p","game_id":"g"}}'
    now = int(time.time())
    headers = signed(secret, body, "msg_1", now)
    assert receiver.handle(headers, body.replace(b"your_turn", b"game_over"))[0] == 400
    assert receiver.handle({**headers, "webhook-timestamp": str(now + 1)}, body)[0] == 400
    assert receiver.handle({**headers, "webhook-id": "msg_2"}, body)[0] == 400
    assert receiver.handle(signed(new_secret(), body, "msg_1", now), body)[0] == 400
    assert receiver.handle(signed(secret, body, "msg_3", now - 600), body) == (
        400,
        "refused: Message timestamp too old",
    )
    assert receiver.handle(headers, body) == (200, "ok")
    assert receiver.handle(headers, body) == (200, "seen before")
    assert [n["webhook_id"] for n in received(tmp_path / "r.jsonl")] == ["msg_1"]


@pytest.mark.parametrize(
    ("config", "says"),
    [
        ("{", "not JSON"),
        ('{"name": "a"}', "a JSON list"),
        ('[{"name": "a b", "url": "http://x", "secrets": ["whsec_AAAA"]}]', "a name is"),
        ('[{"name": "a", "url": "ftp://x", "secrets": ["whsec_AAAA"]}]', "http://"),
        ('[{"name": "a", "url": "http://x", "secrets": ["s3cr3t"]}]', "whsec_"),
        ('[{"name": "a", "url": "http://x", "secrets": ["whsec_!!"]}]', "base64"),
        ('[{"name": "a", "url": "http://x", "secrets": []}]', "one or more"),
        ('[{"name": "a", "url": "http://x", "secrets": ["whsec_AAAA"], "events": ["x"]}]', "among"),
        ('[{"name": "a", "url": "http://x", "secrets": ["whsec_AAAA"], "timeout": 0}]', "0-60"),
        ('[{"name": "a", "url": "http://x", "secrets": ["whsec_AAAA"], "extra": 1}]', "unknown"),
    ],
)
def test_bad_endpoints_are_refused_at_start_without_their_secrets(config: str, says: str) -> None:
    with pytest.raises(ValueError, match=says) as caught:
        parse_endpoints(config)
    assert "s3cr3t" not in str(caught.value)
