"""Time as the lobby and its tables know it: what they ask of a clock (`Clock`, `Timer`), so
that the edge picks the real one (`LoopClock`, the asyncio event loop) and tests drive a fake
one."""

from __future__ import annotations

import asyncio
import contextvars
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol


class Timer(Protocol):
    """A scheduled call that can still be called off."""

    def cancel(self) -> None:
        """Do not make the call (nothing happens if it was made already)."""


class Clock(Protocol):
    """Now, later and soon: all the lobby and its tables know of time."""

    def now(self) -> float:
        """Seconds on a monotonic clock."""

    def call_later(self, delay: float, callback: Callable[..., object], *args: Any) -> Timer:
        """Call `callback(*args)` once, `delay` seconds from now."""

    def call_soon(self, callback: Callable[..., object], *args: Any) -> Timer:
        """Call `callback(*args)` once, after what is being handled now."""


@dataclass(eq=False)
class _Parked:
    """A call asked for before any event loop ran: made once a loop runs."""

    delay: float
    callback: Callable[..., object]
    args: tuple[Any, ...]
    handle: asyncio.Handle | None = field(default=None)
    cancelled: bool = False

    def cancel(self) -> None:
        self.cancelled = True
        if self.handle is not None:
            self.handle.cancel()


class LoopClock:
    """Timers on the running event loop; `now` is `time.monotonic`, as asyncio's own clock.

    Calls asked for while no loop runs (the lobby of `lovelet play` is made, and its app
    attached, before the app's loop starts) are parked and scheduled, with their whole delay,
    by the first call made from a running loop.

    Each call runs in an empty context of its own, not in the caller's: the lobby's timers are
    set while a session's code runs, and a timer keeps its context until its time comes, even
    cancelled. The caller's context holds the session's app (Textual's `active_app`), so a
    lobby idle timer cancelled when its session ended kept that app for 30 minutes.
    """

    def __init__(self) -> None:
        self._parked: list[_Parked] = []

    def now(self) -> float:
        """Seconds on the monotonic clock."""
        return time.monotonic()

    def call_later(self, delay: float, callback: Callable[..., object], *args: Any) -> Timer:
        """`loop.call_later` on the running loop (parked if none runs)."""
        loop = self._loop()
        if loop is None:
            return self._park(delay, callback, args)
        return loop.call_later(delay, callback, *args, context=contextvars.Context())

    def call_soon(self, callback: Callable[..., object], *args: Any) -> Timer:
        """`loop.call_soon` on the running loop (parked if none runs)."""
        loop = self._loop()
        if loop is None:
            return self._park(0.0, callback, args)
        return loop.call_soon(callback, *args, context=contextvars.Context())

    def _park(self, delay: float, callback: Callable[..., object], args: tuple) -> Timer:
        parked = _Parked(delay, callback, args)
        self._parked.append(parked)
        return parked

    def _loop(self) -> asyncio.AbstractEventLoop | None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return None
        if self._parked:
            parked, self._parked = self._parked, []
            for call in parked:
                if not call.cancelled:
                    call.handle = loop.call_later(
                        call.delay, call.callback, *call.args, context=contextvars.Context()
                    )
        return loop
