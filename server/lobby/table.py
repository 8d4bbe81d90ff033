"""A table as an actor: commands in through `submit`, frames out through its `TableOutput`.

The table holds its seating, its game runner and its broadcaster; it never calls a session.
Everything it says goes through the output: frames for one member, where a member now is,
and how the lobby list shows the table. So it could run elsewhere without the lobby changing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from protocol import (
    Act,
    AddBot,
    ChatLine,
    ContinueRound,
    ErrorReply,
    HintRequest,
    Join,
    Leave,
    Notice,
    RejoinSeat,
    Rematch,
    RemoveBot,
    Sit,
    Spectate,
    Stand,
    Start,
    TableFits,
    TableSummary,
    Visit,
)

from ..bots import LEVELS, SEARCHING
from ..engine import Edition, Game
from ..ops.logs import log_table_closed
from ..services.views import engine_choice
from ..store import TableRecord
from . import rematch, tutorial
from .broadcast import Broadcaster, Header
from .doors import Doors, Hooks
from .errors import TableError
from .hints import HintDesk, HintRule
from .output import TableOutput
from .runner import Deps, GameRunner, TableSettings
from .seating import Member, Seat, Seating
from .words import idle_time

__all__ = ["Table", "TableError", "TableOutput", "TableSettings"]


@dataclass(frozen=True, slots=True)
class Host:
    """The creator takes seat 0 and hosts."""


@dataclass(frozen=True, slots=True)
class Tutor:
    """The creator of a tutorial table takes seat 0, its bots the others, and it starts."""


@dataclass(frozen=True, slots=True)
class Disconnect:
    """The member's session dropped: its seat is held for the grace period."""


@dataclass(frozen=True, slots=True)
class Rejoin:
    """A member who just arrived: it gets its held seat back, if this table holds one."""


@dataclass(frozen=True, slots=True)
class Say:
    """A chat line for everyone at the table."""

    line: ChatLine


@dataclass(frozen=True, slots=True)
class Close:
    """Stop: timers cancelled, a running game recorded as abandoned, unless `keep` (the
    server restarts and rebuilds the table from the store)."""

    keep: bool = False


class Table:
    """One table. Every command ends with the changes sent to the members it concerns."""

    def __init__(
        self,
        code: str,
        name: str,
        edition: Edition,
        seats: int,
        timer: int | None,
        settings: TableSettings,
        output: TableOutput,
        deps: Deps,
        takeover: bool = False,
        private: bool = False,
        hints: HintRule | None = None,
        tutorial: bool = False,
        bot_level: str = LEVELS[0],
    ) -> None:
        edition.check_players(seats)
        self.code, self.name, self.edition = code, name, edition
        self.private = private  # not listed in the lobby (but to administrators)
        self.bot_level = bot_level  # the bots' level that fills empty seats at the start
        self.settings = settings
        self.seating = Seating(seats)
        self.runner = GameRunner(
            code,
            edition,
            self.seating,
            timer,
            settings,
            deps,
            self._changed,
            self._before_round,
            tutorial,
        )
        self._clock = deps.clock
        self._output = output
        self.hints = HintDesk(
            hints or HintRule(), self.seating, self.runner, output.send, self._changed
        )
        header = Header(code, name, edition.id, private)
        self._broadcast = Broadcaster(
            header,
            self.seating,
            self.runner,
            output.send,
            deps.clock,
            deps.metrics,
            self.hints.allowed,
        )
        self._last_summary: TableSummary | None = None
        self.closed = False
        hooks = Hooks(self._changed, self._close)
        self.doors = Doors(
            code,
            self.seating,
            self.runner,
            self._broadcast,
            output,
            settings,
            deps.clock,
            hooks,
            takeover,
        )
        self._commands = _routes(self)

    # ---------------------------------------------------------------- the input

    def submit(self, member: Member | None, command: object) -> None:
        """Handle one command from `member` (None: from the lobby itself, e.g. `Close`); a
        refusal goes back to that member only."""
        if self.closed:
            return
        try:
            self._commands[type(command)](member, command)
        except TableError as err:
            if member is not None:
                self._output.send(member, ErrorReply(err.code, err.message))

    # ---------------------------------------------------------------- reading (tests, logs)

    @property
    def seats(self) -> list[Seat]:
        """The seats."""
        return self.seating.seats

    @property
    def game(self) -> Game | None:
        """The game being played, if any."""
        return self.runner.game

    @property
    def kept(self) -> bool:
        """Its game is in progress and stored as it goes: a restarted server rebuilds it."""
        return self.runner.kept

    def _table_record(self) -> TableRecord:
        """The table as kept with each game it plays."""
        host = self.seating.host
        return TableRecord(
            self.code,
            self.name,
            {
                "timer": self.runner.timer,
                "takeover": self.doors.takeover,
                "private": self.private,
                "hints": self.hints.rule.allowed,
                "bot_level": self.bot_level,
                "bot_delay": self.seating.programs_delay,
            },
            None if host is None else self.seating.seat_of_identity(host),
        )

    # ---------------------------------------------------------------- seating

    def _before_round(self) -> None:
        """The runner deals a round: late joiners take the bots' seats they claimed first (the
        doors, which seat them, are made after the runner)."""
        self.doors.late_joiners()

    def _sit(self, member: Member, index: int) -> None:
        if (
            self.doors.takeover
            and self.runner.status != "waiting"
            and member in self.seating.spectators
        ):
            self.seating.seat(index)  # `no_such_seat` if there is none
            self.doors.claim(member, index)
            return
        self.runner.require_waiting()
        self.seating.sit(member, index)
        self._changed()
        self.doors.tell_code(index)

    def _fits(self, member: Member, fits: bool) -> None:
        """`member`'s terminal can (or cannot) show the table: the others see it on the seat
        and are told while a game runs."""
        index = self.seating.seat_of(member)
        if index is None or self.seats[index].small == (not fits):
            return
        seat = self.seats[index]
        seat.small = not fits
        if fits:
            self.runner.turns.release(index)
        else:
            self.runner.turns.hold(index)
        if self.runner.status in ("playing", "round_over"):
            said = f"{seat.name} sees the table again." if fits else self._too_small(seat.name)
            for other in self.seating.members():
                if other is not member:
                    self._output.send(other, Notice(said))
        self._changed()

    def _too_small(self, name: str | None) -> str:
        """What the others are told of a player whose terminal cannot show the table."""
        said = f"{name}'s terminal is too small to show the table"
        timer = self.runner.timer
        if not timer:
            return f"{said}."
        most = idle_time(timer) if timer % 60 == 0 else f"{timer} seconds"
        return f"{said}: on their turn, the timer waits for them (up to {most})."

    def _stand(self, member: Member) -> None:
        self.runner.require_waiting()
        self.seating.require_seated(member)
        self.seating.watch(member)
        self._changed()

    def _add_bot(self, member: Member, index: int, level: str) -> None:
        self.seating.require_host(member)
        self.runner.require_waiting()
        self.seating.add_bot(member, index, level)
        if level in SEARCHING:
            self.runner.deps.bots.warm()  # worker processes started before its first turn
        self._changed()

    def _remove_bot(self, member: Member, index: int) -> None:
        self.seating.require_host(member)
        self.runner.require_waiting()
        self.seating.remove_bot(member, index)
        self._changed()

    # ---------------------------------------------------------------- the game

    def _start(self, member: Member) -> None:
        self.seating.require_host(member)
        if self.runner.status == "finished":
            self._rematch_now(member)
            return
        self.runner.require_waiting()
        self.seating.fill_with_bots(self.bot_level)
        self._new_game()
        for index in range(len(self.seats)):
            self.doors.tell_code(index)

    def _tutor(self, member: Member) -> None:
        self.doors.take_seat(member, tutorial.PLAYER, host=True)
        for index, name in tutorial.BOTS:
            self.seating.seat_bot(index, tutorial.LEVEL, name)
        self._start(member)

    def _rematch(self, member: Member) -> None:
        """`member` is ready for a rematch; it starts once every player there is."""
        index = self.seating.require_seated(member)
        self.runner.require_finished()
        self.seats[index].ready = True
        self._changed()
        self._rematch_if_ready()

    def _rematch_if_ready(self) -> None:
        if self.runner.status == "finished" and rematch.everyone_ready(self.seating):
            self._new_game()

    def _rematch_now(self, host: Member) -> None:
        """The host starts the rematch: who is not ready watches, bots take their seats."""
        index = self.seating.seat_of(host)
        if index is not None:
            self.seats[index].ready = True
        for member in rematch.unready(self.seating):
            self._output.send(member, Notice("The host started the rematch: you watch it."))
        rematch.bots_for_the_unready(self.seating, self.bot_level)
        self._new_game()

    def _depart(self, member: Member, gone: bool) -> None:
        self.doors.depart(member, gone)
        if not self.closed:
            self._rematch_if_ready()

    def _new_game(self) -> None:
        rematch.clear(self.seating)
        self._broadcast.rewind()
        self.runner.new_game(self._table_record())

    def _say(self, line: ChatLine) -> None:
        for member in self.seating.members():
            self._output.send(member, line)

    def _close(self, keep: bool = False) -> None:
        self.closed = True
        log_table_closed(self.code)
        self.runner.close(keep)
        self.seating.release_all()
        self._broadcast.close()
        for member in self.seating.members():
            self._output.placed(member, None)
        self._output.listed(self.code, None)

    # ---------------------------------------------------------------- the output

    def _changed(self) -> None:
        """Members get a frame soon; the lobby hears of a change to the table's summary."""
        self._broadcast.changed()
        summary = self.summary()
        if summary != self._last_summary:
            self._last_summary = summary
            self._output.listed(self.code, summary)

    def summary(self) -> TableSummary:
        """The table as the lobby list shows it."""
        return self._broadcast.summary()


Handler = Callable[[Member, Any], None]
"""What a table does with a command from a member."""


def _routes(table: Table) -> dict[type, Handler]:
    """The table's input: which part of it handles each kind of command."""
    doors, runner, seated = table.doors, table.runner, table.seating.require_seated
    return {
        Host: lambda m, c: doors.take_seat(m, 0, host=True),
        Tutor: lambda m, c: table._tutor(m),
        Join: lambda m, c: doors.join(m),
        Visit: lambda m, c: doors.visit(m),
        Rejoin: lambda m, c: doors.welcome_back(m),
        RejoinSeat: lambda m, c: doors.rejoin_by_code(m, c.code),
        Spectate: lambda m, c: doors.spectate(m),
        Sit: lambda m, c: table._sit(m, c.seat),
        Stand: lambda m, c: table._stand(m),
        AddBot: lambda m, c: table._add_bot(m, c.seat, c.level),
        RemoveBot: lambda m, c: table._remove_bot(m, c.seat),
        Start: lambda m, c: table._start(m),
        Rematch: lambda m, c: table._rematch(m),
        ContinueRound: lambda m, c: runner.continue_round(seated(m)),
        TableFits: lambda m, c: table._fits(m, c.fits),
        Act: lambda m, c: runner.act(seated(m), engine_choice(c.choice), c.decision),
        HintRequest: lambda m, c: table.hints.ask(m, seated(m)),
        Leave: lambda m, c: table._depart(m, gone=True),
        Disconnect: lambda m, c: table._depart(m, gone=False),
        Say: lambda m, c: table._say(c.line),
        Close: lambda m, c: table._close(c.keep),
    }
