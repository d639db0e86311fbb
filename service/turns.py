"""The turn loop every worker runs: it plays the bots' turns and the turns whose timer
ran out, for any game, through the same move path as a player's move.

The schedule lives in the store, so any worker can play any due turn; a worker leases
a turn before playing it, and if it dies the lease runs out and another worker plays
the turn. The move's request id makes playing it twice impossible.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

from .app import GameApp
from .errors import ApiError, Code

log = logging.getLogger("genial.turns")

POLL_SECONDS = 0.25
"""How often a worker looks for turns that came due (timers; bots also wake it at once)."""
BATCH = 32


async def run_turns(app: GameApp) -> None:
    """Play due turns until cancelled."""
    playing: set[asyncio.Task[None]] = set()
    while True:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(app.turn_due.wait(), POLL_SECONDS)
        app.turn_due.clear()
        try:
            now = time.time()
            for game_id, due in await app.store.due(now, BATCH):
                until = now + app.settings.turn_lease_seconds
                if await app.store.lease(game_id, due, until):
                    task = asyncio.create_task(play_turn(app, game_id, until))
                    playing.add(task)
                    task.add_done_callback(playing.discard)
        except Exception:  # the loop outlives a store outage
            log.warning("turn loop: store unavailable", exc_info=True)
            await asyncio.sleep(POLL_SECONDS)


async def play_turn(app: GameApp, game_id: str, lease: float) -> None:
    try:
        played = await app.play_automatic_turn(game_id)
    except ApiError as err:
        if err.code is not Code.NOT_FOUND:
            log.warning("automatic turn failed", extra={"game_id": game_id, "reason": err.reason})
            return  # the lease runs out and the turn is tried again
        played = False
    except Exception:  # a bug in one turn must not stop the loop
        log.exception("automatic turn failed", extra={"game_id": game_id})
        return
    if not played:
        # Nothing was due (a player moved first, or the game is over): drop our lease,
        # unless a newer move has scheduled the game again meanwhile.
        await app.store.unschedule(game_id, lease)
