"""The Python SDK's players (`PlayerSession`) against real workers: an app that resumes its
game after a restart (the example), tokens refreshed before they expire and after the
service refuses them, and a player's watch that reconnects by itself and misses nothing."""

from __future__ import annotations

import asyncio
import os
import secrets
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from genial.client import GenialClient, GenialError, PlayerSession, RetryPolicy
from genial.v1 import player_service_pb2 as pb
from genial.v1 import types_pb2 as types
from tests.service.conftest import Worker, start_worker, stop_worker

EXAMPLE = Path(__file__).resolve().parents[2] / "clients/python/examples/resume.py"


def test_the_resume_example_carries_on_after_a_restart(target: str, tmp_path: Path) -> None:
    state = tmp_path / "device-id"

    def run(*args: str) -> str:
        return subprocess.run(
            [sys.executable, str(EXAMPLE), "--state", str(state), *args],
            env={**os.environ, "GENIAL_TARGET": target},
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        ).stdout

    first = run("--moves", "3")
    assert first.startswith("new game ")
    assert "stopping after" in first
    game_id = first.split()[2]
    second = run()
    assert second.startswith(f"resumed game {game_id} as seat 0")
    assert second.strip().endswith("game over")


async def test_tokens_are_refreshed_before_expiry_and_after_a_refusal(target: str) -> None:
    async with GenialClient.connect(target) as client:
        device_id = secrets.token_urlsafe(24)
        me = await client.sign_in_as_guest(device_id, "Ada")
        first = await me.access_token()
        assert (await me.profile()).display_name == "Ada"
        # About to expire: refreshed before the next call.
        me._session.access_token_expires_at.FromSeconds(int(time.time()) + 30)
        assert (await me.profile()).player_id == me.player_id
        assert me._session.access_token_expires_at.ToSeconds() > time.time() + 3000
        second = await me.access_token()
        # The session ended elsewhere: the refusal makes the session sign in again.
        other = await PlayerSession.resume(client, me.refresh_token)
        assert other.player_id == me.player_id
        await other.sign_out()
        await asyncio.sleep(0.3)
        assert (await me.profile()).display_name == "Ada"  # refused, signed in again
        assert me.refresh_token != other.refresh_token
        assert await me.access_token() not in (first, second)
        # Without a device id there is no way back in: the refusal is raised.
        stranded = await PlayerSession.resume(client, me.refresh_token)
        await me.sign_out()
        await asyncio.sleep(0.3)
        with pytest.raises(GenialError) as refused:
            await stranded.profile()
        assert refused.value.reason == "TOKEN_REVOKED"


@pytest.fixture
def redis_worker_ports(redis_url: str) -> Iterator[tuple[str, list[Worker]]]:
    """A worker on Redis, and a way to start another on the same ports once it is gone."""
    started = [start_worker(redis_url)]
    yield redis_url, started
    for worker in started:
        if worker.proc.poll() is None:
            stop_worker(worker)


async def test_a_players_watch_reconnects_and_misses_nothing(
    redis_worker_ports: tuple[str, list[Worker]],
) -> None:
    """The worker the watch is on stops; while none runs, the player's game moves on (a
    second worker on the same Redis); a new worker comes up at the same address: the watch
    connects again by itself and gets every event, once."""
    redis_url, workers = redis_worker_ports
    first = workers[0]
    helper = start_worker(redis_url)
    workers.append(helper)
    target = f"127.0.0.1:{first.grpc_port}"
    async with (
        GenialClient.connect(target) as client,
        GenialClient.connect(f"127.0.0.1:{helper.grpc_port}") as other,
    ):
        me = await client.sign_in_as_guest(secrets.token_urlsafe(24), "Ada")
        bob = await other.sign_in_as_guest(secrets.token_urlsafe(24), "Bob")
        game = await client.create("dice", seats=2)
        events: list[pb.PlayerEvent] = []
        snapshots = 0

        async def watch() -> None:
            nonlocal snapshots
            async for answer in me.watch():
                if answer.HasField("games"):
                    snapshots += 1
                else:
                    events.append(answer.event)

        watching = asyncio.create_task(watch())
        while not snapshots:
            await asyncio.sleep(0.02)
        await me.join(game.game_id)
        bob_seat = await bob.join(game.game_id)
        while not any(e.type == pb.PLAYER_EVENT_TYPE_GAME_STARTED for e in events):
            await asyncio.sleep(0.02)
        stop_worker(first)  # the watch's worker goes away
        await bob.resign(game.game_id)  # meanwhile, through the other worker
        # back at the same address
        workers.append(start_worker(redis_url, ports=first.ports))
        deadline = time.monotonic() + 30
        while not any(e.type == pb.PLAYER_EVENT_TYPE_RESIGNED for e in events):
            assert time.monotonic() < deadline, events
            await asyncio.sleep(0.05)
        watching.cancel()
    resigned = [e for e in events if e.type == pb.PLAYER_EVENT_TYPE_RESIGNED]
    assert [e.seat for e in resigned] == [bob_seat.seat]
    assert len({e.id for e in events}) == len(events), "no event twice"
    assert snapshots >= 2, "the watch connected again, and began with the live games"
    view = await asyncio.wait_for(_view(target, game.game_id), 10)
    assert view.players[bob_seat.seat].resigned
    assert view.status in (types.GAME_STATUS_PLAYING, types.GAME_STATUS_FINISHED)


async def test_a_players_watch_refused_by_a_rate_limit_connects_when_allowed() -> None:
    """A watch the per-token limit refuses is not over: it connects again once the wait the
    service asked has passed (and not before), and begins with the live games."""
    worker = start_worker("", "--rate-limit-token", "5")
    try:
        no_waits = RetryPolicy(max_rate_limit_wait=0)  # refusals reach the caller
        async with GenialClient.connect(worker.grpc_target, retry=no_waits) as client:
            me = await client.sign_in_as_guest(secrets.token_urlsafe(24), "Ada")
            refused = None
            for _ in range(10):
                try:
                    await me.profile()
                except GenialError as err:
                    refused = err
                    break
            assert refused is not None, "the sixth call is over the limit"
            asked = refused.retry_after
            assert asked is not None
            assert asked > 0
            refused_at = time.monotonic()
            first = await asyncio.wait_for(anext(aiter(me.watch())), asked + 10)
            assert first.HasField("games")
            assert time.monotonic() - refused_at >= asked - 0.05
    finally:
        stop_worker(worker)


async def _view(target: str, game_id: str) -> types.GameView:
    async with GenialClient.connect(target) as client:
        return await client.view(game_id)


async def test_a_players_webhook_is_set_where_the_service_allows_it(target: str) -> None:
    """The suite's worker allows no hosts for players' endpoints: the SDK's call reaches the
    service and carries its refusal (tests/service/test_player_webhooks.py sets one)."""
    async with GenialClient.connect(target) as client:
        me = await client.sign_in_as_guest(secrets.token_urlsafe(24))
        with pytest.raises(GenialError) as refused:
            await me.set_webhook("https://push.example.com/genial")
        assert refused.value.reason == "WEBHOOKS_OFF"
        assert await me.set_webhook("") == ""  # removing one is always fine
