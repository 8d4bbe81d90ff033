"""Limits the lobby enforces: a sliding-window rate limit per session, and a budget of
failed tries per address or identity (guessing table codes)."""

from __future__ import annotations

from collections import deque
from collections.abc import Hashable, Iterable


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


class TryBudget:
    """Failed tries per key (an address, an identity): `burst` at once, then one more every
    `refill` seconds. At most `max_keys` keys are kept; the longest untouched go first."""

    def __init__(self, burst: int, refill: float, max_keys: int = 10_000) -> None:
        self._burst = burst
        self._refill = refill
        self._max_keys = max_keys
        self._spent: dict[Hashable, tuple[float, float]] = {}  # key → (tries left, at)

    def wait(self, keys: Iterable[Hashable], now: float) -> float:
        """Seconds until every one of `keys` has a try left; 0 when all have one now."""
        return max((self._wait(self._left(key, now)) for key in keys), default=0.0)

    def spend(self, keys: Iterable[Hashable], now: float) -> None:
        """One failed try for each of `keys`."""
        for key in keys:
            left = self._left(key, now) - 1
            self._spent.pop(key, None)
            self._spent[key] = (left, now)  # now the most recently touched
        while len(self._spent) > self._max_keys:
            del self._spent[next(iter(self._spent))]

    def _left(self, key: Hashable, now: float) -> float:
        left, at = self._spent.get(key, (self._burst, now))
        return min(self._burst, left + (now - at) / self._refill)

    def _wait(self, left: float) -> float:
        return 0.0 if left >= 1 else (1 - left) * self._refill
