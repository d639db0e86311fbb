"""Waits on the event loop until a set `time.perf_counter()` instant, to the tens of
microseconds, where the loop's own timers round to the millisecond.

uvloop's timers are libuv's, in whole milliseconds of a loop time read once a pass, and
asyncio's own round an `epoll_wait` timeout up to one: an open loop that slept with them sent
its calls up to 1.4 ms after they were due (p99, at any rate), and that wait counted in every
call's latency. Here a Linux timerfd on `CLOCK_MONOTONIC` (the clock of `perf_counter`) is
armed for the instant and the loop wakes when it is readable. Where there is no timerfd
(not Linux), `asyncio.sleep` stands in.
"""

from __future__ import annotations

import asyncio
import ctypes
import os
import time

_CLOCK_MONOTONIC = 1
_TFD_NONBLOCK = os.O_NONBLOCK
_TFD_CLOEXEC = os.O_CLOEXEC
_TFD_TIMER_ABSTIME = 1


class _Timespec(ctypes.Structure):
    _fields_ = [("tv_sec", ctypes.c_long), ("tv_nsec", ctypes.c_long)]


class _Itimerspec(ctypes.Structure):
    _fields_ = [("it_interval", _Timespec), ("it_value", _Timespec)]


def _libc() -> ctypes.CDLL | None:
    if not time.get_clock_info("perf_counter").implementation.endswith("(CLOCK_MONOTONIC)"):
        return None
    libc = ctypes.CDLL(None, use_errno=True)
    return libc if hasattr(libc, "timerfd_create") else None


class Metronome:
    """One timerfd, read by the running loop; one wait at a time."""

    def __init__(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._libc = _libc()
        self._fd = -1
        self._waiter: asyncio.Future[None] | None = None
        if self._libc is not None:
            self._fd = self._libc.timerfd_create(_CLOCK_MONOTONIC, _TFD_NONBLOCK | _TFD_CLOEXEC)
            if self._fd < 0:
                raise OSError(ctypes.get_errno(), "timerfd_create")
            self._loop.add_reader(self._fd, self._rang)

    async def until(self, instant: float) -> None:
        """Returns at `instant` (a `perf_counter()` time) or just after; at once if past."""
        wait = instant - time.perf_counter()
        if wait <= 0:
            return
        if self._libc is None:
            await asyncio.sleep(wait)
            return
        seconds = int(instant)
        spec = _Itimerspec(_Timespec(0, 0), _Timespec(seconds, int((instant - seconds) * 1e9)))
        if self._libc.timerfd_settime(self._fd, _TFD_TIMER_ABSTIME, ctypes.byref(spec), None):
            raise OSError(ctypes.get_errno(), "timerfd_settime")
        self._waiter = self._loop.create_future()
        await self._waiter

    def _rang(self) -> None:
        try:
            os.read(self._fd, 8)  # the expiry count: read, so the fd is quiet until rearmed
        except BlockingIOError:
            return
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    def close(self) -> None:
        if self._fd >= 0:
            self._loop.remove_reader(self._fd)
            os.close(self._fd)
            self._fd = -1
