"""An edition is data: its cards, player range, token targets and tie rule."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from .cards import CardSpec, Role


@dataclass(frozen=True, slots=True)
class Edition:
    """One rule set. Card effects are chosen by each card's role."""

    id: str
    name: str
    cards: tuple[CardSpec, ...]
    min_players: int
    max_players: int
    tokens_by_players: Mapping[int, int]
    short: str  # the name where room is short (the lobby's table list)
    rules: str  # the short rules players read, as paragraphs
    tie_break_by_discards: bool = False
    guess_by_value: bool = False
    pair_bonus: tuple[str, ...] = ()
    by_id: Mapping[str, CardSpec] = field(init=False)
    guesses: tuple[str | int, ...] = field(init=False)
    roles: frozenset[str] = field(init=False)  # the roles its cards follow
    full_deck: tuple[CardSpec, ...] = field(init=False)  # every copy, in reference order
    reference: tuple[dict, ...] = field(init=False, repr=False)  # the reference card, as data
    # memos of legal plays by player count and hand, and by card (see legal.play_offer): pure
    # functions' caches
    plays_memo: dict[int, dict] = field(init=False, repr=False, compare=False)
    card_plays_memo: dict = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        by_id = {card.id: card for card in self.cards}
        object.__setattr__(self, "by_id", by_id)
        object.__setattr__(self, "guesses", self._legal_guesses())
        object.__setattr__(self, "roles", frozenset(card.role for card in self.cards))
        full_deck = tuple(card for card in self.cards for _ in range(card.count))
        object.__setattr__(self, "full_deck", full_deck)
        reference = tuple(
            {"id": c.id, "name": c.name, "value": c.value, "count": c.count, "text": c.text}
            for c in self.cards
        )
        object.__setattr__(self, "reference", reference)
        object.__setattr__(self, "plays_memo", {n: {} for n in range(1, self.max_players + 1)})
        object.__setattr__(self, "card_plays_memo", {})

    def _legal_guesses(self) -> tuple[str | int, ...]:
        guard_value = next(c.value for c in self.cards if c.role == Role.GUARD)
        if self.guess_by_value:
            return tuple(sorted({c.value for c in self.cards if c.value != guard_value}))
        return tuple(c.id for c in self.cards if c.role != Role.GUARD)

    def tokens_to_win(self, players: int) -> int:
        """Favor tokens needed to win the game with this many players."""
        self.check_players(players)
        return self.tokens_by_players[players]

    def check_players(self, players: int) -> None:
        """Raise ValueError if this edition cannot be played by that many players."""
        if not self.min_players <= players <= self.max_players:
            raise ValueError(
                f"{self.name} is for {self.min_players}–{self.max_players} players, not {players}"
            )

    def deck(self) -> list[CardSpec]:
        """Every copy of every card, in reference order."""
        return list(self.full_deck)

    def deck_ids(self) -> list[str]:
        """Every copy of every card as ids, in reference order."""
        return [card.id for card in self.deck()]

    def card(self, card_id: str) -> CardSpec:
        """The card with that id; KeyError names the edition's ids."""
        try:
            return self.by_id[card_id]
        except KeyError:
            raise KeyError(f"{self.id} has no card {card_id!r}") from None
