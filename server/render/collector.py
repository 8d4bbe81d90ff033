"""Garbage collection paced for a server that holds hundreds of Textual apps.

CPython's full collection walks every tracked object. A Textual session holds about 13,000, so
with 500 sessions one pause lasts seconds, and the rendered lines that every table update
replaces set one off several times a minute. Instead, the server freezes what is tracked four
times a second (`gc.freeze`: the interpreter's own collections then walk only what is newer),
after collecting what is new since the last freeze when that may hold cyclic garbage.
Sessions starting, ending and opening screens leave plenty; sessions that only play leave
almost none (measured: 0-160 objects a step with 600 sessions), yet walking what is new
cost 10-20 ms a step at 500 sessions, 7% of the process's CPU. So a collection of what is new
that finds little garbage (under `LITTLE` objects) doubles the steps until the next one (up
to `YOUNG_EVERY`: what is new in the steps between is frozen unwalked), and one that finds
more brings them back to every step. The interpreter's own collections of young objects run
after `YOUNG_THRESHOLD` more tracked objects were made than freed, not 700: a freeze resets
that count, so they now come only within a busy step (measured at 1,000 players in play, in
30 s, over the core and two front-ends: 1,090-1,274 of them and 1.4-2.7 s of CPU, against
19-22 and 0.1-0.2 s).
Once a collection of what is new finds much garbage (sessions arriving, screens being opened
and closed), the next `BUSY` steps each collect, and the freeze waits through them (up to
`FREEZE_WAIT` steps) while a collection costs under `YOUNG_BUDGET`: what is alive at one step
(an open screen, the styles Textual makes anew each time a screen is shown) may be garbage at
the next, and once frozen it would wait for a whole collection. Eight guests opening and
closing the new-table form at 29 keys/s each left about 6,000 objects a second frozen in
cycles, and a whole collection every 5 s (80-300 ms, ten sessions open); with the wait, about
1,600 a second, none during the minute (benchmarks/results/2026-12-06-dear-keys.md). With
many sessions one step's collection already costs more than the budget, and every step
freezes as before.
Frozen objects are still freed by reference counting; only cyclic garbage among them waits for
a whole collection. It comes mostly from sessions ending (a Textual app is full of cycles:
measured, about 0.8 MB each) and from screens being shown (each time, the styles Textual makes
anew: about 200 objects a new-table form opened and closed; `lovelet_tui.kept` shows the
common screens again rather than making them anew). So a whole collection runs
- once the apps of ended sessions still in memory (`Leftovers`, weakly) number a quarter of
  the sessions running, and at least `ENDED`: frozen garbage otherwise piles up until the
  resident memory is several times what live sessions hold (issue 34: 68 MB to 447 MB over
  1,200 sessions come and gone). `ENDED` is 16, not 4: with ten sessions open, one whole
  collection stops the loop 50-100 ms, longer than a key takes to echo, and at 4 a guest
  arriving every 2 s set one off every 8 s (benchmarks/results/2026-12-06-dear-keys.md);
- once Python's allocated memory blocks (`sys.getallocatedblocks`) over those before any
  session grew by a quarter since the last one, in all and per session: what else is frozen
  garbage shows there, while sessions arriving (their memory grows with them) or a steady
  server never set it off. Blocks, not the resident memory: freed blocks stay with the
  process (pymalloc arenas, glibc's heap), so the resident memory after a collection does not
  show what it freed, and a threshold set from it only ever rose;
- where blocks cannot be counted (Python's own allocator off), every ten minutes.
Both rules pay for themselves: a whole collection walks what the sessions running hold (one
with 500 sessions in a process took 3.6-4.8 s), and comes only once a quarter as much is
garbage. (Pacing them by their length as well made it worse: the more garbage one freed, the
longer it took, the longer the next one waited, and the more garbage it found; under steady
churn with 40 sessions open they grew from 1.5 s to 7.6 s, two minutes apart.)
After a whole collection, what it freed is given back to the system where it can be
(`malloc_trim` of glibc). (Rendered lines would be another source; see
`server.render.strips`.)
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
YOUNG_EVERY = 16  # steps at most between collections of what is new, while they find little
YOUNG_THRESHOLD = 5000  # the interpreter's first collection threshold while stepping (700)
LITTLE = 500  # objects: a collection of what is new (one step's) freeing fewer found little
BUSY = 8  # steps after a collection of what is new that found much: every step collects
FREEZE_WAIT = 16  # steps at most a freeze waits meanwhile
YOUNG_BUDGET = 0.010  # seconds: a collection of what is new that took longer freezes at once
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
    """Collects what is new and freezes it every `period` seconds; now and then, everything.

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
        timer: Callable[[], float] = time.perf_counter,
        memory: Callable[[], int | None] | None = None,
    ) -> None:
        self.live = live
        self.leftovers = Leftovers() if leftovers is None else leftovers
        self.period = period
        self.max_age = max_age
        self._clock = clock
        self._timer = timer  # times a collection of what is new
        self._memory = memory or allocated_blocks
        self._memory_base: int | None = None  # `memory()` after the first whole collection
        self._after: tuple[float, float] | None = None  # `_reading` right after the last one
        self._last_whole = 0.0
        self._young_every = 1  # steps from one collection of what is new to the next
        self._since_young = 0  # steps since the last one
        self._unfrozen = 0  # steps since the last freeze
        self._busy = 0  # steps left of those taken as busy (a collection found much)
        self._handle: asyncio.TimerHandle | None = None
        self._thresholds = gc.get_threshold()  # the interpreter's, put back by `stop`

    def start(self) -> None:
        """Collect and freeze everything now, then step every `period` on the running loop,
        with the interpreter's collections of young objects rarer."""
        self.collect_all()
        self._thresholds = gc.get_threshold()
        gc.set_threshold(YOUNG_THRESHOLD)
        self._schedule()

    def stop(self) -> None:
        """Stop stepping and hand every frozen object back to the ordinary collector."""
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        gc.set_threshold(*self._thresholds)
        gc.unfreeze()

    def step(self) -> bool:
        """One step: a whole collection when due, else one of what is new when due; then a
        freeze, unless it waits. True if whole."""
        reason = self._whole_due()
        if reason is not None:
            self.collect_all(reason)
            return True
        self._since_young += 1
        self._busy = max(self._busy - 1, 0)
        cheap = True
        if self._since_young >= self._young_every:
            cheap = self._collect_young()
        if self._busy and cheap and self._unfrozen < FREEZE_WAIT:
            self._unfrozen += 1
        else:
            self._unfrozen = 0
            gc.freeze()
        return False

    def _collect_young(self) -> bool:
        """Collect what is new and set when to next; True if that was cheap."""
        started = self._timer()
        if gc.collect() >= LITTLE:
            self._busy = BUSY
        self._young_every = 1 if self._busy else min(2 * self._young_every, YOUNG_EVERY)
        self._since_young = 0
        return self._timer() - started < YOUNG_BUDGET

    def collect_all(self, reason: str = "start") -> None:
        """Unfreeze, collect every generation, freeze again (the loop stands still meanwhile),
        and give what was freed back to the system; `reason` says what set it off (logged)."""
        started = time.perf_counter()
        gc.unfreeze()
        found = gc.collect()
        gc.freeze()
        self._unfrozen = 0
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
            "objects freed, %d kept, %d ended sessions still held after two; set off by %s",
            (trimmed - started) * 1000,
            (trimmed - trimming) * 1000,
            found,
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
