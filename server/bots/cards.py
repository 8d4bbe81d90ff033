"""What a bot knows of an edition: each card's value, role and count. Public rules, no state."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from server.engine import Role, find_edition


@dataclass(frozen=True, slots=True)
class CardBook:
    """The cards of one edition, by id, as the reference card and rulebook describe them."""

    ids: tuple[str, ...]
    value: dict[str, int]
    role: dict[str, Role]
    count: dict[str, int]
    by_value: bool  # Guards and Bishops name numbers (premium), not cards
    guesses: tuple[str | int, ...]

    def named(self, card_id: str, guess: str | int | None) -> bool:
        """Whether a Guard or Bishop naming `guess` names the card `card_id`."""
        if self.by_value:
            return self.value[card_id] == guess
        return card_id == guess

    def has(self, card_id: str, role: Role) -> bool:
        """Whether `card_id` follows the rule of `role`."""
        return self.role[card_id] is role

    def ids_of(self, role: Role) -> tuple[str, ...]:
        """The ids of the cards that follow the rule of `role`."""
        return tuple(card_id for card_id in self.ids if self.role[card_id] is role)


@cache
def card_book(edition_id: str) -> CardBook:
    """The card book of the edition with that id."""
    edition = find_edition(edition_id)
    return CardBook(
        ids=tuple(card.id for card in edition.cards),
        value={card.id: card.value for card in edition.cards},
        role={card.id: card.role for card in edition.cards},
        count={card.id: card.count for card in edition.cards},
        by_value=edition.guess_by_value,
        guesses=edition.guesses,
    )
