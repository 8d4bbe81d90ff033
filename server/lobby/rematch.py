"""A rematch at a finished table: each player says ready (or leaves); it starts when every
human still there is ready, or when the host starts it with bots for the others."""

from __future__ import annotations

from .seating import Member, Seating


def everyone_ready(seating: Seating) -> bool:
    """Someone is ready, and so is every connected human (bots are always ready)."""
    humans = [seat for seat in seating.seats if seat.member is not None and not seat.bot_level]
    return any(seat.ready for seat in humans) and all(seat.ready for seat in humans)


def unready(seating: Seating) -> list[Member]:
    """The connected humans who have not said they are ready."""
    return [
        seat.member
        for seat in seating.seats
        if seat.member is not None and not seat.bot_level and not seat.ready
    ]


def bots_for_the_unready(seating: Seating, level: str) -> None:
    """The host starts without them: who is not ready watches, a held seat's player is not
    waited for, and bots of `level` take their seats."""
    for member in unready(seating):
        seating.watch(member)
    for index, seat in enumerate(seating.seats):
        if seat.empty or (seat.member is None and not seat.bot_level):
            seating.seat_bot(index, level)


def clear(seating: Seating) -> None:
    """A new game: nobody has said ready for the next one yet."""
    for seat in seating.seats:
        seat.ready = False
