"""What the server keeps of a table's game while it is played: the store's recording (stats,
replays, a restart's rebuild), and the operator's log lines and metrics."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..engine import Choice, Event
from ..ops.logs import log_game_end, log_game_start
from ..ops.metrics import Metrics
from ..services.clock import Clock
from ..store import GameRecorder, GuestRecord, RatingChange, SeatRecord, Store, TableRecord


class GameRecord:
    """The record of one table's current game; without a store, only the logs and metrics."""

    def __init__(
        self, code: str, edition: str, clock: Clock, store: Store | None, metrics: Metrics | None
    ) -> None:
        self.code, self.edition, self.clock = code, edition, clock
        self.store, self.metrics = store, metrics
        self.recorder: GameRecorder | None = None
        self._started = 0.0  # the clock's time when the game started

    def start(
        self, seats: Sequence[SeatRecord], bots: int, seed: int, table: TableRecord | None
    ) -> None:
        """A new game of `seats` (`bots` of them bots) dealt from `seed`; any game before it
        that did not finish is abandoned."""
        self.abandon()
        if self.store is not None:
            self.recorder = GameRecorder.start(self.store, self.edition, seats, seed, table)
        self._started = self.clock.now()
        log_game_start(self.code, self.edition, len(seats) - bots, bots)

    @property
    def rated(self) -> Mapping[str, RatingChange]:
        """What the finished game did to each keyed player's rating (empty: not rated)."""
        return self.recorder.rated if self.recorder is not None else {}

    def resume(self, recorder: GameRecorder, age: float) -> None:
        """Go on with a game rebuilt after a restart, `age` seconds after it started."""
        self.recorder = recorder
        self._started = self.clock.now() - age

    def action(self, index: int, choice: Choice) -> None:
        """The engine took seat `index`'s choice."""
        if self.recorder is not None:
            self.recorder.action(index, choice)
        if self.metrics is not None:
            self.metrics.actions.inc()

    def sync(self, log: list[Event]) -> None:
        """The log as it is now (the recorder writes what is new)."""
        if self.recorder is not None:
            self.recorder.sync(log)

    def finished(self, rounds: int, winners: str) -> None:
        """The game is over after `rounds`, won by `winners` (their names)."""
        if self.metrics is not None:
            self.metrics.game_finished(self.edition)
        duration = self.clock.now() - self._started
        log_game_end(self.code, self.edition, duration, rounds, winners)

    def replace_seat(self, index: int, seat: SeatRecord) -> None:
        """Someone else plays seat `index` for good: the record credits `seat`."""
        if self.recorder is not None:
            self.recorder.replace_seat(index, seat)

    def keep_guest(self, index: int, guest: GuestRecord) -> None:
        """The guest at `index` takes the seat back with `guest`'s code after a restart too."""
        if self.recorder is not None:
            self.recorder.keep_guest(index, guest)

    @property
    def recording(self) -> bool:
        """The game is stored as it goes and not finished: a restart could rebuild it."""
        recorder = self.recorder
        return recorder is not None and recorder.recording and not recorder.finished

    def abandon(self) -> None:
        """The game stops unfinished (a new one, or the table closes): not in the stats."""
        if self.recorder is not None:
            self.recorder.abandon()
