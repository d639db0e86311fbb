"""The Redis baseline a move is measured against: the store's own read + compare-and-set
cycle on the same Redis with no service around it. (The others, the empty call of the same
server and the move on a worker with the in-process store, which tells Redis's part of a
move by subtraction, `generator.measure_service` runs in alternate rounds with the move.)"""

from __future__ import annotations

import asyncio
import random
import secrets
import tempfile
import time
from pathlib import Path

import redis.asyncio as aioredis

from genial import engine
from genial.service import log_entries, records
from genial.service.credentials import token_digest
from genial.service.records import GameMeta
from genial.service.store import Record, Write
from genial.service.store.redis import RedisStore

from .generator import Result, Session, median, result_of
from .processes import start_redis, stop
from .slots import ROUNDS, Slot
from .windows import closed_loop


class RedisCycle:
    """The store's part of a move and nothing else: read (with the request id), then the
    compare-and-set script, on a game record like the service's."""

    def __init__(self, store: RedisStore, game_id: str, entry: bytes, ttl: float) -> None:
        self.store = store
        self.game_id = game_id
        self.entry = entry
        self.ttl = ttl
        self.answer_bytes = 0

    async def __call__(self) -> None:
        record, _ = await self.store.read(self.game_id, f"m{secrets.randbits(40)}")
        assert record is not None
        version = record.version + 1
        result = await self.store.write(
            self.game_id,
            Write(
                expected_rev=record.rev,
                state=record.state,
                meta=record.meta,
                version=version,
                entry_id=(version, 0),
                entry=self.entry,
                request_id=f"m{version}",
                ttl=self.ttl,
            ),
        )
        if not result.ok:
            raise RuntimeError("compare-and-set lost: slots must not share games")

    async def refresh(self) -> None:
        pass


def sample_record() -> tuple[Record, bytes]:
    """A record and a move's log entry shaped like the service's for a dice game."""
    rnd = random.Random(7)
    state = engine.new_game("dice", 2, rnd.randbytes(16), {"rounds": ROUNDS})
    move = {"type": "roll"}
    digest = token_digest("token")
    meta = GameMeta(
        kind="dice",
        seats=2,
        created=round(time.time(), 3),
        names=["bench 0", "bench 1"],
        tokens=[digest, digest],
        bots=[None, None],
        away=[False, False],
    )
    entry = log_entries.encode_move(
        "dice", log_entries.LoggedMove(0, log_entries.Cause.PLAYER, move)
    )
    return Record(state.encode(), records.encode_meta(meta), 0, 0), entry


async def measure_redis(session: Session) -> list[Result]:
    """The store's read + compare-and-set cycle alone, from this process, on the same Redis;
    then the same with a replica that must confirm each write (`--redis-wait-replicas 1`):
    the replica wait's cost a move."""
    plain = await _cycles(session, RedisStore.from_url(session.deployment.redis_url), "cycle")
    with tempfile.TemporaryDirectory(prefix="genial-replica-") as data:
        port = session.deployment.redis_port
        replica, _ = start_redis(Path(data), "--replicaof", "127.0.0.1", str(port))
        try:
            await _in_sync(session.deployment.redis_url)
            store = RedisStore.from_url(session.deployment.redis_url, wait=(1, 500))
            waited = await _cycles(session, store, "cycle, WAIT 1 replica")
        finally:
            stop(replica)
    return [plain, waited]


async def _in_sync(url: str) -> None:
    """Until the master's one replica is done with its first sync."""
    master = aioredis.from_url(url)
    try:
        for _ in range(600):
            replication = await master.info("replication")
            if replication.get("slave0", {}).get("state") == "online":
                return
            await asyncio.sleep(0.05)
        raise RuntimeError("the replica did not sync within 30 s")
    finally:
        await master.aclose()


async def _cycles(session: Session, store: RedisStore, call: str) -> Result:
    options = session.options
    record, entry = sample_record()
    rounds = []
    try:
        for _ in range(options.rounds):
            slots: list[Slot] = []
            for _ in range(options.concurrency):
                game_id = secrets.token_urlsafe(12)
                await store.create(game_id, record, (), 3600)
                slots.append(RedisCycle(store, game_id, entry, 3600))
            measured = await closed_loop(slots, session.probe, options.window)
            rounds.append(
                result_of("redis", call, "redis", 0, "peak", options.concurrency, measured)
            )
    finally:
        await store.close()
    return median(rounds)
