"""The game at a table: one engine game at a time, its log, timers, bots and round pauses."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, replace

from protocol import Countdown, View

from ..engine import Choice, Edition, EngineError, Event, Game, choice_from_dict
from ..ops.config import DEFAULTS, Config
from ..ops.logs import log_game_end, log_game_start
from ..ops.metrics import Metrics
from ..services.views import wire_view
from ..store import GameRecorder, GuestRecord, Store, TableRecord
from .clock import Clock
from .errors import TableError
from .seating import Seating
from .turns import Turns
from .tutorial import DECK, FREE_PLAY, PLAYER, ROUND_OVER, STEPS, WATCH, Step, describe


@dataclass(frozen=True, slots=True)
class TableSettings:
    """Timings of a table's runtime; zero delays make tests and benchmarks instant."""

    bot_delay: float = DEFAULTS.table.bot_delay  # seconds a bot "thinks" before acting
    grace: float = DEFAULTS.table.disconnect_grace  # seconds a dropped player's seat is held
    round_pause: float = DEFAULTS.table.round_pause  # seconds between rounds, at most
    bot_budget: float = DEFAULTS.table.hard_bot_cpu_ms / 1000  # CPU seconds a hard bot thinks
    bot_deadline: float = 5.0  # seconds after which a searching bot's answer is not awaited
    hint_burst: int = DEFAULTS.table.hints_per_minute  # hints a seat may ask for a minute
    hint_interval: float = 60.0

    @classmethod
    def from_config(cls, config: Config) -> TableSettings:
        """The timings `config` sets (its `[table]` section)."""
        timings = config.table
        return cls(
            bot_delay=timings.bot_delay,
            grace=timings.disconnect_grace,
            round_pause=timings.round_pause,
            bot_budget=timings.hard_bot_cpu_ms / 1000,
            hint_burst=timings.hints_per_minute,
        )


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
        return Event("autoplay", seat, public, {"keep": choice["keep"]}, (seat,))
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
        tutorial: bool = False,
    ) -> None:
        self.code, self.edition, self.seating, self.timer = code, edition, seating, timer
        self.tutorial = tutorial  # the first round is the tutorial's scripted one
        self._script_at = 0  # the scripted round's decisions made so far
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
        self._ready: set[int] = set()
        self.turns = Turns(self)
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
        self.turns.new_game()
        self._start_round()

    def countdown(self) -> Countdown | None:
        """The timer players see running now (a turn's or the pause's), with the time left."""
        return self.turns.countdown()

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
        step = self.scripted_step()
        if step is not None and choice != step.choice:
            raise TableError("tutorial_step", f"in this lesson, play: {describe(step.choice)}")
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
        self.turns.schedule_actor()

    def seats_changed(self) -> None:
        """Someone dropped, came back or left: who decides now may have changed."""
        self.turns.schedule_actor()

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
        self.turns.cancel()
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
            self.turns.schedule(self.settings.round_pause, self._next_round_due, ("pause", None))
        else:
            self.status = "playing"
        self._changed()
        self.turns.schedule_actor()

    # ---------------------------------------------------------------- steps

    def _start_round(self) -> None:
        self._before_round()
        self._ready.clear()
        if self.tutorial and self.epoch == 1 and self.game.round == 0:
            self.game.start_round(deck=DECK, start=PLAYER)
        else:
            self.game.start_round()
        self.status = "playing"
        self._stepped()

    def _stepped(self) -> None:
        """After any change to the game: collect events, set status, schedule who acts next."""
        game = self.game
        self.step += 1
        self.turns.cancel()
        self.log.extend(game.events[self._engine_seen :])
        self._engine_seen = len(game.events)
        if self.recorder is not None:
            self.recorder.sync(self.log)
        if game.game_over:
            self.status = "finished"
            self._log_game_end()
        elif game.round_over:
            self.status = "round_over"
            self.turns.schedule(self.settings.round_pause, self._next_round_due, ("pause", None))
        self._changed()
        self.turns.schedule_actor()

    def _accepted(self, index: int, choice: Choice) -> None:
        """The engine took `index`'s choice: count it and record it for replays."""
        if self.scripted_step() is not None:
            self._script_at += 1
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

    def bot_acts(self, index: int, reason: str | None, choice: dict) -> None:
        """A bot decided for seat `index` (`reason`: why a human's seat, else None)."""
        if reason is not None:
            self.log.append(autoplay_event(index, reason, choice))
        accepted = choice_from_dict(choice)
        self.game.act(index, accepted)
        self._accepted(index, accepted)
        self._stepped()

    # ---------------------------------------------------------------- the tutorial

    def scripted_step(self) -> Step | None:
        """The tutorial's step pending now, while its scripted round is played."""
        game = self.game
        if not self.tutorial or self.epoch != 1 or game is None or game.round != 1:
            return None
        if self.status != "playing" or game.round_over or self._script_at >= len(STEPS):
            return None
        return STEPS[self._script_at]

    def view(self, index: int | None) -> View | None:
        """What seat `index` (None: a spectator) sees of the game; in the scripted round, the
        scripted choice is its only one."""
        if self.game is None:
            return None
        view = self.game.view(index)
        step = self.scripted_step()
        if step is not None and view.choices:
            view = replace(view, choices=(step.choice,))
        return wire_view(view)

    def guide(self, index: int | None) -> str | None:
        """The tutorial's words for the player at `index` now (None: none)."""
        if not self.tutorial or index != PLAYER or self.game is None:
            return None
        if self.epoch == 1 and self.game.round == 1:
            step = self.scripted_step()
            if step is None:
                return ROUND_OVER
            return step.guide or WATCH
        return FREE_PLAY if self.status == "playing" else None

    def seat_log(self, index: int) -> list[dict]:
        """The seat's visible log, extended incrementally (bots and hints read it)."""
        return self.turns.seat_log(index)
