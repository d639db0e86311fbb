"""Measurement windows: a load runs through a warm-up and a measured window, with the probe's
snapshots at the window's two ends, in a closed loop (the peak) or an open one (a set rate)."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from typing import Any

from .metronome import Metronome
from .probe import Probe, Snapshot
from .slots import Slot

PHASE_GRACE = 30.0
"""Seconds a measurement may overrun its warm-up and window before it is abandoned."""


@dataclass
class Window:
    warmup: float
    seconds: float


@dataclass
class Tally:
    latencies: list[float] = field(default_factory=list)
    errors: int = 0
    first_error: str = ""

    def failed(self, exc: BaseException) -> None:
        self.errors += 1
        if not self.first_error:
            self.first_error = f"{type(exc).__name__}: {exc}"[:300]

    async def call(self, slot: Slot, since: float, begin: float, end: float) -> None:
        """One call of `slot`, its latency counted from `since` if that and the answer fall in
        the measured window [`begin`, `end`]; then the slot's untimed upkeep."""
        try:
            await slot()
        except Exception as exc:
            self.failed(exc)
        else:
            done = time.perf_counter()
            if begin <= since and done <= end:
                self.latencies.append(done - since)
        await slot.refresh()


Measured = tuple[Tally, Snapshot, Snapshot]
"""A window's calls, and the probe's snapshots at its two ends."""


async def _windowed(
    probe: Probe, window: Window, run: Callable[[float, float], Coroutine[Any, Any, None]]
) -> tuple[Snapshot, Snapshot]:
    """Run a load from now to the window's end; snapshots at the window's two ends."""
    start = time.perf_counter()
    begin, end = start + window.warmup, start + window.warmup + window.seconds
    load = asyncio.create_task(run(begin, end))
    await asyncio.sleep(window.warmup)
    before = await probe.snapshot()
    await asyncio.sleep(max(0.0, end - time.perf_counter()))
    after = await probe.snapshot()
    await asyncio.wait_for(load, PHASE_GRACE)
    return before, after


async def closed_loop(slots: Sequence[Slot], probe: Probe, window: Window) -> Measured:
    """Every slot calls again as soon as its call returns: the peak rate at that concurrency."""
    tally = Tally()

    async def keep_calling(slot: Slot, begin: float, end: float) -> None:
        while (sent := time.perf_counter()) < end:
            await tally.call(slot, sent, begin, end)

    async def run(begin: float, end: float) -> None:
        await asyncio.gather(*(keep_calling(slot, begin, end) for slot in slots))

    before, after = await _windowed(probe, window, run)
    return tally, before, after


async def open_loop(
    slots: Sequence[Slot], probe: Probe, window: Window, rate: float, seed: int = 1
) -> Measured:
    """Calls arrive at `rate` (Poisson), each on a free slot; latency counts from arrival, so
    that waiting for a free slot or a busy server is part of it (no coordinated omission).
    Arrivals are sent when due to the tens of microseconds (`Metronome`), not the loop's
    millisecond."""
    tally = Tally()
    free: asyncio.Queue[Slot] = asyncio.Queue()
    for slot in slots:
        free.put_nowait(slot)
    arrivals = random.Random(seed)
    calls: set[asyncio.Task[None]] = set()

    async def arrive(due: float, begin: float, end: float) -> None:
        slot = await free.get()
        await tally.call(slot, due, begin, end)
        free.put_nowait(slot)

    async def run(begin: float, end: float) -> None:
        metronome = Metronome()
        try:
            due = time.perf_counter()
            while due < end:
                now = time.perf_counter()
                while due <= now:
                    task = asyncio.create_task(arrive(due, begin, end))
                    calls.add(task)
                    task.add_done_callback(calls.discard)
                    due += arrivals.expovariate(rate)
                await metronome.until(due)
        finally:
            metronome.close()
        if calls:
            await asyncio.gather(*calls)

    before, after = await _windowed(probe, window, run)
    return tally, before, after
