"""What follows a write, done at least once even if the writer dies right after it.

Things a write causes outside its game (a player's events and game list today; webhooks
and ratings later) live in other Redis slots than the game, so no script can write them
with the move. Instead a write that has follow-ups records an intent first, pipelined with
its compare-and-set (`Write.follow_up`: a sorted-set entry "game X may have follow-ups",
due a lease later). After the write the worker does the follow-ups and drops the intent;
if it died, the intent comes due and any worker's sweeper does them, leased like a bot's
turn (`turns`).

Doing them means: read the game's record and how far its follow-ups got (`Followed`: the
rev, version and metadata they last saw), read the moves in between from the game's log
(`history.moves_since`), hand the `Change` to every consumer, and move the mark on. A
consumer must be idempotent (by game id and version): a crash between its work and the mark
makes it see the same change again. The writer itself skips the reads when it knows the
mark is at the record it wrote over (it set it): it knows the change, it just made it.

Where the store can reach the game's and its players' keys in one atomic step (one process,
or one Redis that is not a Cluster) and a change calls only for players' events, as most
moves that pass the turn do, the write makes its follow-up itself (`InlineFollowUp`): it adds
the events and moves the mark with the compare-and-set, refused unless the mark is where this
worker last set it. Then there is no intent, nothing after the write, and nothing to lose.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import time
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from genial import engine

from . import records
from .history import PlayedMove, moves_since
from .records import GameMeta
from .settings import Settings
from .store import Followed, GameStore, InlineFollowUp, Record

log = logging.getLogger("genial.followups")

SWEEP_SECONDS = 0.5
"""How often a worker looks for intents whose lease ran out."""
BATCH = 32
KILL_AFTER_WRITE = "GENIAL_TEST_KILL_BEFORE_FOLLOW_UP"
"""Tests only: the worker kills itself (SIGKILL) right after its n-th write with follow-ups
(an intent, or inline), before doing any."""


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A game as its follow-ups saw it: its version and metadata."""

    version: int
    meta: GameMeta


@dataclass(frozen=True, slots=True)
class Change:
    """What happened to a game between two points its follow-ups saw."""

    game_id: str
    before: Snapshot
    after: Snapshot
    state: engine.GameState
    """The game's state at `after`."""
    moves: list[PlayedMove]
    """The moves from `before` to `after`, in order."""
    derived: dict[str, object] = field(default_factory=dict, compare=False, repr=False)
    """What consumers derived from the change, by name, so that the first to ask works it
    out for all (a change is asked whether it is quiet, then followed)."""


@dataclass(frozen=True, slots=True)
class Written:
    """What a writer knows of its own write: the record before and after, the state after,
    and the move it made (if any)."""

    before: Record
    after: Record
    state: engine.GameState
    moves: list[PlayedMove]
    after_meta: GameMeta | None = None
    """`after`'s metadata, where the writer has it decoded already (read, never changed)."""
    _changes: dict[str, Change] = field(default_factory=dict, compare=False, repr=False)

    def then(self, later: Written) -> Written | None:
        """This write and a `later` one that followed it on the same record, as one; None
        if another write came between them."""
        if later.before.rev != self.after.rev:
            return None
        return Written(
            self.before, later.after, later.state, self.moves + later.moves, later.after_meta
        )

    def change(self, game_id: str) -> Change:
        """The change this write made (made once: asked whether it is quiet, then followed)."""
        change = self._changes.get(game_id)
        if change is None:
            after = self.after_meta or records.decode_meta(self.after.meta)
            change = self._changes[game_id] = Change(
                game_id,
                Snapshot(self.before.version, records.decode_meta(self.before.meta)),
                Snapshot(self.after.version, after),
                self.state,
                self.moves,
            )
        return change


class Consumer(Protocol):
    async def follow(self, change: Change) -> None:
        """Do what `change` calls for; seeing the same change twice must do nothing more."""
        ...

    def idle(self, change: Change) -> bool:
        """Whether `change` calls for nothing, and `change` followed by any later one calls
        for what the later one alone does (its follow-up can wait for the next write's)."""
        ...

    def inline(self, change: Change) -> PlayerEvents | None:
        """What `change` calls for, if it is only players' events (none: an empty mapping),
        for the write to add itself; None if it calls for more."""
        ...


PlayerEvents = dict[str, list[tuple[str, bytes]]]
"""Per player, its events: id and serialized `PlayerEvent`."""


@dataclass(frozen=True, slots=True)
class Plan:
    """What a write does about its follow-up (`FollowUps.plan`): nothing now (`quiet`: the
    next write's takes it), make it itself (`inline`), or neither: an intent, and the
    follow-up after the write."""

    quiet: bool = False
    inline: InlineFollowUp | None = None


QUIET = Plan(quiet=True)
INTENT = Plan()


class FollowUps:
    def __init__(self, store: GameStore, settings: Settings) -> None:
        self.store = store
        self.settings = settings
        self.consumers: list[Consumer] = []
        self._running: dict[str, asyncio.Task[None]] = {}
        self._again: dict[str, tuple[float, Written | None]] = {}
        """Writes made while the game's follow-ups were running: the latest due, and the
        writes as one (None if they cannot be joined)."""
        self._marks: OrderedDict[str, int] = OrderedDict()
        """The rev of the mark this worker last set, by game (a hint, bounded)."""
        self._quiet: OrderedDict[str, Written] = OrderedDict()
        """This worker's writes since the mark that called for nothing (`quiet`), by game,
        joined: the next write with follow-ups hands them over with its own (a hint,
        bounded: without it, that write's follow-ups read what happened since the mark)."""
        self._kill_after = int(os.environ.get(KILL_AFTER_WRITE, "0"))

    def intent(self, meta: GameMeta) -> float:
        """The intent's due time for a write that leaves a game as `meta` (0: none: only
        games with players have follow-ups, so other moves pay nothing)."""
        if not meta.has_players:
            return 0.0
        return time.time() + self.settings.follow_up_lease_seconds

    def plan(self, game_id: str, known: Written) -> Plan:
        """What a write (`known`, about to be made) does about its follow-up.

        Quiet, if it calls for nothing from any consumer: then it is made without an intent,
        and its follow-up waits for the next write's. Nothing is lost if this worker dies
        meanwhile: there was nothing to do, and the next write's follow-ups start from the
        mark, before this one.

        Else inline, if the store can and the follow-up is only players' events: the write
        makes it itself. Only when this worker set the game's mark and made every write
        since (`quiet` ones, joined with `known`): then it knows the whole change from the
        mark, which the store checks is still there.

        Both look at one change: the quiet writes joined with `known` where they join (a
        quiet change followed by another calls for what the other alone does, so the
        answer is the same), so that consumers work out what it calls for once."""
        pending = self._quiet.get(game_id)
        joined = pending.then(known) if pending is not None else known
        change = (joined or known).change(game_id)
        if all(consumer.idle(change) for consumer in self.consumers):
            return QUIET
        if (
            joined is None
            or not self.store.inline_follow_ups
            or game_id in self._running
            or self._marks.get(game_id) != joined.before.rev
        ):
            return INTENT
        events: PlayerEvents = {}
        for consumer in self.consumers:
            found = consumer.inline(change)
            if found is None:
                return INTENT
            for player, made in found.items():
                events.setdefault(player, []).extend(made)
        after = known.after
        return Plan(
            inline=InlineFollowUp(
                mark_rev=joined.before.rev,
                mark=Followed(after.rev, after.version, after.meta),
                mark_ttl=self.settings.idle_ttl,
                events=events,
                events_kept=self.settings.player_events_kept,
                events_ttl=self.settings.player_ttl,
            )
        )

    def forget(self, game_id: str) -> None:
        """The mark is not where this worker set it (an inline follow-up was refused)."""
        self._marks.pop(game_id, None)

    def wrote(
        self, game_id: str, due: float, known: Written, inline: InlineFollowUp | None = None
    ) -> None:
        """After a write `known` with an intent due at `due`, with its follow-up `inline`,
        or a quiet one (due 0, no follow-up: see `plan`)."""
        if inline is not None:  # followed up already, with the quiet writes before it
            self._quiet.pop(game_id, None)
            self._set_mark(game_id, known.after.rev)
            self._die_if_told()
            return
        if due:
            self.written(game_id, due, known.before, known.after, known.state, known.moves)
            return
        pending = self._quiet.get(game_id)
        self._quiet[game_id] = (pending.then(known) if pending else None) or known
        self._quiet.move_to_end(game_id)
        if len(self._quiet) > self.settings.record_cache_games:
            self._quiet.popitem(last=False)

    def written(
        self,
        game_id: str,
        due: float,
        before: Record,
        after: Record,
        state: engine.GameState,
        moves: Sequence[PlayedMove] = (),
    ) -> None:
        """After a write with an intent due at `due` (from the record `before` to `after`,
        making `moves`): do its follow-ups, in the background (the answer to the write does
        not wait for them)."""
        if not due:
            return
        known: Written | None = Written(before, after, state, list(moves))
        if (pending := self._quiet.pop(game_id, None)) is not None and known is not None:
            known = pending.then(known) or known
        self._die_if_told()
        if game_id in self._running:  # the running one goes again for this write
            if game_id in self._again:
                earlier = self._again[game_id][1]
                known = earlier.then(known) if earlier is not None and known else None
            self._again[game_id] = (due, known)
            return
        self._running[game_id] = asyncio.create_task(self._follow(game_id, due, known))

    def _die_if_told(self) -> None:
        if self._kill_after:
            self._kill_after -= 1
            if not self._kill_after:
                os.kill(os.getpid(), signal.SIGKILL)

    async def _follow(self, game_id: str, due: float, known: Written | None) -> None:
        try:
            while True:
                if known is not None and self._marks.get(game_id) == known.before.rev:
                    await self._hand_over(game_id, due, known.change(game_id), known.after)
                else:
                    await self.process(game_id, due)
                if game_id not in self._again:
                    return
                due, known = self._again.pop(game_id)
        except Exception:  # the intent stays: a sweeper does it when its lease runs out
            log.warning("follow-ups failed", extra={"game_id": game_id}, exc_info=True)
        finally:
            self._running.pop(game_id, None)
            self._again.pop(game_id, None)

    async def process(self, game_id: str, due: float) -> None:
        """Hand what happened since the mark to every consumer, move the mark on and drop
        the intent due at `due`."""
        (record, _), followed = await asyncio.gather(
            self.store.read(game_id), self.store.followed(game_id)
        )
        if record is None or (followed is not None and followed.rev >= record.rev):
            await self._done(game_id, due, record)  # gone, or done already
            return
        meta = records.decode_meta(record.meta)
        before = (
            Snapshot(followed.version, records.decode_meta(followed.meta))
            if followed is not None
            else Snapshot(0, meta.at_start())
        )
        moves = (
            await moves_since(self.store, game_id, before.version)
            if record.version > before.version
            else []
        )
        change = Change(
            game_id,
            before,
            Snapshot(record.version, meta),
            records.decode_state(record.state),
            moves,
        )
        await self._hand_over(game_id, due, change, record)

    async def _hand_over(self, game_id: str, due: float, change: Change, record: Record) -> None:
        for consumer in self.consumers:
            await consumer.follow(change)
        await self._done(game_id, due, record)

    async def _done(self, game_id: str, due: float, record: Record | None) -> None:
        followed = Followed(record.rev, record.version, record.meta) if record else None
        await self.store.follow_up_done(game_id, due, followed, self.settings.idle_ttl)
        if record is not None:
            self._set_mark(game_id, record.rev)

    def _set_mark(self, game_id: str, rev: int) -> None:
        self._marks[game_id] = rev
        self._marks.move_to_end(game_id)
        if len(self._marks) > self.settings.record_cache_games:
            self._marks.popitem(last=False)

    async def run(self) -> None:
        """Do the follow-ups whose writers did not, until cancelled."""
        while True:
            await asyncio.sleep(SWEEP_SECONDS)
            try:
                now = time.time()
                for game_id, due in await self.store.follow_ups_due(now, BATCH):
                    if game_id in self._running:
                        continue
                    until = now + self.settings.follow_up_lease_seconds
                    if await self.store.lease_follow_up(game_id, due, until):
                        self._running[game_id] = asyncio.create_task(
                            self._follow(game_id, until, None)
                        )
            except Exception:  # the sweeper outlives a store outage
                log.warning("follow-ups: store unavailable", exc_info=True)
