"""What a table's members receive: one coalesced frame each per turn of the loop, with the log
entries each has not seen yet."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from protocol import Countdown, Message, TableInfo, TableState, TableSummary

from ..engine import Event
from ..metrics import Metrics
from .clock import Clock
from .runner import GameRunner
from .seating import Member, Seating

Send = Callable[[Member, Message], None]


@dataclass(frozen=True, slots=True)
class Header:
    """What never changes about a table."""

    code: str
    name: str
    edition: str


class Broadcaster:
    """Per-member log cursors; `changed()` sends every member one frame, soon."""

    def __init__(
        self,
        header: Header,
        seating: Seating,
        runner: GameRunner,
        send: Send,
        clock: Clock,
        metrics: Metrics | None = None,
    ) -> None:
        self.header, self._seating, self._runner = header, seating, runner
        self._send = send
        self._clock = clock
        self._metrics = metrics
        self._sent: dict[Member, int] = {}  # how many log entries each member has received
        self._scheduled = False
        self.closed = False

    def add(self, member: Member) -> None:
        """`member` receives the table from now on, its whole log first."""
        self._sent[member] = 0

    def remove(self, member: Member) -> None:
        """`member` receives nothing more."""
        self._sent.pop(member, None)

    def rewind(self) -> None:
        """A new log (a new game): everyone gets it from the start."""
        for member in self._sent:
            self._sent[member] = 0

    def changed(self) -> None:
        """Coalesce: everything changed in this turn of the loop goes out in one frame each."""
        if not self._scheduled and not self.closed:
            self._scheduled = True
            self._clock.call_soon(self._flush)

    def close(self) -> None:
        """Send nothing more."""
        self.closed = True
        self._sent.clear()

    def _flush(self) -> None:
        self._scheduled = False
        if self.closed:
            return
        log, countdown = self._runner.log, self._runner.countdown()
        with self._metrics.time_update() if self._metrics else contextlib.nullcontext():
            for member, sent in list(self._sent.items()):
                self._sent[member] = len(log)
                self._send(member, self._frame(member, log[sent:], countdown))

    def _frame(
        self, member: Member, events: Sequence[Event], countdown: Countdown | None
    ) -> TableState:
        index = self._seating.seat_of(member)
        game = self._runner.game
        view = game.view(index) if game else None
        events_seen = tuple(e.for_seat(index) for e in events)
        return TableState(self.info(index), view, events_seen, countdown)

    def info(self, you: int | None) -> TableInfo:
        """The table as its members see it."""
        header, seating = self.header, self._seating
        return TableInfo(
            code=header.code,
            name=header.name,
            edition=header.edition,
            host=seating.host_name,
            seats=seating.seat_infos(),
            spectators=tuple(m.identity.name for m in seating.spectators),
            status=self._runner.status,
            timer=self._runner.timer,
            you=you,
        )

    def summary(self) -> TableSummary:
        """The table as the lobby list shows it."""
        seats = self._seating.seats
        return TableSummary(
            self.header.code,
            self.header.name,
            self.header.edition,
            len(seats),
            sum(not seat.empty for seat in seats),
            self._runner.status,
            len(self._seating.spectators),
        )
