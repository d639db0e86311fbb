"""The store's benchmark: a move's write on Redis against the same write in process.

    python -m loadtest.bench_store [--writes 2000] [--repeats 3] [--in-flight 1,32]

What Redis adds to a move's CPU, without gRPC, HTTP or the engine around it: the worker's
share of the write (packing the record, the script call, the round trip's system calls,
the reply) is small beside the rest of a move, and `make bench`'s lines on two shared
cores spread more than it. Here one process on uvloop writes compare-and-sets of a real
game's record to a `RedisStore` on a redis-server of its own and to a `MemoryStore`, with 1
write in flight (every write a round trip of its own, as gRPC's moves are) and with many
(batched, as REST's are), each `--repeats` times in turn, and prints each line's median CPU
a write (this process's user + kernel time; Redis's own is not counted) and "Redis's
part": the Redis store's CPU a write less the in-process one's, measured in the same run.
As `loadtest.pinned` does, this process runs on the machine's last core and Redis on the
others, so that neither takes the other's core.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import uvloop

from genial import engine
from genial.service import records
from genial.service.store.base import GameStore, Record, Write
from genial.service.store.memory import MemoryStore
from genial.service.store.redis import RedisStore

from .pinned import cores, pin
from .processes import start_redis, stop


@dataclass(frozen=True)
class Line:
    store: str
    in_flight: int
    cpu_us: float
    """This process's CPU time a write, in microseconds."""
    rate: float


def game_record() -> tuple[bytes, bytes]:
    """A two-seat card game's state a few moves in, and its metadata, as stored."""
    rnd = random.Random(7)
    state = engine.new_game("cards", 2, rnd.randbytes(16))
    for _ in range(6):
        assert state.to_move is not None
        state, _ = state.apply(state.to_move, rnd.choice(state.legal_moves()))
    meta = records.GameMeta(
        kind="cards",
        seats=2,
        created=time.time(),
        names=["Ada", "Grace"],
        tokens=["a" * 43, "b" * 43],
        bots=[None, None],
        away=[False, False],
    )
    return records.encode_state(state), records.encode_meta(meta)


async def writes(store: GameStore, in_flight: int, total: int, run: str) -> Line:
    """`in_flight` games written at once, each `total // in_flight` times in a row (a
    move's compare-and-set, its log entry and request id)."""
    count = max(1, total // in_flight)
    state, meta = game_record()
    games = [f"bench-{run}-{n}" for n in range(in_flight)]
    for game_id in games:
        created = await store.create(game_id, Record(state, meta, 0, 1), [], 3600)
        assert created, game_id

    async def play(game_id: str) -> None:
        for version in range(1, count + 1):
            write = Write(
                version, state, version, (version, 0), b"move", meta, f"r{version}", 3600.0
            )
            result = await store.write(game_id, write)
            assert result.ok, result

    cpu, wall = time.process_time(), time.perf_counter()
    await asyncio.gather(*(play(game_id) for game_id in games))
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    done = in_flight * count
    return Line(type(store).__name__, in_flight, cpu / done * 1e6, done / wall)


async def measure(redis_url: str, in_flight: Sequence[int], total: int, repeats: int) -> list[Line]:
    """Each repeat: every in-flight count on both stores, in turn."""
    redis = RedisStore.from_url(redis_url)
    found = []
    try:
        await writes(redis, max(in_flight), total, "warm")  # scripts loaded, code warm
        for repeat in range(repeats):
            for n in in_flight:
                for store in (redis, MemoryStore()):
                    found.append(await writes(store, n, total, f"{repeat}-{n}"))
    finally:
        await redis.close()
    return found


def summary(lines: Sequence[Line]) -> list[str]:
    """A markdown table: each line's medians, and Redis's part beside the Redis store's."""
    rows = [
        "| in flight | store | CPU µs a write | writes/s | Redis's part, µs a write |",
        "| ---: | --- | ---: | ---: | ---: |",
    ]
    for n in sorted({line.in_flight for line in lines}):
        medians = {}
        for store in ("RedisStore", "MemoryStore"):
            mine = [line for line in lines if line.in_flight == n and line.store == store]
            medians[store] = statistics.median(line.cpu_us for line in mine)
            rate = statistics.median(line.rate for line in mine)
            rows.append(f"| {n} | {store} | {medians[store]:.1f} | {rate:.0f} |")
        rows[-2] += f" {medians['RedisStore'] - medians['MemoryStore']:.1f} |"
        rows[-1] += " |"
    return rows


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--writes", type=int, default=2000, help="writes in all, each line")
    parser.add_argument("--repeats", type=int, default=3, help="passes over the lines")
    parser.add_argument("--in-flight", default="1,32", help="games written at once, e.g. 1,32")
    args = parser.parse_args(argv)
    in_flight = [int(n) for n in args.in_flight.split(",")]
    with tempfile.TemporaryDirectory(prefix="genial-bench-store-") as directory:
        proc, port = start_redis(Path(directory))
        mine, others = cores()
        os.sched_setaffinity(0, mine)
        pin(proc.pid, others)
        try:
            found = uvloop.run(
                measure(f"redis://127.0.0.1:{port}/0", in_flight, args.writes, args.repeats)
            )
        finally:
            stop(proc)
    print("\n".join(summary(found)))


if __name__ == "__main__":
    main()
