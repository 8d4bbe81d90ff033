"""Bot seats that spectators claim: they sit there when the next round starts."""

from __future__ import annotations

from .errors import TableError
from .seating import Member, Seating


class Claims:
    """Which spectator takes which bot's seat at the next round."""

    def __init__(self, seating: Seating) -> None:
        self._seating = seating
        self.by_seat: dict[int, Member] = {}

    def claim(self, member: Member, index: int | None = None) -> int:
        """`member` (watching) takes a bot's seat at the next round: seat `index`, or the first
        bot seat nobody claimed; the seat's index. `no_bot_seat` if there is none."""
        claimed = {i for i, m in self.by_seat.items() if m is not member}
        seats = self._seating.seats
        bots = [i for i, seat in enumerate(seats) if seat.bot_level and i not in claimed]
        if index is not None:
            bots = [index] if index in bots else []
        if not bots:
            raise TableError("no_bot_seat", "no bot's seat is free to take: watch instead")
        self.unclaim(member)
        self.by_seat[bots[0]] = member
        return bots[0]

    def unclaim(self, member: Member) -> None:
        """`member` no longer takes a seat."""
        self.by_seat = {i: m for i, m in self.by_seat.items() if m is not member}

    def seat_claimants(self) -> list[int]:
        """Claimants sit in the bot seats they claimed; the seats taken."""
        seating = self._seating
        taken = [
            i
            for i, m in self.by_seat.items()
            if seating.seats[i].bot_level and m in seating.spectators
        ]
        for index in taken:
            seating.seat_human(index, self.by_seat[index])
        self.by_seat = {}
        return taken
