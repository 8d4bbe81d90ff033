"""What the receiver's effects showed it of other hands (Priest, Baron, King, Cardinal,
Baroness...), kept per seat until a later event makes it stale.

Read from the receiver's own events only: a `look` with its cards, a `compare` it took part
in, a `swap` it was one of. A sighting goes stale when that player plays the card seen, or
discards a hand, or draws cards to choose from, or swaps hands, or is knocked out, and at a
new round. Turns are counted by plays, so "2 turns ago" is two cards played since.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

Event = Mapping[str, Any]
STALE_KINDS = frozenset({"discard", "knocked_out", "chancellor_draw"})


@dataclass(frozen=True, slots=True)
class Sighting:
    """The card a seat held when the receiver saw it, and the play count then."""

    card: str
    turn: int


class Sightings:
    """Seat → what it was seen holding, for one receiver (`you`; None for a spectator)."""

    def __init__(self) -> None:
        self.held: dict[int, Sighting] = {}
        self.turns = 0  # cards played so far, counted from the first event read

    def clear(self) -> None:
        """Forget everything (a new game's log)."""
        self.held.clear()
        self.turns = 0

    def read(self, events: Iterable[Event], you: int | None) -> None:
        """Take new events in order."""
        for event in events:
            self._read(event, you)

    def turns_ago(self, seat: int) -> int | None:
        """How many plays ago `seat`'s card was seen; None if nothing current is known."""
        sighting = self.held.get(seat)
        return None if sighting is None else self.turns - sighting.turn

    def _read(self, event: Event, you: int | None) -> None:
        kind, seat = event.get("kind"), event.get("seat")
        if kind == "round_start":
            self.held.clear()
        elif kind == "play":
            self.turns += 1
            seen = self.held.get(seat) if isinstance(seat, int) else None
            if seen is not None and seen.card == event.get("card"):
                del self.held[seat]
        elif kind in STALE_KINDS and isinstance(seat, int):
            self.held.pop(seat, None)
        elif kind == "look" and "cards" in event and seat == you:
            self._saw(event.get("target"), event["cards"], you)
        elif kind == "compare" and event.get("cards"):
            self._compared(event, you)
        elif kind == "swap":
            self._swapped(event, you)

    def _saw(self, target: Any, cards: Any, you: int | None) -> None:
        if isinstance(target, int) and target != you and len(cards or ()) == 1:
            self.held[target] = Sighting(str(cards[0]), self.turns)

    def _compared(self, event: Event, you: int | None) -> None:
        seats = [event.get("seat"), event.get("target")]
        if you not in seats:
            return
        other = seats[1] if seats[0] == you else seats[0]
        if event.get("loser") != other:
            self._saw(other, [event["cards"].get(str(other))], you)

    def _swapped(self, event: Event, you: int | None) -> None:
        seats = [s for s in event.get("seats") or () if isinstance(s, int)]
        for seat in seats:
            self.held.pop(seat, None)
        cards = event.get("cards") or {}
        if you in seats and cards and len(seats) == 2:
            other = seats[1] if seats[0] == you else seats[0]
            self._saw(other, cards.get(str(you)), you)  # they now hold what you gave
