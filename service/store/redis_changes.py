"""Wake-ups from Redis: one Pub/Sub connection per worker, subscribed to the games its
watchers follow. Every write of a game publishes on the game's record key (write.lua), so
a watcher waits on a message, not on a blocking read of its own: it costs the worker memory,
not a Redis connection.

Messages are lost while the connection is down: after a reconnect every watcher is woken
to read its game's log again. On Redis Cluster the connection goes to the URL's node, which
hears every node's messages (classic Pub/Sub is broadcast over the cluster bus).

Subscriptions are sent one at a time: redis-py's `PubSub` opens its connection on the first
command without a lock, so first subscriptions sent at once (a worker's first watches, after
a deploy) each opened a connection of their own, and only the last was listened to: the
watches of the others waited for their confirmation for ever.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import RedisError
from redis.exceptions import TimeoutError as RedisTimeoutError

from .base import Follower
from .follow import Wakeups

log = logging.getLogger("genial.store")

RECONNECT_SECONDS = (0.05, 0.2, 1.0, 2.0)
"""Waits between reconnection attempts (the last repeats)."""
POLL_SECONDS = 1.0
"""The longest the listener waits for a message before it applies unsubscriptions."""


def channel_of(game_id: str) -> str:
    return f"genial:{{{game_id}}}:game"


SUBSCRIBER_OPTIONS: dict[str, Any] = {
    "socket_timeout": None,
    "socket_keepalive": True,
    "health_check_interval": 30,
}
"""No read timeout: a subscription is quiet for as long as nobody moves. A dead peer is
found by the PINGs of health_check_interval and TCP keep-alive."""


class RedisLogChanges:
    def __init__(self, client: aioredis.Redis, timeout: float) -> None:
        """`client`: made with `SUBSCRIBER_OPTIONS`; `timeout`: the longest a follower waits
        for its subscription to be confirmed."""
        self._client = client
        self._timeout = timeout
        self._pubsub: Any = None
        self._wakeups = Wakeups(on_last=self._forget)
        self._subscribed: dict[str, asyncio.Future[None]] = {}
        self._subscribing: set[asyncio.Task[None]] = set()
        self._sending = asyncio.Lock()
        """Held by whatever writes to the subscription's connection or opens it."""
        self._leaving: set[str] = set()
        self._listener: asyncio.Task[None] | None = None

    @classmethod
    def from_url(cls, url: str, timeout: float) -> RedisLogChanges:
        client = aioredis.from_url(url, socket_connect_timeout=timeout, **SUBSCRIBER_OPTIONS)
        return cls(client, timeout)

    async def follow(self, game_id: str) -> Follower:
        """A follower of `game_id`, once this worker's subscription to it is confirmed (so no
        write made after this returns can go unheard). A subscription not confirmed within
        the timeout is a `RedisTimeoutError`, and the next follower subscribes again."""
        follower = self._wakeups.follow(game_id)
        channel = channel_of(game_id)
        self._leaving.discard(channel)
        confirmed = self._subscribed.get(channel)
        if confirmed is None:
            confirmed = self._subscribed[channel] = asyncio.get_running_loop().create_future()
            # A task of its own: a caller gone meanwhile does not leave the subscription
            # half sent, with other followers waiting on it.
            task = asyncio.create_task(self._subscribe(channel, confirmed))
            self._subscribing.add(task)
            task.add_done_callback(self._subscribing.discard)
        try:
            async with asyncio.timeout(self._timeout):
                await asyncio.shield(confirmed)
        except TimeoutError:
            follower.close()
            self._give_up(channel, confirmed)
            raise RedisTimeoutError(
                f"Redis did not confirm a subscription within {self._timeout:g} s"
            ) from None
        except BaseException:
            follower.close()
            raise
        return follower

    async def _subscribe(self, channel: str, confirmed: asyncio.Future[None]) -> None:
        try:
            async with self._sending, asyncio.timeout(self._timeout):
                if self._pubsub is None:
                    self._pubsub = self._client.pubsub()
                await self._pubsub.subscribe(channel)
        except (RedisError, OSError) as err:  # OSError: TimeoutError too
            self._give_up(channel, confirmed)
            if not confirmed.done():
                confirmed.set_exception(err)
                confirmed.exception()  # retrieved: its followers may have gone
            return
        if self._listener is None:  # it reads the connection subscribe opened
            self._listener = asyncio.create_task(self._listen())

    def _give_up(self, channel: str, confirmed: asyncio.Future[None]) -> None:
        """Forget a subscription that failed, so that the next follower sends it again."""
        if self._subscribed.get(channel) is confirmed and not confirmed.done():
            del self._subscribed[channel]

    def _forget(self, game_id: str) -> None:
        self._leaving.add(channel_of(game_id))

    async def _listen(self) -> None:
        failures = 0
        while True:
            try:
                await self._leave()
                message = await self._pubsub.get_message(timeout=POLL_SECONDS)
                failures = 0
            except (RedisError, OSError) as err:
                wait = RECONNECT_SECONDS[min(failures, len(RECONNECT_SECONDS) - 1)]
                failures += 1
                log.warning("watch subscriptions: %s; again in %s s", type(err).__name__, wait)
                await asyncio.sleep(wait)
                with contextlib.suppress(RedisError, OSError):
                    async with self._sending:
                        # Subscribes again to every channel it had (redis-py's on_connect).
                        await self._pubsub.connect()
                # Messages were lost meanwhile: every watcher reads its log again.
                self._wakeups.wake_all()
                continue
            if message is None or message["type"] not in ("message", "subscribe", "unsubscribe"):
                continue  # a health check's pong
            channel = message["channel"].decode()
            game_id = channel.split("{", 1)[1].split("}", 1)[0]
            if message["type"] == "message":
                self._wakeups.wake(game_id)
            elif message["type"] == "subscribe":
                confirmed = self._subscribed.get(channel)
                if confirmed is not None and not confirmed.done():
                    confirmed.set_result(None)
                elif confirmed is None and game_id not in self._wakeups.games:
                    self._leaving.add(channel)  # sent for a follower gone since
            elif game_id in self._wakeups.games:
                # A follower came back while its channel was being left: stay on it.
                with contextlib.suppress(RedisError, OSError):
                    async with self._sending:
                        await self._pubsub.subscribe(channel)

    async def _leave(self) -> None:
        """Unsubscribe from games nobody here follows any more."""
        if not self._leaving:
            return
        channels, self._leaving = self._leaving, set()
        for channel in channels:
            self._subscribed.pop(channel, None)
        async with self._sending:
            await self._pubsub.unsubscribe(*channels)

    @property
    def client(self) -> aioredis.Redis:
        return self._client

    @property
    def followed(self) -> int:
        return len(self._wakeups.games)

    async def close(self) -> None:
        for task in list(self._subscribing):
            task.cancel()
        if self._listener is not None:
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError, RedisError, OSError):
                await self._listener
        if self._pubsub is not None:
            with contextlib.suppress(RedisError, OSError):
                await self._pubsub.aclose()
        await self._client.aclose()
