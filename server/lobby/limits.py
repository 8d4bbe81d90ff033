"""Per-session limits the lobby enforces: a sliding-window rate limit."""

from __future__ import annotations

from collections import deque


class RateLimit:
    """At most `count` events in any `interval` seconds."""

    def __init__(self, count: int, interval: float) -> None:
        self._count = count
        self._interval = interval
        self._times: deque[float] = deque()

    def allow(self, now: float) -> bool:
        """Record an event at `now` if it is within the limit; False (and not recorded) if not."""
        times = self._times
        while times and now - times[0] >= self._interval:
            times.popleft()
        if len(times) >= self._count:
            return False
        times.append(now)
        return True

    def wait(self, now: float) -> float:
        """Seconds from `now` until an event would be allowed (0 if it would be now)."""
        times = self._times
        if len(times) < self._count:
            return 0.0
        return max(0.0, times[-self._count] + self._interval - now)
