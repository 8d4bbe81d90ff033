"""How a table's seats, cards and guesses are named in sentences, from its info and the
server's catalogue."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from protocol import CardInfo, Catalogue, TableInfo


@dataclass(frozen=True, slots=True)
class Names:
    """Names for one receiver: its own seat is "you"."""

    players: tuple[str, ...]
    you: int | None = None
    cards: Mapping[str, CardInfo] = field(default_factory=dict)

    @classmethod
    def for_table(cls, info: TableInfo, catalogue: Catalogue) -> Names:
        """Seat names from `info` (empty seats as "seat N"), cards from the catalogue's
        edition of the table."""
        players = tuple(seat.name or f"seat {i + 1}" for i, seat in enumerate(info.seats))
        edition = catalogue.edition(info.edition)
        cards = {card.id: card for card in edition.cards} if edition else {}
        return cls(players, info.you, cards)

    def player(self, seat: int | None, *, capital: bool = False) -> str:
        """The seat's name, or "you" for the receiver."""
        if seat is None or not 0 <= seat < len(self.players):
            return "nobody" if seat is None else f"seat {seat + 1}"
        if seat == self.you:
            return "You" if capital else "you"
        return self.players[seat]

    def whose(self, seat: int | None, *, capital: bool = False) -> str:
        """The possessive: "your" or "Bo's"; `capital` capitalises "Your", never a name."""
        if seat is not None and seat == self.you:
            return "Your" if capital else "your"
        return f"{self.player(seat)}'s"

    def group(self, seats: Sequence[int], *, capital: bool = False) -> str:
        """Several seats, e.g. "Ana and you"; `capital` capitalises a leading "you"."""
        return join([self.player(s, capital=capital and i == 0) for i, s in enumerate(seats)])

    def card(self, card_id: str) -> str:
        """A card's display name (its id if this client has no reference for it)."""
        card = self.cards.get(card_id)
        return card.name if card else card_id

    def hand(self, card_ids: Sequence[str]) -> str:
        """Cards in a sentence: "Guard and Priest"."""
        return join([self.card(card_id) for card_id in card_ids]) or "nothing"

    def guess(self, guess: str | int | None) -> str:
        """A named card, or a number (premium) with the cards of that value."""
        if isinstance(guess, int):
            same = self.of_value(guess)
            return f"{guess} ({same})" if same else str(guess)
        return "nothing" if guess is None else self.card(guess)

    def of_value(self, value: int) -> str:
        """The names of the cards of `value`, e.g. "Countess, Dowager Queen"."""
        return ", ".join(card.name for card in self.cards.values() if card.value == value)


def join(words: Sequence[str]) -> str:
    """ "A", "A and B", "A, B and C"."""
    if len(words) <= 1:
        return "".join(words)
    return f"{', '.join(words[:-1])} and {words[-1]}"


def sentence(text: str) -> str:
    """The server's words (an error's message) as a sentence: a capital, a full stop."""
    text = text[:1].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else f"{text}."
