"""Who is at a table: its seats (humans, held seats, bots), its spectators and its host."""

from __future__ import annotations

import secrets
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import Protocol

from protocol import SeatInfo

from ..bots import LEVELS
from ..services.clock import Timer
from ..store import RatingChange, SeatRecord
from .errors import TableError
from .session import Identity
from .stats import shown_change

TAKEOVER_LEVEL = "medium"  # the bot that plays for a timed-out or disconnected player
CODE_LETTERS = "ACDEFGHJKLMNPQRTUVWXY"  # no look-alikes (B/8, I/1, O/0, S/5, Z/2)


def rejoin_code() -> str:
    """A fresh one-time rejoin code, e.g. 'KQXM-TRWA' (21^8, about 4e10 of them)."""
    letters = "".join(secrets.choice(CODE_LETTERS) for _ in range(8))
    return f"{letters[:4]}-{letters[4:]}"


def normal_code(code: str) -> str:
    """A rejoin code as typed, compared without case, dashes or spaces."""
    return "".join(c for c in code.upper() if c.isalnum())


class Member(Hashable, Protocol):
    """A session as a table knows it: who it is. The table never calls it."""

    @property
    def identity(self) -> Identity: ...


@dataclass(eq=False)
class Seat:
    """One seat: a human (connected or held), a bot, or nobody."""

    name: str | None = None
    identity: str | None = None  # a human's identity id; None for bots and empty seats
    guest: bool = False
    member: Member | None = None  # the connected session of that human
    bot_level: str | None = None  # set for a bot seat
    held: Timer | None = None  # grace timer of a dropped human
    address: str | None = None  # a guest's address, to remind them of their held seat
    rejoin: str | None = None  # a guest's one-time code to take the seat back
    awaited: bool = False  # rebuilt after a restart: no bot decides for it while held
    api_bot: bool = False  # a program on the bot API plays this human seat
    ready: bool = False  # at a finished table: its player wants a rematch
    small: bool = False  # its player's terminal is too small to show the table

    @property
    def empty(self) -> bool:
        """Nobody sits here."""
        return self.identity is None and self.bot_level is None

    @property
    def played_by_bot(self) -> bool:
        """A bot decides for this seat: a bot seat, or a human who is not connected."""
        return self.bot_level is not None or self.member is None

    def release(self) -> None:
        """Stop the grace timer of a held seat."""
        if self.held is not None:
            self.held.cancel()
            self.held = None


class Seating:
    """The seats, spectators and host of one table; changes only, no game and no timers."""

    def __init__(self, size: int) -> None:
        self.seats = [Seat() for _ in range(size)]
        self.spectators: list[Member] = []
        self.host: str | None = None  # identity id
        self.host_name: str | None = None
        self.programs_delay: float | None = None  # `create_table.bot_delay`, in seconds

    def bot_delay(self, default: float) -> float:
        """Seconds a bot waits before it plays: the table's own delay while no human sits at
        it (only programs on the bot API and bots), else `default` (the server's)."""
        humans = any(seat.identity is not None and not seat.api_bot for seat in self.seats)
        return default if humans or self.programs_delay is None else self.programs_delay

    def seat_of(self, member: Member) -> int | None:
        """The seat `member` occupies, if any."""
        for index, seat in enumerate(self.seats):
            if seat.member is member:
                return index
        return None

    def seat_of_identity(self, identity: str) -> int | None:
        """The seat held by that identity, connected or not."""
        for index, seat in enumerate(self.seats):
            if seat.identity == identity:
                return index
        return None

    def members(self) -> list[Member]:
        """Everyone at the table: connected seats in order, then spectators."""
        return [s.member for s in self.seats if s.member is not None] + self.spectators

    def seat(self, index: int) -> Seat:
        """The seat at `index`; `no_such_seat` if there is none."""
        if not 0 <= index < len(self.seats):
            raise TableError("no_such_seat", f"there is no seat {index + 1}")
        return self.seats[index]

    def require_empty(self, index: int) -> None:
        """`seat_taken` unless the seat at `index` is empty."""
        if not self.seat(index).empty:
            raise TableError("seat_taken", f"seat {index + 1} is taken")

    def require_seated(self, member: Member) -> int:
        """The seat of `member`; `not_seated` if it has none."""
        index = self.seat_of(member)
        if index is None:
            raise TableError("not_seated", "you are not seated at this table")
        return index

    def require_host(self, member: Member) -> None:
        """`not_host` unless `member` hosts the table."""
        if member.identity.id != self.host:
            raise TableError("not_host", "only the host can do that")

    # ---------------------------------------------------------------- changes

    def seat_human(self, index: int, member: Member) -> None:
        """`member` sits at `index`, leaving the seat or the watchers it had."""
        self.vacate(member)
        identity = member.identity
        self.seats[index] = Seat(
            identity.name, identity.id, identity.guest, member, api_bot=identity.api_bot
        )
        if identity.guest:
            self.seats[index].address = identity.address

    def host_at(self, index: int, member: Member) -> None:
        """`member` sits at `index` and hosts."""
        self.host, self.host_name = member.identity.id, member.identity.name
        self.seat_human(index, member)

    def watch(self, member: Member) -> None:
        """`member` watches (leaving its seat, if any)."""
        self.vacate(member)
        self.spectators.append(member)

    def vacate(self, member: Member) -> int | None:
        """`member` leaves the watchers or empties its seat; the seat it had, if any."""
        if member in self.spectators:
            self.spectators.remove(member)
        index = self.seat_of(member)
        if index is not None:
            self.seats[index] = Seat()
        return index

    def seat_bot(self, index: int, level: str, name: str | None = None) -> None:
        """A bot of `level` at `index`."""
        self.seats[index].release()
        self.seats[index] = Seat(name=name or f"{level} bot {index + 1}", bot_level=level)

    def fill_with_bots(self, level: str) -> None:
        """Every empty seat gets a bot of `level`."""
        for index, seat in enumerate(self.seats):
            if seat.empty:
                self.seat_bot(index, level)

    def hand_to_bot(self, index: int) -> None:
        """The human at `index` is gone for good: the takeover bot plays the seat as its own."""
        self.seat_bot(index, TAKEOVER_LEVEL, f"{self.seats[index].name} (bot)")

    def reattach(self, index: int, member: Member) -> Member | None:
        """`member` (same identity) takes the seat back; the session it replaces, if any."""
        seat = self.seats[index]
        seat.release()
        seat.awaited = seat.small = False  # a new session says if its terminal is small
        old, seat.member = seat.member, member
        seat.api_bot = member.identity.api_bot  # a person may take over their program's seat
        return old if old is not member else None

    def seat_of_code(self, code: str) -> int | None:
        """The guest seat whose rejoin code is `code` (any case, dashes and spaces ignored)."""
        wanted = normal_code(code)
        for index, seat in enumerate(self.seats):
            if seat.rejoin is not None and normal_code(seat.rejoin) == wanted:
                return index
        return None

    def held_for(self, identity: Identity) -> int | None:
        """A held guest seat of this guest, as far as a guest can be told: the seat's name
        (in any case) and address are the guest's. Another guest behind that address is
        not told of it."""
        mine = (identity.address, identity.name.casefold())
        for index, seat in enumerate(self.seats):
            held = seat.held is not None and seat.guest
            if held and (seat.address, (seat.name or "").casefold()) == mine:
                return index
        return None

    def abandoned(self) -> bool:
        """No human is seated (connected or held) and nobody watches."""
        return not self.spectators and not any(seat.identity for seat in self.seats)

    def rehost(self) -> None:
        """If the host is gone from the table, the first seated human hosts."""
        if self.host is None or self.seat_of_identity(self.host) is not None:
            return
        if any(member.identity.id == self.host for member in self.spectators):
            return
        humans = [seat for seat in self.seats if seat.identity]
        self.host = humans[0].identity if humans else None
        self.host_name = humans[0].name if humans else None

    def release_all(self) -> None:
        """Stop every grace timer."""
        for seat in self.seats:
            seat.release()

    def sit(self, member: Member, index: int) -> None:
        """`member` takes the empty seat at `index`."""
        self.require_empty(index)
        self.seat_human(index, member)

    def first_free(self) -> int:
        """The first empty seat; `table_full` if there is none."""
        for index, seat in enumerate(self.seats):
            if seat.empty:
                return index
        raise TableError("table_full", "every seat is taken: spectate instead")

    def add_bot(self, member: Member, index: int, level: str) -> None:
        """Host: a bot of `level` (one of the registry's, else `no_such_level`) in the empty
        seat at `index`."""
        self.require_host(member)
        self.require_empty(index)
        require_level(level)
        self.seat_bot(index, level)

    def remove_bot(self, member: Member, index: int) -> None:
        """Host: empty the bot's seat at `index`."""
        self.require_host(member)
        if self.seat(index).bot_level is None:
            raise TableError("not_a_bot", f"seat {index + 1} has no bot")
        self.seats[index] = Seat()

    # ---------------------------------------------------------------- reading

    def records(self) -> list[SeatRecord]:
        """Who plays each seat, for the game record (guests are not kept by identity)."""
        return [
            SeatRecord(
                None if seat.guest else seat.identity, seat.name, seat.bot_level, seat.api_bot
            )
            for seat in self.seats
        ]

    def seat_infos(self, rated: Mapping[str, RatingChange] | None = None) -> tuple[SeatInfo, ...]:
        """The seats as their members see them; with what a finished game did to the ratings
        of its keyed players (`rated`, by identity)."""
        return tuple(
            SeatInfo(
                seat.name,
                seat.bot_level,
                not seat.played_by_bot or bool(seat.bot_level),
                seat.api_bot,
                seat.ready,
                *shown_change((rated or {}).get(seat.identity or "")),
                seat.small and seat.member is not None,
            )
            for seat in self.seats
        )

    def connected_seats(self) -> set[int]:
        """Seats whose human is connected."""
        return {i for i, seat in enumerate(self.seats) if seat.member is not None}


def require_level(level: str) -> None:
    """`no_such_level` unless `level` is one of the bot registry's."""
    if level not in LEVELS:
        raise TableError("no_such_level", f"no bot level {level!r} (known: {', '.join(LEVELS)})")
