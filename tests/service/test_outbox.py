"""The webhook outbox, both stores: queued once, in order per lane, retries, a dead
consumer's lanes taken over, dead letters and their replay."""

from __future__ import annotations

import asyncio
import secrets
import time

from genial.service.store import GameStore, Notification, Taken
from tests.service.test_store import store  # noqa: F401  (the fixture: memory and redis)

KEEP = 60.0


def lane() -> str:
    return f"app/p-{secrets.token_hex(6)}"


def note(lane: str, n: int, coalesce: str = "") -> Notification:
    return Notification(f"{lane}:{n}", lane, b'{"n": %d}' % n, coalesce)


async def take_all(
    outbox: GameStore, consumer: str, lanes: set[str], idle: float = 60
) -> dict[str, Taken]:
    """What `consumer` takes now of `lanes` (others' tests share the Redis outbox)."""
    found = await outbox.take_notifications(consumer, 1000, time.time(), idle)
    return {t.lane: t for t in found if t.lane in lanes}


async def test_a_lane_is_delivered_in_order_and_each_id_queued_once(
    store: GameStore,  # noqa: F811
) -> None:
    a, b = lane(), lane()
    items = [note(a, 1), note(a, 2), note(b, 1), note(a, 3)]
    assert await store.queue_notifications(items, time.time(), 10, KEEP) == 4
    assert await store.queue_notifications(items[:2], time.time(), 10, KEEP) == 0
    seen = []
    for _ in range(3):
        taken = await take_all(store, "c1", {a, b})
        assert a in taken
        assert not await take_all(store, "c2", {a, b}), "a taken lane is nobody else's"
        seen.append(taken[a].item)
        for t in taken.values():
            assert await store.settle_notification("c1", t, "delivered", time.time())
    assert seen == [b'{"n": 1}', b'{"n": 2}', b'{"n": 3}']
    assert not await take_all(store, "c1", {a, b})


async def test_coalesced_by_key_within_the_window(store: GameStore) -> None:  # noqa: F811
    a = lane()
    now = time.time()
    assert await store.queue_notifications([note(a, 1, "k" + a)], now, 0.3, KEEP) == 1
    assert await store.queue_notifications([note(a, 2, "k" + a)], now, 0.3, KEEP) == 0
    await asyncio.sleep(0.4)
    assert await store.queue_notifications([note(a, 3, "k" + a)], time.time(), 0.3, KEEP) == 1


async def test_a_retry_waits_and_counts_its_attempts(store: GameStore) -> None:  # noqa: F811
    a = lane()
    await store.queue_notifications([note(a, 1), note(a, 2)], time.time(), 10, KEEP)
    (taken,) = (await take_all(store, "c1", {a})).values()
    assert taken.attempts == 0
    assert await store.settle_notification("c1", taken, "retry", time.time(), time.time() + 0.3)
    assert not await take_all(store, "c1", {a}), "the lane waits for its retry"
    await asyncio.sleep(0.4)
    (again,) = (await take_all(store, "c2", {a})).values()
    assert (again.item, again.attempts) == (taken.item, 1)


async def test_a_dead_consumers_lane_is_taken_over(store: GameStore) -> None:  # noqa: F811
    a = lane()
    await store.queue_notifications([note(a, 1)], time.time(), 10, KEEP)
    (taken,) = (await take_all(store, "dead", {a}, idle=0.2)).values()
    assert not await take_all(store, "alive", {a}, idle=0.2)
    await asyncio.sleep(0.3)
    (over,) = (await take_all(store, "alive", {a}, idle=0.2)).values()
    assert over.item == taken.item
    assert not await store.settle_notification("dead", taken, "delivered", time.time())
    assert await store.settle_notification("alive", over, "delivered", time.time())


async def test_dead_letters_are_listed_and_replayed(store: GameStore) -> None:  # noqa: F811
    a = lane()
    await store.queue_notifications([note(a, 1), note(a, 2)], time.time(), 10, KEEP)
    pending, oldest = await store.outbox_stats()
    assert pending >= 2
    assert oldest is not None
    assert oldest <= time.time()
    (taken,) = (await take_all(store, "c1", {a})).values()
    assert await store.settle_notification("c1", taken, "failed 3 times", time.time())
    dead = [d for d in await store.dead_notifications(1000) if d[1] == taken.item]
    assert [why for _, _, why in dead] == ["failed 3 times"]
    (next_one,) = (await take_all(store, "c1", {a})).values()
    assert next_one.item == b'{"n": 2}', "the lane moved on"
    assert await store.settle_notification("c1", next_one, "delivered", time.time())
    assert await store.replay_notifications([dead[0][0], "0-1"], time.time()) == 1
    (replayed,) = (await take_all(store, "c1", {a})).values()
    assert (replayed.item, replayed.attempts) == (taken.item, 0)
    assert await store.settle_notification("c1", replayed, "delivered", time.time())
    assert not [d for d in await store.dead_notifications(1000) if d[1] == taken.item]


async def test_disabled_endpoints(store: GameStore) -> None:  # noqa: F811
    key = f"app {secrets.token_hex(4)}"
    await store.disable_endpoint(key, time.time())
    assert key in await store.disabled_endpoints()
