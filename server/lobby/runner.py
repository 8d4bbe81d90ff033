"""The game at a table: one engine game at a time, its log, timers, bots and round pauses."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from protocol import Countdown
from protocol.registry import MAX_TIMER

from ..bot_pool import shared_pool
from ..bots import SEARCHING, Bot, make_bot
from ..config import DEFAULTS
from ..engine import Choice, Edition, EngineError, Event, Game, choice_from_dict
from ..logs import log_game_end, log_game_start
from ..metrics import Metrics
from ..store import GameRecorder, GuestRecord, Store, TableRecord
from .clock import Clock, Timer
from .errors import TableError
from .seating import TAKEOVER_LEVEL, Seating

MAX_COUNTDOWN_MS = MAX_TIMER * 1000  # the most a countdown may say


@dataclass(frozen=True, slots=True)
class TableSettings:
    """Timings of a table's runtime; zero delays make tests and benchmarks instant."""

    bot_delay: float = DEFAULTS.table.bot_delay  # seconds a bot "thinks" before acting
    grace: float = DEFAULTS.table.disconnect_grace  # seconds a dropped player's seat is held
    round_pause: float = DEFAULTS.table.round_pause  # seconds between rounds, at most
    bot_budget: float = DEFAULTS.table.hard_bot_cpu_ms / 1000  # CPU seconds a hard bot thinks
    bot_deadline: float = 5.0  # seconds after which a searching bot's answer is not awaited


@dataclass(frozen=True, slots=True)
class Deps:
    """What a runner needs from outside: randomness, time, and where to record and count."""

    rng: random.Random
    clock: Clock
    store: Store | None = None
    metrics: Metrics | None = None


def autoplay_event(seat: int, reason: str, choice: dict) -> Event:
    """The log entry for a decision a bot made for a human: why (`timeout`, `disconnected`),
    and the card it played (public) or kept (for that seat only)."""
    public: dict = {"reason": reason, "decision": choice["type"]}
    if choice["type"] == "play":
        public["card"] = choice["card"]
    elif choice["type"] == "keep":
        return Event("autoplay", seat, public, {"card": choice["keep"]}, (seat,))
    return Event("autoplay", seat, public)


class GameRunner:
    """Runs the games of one table; `changed()` is called after every step."""

    def __init__(
        self,
        code: str,
        edition: Edition,
        seating: Seating,
        timer: int | None,
        settings: TableSettings,
        deps: Deps,
        changed: Callable[[], None],
        before_round: Callable[[], None] = lambda: None,
        describe: Callable[[], TableRecord] | None = None,
    ) -> None:
        self.code, self.edition, self.seating, self.timer = code, edition, seating, timer
        self.settings, self.deps = settings, deps
        self.status = "waiting"
        self.game: Game | None = None
        self.log: list[Event] = []
        self.epoch = 0  # which game of this table the log belongs to
        self.step = 0  # bumped on every change of the pending decision
        self.recorder: GameRecorder | None = None
        self.closed = False
        self._changed = changed
        self._before_round = before_round  # the table seats late joiners then
        self._describe = describe  # the table as kept with each game, for a restart
        self._engine_seen = 0
        self._bots: dict[int, Bot] = {}
        self._seat_logs: dict[int, list[dict]] = {}
        self._ready: set[int] = set()
        self._timer: Timer | None = None
        self._countdown: tuple[str, float, int | None] | None = None  # kind, due, seat
        self._countdown_step = -1  # the step the countdown was started at
        self._game_started = 0.0

    def require_waiting(self) -> None:
        """`in_progress` once the first game has started."""
        if self.status != "waiting":
            raise TableError("in_progress", "the game has already started")

    # ---------------------------------------------------------------- commands

    def new_game(self) -> None:
        """A new game with the seats as they are; the log starts afresh."""
        deps, seats = self.deps, self.seating.seats
        if self.recorder is not None:
            self.recorder.abandon()
        seed = deps.rng.getrandbits(64)
        if deps.store is not None:
            records = self.seating.records()
            table = self._describe() if self._describe is not None else None
            self.recorder = GameRecorder.start(deps.store, self.edition.id, records, seed, table)
        self.game = Game(self.edition, len(seats), random.Random(seed))
        self._game_started = deps.clock.now()
        bots = sum(seat.bot_level is not None for seat in seats)
        log_game_start(self.code, self.edition.id, len(seats) - bots, bots)
        self.epoch += 1
        self.log = []
        self._engine_seen = 0
        self._bots = {}
        self._seat_logs = {}
        self._start_round()

    def require_finished(self) -> None:
        """`not_finished` unless the game is over (a rematch may then start)."""
        if self.status != "finished":
            raise TableError("not_finished", "a rematch is offered when the game is over")

    def continue_round(self, index: int) -> None:
        """Seat `index` has read the round summary; when all connected have, the next starts."""
        if self.status != "round_over":
            raise TableError("not_between_rounds", "no round summary is open")
        self._ready.add(index)
        if not self.seating.connected_seats() - self._ready:
            self._start_round()

    def act(self, index: int, choice: Choice) -> None:
        """A player's choice: only from the seat whose decision is pending, only a legal one."""
        game = self.game
        if game is None or self.status != "playing":
            raise TableError("no_game", "no round is being played")
        if game.pending is None or game.pending.seat != index:
            raise TableError("not_your_turn", "it is not your decision")
        try:
            game.act(index, choice)
        except EngineError as err:
            raise TableError(err.code, err.message) from None
        self._accepted(index, choice)
        self._stepped()

    def seat_lost(self, index: int) -> None:
        """Someone else plays seat `index` for good (a bot for a player gone, or a late joiner
        for a bot): the record credits them; they decide now if it is their turn."""
        if self.recorder is not None:
            self.recorder.replace_seat(index, self.seating.records()[index])
        self._schedule_actor()

    def seats_changed(self) -> None:
        """Someone dropped, came back or left: who decides now may have changed."""
        self._schedule_actor()

    def keep_guest(self, index: int) -> None:
        """The guest at `index` got a new rejoin code: keep it for a restart (before they are
        told it)."""
        seat = self.seating.seats[index]
        if self.recorder is not None and seat.rejoin is not None:
            self.recorder.keep_guest(index, GuestRecord(seat.rejoin, seat.address))

    @property
    def kept(self) -> bool:
        """A game is in progress and stored as it goes: a restarted server rebuilds it."""
        recorder = self.recorder
        return (
            self.status in ("playing", "round_over")
            and recorder is not None
            and recorder.recording
            and not recorder.finished
        )

    def close(self, keep: bool = False) -> None:
        """Stop the timer; a game in progress is recorded as abandoned, unless `keep` (the
        server restarts: it is rebuilt then)."""
        self.closed = True
        self._cancel_timer()
        if self.recorder is not None and not keep:
            self.recorder.abandon()

    def resume(self, game: Game, log: list[Event], recorder: GameRecorder, age: float) -> None:
        """Carry on `game`, rebuilt after a restart with its `log`, `age` seconds after it
        started: a round's pending decision gets its timer afresh, a pause its whole length."""
        self.game, self.log, self.recorder = game, log, recorder
        self.epoch += 1
        self._engine_seen = len(game.events)
        self._game_started = self.deps.clock.now() - age
        self.step += 1
        if game.round_over:
            self.status = "round_over"
            self._schedule(self.settings.round_pause, self._next_round_due, ("pause", None))
        else:
            self.status = "playing"
        self._changed()
        self._schedule_actor()

    # ---------------------------------------------------------------- steps

    def _start_round(self) -> None:
        self._before_round()
        self._ready.clear()
        self.game.start_round()
        self.status = "playing"
        self._stepped()

    def _stepped(self) -> None:
        """After any change to the game: collect events, set status, schedule who acts next."""
        game = self.game
        self.step += 1
        self._cancel_timer()
        self.log.extend(game.events[self._engine_seen :])
        self._engine_seen = len(game.events)
        if self.recorder is not None:
            self.recorder.sync(self.log)
        if game.game_over:
            self.status = "finished"
            self._log_game_end()
        elif game.round_over:
            self.status = "round_over"
            self._schedule(self.settings.round_pause, self._next_round_due, ("pause", None))
        self._changed()
        self._schedule_actor()

    def _accepted(self, index: int, choice: Choice) -> None:
        """The engine took `index`'s choice: count it and record it for replays."""
        if self.recorder is not None:
            self.recorder.action(index, choice)
        if self.deps.metrics is not None:
            self.deps.metrics.actions.inc()

    def _log_game_end(self) -> None:
        if self.deps.metrics is not None:
            self.deps.metrics.game_finished(self.edition.id)
        seats = self.seating.seats
        winners = ", ".join(seats[s].name or "?" for s in self.game.game_winners)
        duration = self.deps.clock.now() - self._game_started
        log_game_end(self.code, self.edition.id, duration, self.game.round, winners)

    def _next_round_due(self, step: int) -> None:
        if step == self.step and self.status == "round_over":
            self._start_round()

    # ---------------------------------------------------------------- who decides

    def _schedule_actor(self) -> None:
        """Start the clock for whoever decides now: a bot's delay or a human's turn timer."""
        game = self.game
        if self.closed or game is None or game.pending is None:
            return
        seat = self.seating.seats[game.pending.seat]
        if seat.played_by_bot and not seat.awaited:
            self._schedule(self.settings.bot_delay, self._bot_turn)
        elif self.timer:
            if not self._turn_timer_runs(game.pending.seat):  # back on a new session: time kept
                self._schedule(self.timer, self._timed_out, ("turn", game.pending.seat))
        else:
            self._cancel_timer()  # e.g. a takeover bot's turn, now that its player is back

    def _turn_timer_runs(self, seat: int) -> bool:
        """`seat`'s turn timer already runs for the decision pending now."""
        return (
            self._countdown is not None
            and self._countdown[0] == "turn"
            and self._countdown[2] == seat
            and self._countdown_step == self.step
        )

    def countdown(self) -> Countdown | None:
        """The timer players see running now (a turn's or the pause's), with the time left."""
        if self._countdown is None:
            return None
        kind, due, seat = self._countdown
        left = max(0, min(round((due - self.deps.clock.now()) * 1000), MAX_COUNTDOWN_MS))
        return Countdown(kind, left, seat)

    def _schedule(
        self,
        delay: float,
        callback: Callable[[int], None],
        shown: tuple[str, int | None] | None = None,
    ) -> None:
        """Call `callback(step)` after `delay`; `shown` (kind, seat) if players see it run."""
        self._cancel_timer()
        clock = self.deps.clock
        self._timer = clock.call_later(delay, callback, self.step)
        if shown is not None:
            self._countdown = (shown[0], clock.now() + delay, shown[1])
            self._countdown_step = self.step

    def _cancel_timer(self) -> None:
        self._countdown = None
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _bot_turn(self, step: int) -> None:
        if step == self.step and not self.closed:
            seat = self.seating.seats[self.game.pending.seat]
            self._autoplay(reason="disconnected" if seat.bot_level is None else None)

    def _timed_out(self, step: int) -> None:
        if step == self.step and not self.closed:
            self._autoplay(reason="timeout")

    def _autoplay(self, reason: str | None) -> None:
        """A bot makes the pending decision from the seat's own view and log."""
        game = self.game
        index = game.pending.seat
        level = self.seating.seats[index].bot_level or TAKEOVER_LEVEL
        bot = self._bots.get(index)
        if bot is None or bot.level != level:
            bot = self._bots[index] = make_bot(level)
        view, log = game.view(index), self._seat_log(index)
        if level in SEARCHING:
            step = self.step
            deliver = partial(self._decided, step, index, reason, view, log)
            seed, seconds = self.deps.rng.getrandbits(64), self.settings.bot_budget
            shared_pool().decide(level, view, log, seed, seconds, deliver)
            if self.step == step:  # a worker that hangs must not stall the table
                self.deps.clock.call_later(self.settings.bot_deadline, deliver, None)
            return
        self._bot_acts(index, reason, bot.choose(view, log, self.deps.rng))

    def _decided(
        self,
        step: int,
        index: int,
        reason: str | None,
        view: dict,
        log: list[dict],
        choice: dict | None,
    ) -> None:
        """A searching bot's choice is back: play it unless the game has moved on meanwhile
        (or the seat's player is back); if there is none (the pool failed or missed its
        deadline), the takeover bot's."""
        if step != self.step or self.closed or not self.seating.seats[index].played_by_bot:
            return
        if choice is None:
            choice = make_bot(TAKEOVER_LEVEL).choose(view, log, self.deps.rng)
        self._bot_acts(index, reason, choice)

    def _bot_acts(self, index: int, reason: str | None, choice: dict) -> None:
        if reason is not None:
            self.log.append(autoplay_event(index, reason, choice))
        accepted = choice_from_dict(choice)
        self.game.act(index, accepted)
        self._accepted(index, accepted)
        self._stepped()

    def _seat_log(self, index: int) -> list[dict]:
        """The seat's visible log, extended incrementally (bots read it)."""
        seen = self._seat_logs.setdefault(index, [])
        seen.extend(event.for_seat(index) for event in self.log[len(seen) :])
        return seen
