"""Input from one client: budgets, bounded buffering and a fair share of the event loop.

Bytes from the channel wait in an `InputPump`, which hands at most `chunk` bytes per turn of
the event loop to its consumer (the driver) and none while the consumer is behind. While
`buffer` bytes wait, or the byte budget is overdrawn, the pump pauses reading from the channel:
asyncssh then stops reopening the SSH window, so the client's sends back up over TCP instead
of piling up in the server.
"""

from __future__ import annotations

import asyncio
import contextvars
import time
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from server.ssh.cost import CostBudget


def call_later_weakly(
    delay: float, method: Callable[..., object], *args: Any
) -> asyncio.TimerHandle:
    """`call_later` of a bound method that keeps neither its object nor the caller's context
    (a session's app) alive while it waits: a cancelled timer stays in the loop's queue until
    its time, and an ended session must not stay with it."""
    loop = asyncio.get_running_loop()
    weak = weakref.WeakMethod(method)  # type: ignore[arg-type]
    return loop.call_later(delay, _call_if_alive, weak, *args, context=contextvars.Context())


def _call_if_alive(weak: weakref.WeakMethod[Callable[..., object]], *args: Any) -> None:
    method = weak()
    if method is not None:
        method(*args)


class TokenBucket:
    """`rate` tokens a second, at most `burst` saved up."""

    def __init__(
        self, rate: float, burst: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._rate = rate
        self._burst = burst
        self._clock = clock
        self._tokens = float(burst)
        self._last = clock()

    def _refill(self) -> None:
        now = self._clock()
        self._tokens = min(self._burst, self._tokens + (now - self._last) * self._rate)
        self._last = now

    def take(self, amount: float) -> bool:
        """Take `amount` tokens if there are that many; False (and take none) if not."""
        self._refill()
        if self._tokens < amount:
            return False
        self._tokens -= amount
        return True

    def spend(self, amount: float) -> float:
        """Take `amount` tokens, going into debt if need be; return the seconds to repay it."""
        self._refill()
        self._tokens -= amount
        return 0.0 if self._tokens >= 0 else -self._tokens / self._rate

    @property
    def rate(self) -> float:
        """Tokens a second."""
        return self._rate

    def saved(self) -> float:
        """Tokens saved (below 0: owed)."""
        self._refill()
        return self._tokens

    def set_rate(self, rate: float) -> None:
        """Refill at `rate` from now on (what was refilled until now at the old one)."""
        self._refill()
        self._rate = rate


class Reader(Protocol):
    """The part of an asyncssh channel that delivers input."""

    def pause_reading(self) -> None: ...

    def resume_reading(self) -> None: ...


Consumer = Callable[[bytes], bool]
"""Takes a chunk of input; True when it handed work to the app and will call `release()`."""


class InputPump:
    """Bytes from one channel to one consumer: bounded, paced, a chunk per loop turn.

    `rate`/`burst` bound the bytes read per second (reading pauses until the debt is repaid);
    at most `buffer` bytes wait for the consumer before reading pauses. With a `cost` budget,
    no chunk is handed over while the session is past its share of the server's time (the
    handing over itself is charged to it): `on_held` is called each time its input waits for
    it, and `on_persistent`, after which input stops, once the session is persistently past it.
    """

    def __init__(
        self,
        reader: Reader,
        *,
        rate: float,
        burst: int,
        buffer: int,
        chunk: int,
        cost: CostBudget | None = None,
        on_held: Callable[[], None] | None = None,
        on_persistent: Callable[[], None] | None = None,
    ) -> None:
        self._reader: Reader | None = reader
        self._budget = TokenBucket(rate, burst)
        self._buffer = buffer
        self._chunk = chunk
        self._cost = cost
        self._on_held = on_held
        self._on_persistent = on_persistent
        self._inbox = bytearray()
        self._consumer: Consumer | None = None
        self._held = False
        self._scheduled = False
        self._pumping = False
        self._pauses: set[str] = set()
        self._timers: dict[str, asyncio.TimerHandle] = {}

    @property
    def waiting(self) -> int:
        """Bytes received and not yet handed to the consumer."""
        return len(self._inbox)

    @property
    def reading(self) -> bool:
        """False while reading from the channel is paused."""
        return not self._pauses

    def received(self, data: bytes) -> None:
        """Input from the channel."""
        if self._reader is None:
            return
        self._inbox += data
        wait = self._budget.spend(len(data))
        if wait > 0:
            self._pause_for("budget", wait)
        if len(self._inbox) >= self._buffer:
            self._pause("buffer")
        self._pump()

    def attach(self, consumer: Consumer) -> None:
        """Start handing input to `consumer` (what arrived before it waits for it)."""
        self._consumer = consumer
        self._pump()

    def release(self) -> None:
        """The consumer has caught up: hand it more."""
        self._held = False
        self._schedule()

    def take(self) -> bytes:
        """Everything received and not yet handed over, taken out of the pump (what a client
        sent before its connection dropped, to be handled all the same)."""
        waiting = bytes(self._inbox)
        self._inbox.clear()
        return waiting

    def close(self) -> None:
        """Drop everything waiting and stop; the channel is gone or input no longer wanted."""
        self._reader = None
        self._consumer = None
        self._inbox.clear()
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()

    def _pump(self) -> None:
        """Hand over one chunk (resuming reading may deliver more input re-entrantly)."""
        consumer = self._consumer
        if self._pumping or self._held or consumer is None or not self._inbox:
            return
        if self.cost_wait() > 0:
            return
        self._pumping = True
        started = time.perf_counter()
        try:
            chunk = bytes(self._inbox[: self._chunk])
            del self._inbox[: self._chunk]
            self._held = consumer(chunk)
            if len(self._inbox) < self._buffer:
                self._resume("buffer")
        finally:
            self._pumping = False
            self._charge(time.perf_counter() - started)
        self._schedule()

    def input_started(self) -> None:
        """The consumer handed an input event to the app: its cost starts to count."""
        if self._cost is not None:
            self._cost.input_started()

    def input_handled(self) -> None:
        """The app has handled that event: its cost is known."""
        if self._cost is not None:
            self._cost.input_handled()

    def cost_wait(self) -> float:
        """Seconds the session must wait for its share of the server's time (0: none), reading
        paused meanwhile; past it persistently, `on_persistent` is called and input stops."""
        if self._cost is None:
            return 0.0
        timer = self._timers.get("cost")
        if timer is not None:
            return max(0.0, timer.when() - asyncio.get_running_loop().time())
        wait = self._cost.overdrawn()
        if wait <= 0:
            return 0.0
        if self._cost.persistent and self._on_persistent is not None:
            self._on_persistent()
            self.close()
            return wait
        self._pause_for("cost", wait)
        if self._on_held is not None:
            self._on_held()
        return wait

    def _charge(self, seconds: float) -> None:
        """Charge the handing over to the session, unless its task step already counts it."""
        if self._cost is not None and asyncio.current_task() is None:
            self._cost.charge(seconds)

    def _schedule(self) -> None:
        """Take the next chunk on a later turn of the loop, so other sessions go first."""
        if self._scheduled or self._held or not self._inbox or self._consumer is None:
            return
        self._scheduled = True
        asyncio.get_running_loop().call_soon(self._scheduled_pump)

    def _scheduled_pump(self) -> None:
        self._scheduled = False
        self._pump()

    def _pause_for(self, reason: str, seconds: float) -> None:
        """Pause reading for `reason` until `seconds` have passed (if not paused for it)."""
        if reason in self._timers or self._reader is None:
            return
        self._pause(reason)
        self._timers[reason] = call_later_weakly(seconds, self._waited, reason)

    def _waited(self, reason: str) -> None:
        del self._timers[reason]
        self._resume(reason)
        self._schedule()

    def _pause(self, reason: str) -> None:
        if not self._pauses and self._reader is not None:
            self._reader.pause_reading()
        self._pauses.add(reason)

    def _resume(self, reason: str) -> None:
        if reason not in self._pauses:
            return
        self._pauses.discard(reason)
        if not self._pauses and self._reader is not None:
            self._reader.resume_reading()


PASTE_CHARS_PER_KEY = 16
"""A bracketed paste costs one key per this many characters (at least one)."""
NOTICE_INTERVAL = 10.0
"""Seconds between two notices about dropped keys to the same player."""


class KeyBudget:
    """Keys one session may send: `rate` a second in bursts of `burst`; the excess is dropped.

    Dropped keys are counted in a second bucket of `flood` keys, refilled at `rate`: once it
    is empty the session counts as a flooder. `admit` says what to do with one key.
    """

    ACCEPT = "accept"
    DROP = "drop"
    DROP_AND_NOTIFY = "drop and notify"
    FLOOD = "flood"

    def __init__(
        self, rate: float, burst: int, flood: int, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._keys = TokenBucket(rate, burst, clock)
        self._tolerance = TokenBucket(rate, flood, clock)
        self._clock = clock
        self._noticed_at: float | None = None
        self.dropped = 0
        """Keys dropped so far."""

    def admit(self, cost: float = 1.0) -> str:
        """ACCEPT, DROP, DROP_AND_NOTIFY (the first drop in a while) or FLOOD."""
        if self._keys.take(cost):
            return self.ACCEPT
        self.dropped += 1
        if not self._tolerance.take(cost):
            return self.FLOOD
        now = self._clock()
        if self._noticed_at is None or now - self._noticed_at >= NOTICE_INTERVAL:
            self._noticed_at = now
            return self.DROP_AND_NOTIFY
        return self.DROP
