"""What the receiver's effects showed it of other hands (Priest, Baron, King, Cardinal,
Baroness...), kept per seat until a later event makes it stale.

Read from the receiver's own events only: a `look` with its cards, a `compare` it took part
in, a `swap` it was one of. A sighting goes stale when that player plays the card seen, or
discards a hand, or draws cards to choose from, or swaps hands, or is knocked out, and at a
new round. Turns are counted by plays, so "2 turns ago" is two cards played since.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from protocol import events as ev


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

    def read(self, events: Iterable[ev.Event], you: int | None) -> None:
        """Take new events in order."""
        for event in events:
            self._read(event, you)

    def turns_ago(self, seat: int) -> int | None:
        """How many plays ago `seat`'s card was seen; None if nothing current is known."""
        sighting = self.held.get(seat)
        return None if sighting is None else self.turns - sighting.turn

    def _read(self, event: ev.Event, you: int | None) -> None:
        match event:
            case ev.RoundStart():
                self.held.clear()
            case ev.Play(seat=seat, card=card):
                self.turns += 1
                seen = self.held.get(seat)
                if seen is not None and seen.card == card:
                    del self.held[seat]
            case ev.Discard() | ev.KnockedOut() | ev.ChancellorDraw():
                self.held.pop(event.seat, None)
            case ev.Look(seat=seat, target=target, cards=cards) if cards and seat == you:
                self._saw(target, cards, you)
            case ev.Compare(cards=cards) if cards:
                self._compared(event, cards, you)
            case ev.Swap():
                self._swapped(event, you)

    def _saw(self, target: int, cards: Sequence[str | None], you: int | None) -> None:
        card = cards[0] if len(cards) == 1 else None
        if target != you and card is not None:
            self.held[target] = Sighting(card, self.turns)

    def _compared(self, event: ev.Compare, cards: Mapping[str, str], you: int | None) -> None:
        seats = [event.seat, event.target]
        if you not in seats:
            return
        other = seats[1] if seats[0] == you else seats[0]
        if event.loser != other:
            self._saw(other, [cards.get(str(other))], you)

    def _swapped(self, event: ev.Swap, you: int | None) -> None:
        seats = list(event.seats)
        for seat in seats:
            self.held.pop(seat, None)
        cards = event.cards or {}
        if you in seats and cards and len(seats) == 2:
            other = seats[1] if seats[0] == you else seats[0]
            self._saw(other, cards.get(str(you), ()), you)  # they now hold what you gave
