"""The game at a table: one engine game at a time, its log, timers, bots and round pauses."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, replace

from protocol import Countdown, View

from ..engine import Choice, Edition, EngineError, Event, Game, Keep, Play, choice_type
from ..ops.config import DEFAULTS, Config
from ..ops.metrics import Metrics
from ..services.bot_pool import BotPool
from ..services.clock import Clock
from ..services.views import wire_view
from ..store import GameRecorder, Store, TableRecord
from .errors import TableError
from .record import GameRecord
from .seating import Seating
from .turns import Turns
from .tutorial import PLAYER, Lesson, Step


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
    """What a runner needs from outside: randomness, time, the bots' worker processes, and
    where to record and count; `keep`: whether a game's table is kept for a restart to
    rebuild (not for `lovelet play`'s, which no server should take over)."""

    rng: random.Random
    clock: Clock
    bots: BotPool
    store: Store | None = None
    metrics: Metrics | None = None
    keep: bool = True


def autoplay_event(seat: int, reason: str, choice: Choice) -> Event:
    """The log entry for a decision a bot made for a human: why (`timeout`, `disconnected`),
    and the card it played (public) or kept (for that seat only)."""
    public: dict = {"reason": reason, "decision": choice_type(choice)}
    if isinstance(choice, Play):
        public["card"] = choice.card
    elif isinstance(choice, Keep):
        return Event("autoplay", seat, public, {"keep": choice.keep}, (seat,))
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
        before_round: Callable[[], None],
        tutorial: bool = False,
    ) -> None:
        self.code, self.edition, self.seating, self.timer = code, edition, seating, timer
        self.settings, self.deps = settings, deps
        self.status = "waiting"
        self.game: Game | None = None
        self.log: list[Event] = []
        self.epoch = 0  # which game of this table the log belongs to
        self.step = 0  # bumped on every change of the pending decision: its id
        self.record = GameRecord(code, edition.id, deps.clock, deps.store, deps.metrics)
        self.closed = False
        self._changed = changed
        self._before_round = before_round  # the table seats late joiners then
        self._engine_seen = 0
        self._ready: set[int] = set()
        self.turns = Turns(self, changed)
        self.lesson = Lesson(self) if tutorial else None  # a tutorial's scripted round

    def require_waiting(self) -> None:
        """`in_progress` once the first game has started."""
        if self.status != "waiting":
            raise TableError("in_progress", "the game has already started")

    # ---------------------------------------------------------------- commands

    def new_game(self, table: TableRecord) -> None:
        """A new game with the seats as they are; the log starts afresh. `table` is kept with
        it for a restart to rebuild (unless `deps.keep` is off)."""
        seats, seed = self.seating.seats, self.deps.rng.getrandbits(64)
        bots = sum(seat.bot_level is not None for seat in seats)
        kept = table if self.deps.keep else None
        self.record.start(self.seating.records(), bots, seed, kept)
        self.game = Game(self.edition, len(seats), random.Random(seed))
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

    def act(self, index: int, choice: Choice, decision: int | None = None) -> None:
        """A player's choice: only from the seat whose decision is pending, only a legal one,
        and only for decision `decision` if given (`stale_decision` once another is pending)."""
        game = self.game
        if decision is not None and (decision != self.step or self.status != "playing"):
            raise TableError("stale_decision", f"decision {decision} is not the one pending")
        if game is None or self.status != "playing":
            raise TableError("no_game", "no round is being played")
        if game.pending is None or game.pending.seat != index:
            raise TableError("not_your_turn", "it is not your decision")
        if self.lesson is not None:
            self.lesson.check(choice)
        try:
            game.act(index, choice)
        except EngineError as err:
            raise TableError(err.code, err.message) from None
        self._accepted(index, choice)
        self._stepped()

    def seat_lost(self, index: int) -> None:
        """Someone else plays seat `index` for good (a bot for a player gone, or a late joiner
        for a bot): the record credits them; they decide now if it is their turn."""
        self.record.replace_seat(index, self.seating.records()[index])
        self.turns.schedule_actor()

    def seats_changed(self) -> None:
        """Someone dropped, came back or left: who decides now may have changed."""
        self.turns.schedule_actor()

    @property
    def kept(self) -> bool:
        """A game is in progress and stored as it goes: a restarted server rebuilds it."""
        return self.status in ("playing", "round_over") and self.record.recording

    def close(self, keep: bool = False) -> None:
        """Stop the timer; a game in progress is recorded as abandoned, unless `keep` (the
        server restarts: it is rebuilt then)."""
        self.closed = True
        self.turns.cancel()
        if not keep:
            self.record.abandon()

    def resume(
        self,
        game: Game,
        log: list[Event],
        recorder: GameRecorder,
        age: float,
        actions: int,
        turn_left: tuple[int, float] | None = None,
    ) -> None:
        """Carry on `game`, rebuilt after a restart with its `log` and `actions` decisions taken,
        `age` seconds after it started: a round's pending decision gets its timer afresh (or
        `turn_left`: the seat and the seconds its timer had left), a pause its whole length.
        Its decision keeps its id if it is the table's first game."""
        self.game, self.log = game, log
        self.record.resume(recorder, age)
        self.epoch += 1
        self._engine_seen = len(game.events)
        self.step = game.round + actions  # a step per round started and per decision taken
        if turn_left is not None:
            self.turns.keep_turn(*turn_left)
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
        deck = self.lesson.deck() if self.lesson is not None else None
        self.game.start_round(deck=deck, start=PLAYER if deck is not None else None)
        self.status = "playing"
        self._stepped()

    def _stepped(self) -> None:
        """After any change to the game: collect events, set status, schedule who acts next."""
        game = self.game
        self.step += 1
        self.turns.cancel()
        self.log.extend(game.events[self._engine_seen :])
        self._engine_seen = len(game.events)
        self.record.sync(self.log)
        if game.game_over:
            self.status = "finished"
            winners = ", ".join(self.seating.seats[s].name or "?" for s in game.game_winners)
            self.record.finished(game.round, winners)
        elif game.round_over:
            self.status = "round_over"
            self.turns.schedule(self.settings.round_pause, self._next_round_due, ("pause", None))
        self._changed()
        self.turns.schedule_actor()

    def _accepted(self, index: int, choice: Choice) -> None:
        """The engine took `index`'s choice: count it and record it for replays."""
        if self.lesson is not None:
            self.lesson.advance()
        self.record.action(index, choice)

    def _next_round_due(self, step: int) -> None:
        if step == self.step and self.status == "round_over":
            self._start_round()

    def bot_acts(self, index: int, reason: str | None, choice: Choice) -> None:
        """A bot decided for seat `index` (`reason`: why a human's seat, else None)."""
        if reason is not None:
            self.log.append(autoplay_event(index, reason, choice))
        self.game.act(index, choice)
        self._accepted(index, choice)
        self._stepped()

    # ---------------------------------------------------------------- the tutorial

    def scripted_step(self) -> Step | None:
        """The tutorial's step pending now, while its scripted round is played."""
        return self.lesson.step() if self.lesson is not None else None

    def view(self, index: int | None) -> View | None:
        """What seat `index` (None: a spectator) sees of the game; in the scripted round, the
        scripted choice is its only one."""
        if self.game is None:
            return None
        view = self.game.view(index)
        step = self.scripted_step()
        if step is not None and view.choices:
            view = replace(view, choices=(step.choice,))
        return wire_view(view, self.step)

    def guide(self, index: int | None) -> str | None:
        """The tutorial's words for the player at `index` now (None: none)."""
        return self.lesson.guide(index) if self.lesson is not None else None

    def seat_log(self, index: int) -> list[dict]:
        """The seat's visible log, extended incrementally (bots and hints read it)."""
        return self.turns.seat_log(index)
