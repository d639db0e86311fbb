"""Watchers of games on one worker, and the wake-ups that reach them.

Each watcher has an event of its own, set when its game's log may have grown; the backend
calls `wake` when it learns of a write (in process, or by a Redis message) and `wake_all`
when it may have missed some (a lost connection).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable


class _Follower:
    __slots__ = ("_changed", "_closed", "game_id", "wakeups")

    @property
    def generation(self) -> int:
        """How many wake-ups this game has had on this worker."""
        return self.wakeups.generation(self.game_id)

    def __init__(self, wakeups: Wakeups, game_id: str) -> None:
        self.wakeups = wakeups
        self.game_id = game_id
        self._changed = asyncio.Event()
        self._closed = False

    async def wait(self, timeout: float) -> bool:
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout):
                await self._changed.wait()
        changed = self._changed.is_set()
        self._changed.clear()
        return changed

    def wake(self) -> None:
        self._changed.set()

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self.wakeups.drop(self)


class Wakeups:
    """The followers of every game watched on this worker. `on_first` and `on_last` are
    told when a game gets its first follower and loses its last (to subscribe and
    unsubscribe)."""

    def __init__(
        self,
        on_first: Callable[[str], None] = lambda _: None,
        on_last: Callable[[str], None] = lambda _: None,
    ) -> None:
        self._games: dict[str, set[_Follower]] = {}
        self._generations: dict[str, int] = {}
        self._on_first = on_first
        self._on_last = on_last

    def follow(self, game_id: str) -> _Follower:
        follower = _Follower(self, game_id)
        followers = self._games.get(game_id)
        if followers is None:
            followers = self._games[game_id] = set()
            self._on_first(game_id)
        followers.add(follower)
        return follower

    def drop(self, follower: _Follower) -> None:
        followers = self._games.get(follower.game_id)
        if followers is None:
            return
        followers.discard(follower)
        if not followers:
            del self._games[follower.game_id]
            self._generations.pop(follower.game_id, None)
            self._on_last(follower.game_id)

    def generation(self, game_id: str) -> int:
        return self._generations.get(game_id, 0)

    def wake(self, game_id: str) -> None:
        followers = self._games.get(game_id)
        if followers:
            self._generations[game_id] = self.generation(game_id) + 1
            for follower in followers:
                follower.wake()

    def wake_all(self) -> None:
        for game_id in self._games:
            self.wake(game_id)

    @property
    def games(self) -> list[str]:
        return list(self._games)
