"""A table as an actor: commands in through `submit`, frames out through its `TableOutput`.

The table holds its seating, its game runner and its broadcaster; it never calls a session.
Everything it says goes through the output: frames for one member, where a member now is,
and how the lobby list shows the table. So it could run elsewhere without the lobby changing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from protocol import (
    Act,
    AddBot,
    ChatLine,
    ContinueRound,
    ErrorReply,
    Join,
    KeepChoice,
    Leave,
    LookChoice,
    Message,
    Notice,
    PlayChoice,
    RedrawChoice,
    RejoinSeat,
    Rematch,
    RemoveBot,
    Sit,
    Spectate,
    Stand,
    Start,
    TableSummary,
)

from ..engine import Choice, Edition, Game, Keep, Look, Play, Redraw
from ..logs import log_table_closed
from .broadcast import Broadcaster, Header
from .errors import TableError
from .runner import Deps, GameRunner, TableSettings
from .seating import Member, Seat, Seating, rejoin_code
from .words import idle_time

__all__ = ["Table", "TableError", "TableOutput", "TableSettings"]


class TableOutput(Protocol):
    """Where a table's output goes (the lobby)."""

    def send(self, member: Member, message: Message) -> None:
        """A message for one member."""

    def placed(self, member: Member, code: str | None) -> None:
        """`member` is now at table `code`, or at none (it left, or the table closed)."""

    def listed(self, code: str, summary: TableSummary | None) -> None:
        """How the lobby list shows table `code` now; None once it is closed."""

    def replaced(self, member: Member) -> None:
        """Another session of the same player took `member`'s seat: end `member`."""


@dataclass(frozen=True, slots=True)
class Host:
    """The creator takes seat 0 and hosts."""


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
    """Stop: timers cancelled, a running game recorded as abandoned."""


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
    ) -> None:
        edition.check_players(seats)
        self.code, self.name, self.edition = code, name, edition
        self.settings = settings
        self.seating = Seating(seats)
        self.takeover = takeover  # late joiners may take a bot's seat at the next round
        self.runner = GameRunner(
            code, edition, self.seating, timer, settings, deps, self._changed, self._late_joiners
        )
        self._clock = deps.clock
        self._output = output
        header = Header(code, name, edition.id)
        self._broadcast = Broadcaster(
            header, self.seating, self.runner, output.send, deps.clock, deps.metrics
        )
        self._last_summary: TableSummary | None = None
        self.closed = False
        runner, seated = self.runner, self.seating.require_seated
        self._commands: dict[type, Callable[[Member, Any], None]] = {
            Host: lambda m, c: self._take_seat(m, 0, host=True),
            Join: lambda m, c: self._join(m),
            Rejoin: lambda m, c: self._rejoin(m),
            RejoinSeat: lambda m, c: self._rejoin_by_code(m, c.code),
            Spectate: lambda m, c: self._spectate(m),
            Sit: lambda m, c: self._sit(m, c.seat),
            Stand: lambda m, c: self._stand(m),
            AddBot: lambda m, c: self._add_bot(m, c.seat, c.level),
            RemoveBot: lambda m, c: self._remove_bot(m, c.seat),
            Start: lambda m, c: self._start(m),
            Rematch: lambda m, c: self._rematch(m),
            ContinueRound: lambda m, c: runner.continue_round(seated(m)),
            Act: lambda m, c: self.runner.act(
                self.seating.require_seated(m), engine_choice(c.choice)
            ),
            Leave: lambda m, c: self._depart(m, gone=True),
            Disconnect: lambda m, c: self._depart(m, gone=False),
            Say: lambda m, c: self._say(c.line),
            Close: lambda m, c: self._close(),
        }

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

    # ---------------------------------------------------------------- seating

    def _take_seat(self, member: Member, index: int, host: bool = False) -> None:
        if host:
            self.seating.host_at(index, member)
        else:
            self.seating.seat_human(index, member)
        self._arrive(member)
        self._tell_code(index)

    def _join(self, member: Member) -> None:
        if self.seating.seat_of_identity(member.identity.id) is not None:
            self._rejoin(member)
            return
        if self.runner.status == "waiting":
            self._take_seat(member, self.seating.first_free())
        elif self.takeover:
            self._spectate(member)
            self._claim(member, None)
        else:
            raise TableError("in_progress", "the game has started: spectate instead")

    def _claim(self, member: Member, index: int | None) -> None:
        index = self.seating.claim(member, index)
        name = self.seats[index].name
        self._output.send(
            member, Notice(f"You take {name}'s seat {index + 1} when the next round starts.")
        )

    def _late_joiners(self) -> None:
        """Before a round: claimants take the bot seats they claimed."""
        for index in self.seating.seat_claimants():
            self._tell_code(index)
            self.runner.seat_lost(index)

    def _rejoin(self, member: Member) -> None:
        if member.identity.guest:
            self._remind(member)
            return
        index = self.seating.seat_of_identity(member.identity.id)
        if index is not None:
            self._reattach(index, member)

    def _rejoin_by_code(self, member: Member, code: str) -> None:
        index = self.seating.seat_of_code(code)
        if index is None:
            return
        seat = self.seats[index]
        seat.identity, seat.address = member.identity.id, member.identity.address
        self._reattach(index, member)
        self._tell_code(index)  # the code used is spent

    def _reattach(self, index: int, member: Member) -> None:
        replaced = self.seating.reattach(index, member)  # the seat keeps the player's name
        if replaced is not None:
            self._broadcast.remove(replaced)
            self._output.placed(replaced, None)
            self._output.replaced(replaced)
        self._arrive(member)
        self._output.send(member, Notice(f"Welcome back: you are at table {self.code} again."))
        self.runner.seats_changed()

    def _tell_code(self, index: int) -> None:
        """A guest's seat gets a new one-time rejoin code, told to that guest only."""
        seat = self.seats[index]
        if seat.member is None or not seat.guest:
            return
        seat.rejoin = rejoin_code()
        grace = idle_time(self.settings.grace)
        self._output.send(
            seat.member,
            Notice(
                f"Your rejoin code: {seat.rejoin}. If you drop, sign in again within {grace},"
                " press r in the lobby and type it to get your seat back."
            ),
        )

    def _remind(self, member: Member) -> None:
        """A guest from the address of a held guest seat: how to take it back."""
        if self.seating.held_for(member.identity) is not None:
            self._output.send(
                member,
                Notice(
                    f"A seat of yours is held at table {self.code}: press r and type your"
                    " rejoin code to take it back."
                ),
            )

    def _spectate(self, member: Member) -> None:
        self.seating.watch(member)
        self._arrive(member)

    def _sit(self, member: Member, index: int) -> None:
        if self.takeover and self.runner.status != "waiting" and member in self.seating.spectators:
            self.seating.seat(index)  # `no_such_seat` if there is none
            self._claim(member, index)
            return
        self.runner.require_waiting()
        self.seating.sit(member, index)
        self._changed()
        self._tell_code(index)

    def _stand(self, member: Member) -> None:
        self.runner.require_waiting()
        self.seating.require_seated(member)
        self.seating.watch(member)
        self._changed()

    def _add_bot(self, member: Member, index: int, level: str) -> None:
        self.seating.require_host(member)
        self.runner.require_waiting()
        self.seating.add_bot(member, index, level)
        self._changed()

    def _remove_bot(self, member: Member, index: int) -> None:
        self.seating.require_host(member)
        self.runner.require_waiting()
        self.seating.remove_bot(member, index)
        self._changed()

    def _arrive(self, member: Member) -> None:
        self._broadcast.add(member)
        self._output.placed(member, self.code)
        self._changed()

    def _depart(self, member: Member, gone: bool) -> None:
        """A spectator just goes; a seat empties before the game, else is held or given away."""
        self.seating.unclaim(member)
        index = self.seating.seat_of(member)
        if index is not None and self.runner.status != "waiting":
            self.seats[index].member = None
            if gone:
                self._hand_to_bot(index)
            else:
                self._hold(index)
            self.runner.seats_changed()
        else:
            self.seating.vacate(member)
        self._broadcast.remove(member)
        if gone:
            self._output.placed(member, None)
        self._after_departure()

    def _hold(self, index: int) -> None:
        seat = self.seats[index]
        seat.held = self._clock.call_later(self.settings.grace, self._grace_expired, seat)

    def _grace_expired(self, seat: Seat) -> None:
        if seat in self.seats and not self.closed:
            self._hand_to_bot(self.seats.index(seat))
            self._after_departure()

    def _hand_to_bot(self, index: int) -> None:
        """The seat's human is gone for good: a bot plays it, and gets its result."""
        self.seating.hand_to_bot(index)
        self.runner.seat_lost(index)

    def _after_departure(self) -> None:
        if self.seating.abandoned():
            self._close()
            return
        self.seating.rehost()
        self._changed()

    # ---------------------------------------------------------------- the game

    def _start(self, member: Member) -> None:
        self.seating.require_host(member)
        self.runner.require_waiting()
        self.seating.fill_with_bots("easy")
        self._new_game()

    def _rematch(self, member: Member) -> None:
        self.seating.require_seated(member)
        self.runner.require_finished()
        self._new_game()

    def _new_game(self) -> None:
        self._broadcast.rewind()
        self.runner.new_game()

    def _say(self, line: ChatLine) -> None:
        for member in self.seating.members():
            self._output.send(member, line)

    def _close(self) -> None:
        self.closed = True
        log_table_closed(self.code)
        self.runner.close()
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


def engine_choice(choice: PlayChoice | KeepChoice | LookChoice | RedrawChoice) -> Choice:
    """The engine's value object for a protocol choice."""
    if isinstance(choice, PlayChoice):
        return Play(choice.card, tuple(choice.targets), choice.guess)
    if isinstance(choice, KeepChoice):
        return Keep(choice.keep, tuple(choice.bottom))
    if isinstance(choice, LookChoice):
        return Look(choice.seat)
    return Redraw(choice.redraw)
