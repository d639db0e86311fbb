"""The move path's Redis connection against a redis-server of its own: many commands in
flight, error replies, a password, a server that freezes, one that restarts, a reply too
slow, a worker too busy to read."""

from __future__ import annotations

import asyncio
import gc
import signal
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import pytest
import uvloop
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from genial.service.store.redis_link import RedisLink
from tests.conftest import start_redis, stop


async def test_many_commands_in_flight_get_their_own_replies(redis_url: str) -> None:
    link = RedisLink.from_url(redis_url, timeout=2)

    async def roundtrip(i: int) -> bytes:
        await link.call("SET", f"link:{i}", i)
        replies = await link.pipeline([("GET", f"link:{i}"), ("INCR", f"link:{i}")])
        return b"%s %d" % (replies[0], replies[1])

    got = await asyncio.gather(*(roundtrip(i) for i in range(200)))
    assert got == [b"%d %d" % (i, i + 1) for i in range(200)]
    # An error reply is raised by `call`, returned by `pipeline`, and the link goes on.
    with pytest.raises(ResponseError):
        await link.call("INCR", "no such command", "too", "many")
    error, pong = await link.pipeline([("NOSUCHCOMMAND",), ("PING",)])
    assert isinstance(error, ResponseError)
    assert pong == b"PONG"
    await link.close()


async def test_a_password_and_a_database(tmp_path: Path) -> None:
    proc, port = start_redis(tmp_path, "--requirepass", "s3cret")
    try:
        refused = RedisLink.from_url(f"redis://127.0.0.1:{port}/2", timeout=2)
        with pytest.raises(RedisConnectionError, match="NOAUTH"):
            await refused.call("PING")
        link = RedisLink.from_url(f"redis://:s3cret@127.0.0.1:{port}/2", timeout=2)
        await link.call("SET", "k", "v")
        other = RedisLink.from_url(f"redis://:s3cret@127.0.0.1:{port}/0", timeout=2)
        assert await other.call("GET", "k") is None  # SELECT 2 took effect on the first
        assert await link.call("GET", "k") == b"v"
        for each in (refused, link, other):
            await each.close()
    finally:
        proc.terminate()
        proc.wait(10)


async def test_a_frozen_server_times_out_and_a_restarted_one_is_reconnected(
    tmp_path: Path,
) -> None:
    proc, port = start_redis(tmp_path)
    link = RedisLink.from_url(f"redis://127.0.0.1:{port}/0", timeout=0.5)
    try:
        assert await link.call("PING") == b"PONG"
        proc.send_signal(signal.SIGSTOP)
        started = time.monotonic()
        with pytest.raises(RedisTimeoutError):
            await asyncio.gather(*(link.call("PING") for _ in range(5)))
        assert time.monotonic() - started < 1.5
        proc.send_signal(signal.SIGCONT)
        assert await link.call("PING") == b"PONG"  # on a new connection
        proc.kill()
        proc.wait(10)
        with pytest.raises(RedisConnectionError):
            await link.call("PING")
        proc, _ = start_redis(tmp_path, port=port)  # again on the same port
        assert await link.call("PING") == b"PONG"
    finally:
        await link.close()
        proc.send_signal(signal.SIGCONT)
        proc.terminate()
        proc.wait(10)


Run = Callable[[Coroutine[Any, Any, None]], None]
LOOPS = pytest.mark.parametrize("run", [asyncio.run, uvloop.run], ids=["asyncio", "uvloop"])
"""The timeouts' order against the socket's reads differs between the loops (uvloop runs
timers before it polls, asyncio after): both are checked."""


def on_own_redis(
    tmp_path: Path,
    run: Run,
    timeout: float,
    check: Callable[[RedisLink], Coroutine[Any, Any, None]],
) -> None:
    """`check` on a link with `timeout` to a redis-server of its own, under `run`'s loop."""
    proc, port = start_redis(tmp_path)

    async def checked() -> None:
        link = RedisLink.from_url(f"redis://127.0.0.1:{port}/0", timeout=timeout)
        try:
            await check(link)
        finally:
            await link.close()

    try:
        run(checked())
    finally:
        stop(proc)


@LOOPS
def test_a_reply_too_slow_fails_its_call_alone_while_redis_answers(
    tmp_path: Path, run: Run
) -> None:
    """Redis answered after the slow command was sent: it is alive, so only the overdue call
    gives up and the connection (and every other call in flight on it) lives on."""

    async def check(link: RedisLink) -> None:
        started = time.monotonic()
        pong, blocked = await asyncio.gather(
            link.call("PING"), link.call("BLPOP", "nothing", 1), return_exceptions=True
        )
        assert pong == b"PONG"
        assert isinstance(blocked, RedisTimeoutError)
        assert "within 0.3 s" in str(blocked)
        assert time.monotonic() - started < 0.9
        assert link.connected
        cpu = time.process_time()
        await asyncio.sleep(0.8)  # BLPOP's late answer comes, and is dropped
        assert time.process_time() - cpu < 0.3  # no alarm rang on for the given-up call
        assert await link.call("PING") == b"PONG"
        assert link.generation == 0

    on_own_redis(tmp_path, run, 0.3, check)


@LOOPS
def test_a_worker_too_busy_to_read_for_a_whole_timeout_still_gets_its_replies(
    tmp_path: Path, run: Run
) -> None:
    """The loop blocked past the deadline while the reply waited in the socket: the reply is
    read before the call is given up on, and the connection stays."""

    async def check(link: RedisLink) -> None:
        assert await link.call("PING") == b"PONG"
        pending = asyncio.gather(*(link.call("INCR", "busy") for _ in range(3)))
        for _ in range(2):  # one pass: the calls send; the next: the batch is written
            await asyncio.sleep(0)
        # Unread, Redis's answers wait in the socket through a stop of the loop twice the
        # timeout, as a long collection or a slow request could make.
        time.sleep(0.4)
        assert sorted(await pending) == [1, 2, 3]
        assert link.connected
        assert link.generation == 0

    on_own_redis(tmp_path, run, 0.2, check)


def test_it_follows_a_url_only_where_it_can_follow_all_of_it() -> None:
    assert RedisLink.understands("redis://127.0.0.1:6379/2")
    assert RedisLink.understands("rediss://user:pw@redis.example:6380?db=3")
    assert RedisLink.from_url("redis://h:1/2", timeout=1).db == 2
    assert RedisLink.from_url("redis://h:1?db=3", timeout=1).db == 3
    assert RedisLink.from_url("redis://u%40x:p%3Aw@h:1", timeout=1).password == "p:w"
    assert not RedisLink.understands("unix:///run/redis.sock")
    assert not RedisLink.understands("redis://h:1/0?socket_keepalive=true")
    with pytest.raises(ValueError, match="cannot follow"):
        RedisLink.from_url("unix:///run/redis.sock", timeout=1)


async def test_a_master_turned_replica_is_left_for_a_new_connection(tmp_path: Path) -> None:
    """A failover makes the master a replica: its READONLY answer drops the connection, and
    the next command connects anew (behind Sentinel: to the master there is now)."""
    proc, port = start_redis(tmp_path / "a")
    other, other_port = start_redis(tmp_path / "b")
    link = RedisLink.from_url(f"redis://127.0.0.1:{port}/0", timeout=2)
    try:
        assert await link.call("SET", "k", "v")
        await link.call("REPLICAOF", "127.0.0.1", other_port)
        with pytest.raises(RedisConnectionError, match="READONLY"):
            await link.call("SET", "k", "w")
        assert not link.connected
        assert link.generation == 0
        await link.call("REPLICAOF", "NO", "ONE")
        assert await link.call("SET", "k", "w")
        assert link.generation == 1
    finally:
        await link.close()
        for each in (proc, other):
            each.terminate()
            each.wait(10)


async def test_replies_given_up_on_are_not_reported_unretrieved(tmp_path: Path) -> None:
    """A call cancelled while its replies are due (its client went away), then the
    connection lost: the replies' failures are not left for asyncio to report as "never
    retrieved" (an ERROR in the worker's log)."""
    proc, port = start_redis(tmp_path)
    link = RedisLink.from_url(f"redis://127.0.0.1:{port}/0", timeout=5)
    reported: list[dict[str, object]] = []
    asyncio.get_running_loop().set_exception_handler(lambda _, context: reported.append(context))
    try:
        assert await link.call("PING") == b"PONG"
        proc.send_signal(signal.SIGSTOP)
        pending = asyncio.create_task(link.pipeline([("PING",), ("PING",), ("PING",)]))
        await asyncio.sleep(0.2)
        pending.cancel()
        await asyncio.sleep(0.05)
        proc.kill()
        proc.wait(10)
        with pytest.raises(RedisConnectionError):
            await link.call("PING")
        del pending
        gc.collect()
        await asyncio.sleep(0.05)
        assert not reported
    finally:
        await link.close()
