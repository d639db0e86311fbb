"""Redis behind Sentinel, and the replica wait, against real servers: the store finds the
master through the Sentinels and follows a failover (the move path's link leaves a demoted
master), a password from the settings, a move that waits for a replica (one WAIT for a
batch of moves), and one whose replica does not confirm it in time."""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from redis.exceptions import TimeoutError as RedisTimeoutError

from genial.service.store import Record, Write
from genial.service.store.redis import RedisStore
from genial.service.store.redis_commands import Sentinels
from tests.conftest import start_redis
from tests.reliability.harness import SENTINEL_MASTER, Replicated, start_replicated, wait_until


@pytest.fixture(scope="module")
def replicated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Replicated]:
    found = start_replicated(tmp_path_factory.mktemp("sentinel"), replicas=1, sentinels=1)
    yield found
    found.stop()


def sentinels_of(replicated: Replicated) -> Sentinels:
    addresses = ",".join(f"127.0.0.1:{s.port}" for s in replicated.sentinels)
    return Sentinels.parse(addresses, SENTINEL_MASTER)


def move(rev: int, request_id: str | None = None) -> Write:
    return Write(
        expected_rev=rev,
        state=b"state-%d" % (rev + 1),
        version=rev + 1,
        entry_id=(rev + 1, 0),
        entry=b"move",
        meta=b"m",
        request_id=request_id,
        ttl=60,
    )


async def new_game(store: RedisStore) -> str:
    game = secrets.token_hex(6)
    assert await store.create(game, Record(b"s", b"m", 0, 0), (), 60)
    return game


def test_sentinel_addresses_are_parsed() -> None:
    found = Sentinels.parse(" a.example:26379,[fd00::7]:26380 ,", "games", "pw")
    assert found == Sentinels([("a.example", 26379), ("fd00::7", 26380)], "games", "pw")
    assert Sentinels.parse("a:1", "m").password is None
    for bad in ("a.example", "a:port", ":26379"):
        with pytest.raises(ValueError, match="host:port"):
            Sentinels.parse(bad, "m")


async def test_moves_wait_for_a_replica_sharing_one_wait(replicated: Replicated) -> None:
    wait_until(replicated.in_sync, 30, 0.1)  # (after the failover above)
    store = RedisStore.from_url("", sentinels=sentinels_of(replicated), wait=(1, 500))
    games = [await new_game(store) for _ in range(20)]
    master = redis.Redis(port=replicated.master_port())
    waits = master.info("commandstats").get("cmdstat_wait", {}).get("calls", 0)
    results = await asyncio.gather(*(store.write(game, move(0)) for game in games))
    assert all(r.ok for r in results)
    stats = master.info("commandstats")
    # The twenty moves left in one batch: the replica confirmed them with one WAIT or few.
    assert 1 <= stats["cmdstat_wait"]["calls"] - waits < 10
    # The replica has them all.
    replica = next(s for s in replicated.servers if s.port != replicated.master_port())
    with redis.Redis(port=replica.port) as client:
        assert all(client.exists(f"genial:{{{game}}}:game") for game in games)
    # A replica that does not answer: the move is applied on the master but not
    # acknowledged; its retry (same request id) is recognised.
    assert replica.proc is not None
    replica.pause()
    try:
        started = time.monotonic()
        with pytest.raises(RedisTimeoutError, match="0 of 1 Redis replicas"):
            await store.write(games[0], move(1, "req-1"))
        assert 0.5 <= time.monotonic() - started < 1.5
    finally:
        replica.resume()
    assert (await store.write(games[0], move(1, "req-1"))).duplicate_version == 2
    master.close()
    await store.close()


async def test_the_password_setting_wins_over_the_urls(tmp_path: Path) -> None:
    proc, port = start_redis(tmp_path, "--requirepass", "s3cret")
    try:
        for url in (f"redis://127.0.0.1:{port}/0", f"redis://:wrong@127.0.0.1:{port}/0"):
            store = RedisStore.from_url(url, password="s3cret")
            game = await new_game(store)
            assert (await store.write(game, move(0))).ok
            assert await store.ping()
            follower = await store.follow(game)  # the subscriber's connection too
            follower.close()
            await store.close()
    finally:
        proc.terminate()
        proc.wait(10)


async def test_the_store_follows_a_sentinel_failover(replicated: Replicated) -> None:
    """The master killed, the Sentinel promotes the replica; the store asks the Sentinel
    again and the game goes on there. (Last: the servers are one fewer after it.)"""
    wait_until(replicated.in_sync, 30, 0.1)
    store = RedisStore.from_url("", sentinels=sentinels_of(replicated), timeout=1)
    game = await new_game(store)
    assert (await store.write(game, move(0))).ok
    master = replicated.master()
    replica = next(s for s in replicated.servers if s is not master)
    with redis.Redis(port=replica.port) as client:
        wait_until(lambda: client.exists(f"genial:{{{game}}}:log") == 1, 5)
    generation = store.generation
    master.kill()
    deadline = time.monotonic() + 20
    while True:
        try:
            result = await store.write(game, move(1))
            break
        except redis.RedisError:
            assert time.monotonic() < deadline, "the store found the new master"
            await asyncio.sleep(0.1)
    assert result.ok
    assert replicated.master_port() == replica.port
    assert store.generation > generation, "records kept from before are read anew"
    record, _ = await store.read(game)
    assert record is not None
    assert record.version == 2
    assert [e.id for e in await store.entries(game, (0, 0))] == [(1, 0), (2, 0)]
    await store.close()
