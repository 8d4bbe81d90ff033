"""The lobby's sense of time: what it asks of a clock, so that the edge picks the real one
(`server.services.clock.LoopClock`) and tests drive a fake one."""

from __future__ import annotations

from collections.abc import Callable
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
