"""Card kinds: what a card is (data) and which rule it follows (its role)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final


class Role:
    """The rule a card follows; renamed cards (ppea) share the role of the card they copy.

    Plain string constants rather than an Enum: the engine compares roles in its inner loop,
    and class-attribute access to Enum members is several times slower on Python 3.11.
    """

    SPY: Final = "spy"
    GUARD: Final = "guard"
    PRIEST: Final = "priest"
    BARON: Final = "baron"
    HANDMAID: Final = "handmaid"
    PRINCE: Final = "prince"
    CHANCELLOR: Final = "chancellor"
    KING: Final = "king"
    COUNTESS: Final = "countess"
    PRINCESS: Final = "princess"
    ASSASSIN: Final = "assassin"
    JESTER: Final = "jester"
    CARDINAL: Final = "cardinal"
    BARONESS: Final = "baroness"
    SYCOPHANT: Final = "sycophant"
    COUNT: Final = "count"
    CONSTABLE: Final = "constable"
    DOWAGER_QUEEN: Final = "dowager_queen"
    BISHOP: Final = "bishop"


class Chooses:
    """Which players a card's effect chooses (string constants, like `Role`)."""

    NOBODY: Final = "nobody"
    OTHER: Final = "other"  # exactly one other player
    ANY: Final = "any"  # exactly one player, yourself included
    ONE_OR_TWO_OTHERS: Final = "one_or_two_others"  # Baroness
    TWO_ANY: Final = "two_any"  # Cardinal: exactly two players, yourself allowed


CHOOSES_BY_ROLE: dict[str, str] = {
    Role.GUARD: Chooses.OTHER,
    Role.PRIEST: Chooses.OTHER,
    Role.BARON: Chooses.OTHER,
    Role.PRINCE: Chooses.ANY,
    Role.KING: Chooses.OTHER,
    Role.JESTER: Chooses.OTHER,
    Role.CARDINAL: Chooses.TWO_ANY,
    Role.BARONESS: Chooses.ONE_OR_TWO_OTHERS,
    Role.SYCOPHANT: Chooses.ANY,
    Role.DOWAGER_QUEEN: Chooses.OTHER,
    Role.BISHOP: Chooses.OTHER,
}

GUESSING_ROLES = frozenset({Role.GUARD, Role.BISHOP})


@dataclass(frozen=True, slots=True, eq=False)
class CardSpec:
    """One kind of card in an edition. Compared by identity: one object per kind."""

    id: str
    name: str
    value: int
    count: int
    text: str
    role: str  # a Role constant
    chooses: str = field(init=False)  # a Chooses constant: which players its effect chooses
    choosing: bool = field(init=False)  # whether its effect chooses any player
    guesses: bool = field(init=False)  # whether playing it names a card or number

    def __post_init__(self) -> None:
        object.__setattr__(self, "chooses", CHOOSES_BY_ROLE.get(self.role, Chooses.NOBODY))
        object.__setattr__(self, "choosing", self.chooses != Chooses.NOBODY)
        object.__setattr__(self, "guesses", self.role in GUESSING_ROLES)

    def __repr__(self) -> str:
        return f"<{self.id}>"
