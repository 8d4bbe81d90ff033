"""Garbage collection paced for a server that holds hundreds of Textual apps.

CPython's full collection walks every tracked object. A Textual session holds about 13,000, so
with 200 sessions one pause lasts seconds, and the rendered lines that every table update
replaces set one off several times a minute. Instead, the server collects every second what is
new since the last step (cheap: everything older is frozen, see `gc.freeze`) and freezes what
survived. Frozen objects are still freed by reference counting; only cyclic garbage among them
(a closed session's app, above all) waits for a whole collection, which runs when the frozen
heap has grown by a quarter since the last one, or after half an hour: the rule CPython applies
to its oldest generation, applied to a heap it no longer walks at every step.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time
from collections.abc import Callable

log = logging.getLogger(__name__)

PERIOD = 1.0  # seconds between steps
GROWTH = 0.25  # a whole collection once the frozen heap grew by this share
MAX_AGE = 1800.0  # seconds: a whole collection at least this often


class Collector:
    """Collects what is new and freezes it every `period` seconds; now and then, everything."""

    def __init__(
        self,
        period: float = PERIOD,
        growth: float = GROWTH,
        max_age: float = MAX_AGE,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.period = period
        self.growth = growth
        self.max_age = max_age
        self._clock = clock
        self._baseline = 0  # objects frozen right after the last whole collection
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
        due = self._clock() - self._last_whole >= self.max_age
        if due or gc.get_freeze_count() > self._baseline * (1 + self.growth):
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
        self._baseline, self._last_whole = gc.get_freeze_count(), self._clock()
        pause_ms = (time.perf_counter() - started) * 1000
        log.info(
            "whole garbage collection: %.0f ms, %d unreachable, %d objects kept",
            pause_ms,
            found,
            self._baseline,
        )

    def _schedule(self) -> None:
        self._handle = asyncio.get_running_loop().call_later(self.period, self._run)

    def _run(self) -> None:
        self.step()
        self._schedule()
