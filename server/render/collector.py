"""Garbage collection paced for a server that holds hundreds of Textual apps.

CPython's full collection walks every tracked object. A Textual session holds about 13,000, so
with 200 sessions one pause lasts seconds, and the rendered lines that every table update
replaces set one off several times a minute. Instead, the server collects four times a second
what is new since the last step (cheap: everything older is frozen, see `gc.freeze`) and
freezes what survived: steps of about 10 ms at 200 players, against 30 ms twice a second.
Frozen objects are still freed by reference counting; only cyclic garbage among them waits for
a whole collection. It comes from sessions starting (what a new app builds and drops
a moment later) and, above all, ending (a Textual app is full of cycles), so a whole collection
runs once sessions have started and ended as many times as a quarter of those now running.
For the rest, it runs once the process's resident memory grew by a quarter since the last
one: frozen garbage shows there, while a steady server is never stopped for nothing (one
whole collection with 500 sessions in a process took 4.8 s). Where the resident memory cannot
be read (no /proc), it runs every ten minutes instead. (Rendered lines would be a third
source; see `server.render.strips`.)
"""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import time
from collections.abc import Callable
from pathlib import Path

log = logging.getLogger(__name__)

PERIOD = 0.25  # seconds between steps
TURNOVER = 0.25  # a whole collection once starts and ends reach this share of the sessions...
MIN_TURNOVER = 8  # ...and at least this many
GROWTH = 0.25  # ...or once resident memory grew by this share since the last one
MAX_AGE = 600.0  # seconds: a whole collection at least this often where memory cannot be read
STATM = Path("/proc/self/statm")


class Collector:
    """Collects what is new and freezes it every `period` seconds; now and then, everything.

    `turnover` counts the sessions started and ended so far, `live` those running now;
    `memory` reads the resident bytes (None: unknown, and `max_age` paces instead).
    """

    def __init__(
        self,
        turnover: Callable[[], int],
        live: Callable[[], int],
        *,
        period: float = PERIOD,
        max_age: float = MAX_AGE,
        clock: Callable[[], float] = time.monotonic,
        memory: Callable[[], int | None] | None = None,
    ) -> None:
        self.turnover = turnover
        self.live = live
        self.period = period
        self.max_age = max_age
        self._clock = clock
        self._memory = memory or resident_bytes
        self._turnover_before = 0  # `turnover()` at the last whole collection
        self._memory_after: int | None = None  # `memory()` right after it
        self._last_whole = 0.0
        self._handle: asyncio.TimerHandle | None = None

    def start(self) -> None:
        """Collect and freeze everything now, then step every `period` on the running loop."""
        self.collect_all()
        self._schedule()

    def stop(self) -> None:
        """Stop stepping and hand every frozen object back to the ordinary collector."""
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        gc.unfreeze()

    def step(self) -> bool:
        """One step: a whole collection when due, else one of what is new; True if whole."""
        if self._whole_due():
            self.collect_all()
            return True
        gc.collect()
        gc.freeze()
        return False

    def collect_all(self) -> None:
        """Unfreeze, collect every generation, freeze again (the loop stands still meanwhile)."""
        started = time.perf_counter()
        gc.unfreeze()
        found = gc.collect()
        gc.freeze()
        self._turnover_before, self._last_whole = self.turnover(), self._clock()
        self._memory_after = self._memory()
        log.info(
            "whole garbage collection: %.0f ms, %d unreachable objects freed",
            (time.perf_counter() - started) * 1000,
            found,
        )

    def _whole_due(self) -> bool:
        before, now = self._memory_after, self._memory()
        if before is None or now is None:
            grown = self._clock() - self._last_whole >= self.max_age  # memory unknown: by age
        else:
            grown = now >= before * (1 + GROWTH)
        if grown:
            return True
        turnover = self.turnover() - self._turnover_before
        return turnover >= MIN_TURNOVER and turnover >= TURNOVER * self.live()

    def _schedule(self) -> None:
        self._handle = asyncio.get_running_loop().call_later(self.period, self._run)

    def _run(self) -> None:
        self.step()
        self._schedule()


def resident_bytes() -> int | None:
    """This process's resident memory in bytes, from /proc (None where there is none)."""
    try:
        pages = int(STATM.read_text().split()[1])
    except (OSError, IndexError, ValueError):
        return None
    return pages * os.sysconf("SC_PAGE_SIZE")
