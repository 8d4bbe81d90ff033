"""What a table's members receive: one coalesced frame each per turn of the loop, with the log
entries each has not seen yet."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass

from protocol import Message, SeatInfo, TableInfo, TableState, TableSummary

from ..ops.metrics import Metrics
from ..services.clock import Clock
from ..services.views import wire_events
from .runner import GameRunner
from .seating import Member, Seating

Send = Callable[[Member, Message], None]


@dataclass(frozen=True, slots=True)
class Header:
    """What never changes about a table."""

    code: str
    name: str
    edition: str
    private: bool = False


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
        hints: Callable[[], bool] = lambda: False,
    ) -> None:
        self.header, self._seating, self._runner = header, seating, runner
        self._hints = hints  # whether players may ask for hints now
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
        runner, seating = self._runner, self._seating
        log, countdown = runner.log, runner.countdown()
        seat_of = {seat.member: i for i, seat in enumerate(seating.seats) if seat.member}
        seats, spectators = seating.seat_infos(runner.record.rated), self._spectators()
        with self._metrics.time_update() if self._metrics else contextlib.nullcontext():
            for member, sent in list(self._sent.items()):
                self._sent[member] = len(log)
                index = seat_of.get(member)
                view, guide = runner.view(index), runner.guide(index)
                events = wire_events(log[sent:], index)
                info = self._info(index, seats, spectators)
                self._send(member, TableState(info, view, events, countdown, guide))

    def info(self, you: int | None) -> TableInfo:
        """The table as its members see it."""
        seats = self._seating.seat_infos(self._runner.record.rated)
        return self._info(you, seats, self._spectators())

    def _spectators(self) -> tuple[str, ...]:
        return tuple(m.identity.name for m in self._seating.spectators)

    def _info(
        self, you: int | None, seats: tuple[SeatInfo, ...], spectators: tuple[str, ...]
    ) -> TableInfo:
        header = self.header
        return TableInfo(
            header.code,
            header.name,
            header.edition,
            self._seating.host_name,
            seats,
            spectators,
            self._runner.status,
            self._runner.timer,
            you,
            header.private,
            self._hints(),
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
            self.header.private,
        )
