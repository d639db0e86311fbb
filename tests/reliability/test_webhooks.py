"""Webhooks under faults, on a Redis of the test's own (AOF always): the receiver down,
then up; answering 500 (and Retry-After) before 200; a worker killed with SIGKILL while its
deliveries are in flight; Redis killed and restarted; a slow endpoint beside a fast one;
410 Gone and the dead letters, listed and replayed with the CLI. Each counts what was sent,
lost and doubled (after dedupe by webhook-id) into the run's tally."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections import Counter
from datetime import datetime
from pathlib import Path

import httpx

from tests.reliability.conftest import Spawn
from tests.reliability.harness import RedisServer, count, kill_worker, wait_until
from tests.service.webhooks import (
    Fact,
    endpoint,
    endpoints,
    fact,
    faulty_receiver,
    feed,
    new_secret,
    play_to_the_end,
    received,
)

FAST = ("--webhook-coalesce-seconds", "0", "--webhook-backoff-seconds", "0.2")
"""Every event notified; retries from 0.2 s on."""


def flags(*found: dict[str, object], more: tuple[str, ...] = ()) -> tuple[str, ...]:
    return ("--webhook-endpoints", endpoints(*found), *FAST, *more)


def games(http_port: int, n: int) -> list[tuple[str, str, str]]:
    """n players' games played to the end at once."""
    played: list[tuple[str, str, str]] = []
    threads = [
        threading.Thread(target=lambda: played.append(play_to_the_end(http_port))) for _ in range(n)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert len(played) == n
    return played


def expected(http_port: int, played: list[tuple[str, str, str]]) -> dict[str, list[Fact]]:
    """Each player's feed, once its last event (the rematch offered) is in it."""
    found = {}
    for player, token, _ in played:
        deadline = time.monotonic() + 30
        facts = feed(http_port, player, token, 0.5)
        while not facts or facts[-1][0] != "rematch_offered":
            assert time.monotonic() < deadline, facts
            facts = feed(http_port, player, token, 0.5)
        found[player] = facts
    return found


def check_all_once_in_order(record: Path, wanted: dict[str, list[Fact]]) -> int:
    """Every notification of `wanted` arrives, each player's in order, none doubled; how
    many arrived."""
    total = sum(len(facts) for facts in wanted.values())
    wait_until(lambda: len(received(record)) >= total, 60, 0.1)
    time.sleep(0.5)  # and nothing more comes
    got = received(record)
    by_player: dict[str, list[Fact]] = {}
    for note in got:
        by_player.setdefault(note["data"]["player_id"], []).append(fact(note))
    lost = sum((Counter(wanted[p]) - Counter(by_player.get(p, []))).total() for p in wanted)
    doubled = len(got) - len({fact(n) for n in got})
    count(webhooks_sent=len(got), webhooks_lost=lost, webhooks_doubled_after_dedupe=doubled)
    assert (lost, doubled) == (0, 0)
    assert by_player == wanted, "each player's in order"
    return len(got)


def test_the_receiver_down_then_up_gets_everything_in_order(
    spawn: Spawn, own_redis: RedisServer, tmp_path: Path
) -> None:
    secret, record = new_secret(), tmp_path / "received.jsonl"
    with faulty_receiver(record, secret) as (receiver, port):
        receiver.answer = lambda _headers: 503  # up, but failing: then gone for a while
    (worker,) = spawn(own_redis.url, 1, *flags(endpoint("app", port, secret)))
    played = games(worker.http_port, 2)
    wanted = expected(worker.http_port, played)
    time.sleep(1.0)  # the retries run into a closed port
    assert not received(record)
    with faulty_receiver(record, secret, port) as (receiver, _):
        check_all_once_in_order(record, wanted)


def test_500_then_200_and_retry_after_is_honoured(
    spawn: Spawn, own_redis: RedisServer, tmp_path: Path
) -> None:
    secret, record = new_secret(), tmp_path / "received.jsonl"
    with faulty_receiver(record, secret) as (receiver, port):
        failures: Counter[str] = Counter()

        def answer(headers: dict[str, str]) -> int | None:
            webhook_id = headers["webhook-id"]
            failures[webhook_id] += 1
            return 500 if failures[webhook_id] == 1 else None  # each fails once

        receiver.answer = answer
        (worker,) = spawn(own_redis.url, 1, *flags(endpoint("app", port, secret)))
        played = games(worker.http_port, 2)
        check_all_once_in_order(record, expected(worker.http_port, played))
        assert min(failures.values()) == 2

        # A 429 with Retry-After: 2 (above the backoff) holds that lane's next attempt back.
        asked: dict[str, float] = {}

        def throttle(headers: dict[str, str]) -> int | None:
            if asked:  # only the first notification is throttled
                return None
            asked[headers["webhook-id"]] = time.time()
            return 429

        receiver.answer = throttle
        receiver.retry_after = "2"
        record.unlink()
        played = games(worker.http_port, 1)
        check_all_once_in_order(record, expected(worker.http_port, played))
    ((throttled, at),) = asked.items()
    retried = [when for when, wid, status in receiver.taken if wid == throttled and status == 200]
    assert retried[0] - at >= 1.9


def test_a_worker_killed_mid_delivery_loses_nothing(
    spawn: Spawn, own_redis: RedisServer, tmp_path: Path
) -> None:
    secret, record = new_secret(), tmp_path / "received.jsonl"
    with faulty_receiver(record, secret) as (receiver, port):
        receiver.delay = 0.3  # so that deliveries are in flight when the worker dies
        more = ("--webhook-visibility-seconds", "2")
        (doomed,) = spawn(own_redis.url, 1, *flags(endpoint("app", port, secret), more=more))
        played = games(doomed.http_port, 3)
        wait_until(lambda: receiver.requests > len(received(record)), 10, 0.01)
        kill_worker(doomed)  # while it waits for the receiver's answer
        count(webhook_workers_killed=1)
        (survivor,) = spawn(own_redis.url, 1, *flags(endpoint("app", port, secret), more=more))
        check_all_once_in_order(record, expected(survivor.http_port, played))
        again = receiver.requests - len({wid for _, wid, _ in receiver.taken})
        count(webhook_deliveries_repeated=again)
        assert again >= 1, "the dead worker's deliveries were made again"


def test_redis_killed_and_restarted_with_aof_loses_nothing(
    spawn: Spawn, own_redis: RedisServer, tmp_path: Path
) -> None:
    secret, record = new_secret(), tmp_path / "received.jsonl"
    with faulty_receiver(record, secret) as (receiver, port):
        receiver.answer = lambda _headers: 503
        (worker,) = spawn(own_redis.url, 1, *flags(endpoint("app", port, secret)))
        played = games(worker.http_port, 2)
        wanted = expected(worker.http_port, played)
        own_redis.kill()
        own_redis.start()
        count(webhook_redis_restarts=1)
        receiver.answer = lambda _headers: None
        check_all_once_in_order(record, wanted)


def test_a_slow_endpoint_does_not_delay_another(
    spawn: Spawn, own_redis: RedisServer, tmp_path: Path
) -> None:
    secret = new_secret()
    slow_record, fast_record = tmp_path / "slow.jsonl", tmp_path / "fast.jsonl"
    with (
        faulty_receiver(slow_record, secret) as (slow, slow_port),
        faulty_receiver(fast_record, secret) as (_, fast_port),
    ):
        slow.delay = 5.0
        (worker,) = spawn(
            own_redis.url,
            1,
            *flags(
                endpoint("slow", slow_port, secret, timeout=3, concurrency=2),
                endpoint("fast", fast_port, secret),
            ),
        )
        played = games(worker.http_port, 3)
        check_all_once_in_order(fast_record, expected(worker.http_port, played))
    latencies = sorted(
        note["received"] - datetime.fromisoformat(note["timestamp"]).timestamp()
        for note in received(fast_record)
    )
    p50, p99 = latencies[len(latencies) // 2], latencies[int(len(latencies) * 0.99)]
    count(webhook_latency_p50_ms=round(p50 * 1000), webhook_latency_p99_ms=round(p99 * 1000))
    # Never held up by the slow one: that would take its timeout (3 s) at least.
    assert latencies[-1] < 3.0
    assert len(received(slow_record)) < len(received(fast_record))


def genial(redis_url: str, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "genial.service.cli", "webhooks", *args],
        env={**os.environ, "GENIAL_REDIS_URL": redis_url},
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    return done.stdout


def test_gone_disables_failures_go_dead_and_are_replayed(
    spawn: Spawn, own_redis: RedisServer, tmp_path: Path
) -> None:
    secret = new_secret()
    gone_record, flaky_record = tmp_path / "gone.jsonl", tmp_path / "flaky.jsonl"
    with (
        faulty_receiver(gone_record, secret) as (gone, gone_port),
        faulty_receiver(flaky_record, secret) as (flaky, flaky_port),
    ):
        gone.answer = lambda _headers: 410
        flaky.answer = lambda _headers: 500
        (worker,) = spawn(
            own_redis.url,
            1,
            *flags(
                endpoint("gone", gone_port, secret),
                endpoint("flaky", flaky_port, secret),
                more=("--webhook-retry-seconds", "2"),
            ),
        )
        played = games(worker.http_port, 1)
        wanted = expected(worker.http_port, played)
        total = sum(len(facts) for facts in wanted.values())

        def dead() -> list[dict[str, object]]:
            return [json.loads(line) for line in genial(own_redis.url, "failed").splitlines()]

        wait_until(lambda: len(dead()) == 2 * total, 30, 0.5)
        reasons = Counter((d["endpoint"], str(d["why"]).split()[0]) for d in dead())
        assert reasons[("flaky", "failed")] == total
        assert reasons[("gone", "gone")] == 1
        assert reasons[("gone", "endpoint")] == total - 1  # disabled after the first 410
        assert gone.requests == 1
        metrics = f"{worker.admin_url}/metrics"
        wait_until(lambda: "genial_webhook_endpoints_disabled 1.0" in httpx.get(metrics).text, 10)

        flaky.answer = lambda _headers: None
        assert genial(own_redis.url, "replay", "--all") == f"queued again: {2 * total}\n"
        check_all_once_in_order(flaky_record, wanted)
        wait_until(lambda: len(dead()) == total, 10, 0.5)  # the gone endpoint's, again
    assert not received(gone_record)
