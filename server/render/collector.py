"""Garbage collection paced for a server that holds hundreds of Textual apps.

CPython's full collection walks every tracked object. A Textual session holds about 13,000, so
with 200 sessions one pause lasts seconds, and the rendered lines that every table update
replaces set one off several times a minute. Instead, the server collects four times a second
what is new since the last step (cheap: everything older is frozen, see `gc.freeze`) and
freezes what survived: steps of about 10 ms at 200 players, against 30 ms twice a second.
Frozen objects are still freed by reference counting; only cyclic garbage among them waits for
a whole collection. It comes from sessions starting (what a new app builds and drops
a moment later) and, above all, ending (a Textual app is full of cycles), so a whole collection
runs once sessions have started and ended as many times as a quarter of those now running,
and at least every ten minutes for the rest. (Rendered lines would be a third source; see
`server.render.strips`.)
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time
from collections.abc import Callable

log = logging.getLogger(__name__)

PERIOD = 0.25  # seconds between steps
TURNOVER = 0.25  # a whole collection once starts and ends reach this share of the sessions...
MIN_TURNOVER = 8  # ...and at least this many
MAX_AGE = 600.0  # seconds: a whole collection at least this often


class Collector:
    """Collects what is new and freezes it every `period` seconds; now and then, everything.

    `turnover` counts the sessions started and ended so far, `live` those running now.
    """

    def __init__(
        self,
        turnover: Callable[[], int],
        live: Callable[[], int],
        *,
        period: float = PERIOD,
        max_age: float = MAX_AGE,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.turnover = turnover
        self.live = live
        self.period = period
        self.max_age = max_age
        self._clock = clock
        self._turnover_before = 0  # `turnover()` at the last whole collection
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
        log.info(
            "whole garbage collection: %.0f ms, %d unreachable objects freed",
            (time.perf_counter() - started) * 1000,
            found,
        )

    def _whole_due(self) -> bool:
        if self._clock() - self._last_whole >= self.max_age:
            return True
        turnover = self.turnover() - self._turnover_before
        return turnover >= MIN_TURNOVER and turnover >= TURNOVER * self.live()

    def _schedule(self) -> None:
        self._handle = asyncio.get_running_loop().call_later(self.period, self._run)

    def _run(self) -> None:
        self.step()
        self._schedule()
