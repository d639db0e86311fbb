"""One suite, both stores: the compare-and-set, the log, request ids, expiry, the lobby."""

from __future__ import annotations

import asyncio
import random
import secrets
import time
import zlib
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import redis

from genial import engine
from genial.service import records
from genial.service.census import Census
from genial.service.credentials import token_digest
from genial.service.health import StoreHealth
from genial.service.metrics import METRICS
from genial.service.records import GameMeta
from genial.service.settings import Settings
from genial.service.store import (
    Entry,
    GameStore,
    MemoryStore,
    Record,
    Write,
    open_store,
    record_codec,
)
from genial.service.store.base import REQUEST_IDS_KEPT
from genial.service.store.record_codec import CODECS, RecordCodec
from genial.service.store.redis import RedisStore
from tests.conftest import start_redis


@pytest.fixture(params=["memory", "redis"])
async def store(request: pytest.FixtureRequest) -> AsyncIterator[GameStore]:
    if request.param == "memory":
        s: GameStore = MemoryStore()
    else:
        s = RedisStore.from_url(request.getfixturevalue("redis_url"))
    yield s
    await s.close()


def gid() -> str:
    return secrets.token_urlsafe(12)


def move(rev: int, version: int, request_id: str | None = None, ttl: float = 0) -> Write:
    return Write(
        expected_rev=rev,
        state=f"state-{version}".encode(),
        version=version,
        entry_id=(version, 0),
        entry=f"move-{version}".encode(),
        meta=b"m",
        request_id=request_id,
        ttl=ttl,
    )


async def test_create_read_and_refuse_a_taken_id(store: GameStore) -> None:
    game = gid()
    record = Record(b"s0", b"m0", 0, 0)
    assert await store.create(game, record, (), 0)
    assert not await store.create(game, Record(b"x", b"y", 0, 0), (), 0)
    got, done = await store.read(game)
    assert got == record
    assert done is None
    assert await store.read(gid()) == (None, None)


async def test_compare_and_set_and_the_log(store: GameStore) -> None:
    game = gid()
    await store.create(
        game, Record(b"s0", b"m0", 0, 0), [Entry((0, 1), b"join"), Entry((0, 2), b"join")], 0
    )
    first = await store.write(game, move(0, 1))
    assert (first.ok, first.rev) == (True, 1)
    stale = await store.write(game, move(0, 1))
    assert (stale.ok, stale.rev) == (False, 1)
    # The conflict answers with the record that won, so the loser needs no read.
    assert stale.current == Record(b"state-1", b"m", 1, 1)
    await store.write(game, Write(1, b"s2", 2, (2, 0), b"move-2", meta=b"m2"))
    record, _ = await store.read(game)
    assert record == Record(b"s2", b"m2", 2, 2)
    log = await store.entries(game, (0, 0))
    assert [(e.id, e.data) for e in log] == [
        ((0, 1), b"join"),
        ((0, 2), b"join"),
        ((1, 0), b"move-1"),
        ((2, 0), b"move-2"),
    ]
    assert [e.id for e in await store.entries(game, (1, 0))] == [(2, 0)]
    assert await store.entries(game, (2, 0)) == []
    assert await store.entries(game, (0, 2), (1, 0)) == [Entry((1, 0), b"move-1")]
    assert await store.entries(game, (5, 0)) == []


async def test_snapshots_are_kept_with_their_version(store: GameStore) -> None:
    game = gid()
    await store.create(game, Record(b"s0", b"m0", 0, 0), (), 0)
    await store.write(game, Write(0, b"s1", 1, (1, 0), b"move-1", meta=b"m", snapshot=b"at 1"))
    await store.write(game, move(1, 2))
    assert await store.snapshot(game, 1) == b"at 1"
    assert await store.snapshot(game, 2) is None
    assert await store.snapshot(gid(), 1) is None


async def test_request_ids_of_old_moves_are_pruned(store: GameStore) -> None:
    game = gid()
    await store.create(game, Record(b"s0", b"m0", 0, 0), (), 0)
    for version in range(1, 2 * REQUEST_IDS_KEPT + 1):
        assert (await store.write(game, move(version - 1, version, f"r{version}"))).ok
    # Kept for the 64 moves after their own at least, then pruned with the next 64th.
    assert (await store.read(game, f"r{REQUEST_IDS_KEPT + 1}"))[1] == REQUEST_IDS_KEPT + 1
    assert (await store.read(game, f"r{REQUEST_IDS_KEPT}"))[1] is None
    assert (await store.read(game, "r1"))[1] is None


async def test_a_request_id_is_applied_once(store: GameStore) -> None:
    game = gid()
    await store.create(game, Record(b"s0", b"m0", 0, 0), (), 0)
    assert (await store.write(game, move(0, 1, "req-1"))).ok
    again = await store.write(game, move(1, 2, "req-1"))
    assert (again.ok, again.duplicate_version) == (False, 1)
    # Recognised even against an old record (a worker's kept one), and after other moves.
    assert (await store.write(game, move(1, 2, "req-2"))).ok
    late = await store.write(game, move(0, 1, "req-1"))
    assert (late.ok, late.duplicate_version) == (False, 1)
    record, done = await store.read(game, "req-1")
    assert record is not None
    assert (record.version, done) == (2, 1)
    assert (await store.read(game, "req-3"))[1] is None


async def test_a_follower_is_woken_by_a_write_of_its_game(store: GameStore) -> None:
    game, other = gid(), gid()
    for g in (game, other):
        await store.create(g, Record(b"s0", b"m0", 0, 0), (), 0)
    follower = await store.follow(game)
    try:
        generation = follower.generation
        waiter = asyncio.create_task(follower.wait(5))
        await asyncio.sleep(0.1)
        await store.write(other, move(0, 1))
        await asyncio.sleep(0.1)
        assert not waiter.done()
        await store.write(game, move(0, 1))
        assert await asyncio.wait_for(waiter, 5)
        assert follower.generation > generation
        # Nothing new: the wait ends with the timeout.
        assert not await follower.wait(0.05)
    finally:
        follower.close()


async def test_first_follows_at_once_share_one_confirmed_subscription(redis_url: str) -> None:
    """A worker's first watches, sent at once (clients back after a deploy): each is
    confirmed and woken, over one subscription connection (redis-py's PubSub opened one a
    concurrent first subscribe and listened to the last: the others waited forever)."""
    store = RedisStore.from_url(redis_url)
    games = [gid() for _ in range(20)]
    for g in games:
        await store.create(g, Record(b"s0", b"m0", 0, 0), (), 0)
    followers = await asyncio.wait_for(asyncio.gather(*(store.follow(g) for g in games)), 10)
    admin = redis.Redis.from_url(redis_url)
    mine = [c for c in admin.client_list() if "P" in c["flags"] and int(c["sub"]) == len(games)]
    assert len(mine) == 1, "one subscription connection, with every game"
    waits = [asyncio.create_task(f.wait(5)) for f in followers]
    for g in games:
        await store.write(g, move(0, 1))
    assert all(await asyncio.gather(*waits))
    for f in followers:
        f.close()
    admin.close()
    await store.close()


async def test_a_subscription_redis_does_not_confirm_fails_in_time(tmp_path: Path) -> None:
    """A follow whose subscription Redis leaves unanswered is an error within the store's
    timeout, not a wait without end; once Redis answers, the next follow of the game works.
    (A Redis of its own: the pause would stall the session's workers too.)"""
    proc, port = start_redis(tmp_path)
    url = f"redis://127.0.0.1:{port}/0"
    store = RedisStore.from_url(url, timeout=0.5)
    admin = redis.Redis.from_url(url)
    try:
        game = gid()
        await store.create(game, Record(b"s0", b"m0", 0, 0), (), 0)
        admin.execute_command("CLIENT", "PAUSE", 2000, "ALL")
        started = time.monotonic()
        with pytest.raises(redis.exceptions.TimeoutError):
            await store.follow(game)
        assert time.monotonic() - started < 1.5, "before Redis answers again"
        await asyncio.sleep(2.5 - (time.monotonic() - started))
        follower = await asyncio.wait_for(store.follow(game), 5)
        waiter = asyncio.create_task(follower.wait(5))
        await store.write(game, move(0, 1))
        assert await waiter
        follower.close()
    finally:
        admin.close()
        await store.close()
        proc.terminate()
        proc.wait(10)


async def test_games_expire(store: GameStore) -> None:
    game = gid()
    await store.create(game, Record(b"s0", b"m0", 0, 0), (), ttl=0.3)
    assert (await store.read(game))[0] is not None
    await store.write(game, move(0, 1, "req-1", ttl=0.3))
    await asyncio.sleep(0.6)
    assert await store.read(game, "req-1") == (None, None)
    assert await store.entries(game, (0, 0)) == []


async def test_concurrent_writers_lose_no_update(store: GameStore) -> None:
    game = gid()
    await store.create(game, Record(b"0", b"m", 0, 0), (), 0)

    async def bump(times: int) -> int:
        done = 0
        while done < times:
            record, _ = await store.read(game)
            assert record is not None
            result = await store.write(game, move(record.rev, record.version + 1))
            done += result.ok
        return done

    counts = await asyncio.gather(*(bump(10) for _ in range(8)))
    record, _ = await store.read(game)
    assert record is not None
    assert record.version == sum(counts) == 80
    log = await store.entries(game, (0, 0))
    assert [e.id[0] for e in log] == list(range(1, 81))


async def test_lobby_pages_in_creation_order(store: GameStore) -> None:
    kind = f"k{secrets.token_hex(4)}"
    for i in range(5):
        await store.lobby_add(kind, f"g{i}", 100.0 + i)
    await store.lobby_remove(kind, "g2")
    first = await store.lobby_page(kind, 0, 2)
    assert [g for g, _ in first] == ["g0", "g1"]
    rest = await store.lobby_page(kind, first[-1][1], 10)
    assert [g for g, _ in rest] == ["g3", "g4"]


async def test_ping(store: GameStore) -> None:
    assert await store.ping()


async def test_the_schedule_leases_due_games_once(store: GameStore) -> None:
    # Times far in the future: the workers other tests run on the same Redis lease every
    # game due by their clock (turns.py), and would take one due at a time in the past.
    t = 1e11
    game = gid()
    await store.schedule(game, t + 100.0)
    assert (game, t + 100.0) in await store.due(t + 100.5, 1000)
    assert game not in [g for g, _ in await store.due(t + 99.0, 1000)]
    assert await store.lease(game, t + 100.0, t + 110.0)
    assert not await store.lease(game, t + 100.0, t + 120.0)  # another worker was first
    assert game not in [g for g, _ in await store.due(t + 105.0, 1000)]
    assert (game, t + 110.0) in await store.due(t + 110.0, 1000)  # the lease ran out
    await store.schedule(game, t + 200.0)  # a newer move scheduled it again
    assert not await store.unschedule(game, t + 110.0)
    assert await store.unschedule(game, t + 200.0)
    assert game not in [g for g, _ in await store.due(1e12, 1000)]


async def test_a_write_after_redis_forgot_its_scripts(redis_url: str) -> None:
    store = RedisStore.from_url(redis_url)
    game = gid()
    await store.create(game, Record(b"s0", b"m0", 0, 0), (), 0)
    admin = redis.Redis.from_url(redis_url)
    admin.script_flush()  # as after a restart
    assert (await store.write(game, move(0, 1))).ok
    admin.close()
    await store.close()


async def test_a_live_game_takes_under_a_kibibyte(redis_url: str) -> None:
    """The largest live state of a four-seat card game over many random games, with the
    metadata of four named players, stored as the service stores it."""
    rng = random.Random(7)
    largest = b""
    for _ in range(20):
        state = engine.new_game("cards", 4)
        while not state.is_over():
            state, _ = state.apply(state.to_move, rng.choice(state.legal_moves()))
            if len(encoded := state.encode()) > len(largest):
                largest = encoded
    meta = GameMeta(
        kind="cards",
        seats=4,
        created=round(time.time(), 3),
        names=["A display name of 32 characters!"] * 4,
        tokens=[token_digest(secrets.token_urlsafe(32)) for _ in range(4)],
        bots=[None] * 4,
        away=[False] * 4,
        turn_seconds=60,
        turn_started=round(time.time(), 3),
    )
    store = RedisStore.from_url(redis_url)
    game = gid()
    await store.create(game, Record(largest, records.encode_meta(meta), 97, 101), (), 3600)
    admin = redis.Redis.from_url(redis_url)
    size = admin.memory_usage(f"genial:{{{game}}}:game", samples=0)
    admin.close()
    await store.close()
    assert len(largest) > 800  # a realistic worst case
    assert size is not None
    assert size < 640, size  # 520 B with zstd and its dictionary (zlib: 712 B)


def recorded_games(seed: str) -> list[Record]:
    """Records along random games of every kind and seat count, with named seats."""
    found = []
    for kind in sorted(engine.GAMES):
        for seats in (2, 3, 4):
            rng = random.Random(f"{seed}-{kind}-{seats}")
            meta = GameMeta(
                kind=kind,
                seats=seats,
                created=round(time.time(), 3),
                names=[f"Player {n}" for n in range(seats)],
                tokens=[token_digest(secrets.token_urlsafe(32)) for _ in range(seats)],
                bots=[None] * seats,
                away=[False] * seats,
            )
            state = engine.new_game(kind, seats, rng.randbytes(16))
            while not state.is_over():
                state, _ = state.apply(state.to_move, rng.choice(state.legal_moves()))
                if rng.random() < 0.1:
                    record = records.encode_state(state), records.encode_meta(meta)
                    found.append(Record(*record, rng.randrange(500), rng.randrange(500)))
    return found


@pytest.mark.parametrize("codec", CODECS)
def test_records_read_back_in_either_codec(codec: RecordCodec) -> None:
    for record in recorded_games("codec"):
        assert record_codec.unpack(record_codec.pack(record, codec)) == record


def test_the_dictionary_makes_records_about_half_of_what_zlib_makes() -> None:
    # Games the dictionary was not trained on (scripts/record_dictionary.py).
    games = recorded_games("unseen")
    plain = sum(len(r.meta + r.state) for r in games)
    zstd = sum(len(record_codec.pack(r, "zstd")) for r in games)
    zlib_size = sum(len(record_codec.pack(r, "zlib")) for r in games)
    assert plain / zstd > 3.0, (plain, zstd)
    assert zlib_size / zstd > 1.8, (zlib_size, zstd)


async def test_a_rolling_upgrade_from_zlib_workers(redis_url: str) -> None:
    """Workers of releases before the zstd codec write zlib records and read only those:
    while they run, new workers write zlib too (`record_codec=zlib`); after, zstd. Every
    worker of this release reads both, so a game goes on across the switch."""
    before, after = RedisStore.from_url(redis_url, codec="zlib"), RedisStore.from_url(redis_url)
    admin = redis.Redis.from_url(redis_url)
    game = gid()
    key = f"genial:{{{game}}}:game"
    try:
        assert await before.create(game, Record(b"state-0", b"meta", 0, 0), (), 0)
        head, _, body = admin.get(key).partition(b"\n")  # type: ignore[union-attr]
        # As older workers read it: three numbers, then zlib of the metadata and state.
        assert head == b"0 0 4"
        assert zlib.decompress(body) == b"metastate-0"
        assert (await after.write(game, move(0, 1))).ok
        assert admin.get(key).startswith(b"1 1 1 zd1\n")  # type: ignore[union-attr]
        assert (await before.read(game))[0] == Record(b"state-1", b"m", 1, 1)
        assert (await before.write(game, move(1, 2))).ok
        assert (await after.read(game))[0] == Record(b"state-2", b"m", 2, 2)
    finally:
        admin.close()
        await before.close()
        await after.close()


def test_an_unknown_codec_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown codec"):
        record_codec.unpack(b"1 1 1 zd9\nxyz")
    with pytest.raises(ValueError, match="record_codec is one of zstd, zlib"):
        open_store(Settings(redis_url="redis://127.0.0.1:1/0", record_codec="lz4"))
    with pytest.raises(ValueError, match="record_codec is one of zstd, zlib"):
        open_store(Settings(record_codec="zstd "))


async def test_a_unix_socket_redis_url(tmp_path: Path) -> None:
    """unix:// URLs are redis-py's (the lean connection speaks TCP): the same move path."""
    socket_path = tmp_path / "redis.sock"
    proc, _ = start_redis(tmp_path, "--unixsocket", str(socket_path), "--unixsocketperm", "700")
    try:
        store = RedisStore.from_url(f"unix://{socket_path}?db=0")
        game = gid()
        assert await store.create(game, Record(b"s0", b"m0", 0, 0), (), 0)
        assert (await store.write(game, move(0, 1, "req-1"))).ok
        assert (await store.write(game, move(1, 2, "req-1"))).duplicate_version == 1
        record, done = await store.read(game, "req-1")
        assert record is not None
        assert (record.version, done) == (1, 1)
        # redis-py parses a stream's rows its own way: the log reads the same.
        assert await store.entries(game, (0, 0)) == [Entry((1, 0), b"move-1")]
        await store.close()
    finally:
        proc.terminate()
        proc.wait(10)


async def test_shared_counters_add_up_and_expire(store: GameStore) -> None:
    a, b = f"k{secrets.token_hex(4)}", f"k{secrets.token_hex(4)}"
    assert await store.add_counts({a: 3, b: 1}, ttl=0.3) == {a: 3, b: 1}
    assert await store.add_counts({a: 2}, ttl=0.3) == {a: 5}  # the first ttl stands
    await asyncio.sleep(0.5)
    assert await store.add_counts({a: 1, b: 0}, ttl=10) == {a: 1, b: 0}


async def test_game_counts_add_up_by_bucket_and_forget_past_ones(store: GameStore) -> None:
    # Statuses of this test's own: the workers of the session share the store's counts.
    a, b = f"s{secrets.token_hex(4)}", f"s{secrets.token_hex(4)}"
    assert await store.count_games({a: {10: 2, 11: 1}}, {a: 0, b: 0}) == {a: 3, b: 0}
    assert await store.count_games({a: {11: -1, 12: 4}, b: {5: 1}}, {a: 0, b: 0}) == {
        a: 6,
        b: 1,
    }
    # From bucket 11 on: bucket 10 is past, and forgotten even for a later, earlier `since`.
    assert await store.count_games({}, {a: 11, b: 0}) == {a: 4, b: 1}
    assert await store.count_games({}, {a: 0, b: 6}) == {a: 4, b: 0}
    assert await store.count_games({a: {10: 1}}, {a: 0, b: 0}) == {a: 5, b: 0}


async def test_the_connections_a_worker_holds_are_counted(redis_url: str) -> None:
    store = RedisStore.from_url(redis_url)
    assert store.connections() == 0
    game = gid()
    assert await store.create(game, Record(b"s0", b"m0", 0, 0), (), 0)  # the link
    await store.lobby_add("dice", game, 1.0)  # redis-py's pool
    follower = await store.follow(game)  # the subscriber's
    assert store.connections() == 3
    health = StoreHealth(store, Settings(), Census(Settings()))
    await health.sample()
    assert METRICS.redis_connections._value.get() == 3
    follower.close()
    await store.close()
    assert store.connections() == 0


async def test_a_burst_of_lobby_calls_waits_for_the_bounded_pool(redis_url: str) -> None:
    """200 lobby calls at once on a pool of 2: all answered, never a third connection
    (an unbounded pool opened one a call)."""
    store = RedisStore.from_url(redis_url, pool_size=2)
    admin = redis.Redis.from_url(redis_url)
    before = len(admin.client_list())
    ids = [gid() for _ in range(200)]
    await asyncio.gather(*(store.lobby_add("burst", g, i + 1.0) for i, g in enumerate(ids)))
    assert store.connections() == 2
    assert len(admin.client_list()) == before + 2
    page = await store.lobby_page("burst", 0.0, 500)
    assert [g for g, _ in page] == ids
    for g in ids:
        await store.lobby_remove("burst", g)
    admin.close()
    await store.close()
