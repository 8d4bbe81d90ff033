"""What each session costs the server's event loop, and its fair share of it.

A session's app runs in tasks started in a context that names the session's `CostMeter`
(`run_metered`); the event loop's task factory (`install_task_factory`) wraps each such
task's coroutine so that every step it takes is timed and charged to that meter, whichever
widget, screen or timer of the app the task belongs to. The loop runs one step at a time on
one thread, so a step's wall time is the CPU it cost (`time.perf_counter`, no system call).
A `CostBudget` holds a session to a share of that time: past it the session's input waits
(server/ssh/input.py), and a session held back for long is cut off.
"""

from __future__ import annotations

import asyncio
import contextvars
import math
import time
from collections.abc import Callable, Coroutine, Generator
from typing import Any, TypeVar

from server.ssh.input import TokenBucket

T = TypeVar("T")


LINGER = 0.25
"""Seconds after the screen first shows what an input event did during which the session's
work is still that event's: a screen it opened goes on composing, laying out and drawing
after its first refresh (help: most of its cost)."""


class CostMeter:
    """Seconds of event-loop time charged to one session: in all, and while its input is
    being handled (from `open_input` until `LINGER` seconds after `close_input`)."""

    __slots__ = ("_clock", "input_total", "input_until", "total")

    def __init__(self, clock: Callable[[], float] = time.perf_counter) -> None:
        self.total = 0.0
        self.input_total = 0.0
        self.input_until = 0.0  # while the clock is at most this, work is charged to input
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

    def close_input(self) -> None:
        """The screen shows what the event did: what follows for `LINGER` s still counts."""
        self.input_until = self._clock() + LINGER


METER: contextvars.ContextVar[CostMeter | None] = contextvars.ContextVar(
    "lovelet_cost_meter", default=None
)
"""The meter of the session whose code runs (None outside sessions)."""


class Metered(Coroutine[Any, Any, T]):
    """A coroutine whose every step is charged to a meter (what a metered task runs)."""

    __slots__ = ("_coro", "_meter")

    def __init__(self, coro: Coroutine[Any, Any, T], meter: CostMeter) -> None:
        self._coro = coro
        self._meter = meter

    def send(self, value: Any) -> Any:
        start = time.perf_counter()
        try:
            return self._coro.send(value)
        finally:
            self._meter.charge(time.perf_counter() - start)

    def throw(self, typ: Any, val: Any = None, tb: Any = None) -> Any:
        start = time.perf_counter()
        try:
            if val is None and tb is None:
                return self._coro.throw(typ)
            return self._coro.throw(typ, val, tb)
        finally:
            self._meter.charge(time.perf_counter() - start)

    def close(self) -> None:
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


class CostBudget:
    """A session's share of the event loop for what its keys set off: `share` seconds of
    work a second, `burst` saved.

    What the session's tasks do while one of its input events is being handled (from
    `input_started` until `LINGER` seconds after `input_handled`) is charged; the screen
    updates it gets from the others' play between its keys are not (holding back its keys
    would not save them). Work
    past its own share is paid from `pool`, the time the server sets aside for all sessions
    past theirs (shared: several dear sessions together get no more than one). `overdrawn()`
    says how many seconds the session's input must wait until its work is paid for. A
    session held back again and again, with no `rest` seconds free between, for
    `cut_off_after` seconds is `persistent`.
    """

    def __init__(
        self,
        meter: CostMeter,
        *,
        share: float,
        burst: float,
        pool: TokenBucket | None,
        cut_off_after: float,
        rest: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._meter = meter
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
        own, pool = self._own, self._pool
        own.spend(self._meter.input_total - self._settled)
        self._settled = self._meter.input_total
        debt = own.debt()
        if debt > 0 and pool is not None:
            own.repay(pool.take_up_to(debt))
            debt = own.debt()
        if debt <= 0:
            return 0.0
        wait = debt / (own.rate + (pool.rate if pool is not None else 0.0))
        self._note_held(wait)
        return wait

    def _note_held(self, wait: float) -> None:
        now = self._clock()
        if self._held_since is None or now - self._held_until > self._rest:
            self._held_since = now
        self._held_until = now + wait
        self.held += 1

    @property
    def persistent(self) -> bool:
        """Held back without a rest for `cut_off_after` seconds."""
        since = self._held_since
        return since is not None and self._held_until - since >= self._cut_off_after
