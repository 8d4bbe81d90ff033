"""Garbage collection paced for a server that holds hundreds of Textual apps.

CPython's whole collection walks every tracked object. A Textual session holds about 13,000, so
with 500 sessions one pause lasts seconds, and the interpreter sets one off whenever what
survived its younger collections grew by a quarter: under play, several times a minute. So:
- what the server holds before any session (its modules, classes, configuration: about 77,000
  objects, a fifth of a small server's) is frozen at the start (`gc.freeze`) and never walked
  again;
- the interpreter collects young objects as usual (after `YOUNG_THRESHOLD` more tracked
  objects were made than freed, not 700: rarer, each as cheap), and never everything;
- the server runs the whole collections (`Collector.step`, four times a second), where they
  pay for themselves, each walking what the sessions running hold:
  - once the apps of ended sessions still in memory (`Leftovers`, weakly) number a quarter
    of the sessions running, and at least `ENDED`. A Textual app is full of cycles (measured,
    about 0.8 MB each), so frozen garbage would otherwise pile up until the resident memory
    is several times what live sessions hold (issue 34: 68 MB to 447 MB over 1,200 sessions
    come and gone). `ENDED` is 16, not 4: with ten sessions open, one whole collection stops
    the loop 50-100 ms, longer than a key takes to echo, and at 4 a guest arriving every 2 s
    set one off every 8 s (benchmarks/results/2026-12-06-dear-keys.md);
  - once Python's allocated memory blocks (`sys.getallocatedblocks`) over those before any
    session grew by a quarter since the last one, in all and per session: what else is
    garbage in cycles shows there (screens a session opened and kept a while), while sessions
    arriving (their memory grows with them) or a steady server never set it off. Blocks, not
    the resident memory: freed blocks stay with the process (pymalloc arenas, glibc's heap),
    so the resident memory after a collection does not show what it freed, and a threshold
    set from it only ever rose;
  - where blocks cannot be counted (Python's own allocator off), every ten minutes.
  (Pacing them by their length as well made it worse: the more garbage one freed, the longer
  it took, the longer the next one waited, and the more garbage it found; under steady churn
  with 40 sessions open they grew from 1.5 s to 7.6 s, two minutes apart.)
After a whole collection, what it freed is given back to the system where it can be
(`malloc_trim` of glibc).
"""

from __future__ import annotations

import asyncio
import ctypes
import gc
import logging
import sys
import time
import weakref
from collections.abc import Callable

log = logging.getLogger(__name__)

PERIOD = 0.25  # seconds between steps
GROWTH = 0.25  # a whole collection once memory grew by this share, in all and per session
FLOOR = 100_000  # memory blocks over the base counted at least (a dozen sessions' garbage)
ENDED = 16  # ended sessions' apps in memory that set off a whole collection at least
ENDED_SHARE = 0.25  # ... or this share of the sessions running, if more
YOUNG_THRESHOLD = 5000  # the interpreter's first collection threshold while stepping (700)
NEVER = 2**31 - 1  # the interpreter's threshold for whole collections: the collector runs them
MAX_AGE = 600.0  # seconds: a whole collection at least this often where memory cannot be read


class Leftovers:
    """Sessions that ended (or whatever of each holds the rest: its app), held weakly: those
    still in memory wait for a whole collection."""

    def __init__(self) -> None:
        self._refs: list[weakref.ref[object]] = []
        self._held: list[weakref.ref[object]] = []  # in memory after the last collection

    def add(self, ended: object) -> None:
        """`ended` belongs to a session that ended: it should go at the next collection."""
        self._refs.append(weakref.ref(ended))

    def __len__(self) -> int:
        self._refs, self._held = _alive(self._refs), _alive(self._held)
        return len(self._refs) + len(self._held)

    def collected(self) -> int:
        """A whole collection ran: what it left is counted until the next one (its
        connection may still have been closing), what two left no more (something alive
        holds it). How many two left."""
        held = len(_alive(self._held))
        self._refs, self._held = [], _alive(self._refs)
        return held


def _alive(refs: list[weakref.ref[object]]) -> list[weakref.ref[object]]:
    return [ref for ref in refs if ref() is not None]


class Collector:
    """Runs the whole garbage collections, checking every `period` seconds whether one is
    due; the interpreter collects young objects meanwhile.

    `live` counts the sessions running now; `leftovers` holds the ones that ended (None: none
    counted); `memory` reads what Python holds (None: unknown, and `max_age` paces instead).
    """

    def __init__(
        self,
        live: Callable[[], int],
        *,
        leftovers: Leftovers | None = None,
        period: float = PERIOD,
        max_age: float = MAX_AGE,
        clock: Callable[[], float] = time.monotonic,
        memory: Callable[[], int | None] | None = None,
    ) -> None:
        self.live = live
        self.leftovers = Leftovers() if leftovers is None else leftovers
        self.period = period
        self.max_age = max_age
        self._clock = clock
        self._memory = memory or allocated_blocks
        self._memory_base: int | None = None  # `memory()` after the first whole collection
        self._after: tuple[float, float] | None = None  # `_reading` right after the last one
        self._last_whole = 0.0
        self._handle: asyncio.TimerHandle | None = None
        self._thresholds = gc.get_threshold()  # the interpreter's, put back by `stop`

    def start(self) -> None:
        """Collect everything and freeze what is left (the server before any session, never
        walked again), then step every `period` on the running loop, the interpreter's
        collections of young objects rarer and its whole ones left to the steps."""
        gc.collect()
        gc.freeze()
        self.collect_all()
        self._thresholds = gc.get_threshold()
        gc.set_threshold(YOUNG_THRESHOLD, self._thresholds[1], NEVER)
        self._schedule()

    def stop(self) -> None:
        """Stop stepping and hand the interpreter its collections back, and every frozen
        object."""
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        gc.set_threshold(*self._thresholds)
        gc.unfreeze()

    def step(self) -> bool:
        """One step: a whole collection if one is due. True if one ran."""
        reason = self._whole_due()
        if reason is not None:
            self.collect_all(reason)
        return reason is not None

    def collect_all(self, reason: str = "start") -> None:
        """Collect every generation but what was frozen at the start (the loop stands still
        meanwhile), and give what was freed back to the system; `reason` says what set it off
        (logged)."""
        started = time.perf_counter()
        found = gc.collect()
        held = self.leftovers.collected()
        trimming = time.perf_counter()
        trim()
        trimmed = time.perf_counter()
        self._last_whole = self._clock()
        memory = self._memory()
        if self._memory_base is None:
            self._memory_base = memory
        self._after = self._reading(memory)
        log.info(
            "whole garbage collection: %.0f ms (%.0f ms giving memory back), %d unreachable "
            "objects freed, %d kept (and %d frozen at the start), %d ended sessions still "
            "held after two; set off by %s",
            (trimmed - started) * 1000,
            (trimmed - trimming) * 1000,
            found,
            len(gc.get_objects(generation=2)),
            gc.get_freeze_count(),
            held,
            reason,
        )

    def _whole_due(self) -> str | None:
        """What calls for a whole collection now, if anything."""
        if len(self.leftovers) >= max(ENDED, ENDED_SHARE * self.live()):
            return "ended sessions"
        before, now = self._after, self._reading(self._memory())
        if before is None or now is None:  # memory unknown: by age
            return "age" if self._clock() - self._last_whole >= self.max_age else None
        grown = all(value >= was * (1 + GROWTH) for value, was in zip(now, before, strict=True))
        return "memory grown" if grown else None

    def _reading(self, memory: int | None) -> tuple[float, float] | None:
        """Memory over that before any session (`FLOOR` at least): in all, and per session.
        Both must grow: sessions arriving grow the first alone, sessions leaving (what they
        hold in cycles stays until a whole collection) the second alone."""
        if memory is None or self._memory_base is None:
            return None
        grown = max(memory - self._memory_base, FLOOR)
        return grown, grown / max(self.live(), 1)

    def _schedule(self) -> None:
        self._handle = asyncio.get_running_loop().call_later(self.period, self._run)

    def _run(self) -> None:
        try:
            self.step()
        finally:
            self._schedule()  # a step that failed (logged by the loop) stops no later one


def allocated_blocks() -> int | None:
    """Memory blocks Python's own allocator has handed out and not taken back: what live
    objects hold, as resident memory is not once freed (None where it is off)."""
    return sys.getallocatedblocks() or None


def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's `malloc_trim`, from the symbols the interpreter has loaded (None elsewhere)."""
    try:
        return ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError, TypeError):
        return None


_TRIM = _malloc_trim()


def trim() -> None:
    """Give the heap's free pages back to the system (glibc only; elsewhere nothing)."""
    if _TRIM is not None:
        _TRIM(0)
