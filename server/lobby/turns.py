"""Who decides at a table, and when: the table's one timer (a bot's delay, a human's turn
timer, the pause between rounds), the countdown players see, and bots deciding for seats."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, NamedTuple, Protocol

from protocol import Countdown
from protocol.registry import MAX_TIMER

from ..bots import SEARCHING, Bot, make_bot
from ..engine import Choice, Event, Game, View
from ..services.clock import Timer
from .seating import TAKEOVER_LEVEL, Seating

if TYPE_CHECKING:
    from .runner import Deps, TableSettings
    from .tutorial import Step

MAX_COUNTDOWN_MS = MAX_TIMER * 1000  # the most a countdown may say


class Playing(Protocol):
    """What `Turns` reads of the game it times, and where a bot's decision goes."""

    game: Game | None
    seating: Seating
    settings: TableSettings
    deps: Deps
    timer: int | None
    step: int
    closed: bool
    log: list[Event]

    def bot_acts(self, index: int, reason: str | None, choice: Choice) -> None: ...

    def scripted_step(self) -> Step | None: ...


@dataclass(slots=True)
class _Scheduled:
    """The table's one timer: its call, what players see of it, and when it is due (while
    paused: the seconds it has left)."""

    callback: Callable[[int], None]
    shown: tuple[str, int | None] | None
    due: float
    left: float | None = None


class Held(NamedTuple):
    """A wait for a player who cannot see the table: at which decision (`step`), the
    seconds waited before this wait, when it began, and the turn's seconds left then."""

    step: int
    used: float
    since: float
    left: float


NOT_HELD = Held(-1, 0.0, 0.0, 0.0)


class Turns:
    """The runner's timer and its bots: starts the clock for whoever decides now, and has a
    bot decide when it runs out (or at once, for a bot's seat, after its delay).

    `pause` stops the clock while players cannot reach the game (an outage of the broker);
    `resume` goes on with the time that was left. A human's turn timer keeps its time when a
    bot stands in for the seat and its player is back before the decision is made.
    """

    def __init__(self, runner: Playing, changed: Callable[[], None]) -> None:
        self.runner = runner
        self._changed = changed  # the table: tell everyone (a held turn timer runs again)
        self._bots: dict[int, Bot] = {}
        self._seat_logs: dict[int, list[dict]] = {}
        self._timer: Timer | None = None
        self._scheduled: _Scheduled | None = None
        self._countdown: tuple[str, float, int | None] | None = None  # kind, due, seat
        self._countdown_step = -1  # the step the countdown was started at
        self._held = NOT_HELD  # a wait for a player who cannot see the table
        self._paused = False
        self._kept_turn: tuple[int, int, float] | None = None  # step, seat, seconds left

    def new_game(self) -> None:
        """Bots and their logs start afresh with a new game."""
        self._bots = {}
        self._seat_logs = {}
        self._held = NOT_HELD

    def schedule_actor(self) -> None:
        """Start the clock for whoever decides now: a bot's delay or a human's turn timer."""
        runner = self.runner
        game = runner.game
        if runner.closed or game is None or game.pending is None:
            return
        seat = runner.seating.seats[game.pending.seat]
        if self._holds(game.pending.seat) and not seat.played_by_bot:
            return  # the table waits for its player's terminal
        if seat.played_by_bot and not seat.awaited:
            self.schedule(runner.seating.bot_delay(runner.settings.bot_delay), self._bot_turn)
        elif runner.timer:
            seat_index = game.pending.seat
            if not self._turn_timer_runs(seat_index):  # back on a new session: time kept
                left = self._kept_left(seat_index)
                delay = runner.timer if left is None else left
                self.schedule(delay, self._timed_out, ("turn", seat_index))
        else:
            self.cancel()  # e.g. a takeover bot's turn, now that its player is back
        if seat.small and seat.member is not None:
            self.hold(game.pending.seat)

    def hold(self, seat: int) -> None:
        """`seat`'s player cannot see the table: their turn timer for the decision pending
        now keeps its time while the table waits for them, as long as a whole turn at most
        (counted over every wait of that decision); then it runs again."""
        runner = self.runner
        countdown = self.countdown()
        if not runner.timer or countdown is None or not self._turn_timer_runs(seat):
            return
        step, now = runner.step, runner.deps.clock.now()
        used = self._held.used if self._held.step == step else 0.0
        if used >= runner.timer:
            return
        self._held = Held(step, used, now, countdown.remaining_ms / 1000)
        self.schedule(runner.timer - used, self._hold_over, ("held", seat))

    def release(self, seat: int) -> None:
        """`seat`'s player sees the table again: their turn timer goes on with its time."""
        if self._holds(seat):
            self._turn_again(seat)

    def _hold_over(self, step: int) -> None:
        """The table waited a whole turn for a player who cannot see it: their timer runs."""
        countdown = self._countdown
        if step == self.runner.step and not self.runner.closed and countdown is not None:
            self._turn_again(countdown[2])
            self._changed()

    def _turn_again(self, seat: int | None) -> None:
        held = self._held
        waited = self.runner.deps.clock.now() - held.since
        self._held = Held(held.step, held.used + waited, held.since, held.left)
        self.schedule(held.left, self._timed_out, ("turn", seat))

    def _holds(self, seat: int) -> bool:
        """The timer of the decision pending now waits for `seat`'s player."""
        shown = self._countdown
        return (
            shown is not None
            and shown[0] == "held"
            and shown[2] == seat
            and self._countdown_step == self.runner.step
        )

    def _turn_timer_runs(self, seat: int) -> bool:
        """`seat`'s turn timer already runs for the decision pending now."""
        return (
            self._countdown is not None
            and self._countdown[0] == "turn"
            and self._countdown[2] == seat
            and self._countdown_step == self.runner.step
        )

    def _kept_left(self, seat: int) -> float | None:
        """The seconds `seat`'s turn timer had left when it stopped for the decision pending
        now (None: it has not run for it)."""
        kept = self._kept_turn
        if kept is None or kept[:2] != (self.runner.step, seat):
            return None
        return kept[2]

    def keep_turn(self, seat: int, left: float) -> None:
        """`seat`'s turn timer for the decision pending now has `left` seconds (a table
        rebuilt by a new core goes on where the last one was)."""
        self._kept_turn = (self.runner.step, seat, max(left, 0.0))

    def turn_left(self) -> tuple[int, float] | None:
        """The seat whose turn timer runs (or is paused) for the decision pending now, and
        the seconds it has left."""
        if self._countdown is None or self._countdown[0] != "turn":
            return None
        if self._countdown_step != self.runner.step or self._countdown[2] is None:
            return None
        return self._countdown[2], self._left()

    def _left(self) -> float:
        """Seconds until the timer fires (frozen while paused)."""
        scheduled = self._scheduled
        if scheduled is None:
            return 0.0
        if scheduled.left is not None:
            return scheduled.left
        return max(scheduled.due - self.runner.deps.clock.now(), 0.0)

    def countdown(self) -> Countdown | None:
        """The timer players see running now (a turn's or the pause's), with the time left."""
        if self._countdown is None:
            return None
        kind, _, seat = self._countdown
        left = max(0, min(round(self._left() * 1000), MAX_COUNTDOWN_MS))
        return Countdown(kind, left, seat)

    def pause(self) -> None:
        """Stop the clock: the timer keeps the time it has left until `resume`."""
        if self._paused:
            return
        self._paused = True
        if self._scheduled is not None and self._timer is not None:
            self._scheduled.left = self._left()
            self._timer.cancel()
            self._timer = None

    def resume(self) -> None:
        """Start the clock again with the time the timer had left."""
        if not self._paused:
            return
        self._paused = False
        scheduled = self._scheduled
        if scheduled is not None:
            self.schedule(scheduled.left or 0.0, scheduled.callback, scheduled.shown)

    def schedule(
        self,
        delay: float,
        callback: Callable[[int], None],
        shown: tuple[str, int | None] | None = None,
    ) -> None:
        """Call `callback(step)` after `delay`; `shown` (kind, seat) if players see it run.
        While paused, the timer waits for `resume` with all of `delay` left."""
        self.cancel()
        clock, step = self.runner.deps.clock, self.runner.step
        due = clock.now() + delay
        self._scheduled = _Scheduled(callback, shown, due, delay if self._paused else None)
        if not self._paused:
            self._timer = clock.call_later(delay, self._fire, step)
        if shown is not None:
            self._countdown = (shown[0], due, shown[1])
            self._countdown_step = step

    def _fire(self, step: int) -> None:
        """The timer ran out: make its call (nothing is left to pause)."""
        scheduled, self._scheduled, self._timer = self._scheduled, None, None
        if scheduled is not None:
            scheduled.callback(step)

    def cancel(self) -> None:
        """Stop the timer, and the countdown with it (a human's turn timer stopped before
        its decision is made keeps its time for that player's return)."""
        running = self.turn_left()
        if running is not None:
            self._kept_turn = (self.runner.step, *running)
        self._countdown = None
        self._scheduled = None
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _bot_turn(self, step: int) -> None:
        runner = self.runner
        if step == runner.step and not runner.closed:
            seat = runner.seating.seats[runner.game.pending.seat]
            self._autoplay(reason="disconnected" if seat.bot_level is None else None)

    def _timed_out(self, step: int) -> None:
        if step == self.runner.step and not self.runner.closed:
            self._autoplay(reason="timeout")

    def _autoplay(self, reason: str | None) -> None:
        """A bot makes the pending decision from the seat's own view and log."""
        runner = self.runner
        game = runner.game
        index = game.pending.seat
        scripted = runner.scripted_step()
        if scripted is not None:  # the tutorial's scripted round: the script decides
            runner.bot_acts(index, reason, scripted.choice)
            return
        level = runner.seating.seats[index].bot_level or TAKEOVER_LEVEL
        bot = self._bots.get(index)
        if bot is None or bot.level != level:
            bot = self._bots[index] = make_bot(level)
        view, log = game.view(index), self.seat_log(index)
        if level in SEARCHING:
            step = runner.step
            deliver = partial(self._decided, step, index, reason, view, log)
            seed, seconds = runner.deps.rng.getrandbits(64), runner.settings.bot_budget
            runner.deps.bots.decide(level, view, log, seed, seconds, deliver)
            if runner.step == step:  # a worker that hangs must not stall the table
                runner.deps.clock.call_later(runner.settings.bot_deadline, deliver, None)
            return
        runner.bot_acts(index, reason, bot.choose(view, log, runner.deps.rng))

    def _decided(
        self,
        step: int,
        index: int,
        reason: str | None,
        view: View,
        log: list[dict],
        choice: Choice | None,
    ) -> None:
        """A searching bot's choice is back: play it unless the game has moved on meanwhile
        (or the seat's player is back); if there is none (the pool failed or missed its
        deadline), the takeover bot's."""
        runner = self.runner
        if step != runner.step or runner.closed or not runner.seating.seats[index].played_by_bot:
            return
        if choice is None:
            choice = make_bot(TAKEOVER_LEVEL).choose(view, log, runner.deps.rng)
        runner.bot_acts(index, reason, choice)

    def seat_log(self, index: int) -> list[dict]:
        """The seat's visible log, extended incrementally (bots read it)."""
        seen = self._seat_logs.setdefault(index, [])
        seen.extend(event.for_seat(index) for event in self.runner.log[len(seen) :])
        return seen
