"""The store's benchmark against a redis-server of its own: every write it times lands."""

import uvloop

from genial.service.store.redis import RedisStore
from loadtest.bench_store import measure, summary


def test_each_line_writes_its_games_through_and_is_summed_up(redis_url: str) -> None:
    lines = uvloop.run(measure(redis_url, [1, 4], 40, 1))
    assert [(line.store, line.in_flight) for line in lines] == [
        ("RedisStore", 1),
        ("MemoryStore", 1),
        ("RedisStore", 4),
        ("MemoryStore", 4),
    ]
    assert all(line.cpu_us > 0 and line.rate > 0 for line in lines)

    async def stored_version() -> int:
        store = RedisStore.from_url(redis_url)
        try:
            record, _ = await store.read("bench-0-4-3")
        finally:
            await store.close()
        assert record is not None
        return record.version

    assert uvloop.run(stored_version()) == 10  # 40 writes over 4 games, each in turn
    table = summary(lines)
    assert table[2].startswith("| 1 | RedisStore |")
    redis_part = float(table[2].rsplit("|", 2)[1])
    assert redis_part == round(lines[0].cpu_us - lines[1].cpu_us, 1)
