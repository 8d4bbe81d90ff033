"""A clock that stands still until a test moves it: timers without waiting on real time."""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass(order=True)
class FakeTimer:
    """One call the clock will make at `due`."""

    due: float
    order: int
    callback: Callable[..., object] = field(compare=False)
    args: tuple[Any, ...] = field(compare=False)
    cancelled: bool = field(default=False, compare=False)

    def cancel(self) -> None:
        self.cancelled = True


class FakeClock:
    """`server.services.clock.Clock` in virtual time: calls run only in `settle` and `advance`."""

    def __init__(self) -> None:
        self.time = 1000.0
        self._due: list[FakeTimer] = []
        self._order = itertools.count()

    def now(self) -> float:
        return self.time

    def call_later(self, delay: float, callback: Callable[..., object], *args: Any) -> FakeTimer:
        timer = FakeTimer(self.time + max(delay, 0.0), next(self._order), callback, args)
        heapq.heappush(self._due, timer)
        return timer

    def call_soon(self, callback: Callable[..., object], *args: Any) -> FakeTimer:
        return self.call_later(0.0, callback, *args)

    def settle(self) -> None:
        """Make every call due by now, including those they schedule for now."""
        while self._due and self._due[0].due <= self.time:
            timer = heapq.heappop(self._due)
            if not timer.cancelled:
                timer.callback(*timer.args)

    def advance(self, seconds: float) -> None:
        """Let `seconds` pass, making each call at its time, in order."""
        end = self.time + seconds
        self.settle()
        while self._due and self._due[0].due <= end:
            self.time = max(self.time, self._due[0].due)
            self.settle()
        self.time = end
        self.settle()

    def next(self) -> None:
        """Move to the next call and make it (and whatever is due with it).

        Raises `LookupError` when no call is left: a test waiting for one would wait forever.
        """
        self.settle()
        live = [t for t in self._due if not t.cancelled]
        if not live:
            raise LookupError("nothing is scheduled: the awaited state will never come")
        self.time = max(self.time, min(live).due)
        self.settle()

    def pending(self) -> list[float]:
        """Seconds from now to each call still to be made."""
        return sorted(t.due - self.time for t in self._due if not t.cancelled)
