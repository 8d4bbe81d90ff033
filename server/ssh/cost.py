"""What each session costs the server's event loop, and its fair share of it.

A session's app runs in tasks started in a context that names the session's `CostMeter`
(`run_metered`); the event loop's task factory (`install_task_factory`) wraps each such
task's coroutine so that every step it takes is timed and charged to that meter, whichever
widget, screen or timer of the app the task belongs to. The loop runs one step at a time on
one thread, so a step's wall time is the CPU it cost (`time.perf_counter`, no system call).
A `CostBudget` holds a session to a share of that time: past it the session's input waits
(server/ssh/input.py), and a session held back for long is cut off. A session that spent much
of its saved time lately is also served last (`Gate`): while another session's key is being
handled, its next step waits, so a dear session delays the others' keys by the step it is in,
not by all it queued; and the dear sessions have their keys handled one at a time.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import math
import time
import weakref
from collections.abc import Callable, Coroutine, Generator
from typing import Any, Protocol, TypeVar

from server.ssh.input import TokenBucket

T = TypeVar("T")


GATE_WAIT = 0.05
"""Seconds at most a yielding session's step waits for the others' keys."""
STALE = 1.0
"""Seconds after which a key still being handled no longer counts for the gate (its session
may have ended before its screen said it was shown)."""
SPENT = 0.05
"""Seconds of the time it saved a session may spend before it is served after the others."""
RECOUNT = 0.1
"""Seconds between two counts of the pool's borrowers."""
HELD_BACK_PART = 0.25
"""The share of the pool lent to sessions held back lately, while others borrow too."""
PRUNE_OVER = 256
"""Keys being handled at once past which those gone stale are forgotten as more come."""
LANE_RETRY = 0.02
"""Seconds a yielding session waits before asking again for its turn."""

LINGER = 0.25
"""Seconds after the screen first shows what an input event did during which the session's
work is still that event's: a screen it opened goes on composing, laying out and drawing
after its first refresh (help: most of its cost)."""


class Gate:
    """Who goes first on the event loop. While a session that spent little of its saved time
    lately has a key being handled, the steps of those that spent much (`CostMeter.yields`)
    wait, `GATE_WAIT` s at most; and those take turns: one of them at a time has a key
    handled (the lane)."""

    def __init__(
        self, wait: float = GATE_WAIT, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._wait = wait
        self._clock = clock
        self._handling: dict[CostMeter, float] = {}  # keys being handled: since when
        self._lane: tuple[CostMeter, float] | None = None  # the yielding one, since when
        self._opened: asyncio.Future[None] | None = None  # done once nobody's key is handled

    def handling(self, meter: CostMeter, busy: bool) -> None:
        """`meter`'s session has a key being handled (`busy`) or no longer."""
        if busy:
            if meter.yields:
                self._lane = (meter, self._clock())
            else:
                self._handling[meter] = self._clock()
                if len(self._handling) > PRUNE_OVER:
                    self._prune()
            return
        if self._lane is not None and self._lane[0] is meter:
            self._lane = None
        self._handling.pop(meter, None)
        if not self._handling:
            self._open()

    def may_hand(self, meter: CostMeter) -> bool:
        """Whether the yielding session of `meter` may have a key handled now: its turn."""
        lane = self._lane
        return lane is None or lane[0] is meter or self._clock() - lane[1] > STALE

    def closed(self) -> asyncio.Future[None] | None:
        """A future done when a yielding session's step may run (None: it may now)."""
        self._prune()
        if not self._handling:
            return None
        if self._opened is None:
            loop = asyncio.get_running_loop()
            self._opened = loop.create_future()
            loop.call_later(self._wait, self._open)
        return self._opened

    def _prune(self) -> None:
        """Forget keys handled longer than `STALE` seconds ago."""
        now = self._clock()
        for meter, since in list(self._handling.items()):
            if now - since > STALE:
                del self._handling[meter]

    def _open(self) -> None:
        """Nobody's key is handled, or the gate's wait passed: the yielding go on."""
        opened, self._opened = self._opened, None
        if opened is not None and not opened.done():
            opened.set_result(None)


GATE = Gate()
"""The event loop's one gate (the server runs one loop; tests may make their own)."""


class CostMeter:
    """Seconds of event-loop time charged to one session: in all, and while its input is
    being handled (from `open_input` until `LINGER` seconds after `close_input`).
    `yields` says whether it spent much of its saved time lately: its steps then let the
    others' keys go first, and its keys take turns with those of the others that yield
    (`gate`)."""

    __slots__ = ("_clock", "gate", "input_total", "input_until", "total", "yields")

    def __init__(self, clock: Callable[[], float] = time.perf_counter, gate: Gate = GATE) -> None:
        self.total = 0.0
        self.input_total = 0.0
        self.input_until = 0.0  # while the clock is at most this, work is charged to input
        self.yields = False
        self.gate = gate
        self._clock = clock

    def charge(self, seconds: float) -> None:
        """Add `seconds` of work done for the session."""
        self.total += seconds
        if self.input_until:
            if self._clock() <= self.input_until:
                self.input_total += seconds
            else:
                self.input_until = 0.0  # the event's time is over: no clock read until the next

    def open_input(self) -> None:
        """An input event was handed to the app: its work counts as input until closed."""
        self.input_until = math.inf
        self.gate.handling(self, True)

    def close_input(self) -> None:
        """The screen shows what the event did: what follows for `LINGER` s still counts."""
        self.input_until = self._clock() + LINGER
        self.gate.handling(self, False)


METER: contextvars.ContextVar[CostMeter | None] = contextvars.ContextVar(
    "lovelet_cost_meter", default=None
)
"""The meter of the session whose code runs (None outside sessions)."""


class Metered(Coroutine[Any, Any, T]):
    """A coroutine whose every step is charged to a meter (what a metered task runs); while
    its session yields, a step first waits at the meter's gate."""

    __slots__ = ("_coro", "_meter", "_waiting")

    def __init__(self, coro: Coroutine[Any, Any, T], meter: CostMeter) -> None:
        self._coro = coro
        self._meter = meter
        self._waiting: Generator[Any, None, None] | None = None  # the gate's future, awaited

    def send(self, value: Any) -> Any:
        if self._waiting is not None:  # back from the gate
            with contextlib.suppress(StopIteration):
                self._waiting.send(None)
            self._waiting = None
        elif self._meter.yields and (closed := self._meter.gate.closed()) is not None:
            self._waiting = closed.__await__()
            return self._waiting.send(None)  # the task waits for the future
        start = time.perf_counter()
        try:
            return self._coro.send(value)
        finally:
            self._meter.charge(time.perf_counter() - start)

    def throw(self, typ: Any, val: Any = None, tb: Any = None) -> Any:
        self._waiting = None  # cancelled at the gate: the coroutine hears it where it waits
        start = time.perf_counter()
        try:
            if val is None and tb is None:
                return self._coro.throw(typ)
            return self._coro.throw(typ, val, tb)
        finally:
            self._meter.charge(time.perf_counter() - start)

    def close(self) -> None:
        self._waiting = None
        self._coro.close()

    def __await__(self) -> Generator[Any, None, T]:
        return self._coro.__await__()

    @property
    def cr_frame(self) -> Any:
        """The wrapped coroutine's frame (for task stacks and reprs)."""
        return getattr(self._coro, "cr_frame", None)

    def __repr__(self) -> str:
        return f"<metered {self._coro!r}>"


def install_task_factory(loop: asyncio.AbstractEventLoop) -> None:
    """Make `loop` meter the tasks started in a session's context (idempotent)."""
    previous = loop.get_task_factory()
    if getattr(previous, "lovelet_metered", False):
        return

    def factory(
        loop: asyncio.AbstractEventLoop, coro: Any, *, context: contextvars.Context | None = None
    ) -> asyncio.Future[Any]:
        meter = (context or contextvars.copy_context()).get(METER)
        if meter is not None:
            coro = Metered(coro, meter)
        if previous is not None:
            return (
                previous(loop, coro) if context is None else previous(loop, coro, context=context)
            )
        return asyncio.Task(coro, loop=loop, context=context)

    factory.lovelet_metered = True  # type: ignore[attr-defined]
    loop.set_task_factory(factory)


def run_metered(coro: Coroutine[Any, Any, T], meter: CostMeter) -> asyncio.Task[T]:
    """Start `coro` as a task charged to `meter`, as is every task it starts in turn."""
    context = contextvars.copy_context()
    context.run(METER.set, meter)
    loop = asyncio.get_running_loop()
    install_task_factory(loop)
    return loop.create_task(coro, context=context)


class Borrower(Protocol):
    """What the pool knows of a borrower."""

    @property
    def held_back(self) -> bool:
        """Whether its input was held back lately."""
        ...


class CostPool:
    """The server's time lent to sessions past their own share: `rate` seconds a second in
    all, split among the sessions that borrowed in the last `window` seconds. Those held back
    lately (flooders, mostly) share `HELD_BACK_PART` of it, the others the rest: however many
    dear sessions take theirs, a light borrower keeps its part."""

    def __init__(
        self, rate: float, window: float = 5.0, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._rate = rate
        self._window = window
        self._clock = clock
        self._borrowers: weakref.WeakKeyDictionary[Borrower, float] = (
            weakref.WeakKeyDictionary()
        )  # each borrower, and when it last borrowed
        self._counted_at = -math.inf
        self._light = self._heavy = 0  # borrowers not held back lately and held back

    def part(self, borrower: Borrower, borrowing: bool) -> float:
        """Seconds a second `borrower` is lent: its part if it borrows now (`borrowing`: it
        has used more than it saved) or did in the last `window` seconds, else none."""
        now = self._clock()
        last = self._borrowers.get(borrower)
        if borrowing:
            self._borrowers[borrower] = now
        elif last is None or now - last > self._window:
            return 0.0
        if last is None or now - self._counted_at > RECOUNT:
            self._count(now)
        light, heavy = max(self._light, 1), max(self._heavy, 1)
        if borrower.held_back:
            return self._rate * (HELD_BACK_PART if self._light else 1.0) / heavy
        return self._rate * (1.0 - HELD_BACK_PART if self._heavy else 1.0) / light

    def _count(self, now: float) -> None:
        """Forget who has not borrowed for `window` seconds; count the rest, held back or
        not (as one arrives, else every `RECOUNT` seconds: with hundreds of players, most
        borrow a little)."""
        for other, when in list(self._borrowers.items()):
            if now - when > self._window:
                del self._borrowers[other]
        self._heavy = sum(1 for other in self._borrowers if other.held_back)
        self._light = len(self._borrowers) - self._heavy
        self._counted_at = now


class CostBudget:
    """A session's share of the event loop for what its keys set off: `share` seconds of
    work a second, `burst` saved.

    What the session's tasks do while one of its input events is being handled (from
    `input_started` until `LINGER` seconds after `input_handled`) is charged; the screen
    updates it gets from the others' play between its keys are not (holding back its keys
    would not save them). Once it has used more than it saved, the session is lent its part
    of `pool` too, until it has saved its burst again.
    `overdrawn()` says how many seconds the session's input must wait until its work is paid
    for. A session that spent more than `SPENT` of its saved time, or was held back in the
    last `rest` seconds, is served after the others and takes turns with those alike (its
    meter's `yields`); one held back lately shares a smaller part of the pool
    (`HELD_BACK_PART`). A session held back again and again, with no `rest` seconds free
    between, for `cut_off_after` seconds is `persistent`.
    """

    def __init__(
        self,
        meter: CostMeter,
        *,
        share: float,
        burst: float,
        pool: CostPool | None,
        cut_off_after: float,
        rest: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._meter = meter
        self._share = share
        self._burst = burst
        self._own = TokenBucket(share, burst, clock)
        self._pool = pool
        self._clock = clock
        self._cut_off_after = cut_off_after
        self._rest = rest
        self._held_since: float | None = None
        self._held_until = 0.0
        self._settled = 0.0  # the meter's input total already spent from the budget
        self.held = 0
        """How many times the session's input was held back."""

    def charge(self, seconds: float) -> None:
        """Charge work done for the session outside its tasks."""
        self._meter.charge(seconds)

    def input_started(self) -> None:
        """An input event was handed to the app: what the session does now is its cost."""
        self._meter.open_input()

    def input_handled(self) -> None:
        """The app has handled the event (and shows what it did); what it still does for
        `LINGER` seconds is its cost too."""
        self._meter.close_input()

    def overdrawn(self) -> float:
        """Seconds the session's input must wait (0: its work is paid for)."""
        own, pool, meter = self._own, self._pool, self._meter
        own.spend(meter.input_total - self._settled)
        self._settled = meter.input_total
        saved = own.saved()
        meter.yields = self.held_back or saved < self._burst - SPENT
        lent = pool.part(self, saved < self._burst) if pool is not None else 0.0
        own.set_rate(self._share + lent)  # repaid at this rate until the next check
        if saved < 0:
            wait = -saved / own.rate  # owed, repaid at the rate just set
        elif meter.yields and not meter.gate.may_hand(meter):
            wait = LANE_RETRY  # paid for, but another yielding session's key goes first
        else:
            return 0.0
        self._note_held(wait)
        return wait

    def _note_held(self, wait: float) -> None:
        now = self._clock()
        if self._held_since is None or now - self._held_until > self._rest:
            self._held_since = now
        self._held_until = now + wait
        self.held += 1

    @property
    def held_back(self) -> bool:
        """Whether the session's input was held back in the last `rest` seconds."""
        return self._held_since is not None and self._clock() - self._held_until <= self._rest

    @property
    def persistent(self) -> bool:
        """Held back without a rest for `cut_off_after` seconds."""
        since = self._held_since
        return since is not None and self._held_until - since >= self._cut_off_after
