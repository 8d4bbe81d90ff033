"""A table: seats, spectators and chat around one engine game, with bots and timers."""

from __future__ import annotations

import contextlib
import random
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from protocol import SeatInfo, TableInfo, TableState, TableSummary

from ..bots import SEARCHING, Bot, make_bot
from ..bots.pool import shared_pool
from ..engine import Choice, Edition, EngineError, Event, Game, choice_from_dict
from ..logs import log_game_end, log_game_start, log_table_closed
from ..metrics import Metrics
from ..store import GameRecorder, SeatRecord, Store
from .clock import Clock, Timer
from .session import Session

TAKEOVER_LEVEL = "medium"  # the bot that plays for a timed-out or disconnected player


class TableError(Exception):
    """A request the table refuses; `code` is stable, the message is for the player."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True, slots=True)
class TableSettings:
    """Timings of a table's runtime; zero delays make tests and benchmarks instant."""

    bot_delay: float = 0.8  # seconds a bot "thinks" before acting, so people can follow
    grace: float = 120.0  # seconds a dropped player's seat is held
    round_pause: float = 20.0  # seconds between rounds unless every player continues
    bot_budget: float = 0.15  # CPU seconds a searching (hard) bot thinks per decision


@dataclass(eq=False)
class Seat:
    """One seat: a human (connected or held), a bot, or nobody."""

    name: str | None = None
    identity: str | None = None  # a human's identity id; None for bots and empty seats
    guest: bool = False
    session: Session | None = None
    bot_level: str | None = None  # set for a bot seat
    held: Timer | None = None  # grace timer of a dropped human

    @property
    def empty(self) -> bool:
        """Nobody sits here."""
        return self.identity is None and self.bot_level is None

    @property
    def played_by_bot(self) -> bool:
        """A bot decides for this seat: a bot seat, or a human who is not connected."""
        return self.bot_level is not None or self.session is None


class Table:
    """One table. Every change goes through a method here and ends with `changed()`."""

    def __init__(
        self,
        code: str,
        name: str,
        edition: Edition,
        seats: int,
        timer: int | None,
        settings: TableSettings,
        on_change: Callable[[Table], None],
        rng: random.Random,
        clock: Clock,
        store: Store | None = None,
        metrics: Metrics | None = None,
    ) -> None:
        edition.check_players(seats)
        self.code, self.name, self.edition, self.timer = code, name, edition, timer
        self.settings = settings
        self.seats = [Seat() for _ in range(seats)]
        self.spectators: list[Session] = []
        self.host: str | None = None  # identity id
        self.host_name: str | None = None
        self.status = "waiting"
        self.game: Game | None = None
        self.log: list[Event] = []
        self.epoch = 0  # which game of this table the log belongs to
        self.step = 0  # bumped on every change of the pending decision
        self.rng = rng
        self.clock = clock
        self.store = store
        self.metrics = metrics
        self.recorder: GameRecorder | None = None
        self._on_change = on_change
        self._engine_seen = 0
        self._bots: dict[int, Bot] = {}
        self._seat_logs: dict[int, list[dict]] = {}
        self._ready: set[int] = set()
        self._timer: Timer | None = None
        self._flush_scheduled = False
        self._game_started = 0.0
        self._last_summary: TableSummary | None = None
        self.closed = False

    # ------------------------------------------------------------ who is here

    def seat_of(self, session: Session) -> int | None:
        """The seat `session` occupies, if any."""
        for index, seat in enumerate(self.seats):
            if seat.session is session:
                return index
        return None

    def seat_of_identity(self, identity: str) -> int | None:
        """The seat held by that identity, connected or not."""
        for index, seat in enumerate(self.seats):
            if seat.identity == identity:
                return index
        return None

    def sessions(self) -> list[Session]:
        """Everyone who receives this table's updates."""
        return [s.session for s in self.seats if s.session] + self.spectators

    def has_humans(self) -> bool:
        """Whether any human is seated (connected or held) or watching."""
        return bool(self.spectators) or any(s.identity for s in self.seats)

    # ------------------------------------------------------------- seating

    def add_host(self, session: Session) -> None:
        """The creator takes seat 0 and hosts."""
        self.host = session.identity.id
        self.host_name = session.identity.name
        self._seat_human(0, session)
        self.changed()

    def join(self, session: Session) -> None:
        """Sit in the first empty seat, or get one's held seat back."""
        held = self.seat_of_identity(session.identity.id)
        if held is not None:
            self._reattach(held, session)
            return
        if self.status != "waiting":
            raise TableError("in_progress", "the game has started: spectate instead")
        free = [i for i, seat in enumerate(self.seats) if seat.empty]
        if not free:
            raise TableError("table_full", "every seat is taken: spectate instead")
        self._seat_human(free[0], session)
        self.changed()

    def spectate(self, session: Session) -> None:
        """Watch the table."""
        self.spectators.append(session)
        session.table = self
        self._reset_cursor(session)
        self.changed()

    def sit(self, session: Session, index: int) -> None:
        """Take an empty seat before the game starts (from a seat or from spectating)."""
        self._require_waiting()
        seat = self._seat(index)
        if not seat.empty:
            raise TableError("seat_taken", f"seat {index + 1} is taken")
        current = self.seat_of(session)
        if current is not None:
            self.seats[current] = Seat()
        elif session in self.spectators:
            self.spectators.remove(session)
        self._seat_human(index, session)
        self.changed()

    def stand(self, session: Session) -> None:
        """Leave one's seat and watch instead (before the game starts)."""
        self._require_waiting()
        index = self._require_seat(session)
        self.seats[index] = Seat()
        self.spectators.append(session)
        self.changed()

    def add_bot(self, session: Session, index: int, level: str) -> None:
        """Host: put a bot in an empty seat."""
        self._require_host(session)
        self._require_waiting()
        seat = self._seat(index)
        if not seat.empty:
            raise TableError("seat_taken", f"seat {index + 1} is taken")
        make_bot(level)  # validates the level
        if level in SEARCHING:
            shared_pool().warm()
        self.seats[index] = Seat(name=f"{level} bot {index + 1}", bot_level=level)
        self.changed()

    def remove_bot(self, session: Session, index: int) -> None:
        """Host: empty a bot's seat."""
        self._require_host(session)
        self._require_waiting()
        if self._seat(index).bot_level is None:
            raise TableError("not_a_bot", f"seat {index + 1} has no bot")
        self.seats[index] = Seat()
        self.changed()

    def leave(self, session: Session) -> None:
        """Leave the table; a seat in a running game is played by a bot from now on."""
        self._depart(session, self._give_to_bot)
        session.table = None
        self._after_departure()

    def disconnect(self, session: Session) -> None:
        """The session dropped: hold its seat for the grace period while a bot plays it."""
        self._depart(session, self._hold)
        self._after_departure()

    def _depart(self, session: Session, in_game: Callable[[int], None]) -> None:
        """A spectator just goes; a seat empties before the game, else `in_game(seat)`."""
        if session in self.spectators:
            self.spectators.remove(session)
        index = self.seat_of(session)
        if index is None:
            return
        if self.status == "waiting":
            self.seats[index] = Seat()
        else:
            in_game(index)

    def _seat_human(self, index: int, session: Session) -> None:
        identity = session.identity
        self.seats[index] = Seat(identity.name, identity.id, identity.guest, session)
        session.table = self
        self._reset_cursor(session)

    def _reattach(self, index: int, session: Session) -> None:
        seat = self.seats[index]
        if seat.held is not None:
            seat.held.cancel()
            seat.held = None
        old = seat.session
        if old is not None and old is not session:
            old.table = None
        seat.session, seat.name = session, session.identity.name
        session.table = self
        self._reset_cursor(session)
        self.changed()
        self._schedule_actor()

    def _hold(self, index: int) -> None:
        seat = self.seats[index]
        seat.session = None
        seat.held = self.clock.call_later(self.settings.grace, self._grace_expired, index)
        self._schedule_actor()

    def _grace_expired(self, index: int) -> None:
        self._give_to_bot(index)
        self._after_departure()

    def _give_to_bot(self, index: int) -> None:
        seat = self.seats[index]
        if seat.held is not None:
            seat.held.cancel()
        self.seats[index] = Seat(name=f"{seat.name} (bot)", bot_level=TAKEOVER_LEVEL)
        self._schedule_actor()

    def _after_departure(self) -> None:
        if not any(seat.identity for seat in self.seats) and not self.spectators:
            self.close()
            return
        host_here = any(s.identity.id == self.host for s in self.sessions())
        if self.host is not None and not host_here and self.seat_of_identity(self.host) is None:
            humans = [seat for seat in self.seats if seat.identity]
            self.host = humans[0].identity if humans else None
            self.host_name = humans[0].name if humans else None
        self.changed()

    def close(self) -> None:
        """Stop every timer and forget the game; the lobby drops the table."""
        self.closed = True
        log_table_closed(self.code)
        self._cancel_timer()
        if self.recorder is not None:
            self.recorder.abandon()
        for seat in self.seats:
            if seat.held is not None:
                seat.held.cancel()
        for session in self.sessions():
            session.table = None
        self._on_change(self)

    # ------------------------------------------------------------- the game

    def start(self, session: Session) -> None:
        """Host: fill empty seats with bots and deal the first round."""
        self._require_host(session)
        self._require_waiting()
        for index, seat in enumerate(self.seats):
            if seat.empty:
                self.seats[index] = Seat(name=f"easy bot {index + 1}", bot_level="easy")
        self._new_game()

    def rematch(self, session: Session) -> None:
        """After a finished game: a new game with the same seats."""
        self._require_seat(session)
        if self.status != "finished":
            raise TableError("not_finished", "a rematch is offered when the game is over")
        self._new_game()

    def _new_game(self) -> None:
        if self.recorder is not None:
            self.recorder.abandon()
        if self.store is not None:
            self.recorder = GameRecorder.start(self.store, self.edition.id, self._seat_records())
        self.game = Game(self.edition, len(self.seats), random.Random(self.rng.getrandbits(64)))
        self._game_started = self.clock.now()
        bots = sum(seat.bot_level is not None for seat in self.seats)
        log_game_start(self.code, self.edition.id, len(self.seats) - bots, bots)
        self.epoch += 1
        self.log = []
        self._engine_seen = 0
        self._bots = {}
        self._seat_logs = {}
        for session in self.sessions():
            self._reset_cursor(session)
        self._start_round()

    def _start_round(self) -> None:
        self._ready.clear()
        self.game.start_round()
        self.status = "playing"
        self._stepped()

    def _seat_records(self) -> list[SeatRecord]:
        return [
            SeatRecord(None if seat.guest else seat.identity, seat.name, seat.bot_level)
            for seat in self.seats
        ]

    def continue_round(self, session: Session) -> None:
        """A seated player has read the round summary; when all have, the next round starts."""
        index = self._require_seat(session)
        if self.status != "round_over":
            raise TableError("not_between_rounds", "no round summary is open")
        self._ready.add(index)
        waiting = {i for i, s in enumerate(self.seats) if s.session is not None} - self._ready
        if not waiting:
            self._start_round()

    def act(self, session: Session, choice: Choice) -> None:
        """A player's choice: only from the seat whose decision is pending, only a legal one."""
        index = self._require_seat(session)
        game = self._require_game()
        if game.pending is None or game.pending.seat != index:
            raise TableError("not_your_turn", "it is not your decision")
        try:
            game.act(index, choice)
        except EngineError as err:
            raise TableError(err.code, err.message) from None
        self._count_action()
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
            self._schedule(self.settings.round_pause, self._next_round_due)
        self.changed()
        self._schedule_actor()

    def _count_action(self) -> None:
        if self.metrics is not None:
            self.metrics.actions.inc()

    def _log_game_end(self) -> None:
        if self.metrics is not None:
            self.metrics.game_finished(self.edition.id)
        winners = ", ".join(self.seats[s].name or "?" for s in self.game.game_winners)
        duration = self.clock.now() - self._game_started
        log_game_end(self.code, self.edition.id, duration, self.game.round, winners)

    def _next_round_due(self, step: int) -> None:
        if step == self.step and self.status == "round_over":
            self._start_round()

    def _schedule_actor(self) -> None:
        """Start the clock for whoever decides now: a bot's delay or a human's turn timer."""
        game = self.game
        if self.closed or game is None or game.pending is None:
            return
        seat = self.seats[game.pending.seat]
        if seat.played_by_bot:
            self._schedule(self.settings.bot_delay, self._bot_turn)
        elif self.timer:
            self._schedule(self.timer, self._timed_out)
        else:
            self._cancel_timer()  # e.g. a takeover bot's turn, now that its player is back

    def _schedule(self, delay: float, callback: Callable[[int], None]) -> None:
        self._cancel_timer()
        self._timer = self.clock.call_later(delay, callback, self.step)

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _bot_turn(self, step: int) -> None:
        if step == self.step and not self.closed:
            self._autoplay(reason=None)

    def _timed_out(self, step: int) -> None:
        if step == self.step and not self.closed:
            self._autoplay(reason="timeout")

    def _autoplay(self, reason: str | None) -> None:
        """A bot makes the pending decision from the seat's own view and log."""
        game = self.game
        index = game.pending.seat
        seat = self.seats[index]
        bot = self._bots.get(index)
        level = seat.bot_level or TAKEOVER_LEVEL
        if bot is None or bot.level != level:
            bot = self._bots[index] = make_bot(level)
        if reason is not None:
            self.log.append(Event("autoplay", index, {"reason": reason}))
        view, log = game.view(index), self._seat_log(index)
        if level in SEARCHING:
            deliver = partial(self._decided, self.step, index, view, log)
            seed, seconds = self.rng.getrandbits(64), self.settings.bot_budget
            shared_pool().decide(level, view, log, seed, seconds, deliver)
            return
        self._bot_acts(index, bot.choose(view, log, self.rng))

    def _decided(
        self, step: int, index: int, view: dict, log: list[dict], choice: dict | None
    ) -> None:
        """A searching bot's choice is back: play it unless the game has moved on meanwhile
        (or the seat's player is back); if the search failed, the quick estimate's."""
        if step != self.step or self.closed or not self.seats[index].played_by_bot:
            return
        if choice is None:
            choice = make_bot(TAKEOVER_LEVEL).choose(view, log, self.rng)
        self._bot_acts(index, choice)

    def _bot_acts(self, index: int, choice: dict) -> None:
        self.game.act(index, choice_from_dict(choice))
        self._count_action()
        self._stepped()

    def _seat_log(self, index: int) -> list[dict]:
        """The seat's visible log, extended incrementally (bots read it)."""
        seen = self._seat_logs.setdefault(index, [])
        seen.extend(event.for_seat(index) for event in self.log[len(seen) :])
        return seen

    # ------------------------------------------------------------- updates

    def changed(self) -> None:
        """Coalesce: everything changed in this loop iteration goes out in one update."""
        if not self._flush_scheduled and not self.closed:
            self._flush_scheduled = True
            self.clock.call_soon(self._flush)
        summary = self.summary()
        if summary != self._last_summary:
            self._last_summary = summary
            self._on_change(self)

    def _flush(self) -> None:
        self._flush_scheduled = False
        if self.closed:
            return
        with self.metrics.time_update() if self.metrics else contextlib.nullcontext():
            for session in self.sessions():
                self.send_state(session)

    def send_state(self, session: Session) -> None:
        """Send `session` its view, and the log entries it has not seen yet."""
        index = self.seat_of(session)
        if session.log_epoch != self.epoch:
            self._reset_cursor(session)
        new = self.log[session.events_sent :]
        session.events_sent = len(self.log)
        view = self.game.view(index) if self.game else None
        events = tuple(event.for_seat(index) for event in new)
        session.send(TableState(self.info(index), view, events))

    def _reset_cursor(self, session: Session) -> None:
        session.events_sent = 0
        session.log_epoch = self.epoch

    def info(self, you: int | None) -> TableInfo:
        """The table as its members see it."""
        return TableInfo(
            code=self.code,
            name=self.name,
            edition=self.edition.id,
            host=self.host_name,
            seats=tuple(
                SeatInfo(seat.name, seat.bot_level, not seat.played_by_bot or bool(seat.bot_level))
                for seat in self.seats
            ),
            spectators=tuple(s.name for s in self.spectators),
            status=self.status,
            timer=self.timer,
            you=you,
        )

    def summary(self) -> TableSummary:
        """The table as the lobby list shows it."""
        taken = sum(not seat.empty for seat in self.seats)
        return TableSummary(
            self.code,
            self.name,
            self.edition.id,
            len(self.seats),
            taken,
            self.status,
            len(self.spectators),
        )

    # ------------------------------------------------------------- checks

    def _seat(self, index: int) -> Seat:
        if not 0 <= index < len(self.seats):
            raise TableError("no_such_seat", f"there is no seat {index + 1}")
        return self.seats[index]

    def _require_seat(self, session: Session) -> int:
        index = self.seat_of(session)
        if index is None:
            raise TableError("not_seated", "you are not seated at this table")
        return index

    def _require_host(self, session: Session) -> None:
        if session.identity.id != self.host:
            raise TableError("not_host", "only the host can do that")

    def _require_waiting(self) -> None:
        if self.status != "waiting":
            raise TableError("in_progress", "the game has already started")

    def _require_game(self) -> Game:
        if self.game is None or self.status != "playing":
            raise TableError("no_game", "no round is being played")
        return self.game
