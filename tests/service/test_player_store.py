"""The players' part of the store, one suite for both backends: follow-up intents written
with the move, sessions and their reuse detection, game lists, event feeds that store an
event once, and wake-ups across store objects (workers)."""

from __future__ import annotations

import secrets
import time
from collections.abc import AsyncIterator

import pytest

from genial.service.store import (
    Followed,
    GameStore,
    InlineFollowUp,
    MemoryStore,
    Record,
    Write,
)
from genial.service.store.redis import RedisStore
from tests.service.test_store import gid, move


@pytest.fixture(params=["memory", "redis"])
async def store(request: pytest.FixtureRequest) -> AsyncIterator[GameStore]:
    if request.param == "memory":
        s: GameStore = MemoryStore()
    else:
        s = RedisStore.from_url(request.getfixturevalue("redis_url"))
    yield s
    await s.close()


def player() -> str:
    return f"g-{secrets.token_urlsafe(16)}"


async def test_a_write_records_its_follow_up_intent_first(store: GameStore) -> None:
    game = gid()
    await store.create(game, Record(b"s0", b"m0", 0, 0), (), 0)
    due = time.time() + 1000
    written = move(0, 1)
    written.follow_up = due
    assert (await store.write(game, written)).ok
    assert (game, due) in await store.follow_ups_due(due, 10_000)
    # A conflicting write records its intent too (its writer retries).
    stale = move(0, 1)
    stale.follow_up = due + 1
    assert not (await store.write(game, stale)).ok
    assert (game, due + 1) in await store.follow_ups_due(due + 1, 10_000)
    assert await store.lease_follow_up(game, due + 1, due + 5)
    assert not await store.lease_follow_up(game, due + 1, due + 6)  # leased already
    # Done with an older due: the newer intent stays; with its own: dropped.
    await store.follow_up_done(game, due + 1, None, 60)
    assert (game, due + 5) in await store.follow_ups_due(due + 5, 10_000)
    await store.follow_up_done(game, due + 5, Followed(1, 1, b"m"), 60)
    assert game not in [g for g, _ in await store.follow_ups_due(1e12, 10_000)]
    assert await store.followed(game) == Followed(1, 1, b"m")


async def test_a_write_without_a_log_entry(store: GameStore) -> None:
    game = gid()
    await store.create(game, Record(b"s0", b"m0", 0, 0), (), 0)
    assert (await store.write(game, move(0, 1))).ok
    assert (await store.write(game, Write(1, b"state-1", 1, None, b"", meta=b"m2"))).ok
    record, _ = await store.read(game)
    assert record == Record(b"state-1", b"m2", 1, 2)
    assert [e.id for e in await store.entries(game, (0, 0))] == [(1, 0)]


async def test_the_follow_up_mark_only_moves_forward(store: GameStore) -> None:
    game = gid()
    assert await store.followed(game) is None
    await store.follow_up_done(game, 1.0, Followed(3, 2, b"meta-3"), 60)
    await store.follow_up_done(game, 1.0, Followed(2, 1, b"meta-2"), 60)  # a slower worker
    assert await store.followed(game) == Followed(3, 2, b"meta-3")
    await store.follow_up_done(game, 1.0, Followed(5, 4, b"meta\n5"), 60)
    assert await store.followed(game) == Followed(5, 4, b"meta\n5")


async def test_a_write_adds_its_players_events_and_moves_the_mark_with_it(
    store: GameStore,
) -> None:
    """An inline follow-up is part of the write: made with it, or, when the mark is not at
    the rev it names (another worker followed the game up), refused with it."""
    assert store.inline_follow_ups
    game, ada, bob = gid(), player(), player()
    await store.create(game, Record(b"s0", b"m0", 0, 0), (), 0)
    await store.follow_up_done(game, 1.0, Followed(0, 0, b"m0"), 60)
    turn = [(f"{game}:1:your_turn", b"turn-1")]

    def inline(mark_rev: int, rev: int) -> InlineFollowUp:
        return InlineFollowUp(
            mark_rev, Followed(rev, rev, b"meta\n%d" % rev), 60, {ada: turn, bob: []}, 50, 60
        )

    refused = move(0, 1)
    refused.inline = inline(5, 1)
    result = await store.write(game, refused)
    assert not result.ok
    assert result.mark_moved
    assert (await store.read(game))[0] == Record(b"s0", b"m0", 0, 0)
    assert await store.player_events(ada, 0, 10) == []
    assert await store.followed(game) == Followed(0, 0, b"m0")

    made = move(0, 1)
    made.inline = inline(0, 1)
    assert (await store.write(game, made)).ok
    assert await store.followed(game) == Followed(1, 1, b"meta\n1")
    assert await store.player_events(ada, 0, 10) == [(1, b"turn-1")]
    assert await store.player_events(bob, 0, 10) == []
    # A conflict leaves the events and the mark as they are.
    stale = move(0, 1)
    stale.inline = inline(1, 1)
    assert not (await store.write(game, stale)).ok
    assert await store.player_events(ada, 0, 10) == [(1, b"turn-1")]
    assert await store.followed(game) == Followed(1, 1, b"meta\n1")
    # An event already there is not added again (a retried follow-up).
    again = move(1, 2)
    again.inline = inline(1, 2)
    assert (await store.write(game, again)).ok
    assert await store.player_events(ada, 0, 10) == [(1, b"turn-1")]


async def test_a_refresh_token_used_twice_revokes_its_session(store: GameStore) -> None:
    session = secrets.token_urlsafe(16)
    await store.create_session(session, "p", "digest-0", 60)
    assert await store.rotate_session(session, 0, "digest-0", "digest-1", 60) == "ok"
    assert await store.rotate_session(session, 1, "digest-1", "digest-2", 60) == "ok"
    # The refresh token of generation 1 again: somebody else holds the chain.
    assert await store.rotate_session(session, 1, "digest-1", "digest-x", 60) == "reused"
    assert await store.rotate_session(session, 2, "digest-2", "digest-3", 60) == "revoked"
    assert await store.rotate_session("unknown", 0, "d", "e", 60) == "unknown"


async def test_revocations_are_listed_for_a_while(store: GameStore) -> None:
    before = time.time() - 1
    session, other = secrets.token_urlsafe(16), secrets.token_urlsafe(16)
    await store.create_session(session, "p", "digest-0", 60)
    await store.revoke_session(session, 60)
    await store.revoke_session(other, 60)  # unknown sessions are listed too (a marker)
    listed = dict(await store.revoked_sessions(before))
    assert {session, other} <= set(listed)
    assert await store.rotate_session(session, 0, "digest-0", "digest-1", 60) == "revoked"
    assert session not in dict(await store.revoked_sessions(time.time() + 1))


async def test_a_shared_secret_is_the_first_proposed(store: GameStore) -> None:
    name = secrets.token_hex(4)
    assert await store.shared_secret(name, "first") == "first"
    assert await store.shared_secret(name, "second") == "first"


async def test_game_lists(store: GameStore) -> None:
    who = player()
    assert await store.add_my_game(who, "g1", 1.0, 60) == 1
    assert await store.add_my_game(who, "g2", 2.0, 60) == 2
    assert await store.add_my_game(who, "g1", 3.0, 60) == 2  # once, at its first time
    assert await store.my_games(who, 10) == ["g2", "g1"]
    await store.remove_my_game(who, "g2")
    assert await store.my_games(who, 10) == ["g1"]
    for n in range(4):
        await store.finish_my_game(who, f"f{n}", 10.0 + n, b"summary %d" % n, 3, 60)
    await store.finish_my_game(who, "g1", 20.0, b"summary g1", 3, 60)
    assert await store.my_games(who, 10) == []
    assert await store.finished_games(who, 10) == [b"summary g1", b"summary 3", b"summary 2"]
    assert await store.player_profile(who) is None
    await store.set_player_profile(who, b"profile", 60)
    assert await store.player_profile(who) == b"profile"


async def test_an_event_is_stored_once_and_numbered(store: GameStore) -> None:
    who = player()
    assert await store.last_player_event(who) == 0
    assert await store.add_player_events(who, [("a", b"A"), ("b", b"B")], 3, 60) == 2
    assert await store.add_player_events(who, [("b", b"B"), ("c", b"C")], 3, 60) == 1
    assert await store.player_events(who, 0, 10) == [(1, b"A"), (2, b"B"), (3, b"C")]
    assert await store.add_player_events(who, [("d", b"D")], 3, 60) == 1
    # Only the 3 latest are kept; reading resumes after a number.
    assert await store.player_events(who, 0, 10) == [(2, b"B"), (3, b"C"), (4, b"D")]
    assert await store.player_events(who, 3, 10) == [(4, b"D")]
    assert await store.player_events(who, 2, 1) == [(3, b"C")]
    assert await store.last_player_event(who) == 4


async def test_a_watcher_is_woken_by_another_worker(redis_url: str) -> None:
    """Two store objects (two workers): events added by one wake the followers of the
    other, through its one pub/sub connection."""
    adder, watcher = RedisStore.from_url(redis_url), RedisStore.from_url(redis_url)
    who, other = player(), player()
    try:
        woken, quiet = await watcher.follow_player(who), await watcher.follow_player(other)
        await adder.add_player_events(who, [("a", b"A")], 10, 60)
        assert await woken.wait(5)
        assert not await quiet.wait(0.2)
        await adder.add_player_events(who, [("a", b"A")], 10, 60)  # nothing new
        assert not await woken.wait(0.2)
        woken.close()
        quiet.close()
    finally:
        await adder.close()
        await watcher.close()


async def test_a_watcher_is_woken_in_process() -> None:
    store = MemoryStore()
    follower = await store.follow_player("p")
    await store.add_player_events("p", [("a", b"A")], 10, 60)
    assert await follower.wait(0)
    follower.close()
