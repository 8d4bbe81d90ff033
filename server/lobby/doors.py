"""Who comes to a table and who goes: seats taken, players back (by key or by a guest's
rejoin code), late joiners taking bots' seats, departures and the grace period of a drop."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from protocol import Notice

from ..services.clock import Clock
from ..store import GuestRecord
from .broadcast import Broadcaster
from .claims import Claims
from .errors import TableError
from .output import TableOutput
from .runner import GameRunner, TableSettings
from .seating import Member, Seat, Seating, rejoin_code
from .words import idle_time


@dataclass(frozen=True, slots=True)
class Hooks:
    """What the doors ask of their table: tell of a change, close."""

    changed: Callable[[], None]
    close: Callable[[], None]


class Doors:
    """Arrivals and departures of one table; every change ends in the table's `changed`."""

    def __init__(
        self,
        code: str,
        seating: Seating,
        runner: GameRunner,
        broadcast: Broadcaster,
        output: TableOutput,
        settings: TableSettings,
        clock: Clock,
        hooks: Hooks,
        takeover: bool,
    ) -> None:
        self.code, self.seating, self.runner, self.settings = code, seating, runner, settings
        self.takeover = takeover  # late joiners may take a bot's seat at the next round
        self._broadcast, self._output, self._clock, self._hooks = broadcast, output, clock, hooks
        self.claims = Claims(seating)  # bot seats spectators take at the next round

    @property
    def seats(self) -> list[Seat]:
        """The seats."""
        return self.seating.seats

    def _changed(self) -> None:
        self._hooks.changed()

    def _close(self) -> None:
        self._hooks.close()

    def take_seat(self, member: Member, index: int, host: bool = False) -> None:
        if host:
            self.seating.host_at(index, member)
        else:
            self.seating.seat_human(index, member)
        self.arrive(member)
        self.tell_code(index)

    def join(self, member: Member) -> None:
        if self.seating.seat_of_identity(member.identity.id) is not None:
            self.rejoin(member)
            return
        if self.runner.status == "waiting":
            self.take_seat(member, self.seating.first_free())
        elif self.takeover:
            self.spectate(member)
            self.claim(member, None)
        elif self.runner.status == "finished":
            raise TableError("in_progress", "the game at this table is over: watch it instead")
        else:
            raise TableError("in_progress", "the game has started: watch it instead")

    def visit(self, member: Member) -> None:
        """An invite: one's own seat back, a free seat while the table waits, else watching."""
        free = any(seat.empty for seat in self.seats)
        mine = self.seating.seat_of_identity(member.identity.id) is not None
        if mine or (free and self.runner.status == "waiting"):
            self.join(member)
        else:
            self.spectate(member)

    def claim(self, member: Member, index: int | None) -> None:
        index = self.claims.claim(member, index)
        seat = f"{self.seats[index].name}'s seat {index + 1}"
        when = (
            "in the rematch, if the table plays one"
            if self.runner.status == "finished"
            else "when the next round starts"
        )
        self._output.send(member, Notice(f"You take {seat} {when}."))

    def late_joiners(self) -> None:
        """Before a round: claimants take the bot seats they claimed."""
        for index in self.claims.seat_claimants():
            self.tell_code(index)
            self.runner.seat_lost(index)

    def rejoin(self, member: Member) -> None:
        """A keyed player gets their seat back; so does a guest whose SSH session is still
        the one that held it (its one-off id: a front-end re-attaching after the game
        server restarted). A guest of the seat's name and address is told how to take it
        back."""
        index = self.seating.seat_of_identity(member.identity.id)
        if index is not None:
            self._reattach(index, member)
        elif member.identity.guest:
            self._remind(member)

    def welcome_back(self, member: Member) -> None:
        """A keyed player just signed in: their seat back, unless its game is over (then the
        seat is given up and they are told the result, in the lobby)."""
        index = self.seating.seat_of_identity(member.identity.id)
        if index is None or self.runner.status != "finished" or self.seats[index].member:
            self.rejoin(member)
            return
        winners = ", ".join(self.seats[s].name or "?" for s in self.runner.game.game_winners)
        self._hand_to_bot(index)
        self._output.send(
            member,
            Notice(f"The game at table {self.code} ended while you were away: {winners} won."),
        )
        self._after_departure()

    def rejoin_by_code(self, member: Member, code: str) -> None:
        index = self.seating.seat_of_code(code)
        if index is None:
            return
        seat = self.seats[index]
        if self.seating.host is not None and self.seating.host == seat.identity:
            self.seating.host = member.identity.id  # a guest host stays host
        seat.identity, seat.address = member.identity.id, member.identity.address
        self._reattach(index, member)
        self.tell_code(index)  # the code used is spent

    def _reattach(self, index: int, member: Member) -> None:
        replaced = self.seating.reattach(index, member)  # the seat keeps the player's name
        if replaced is not None:
            self._broadcast.remove(replaced)
            self._output.placed(replaced, None)
            self._output.replaced(replaced)
        self.arrive(member)
        self._output.send(member, Notice(f"Welcome back: you are at table {self.code} again."))
        self.runner.seats_changed()

    def tell_code(self, index: int) -> None:
        """A guest's seat gets a new one-time rejoin code, told to that guest only, once the
        game runs (before it, a dropped guest's seat is simply freed)."""
        seat = self.seats[index]
        if seat.member is None or not seat.guest or self.runner.status == "waiting":
            return
        seat.rejoin = rejoin_code()
        guest = GuestRecord(seat.rejoin, seat.address)
        self.runner.record.keep_guest(index, guest)  # stored before the guest is told it
        grace = idle_time(self.settings.grace)
        self._output.send(
            seat.member,
            Notice(
                f"Your rejoin code: {seat.rejoin}. If you drop, sign in again within {grace},"
                " press r in the lobby and type it to get your seat back."
            ),
        )

    def _remind(self, member: Member) -> None:
        """The guest of a held guest seat (its name, from its address): how to take it back."""
        if self.seating.held_for(member.identity) is not None:
            self._output.send(
                member,
                Notice(
                    f"A seat of yours is held at table {self.code}: press r and type your"
                    " rejoin code to take it back."
                ),
            )

    def spectate(self, member: Member) -> None:
        self.seating.watch(member)
        self.arrive(member)

    def arrive(self, member: Member) -> None:
        self._broadcast.add(member)
        self._output.placed(member, self.code)
        self._changed()

    def depart(self, member: Member, gone: bool) -> None:
        """A spectator just goes; a seat empties before the game, is given away after it, and
        in between is held (a drop) or given away (`gone`: a leave)."""
        self.claims.unclaim(member)
        index = self.seating.seat_of(member)
        gone = gone or self.runner.status == "finished"  # no seat is held after the game
        if index is not None and self.runner.status != "waiting":
            self.seats[index].member = None
            if gone:
                self._hand_to_bot(index)
            else:
                self.hold(index)
            self.runner.seats_changed()
        else:
            self.seating.vacate(member)
        self._broadcast.remove(member)
        if gone:
            self._output.placed(member, None)
        self._after_departure()

    def hold(self, index: int) -> None:
        """Hold the seat at `index` for its dropped player for the grace period."""
        seat = self.seats[index]
        seat.held = self._clock.call_later(self.settings.grace, self._grace_expired, seat)

    def _grace_expired(self, seat: Seat) -> None:
        if seat in self.seats and not self.runner.closed:
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
