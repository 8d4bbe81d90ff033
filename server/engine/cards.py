"""Card kinds: what a card is (data) and which rule it follows (its role)."""

from __future__ import annotations

from dataclasses import dataclass, field


class Role:
    """The rule a card follows; renamed cards (ppea) share the role of the card they copy.

    Plain string constants rather than an Enum: the engine compares roles in its inner loop,
    and class-attribute access to Enum members is several times slower on Python 3.11.
    """

    SPY = "spy"
    GUARD = "guard"
    PRIEST = "priest"
    BARON = "baron"
    HANDMAID = "handmaid"
    PRINCE = "prince"
    CHANCELLOR = "chancellor"
    KING = "king"
    COUNTESS = "countess"
    PRINCESS = "princess"
    ASSASSIN = "assassin"
    JESTER = "jester"
    CARDINAL = "cardinal"
    BARONESS = "baroness"
    SYCOPHANT = "sycophant"
    COUNT = "count"
    CONSTABLE = "constable"
    DOWAGER_QUEEN = "dowager_queen"
    BISHOP = "bishop"


class Chooses:
    """Which players a card's effect chooses (string constants, like `Role`)."""

    NOBODY = "nobody"
    OTHER = "other"  # exactly one other player
    ANY = "any"  # exactly one player, yourself included
    ONE_OR_TWO_OTHERS = "one_or_two_others"  # Baroness
    TWO_ANY = "two_any"  # Cardinal: exactly two players, yourself allowed


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
