"""Turns nobody at the table plays by hand: a bot's, and a player's whose timer ran out.

After every move (and at the start) the game's next automatic turn is put in the store's
schedule; every worker runs the turn loop, which plays due turns of any game through the
same move path as a player's move. A worker leases a turn before playing it, and if it
dies the lease runs out and another worker plays the turn. The move's request id makes
playing it twice impossible.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable

from genial import engine

from .errors import ApiError, Code
from .records import PLAYING, GameMeta
from .settings import Settings
from .store import TurnSchedule

log = logging.getLogger("genial.turns")

POLL_SECONDS = 0.25
"""How often a worker looks for turns that came due (timers; bots also wake it at once)."""
BATCH = 32

PlayTurn = Callable[[str], Awaitable[bool]]
"""Plays the due automatic turn of a game; False if none was due."""


class Turns:
    def __init__(self, schedule: TurnSchedule, settings: Settings) -> None:
        self.schedule = schedule
        self.settings = settings
        self.due_now = asyncio.Event()
        """Set when a bot's turn is due now, to wake the turn loop."""

    async def after_move(self, game_id: str, meta: GameMeta, state: engine.GameState) -> None:
        """Hand the turn to a bot, or set the turn timer, after a move or the start."""
        seat = state.to_move
        if meta.status != PLAYING or seat is None:
            return
        if meta.played_by_bot(seat):
            await self.schedule.schedule(game_id, time.time())
            self.due_now.set()
        elif (deadline := meta.deadline(seat)) is not None:
            await self.schedule.schedule(game_id, deadline)

    async def run(self, play: PlayTurn) -> None:
        """Play due turns until cancelled."""
        playing: set[asyncio.Task[None]] = set()
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.due_now.wait(), POLL_SECONDS)
            self.due_now.clear()
            try:
                now = time.time()
                for game_id, due in await self.schedule.due(now, BATCH):
                    until = now + self.settings.turn_lease_seconds
                    if await self.schedule.lease(game_id, due, until):
                        task = asyncio.create_task(self._play(play, game_id, until))
                        playing.add(task)
                        task.add_done_callback(playing.discard)
            except Exception:  # the loop outlives a store outage
                log.warning("turn loop: store unavailable", exc_info=True)
                await asyncio.sleep(POLL_SECONDS)

    async def _play(self, play: PlayTurn, game_id: str, lease: float) -> None:
        try:
            played = await play(game_id)
        except ApiError as err:
            if err.code is not Code.NOT_FOUND:
                log.warning(
                    "automatic turn failed", extra={"game_id": game_id, "reason": err.reason}
                )
                return  # the lease runs out and the turn is tried again
            played = False
        except Exception:  # a bug in one turn must not stop the loop
            log.exception("automatic turn failed", extra={"game_id": game_id})
            return
        if not played:
            # Nothing was due (a player moved first, or the game is over): drop our lease,
            # unless a newer move has scheduled the game again meanwhile.
            await self.schedule.unschedule(game_id, lease)
