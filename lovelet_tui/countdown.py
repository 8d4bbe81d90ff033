"""The timer running at a table, counted down from what the server sent: the time left as
the header and the choice panel show it, redrawn when the shown second changes and only
while a timer runs on a screen that is shown."""

from __future__ import annotations

import math
from collections.abc import Callable
from time import monotonic

from rich.text import Text
from textual.message_pump import MessagePump
from textual.timer import Timer

from lovelet_tui.names import Names
from protocol import Countdown

WARN_SECONDS = 10  # the player on turn is warned this long before the timer runs out
TICK_LATE = 0.02  # seconds after a whole second that the clock redraws, to land past it
CLOCK_STYLE, WARN_STYLE = "bold", "bold reverse"
TIMER_NAME = "countdown"  # the name of the pending redraw's timer (and its task)

Draw = Callable[[Countdown | None, int], None]  # the countdown (None: none runs), seconds left


class Clock:
    """Calls `draw` now and at each whole second left, until 0; a `Timer` of `owner` waits
    between redraws, so nothing is scheduled while no timer runs or the clock is hidden."""

    def __init__(self, owner: MessagePump, draw: Draw) -> None:
        self.owner = owner
        self.draw = draw
        self.countdown: Countdown | None = None
        self.deadline = 0.0  # `monotonic()` when the countdown reaches 0
        self.ticker: Timer | None = None  # the next redraw, while one is due
        self.hidden = False  # another screen covers the owner's: draw, but do not tick

    def start(self, countdown: Countdown | None) -> None:
        """Count down `countdown` from now (None: no timer runs; the clock is cleared)."""
        if countdown is None and self.countdown is None:
            return  # still no timer: the clock is clear already
        self._stop()
        self.countdown = countdown
        if countdown is not None:
            self.deadline = monotonic() + countdown.remaining_ms / 1000
        self._tick()

    def hide(self) -> None:
        """No redraws until `show` (another screen is on top)."""
        self.hidden = True
        self._stop()

    def show(self) -> None:
        """Redraw now and go on counting, if a timer runs."""
        self.hidden = False
        if self.countdown is not None:
            self._tick()

    def _stop(self) -> None:
        if self.ticker is not None:
            self.ticker.stop()
            self.ticker = None

    def _tick(self) -> None:
        self.ticker = None
        left = max(0.0, self.deadline - monotonic()) if self.countdown else 0.0
        seconds = math.ceil(left)
        self.draw(self.countdown, seconds)
        if self.countdown is not None and seconds > 0 and not self.hidden:
            delay = left - (seconds - 1) + TICK_LATE
            self.ticker = self.owner.set_timer(delay, self._tick, name=TIMER_NAME)


def clock_texts(
    countdown: Countdown, seconds: int, you: int | None, names: Names
) -> tuple[Text, Text]:
    """The countdown for the header, and for the choice panel (empty when it is another
    player's turn: the header says it)."""
    left = duration(seconds)
    if countdown.kind == "pause":
        header, panel = f"next round in {left}", f"Next round in {left}"
        return Text(header, style=CLOCK_STYLE), Text(panel, style=CLOCK_STYLE)
    if countdown.kind == "held":  # the table waits for a player who cannot see it
        waiting = f"waiting for {names.player(countdown.seat)}: {left}"
        return Text(waiting, style=CLOCK_STYLE), Text()
    if countdown.seat is not None and countdown.seat == you:
        warn = seconds <= WARN_SECONDS
        panel = f"Hurry: {left} left!" if warn else f"Your turn: {left} left"
        style = WARN_STYLE if warn else CLOCK_STYLE
        return Text(f"your turn: {left}", style=style), Text(panel, style=style)
    whose = names.whose(countdown.seat) if countdown.seat is not None else "this"
    return Text(f"{whose} turn: {left}", style=CLOCK_STYLE), Text()


def duration(seconds: int) -> str:
    """ "45 s" under a minute, else "1:30"."""
    return f"{seconds} s" if seconds < 60 else f"{seconds // 60}:{seconds % 60:02d}"
