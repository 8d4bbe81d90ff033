"""What a bot knows of an edition: each card's value, role and count, and how it expects an
opponent to choose between two cards. Public rules, no state."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from server.engine import Chooses, Role, find_edition

CAREFUL, MEDIUM = "careful", "medium"  # the models of an opponent: see `CardBook.chance_to_play`
OPPONENTS = (CAREFUL, MEDIUM)
MODEL_SHARE = 0.9  # the medium model: this share medium's measured choices, the rest careful
MEDIUM_PLAYS = Path(__file__).with_name("opponents.json")  # benchmarks/opponent_model.py


@dataclass(frozen=True, slots=True)
class CardBook:
    """The cards of one edition, by id, as the reference card and rulebook describe them."""

    ids: tuple[str, ...]
    value: dict[str, int]
    role: dict[str, Role]
    count: dict[str, int]
    chooses: dict[str, Chooses]
    by_value: bool  # Guards and Bishops name numbers (premium), not cards
    guesses: tuple[str | int, ...]
    # (others in the round, card played, card kept) -> the share of plays from that hand
    # that played it; empty: every opponent is a careful random player
    model: Mapping[tuple[int, str, str], float] = field(default_factory=dict)
    _odds: dict[tuple[str, str, int], float] = field(default_factory=dict, compare=False)

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

    def plays(self, card_id: str, others: int) -> int:
        """How many legal plays `card_id` offers when `others` other players may be chosen."""
        chooses = self.chooses[card_id]
        if chooses is Chooses.NOBODY or others <= 0:
            return 1
        if chooses is Chooses.OTHER:
            plays = others
        elif chooses is Chooses.ANY:
            plays = others + 1
        elif chooses is Chooses.ONE_OR_TWO_OTHERS:
            plays = others + others * (others - 1) // 2
        else:
            plays = (others + 1) * others // 2
        if self.role[card_id] in (Role.GUARD, Role.BISHOP):
            plays *= len(self.guesses)
        return plays

    def chance_to_play(self, played: str, kept: str, others: int) -> float:
        """How likely an opponent holding `played` and `kept` plays `played`.

        A careful random player makes any legal play alike, except the Princess, never by
        choice; with a `model`, `MODEL_SHARE` of the odds are the share of medium's plays
        from that hand that played `played` (where it was measured).
        """
        key = (played, kept, others)
        if key not in self._odds:
            self._odds[key] = self._chance_to_play(played, kept, others)
        return self._odds[key]

    def _chance_to_play(self, played: str, kept: str, others: int) -> float:
        if played == kept:
            return 1.0
        played_role, kept_role = self.role[played], self.role[kept]
        roles = {played_role, kept_role}
        if Role.COUNTESS in roles and roles & {Role.KING, Role.PRINCE}:
            return 1.0 if played_role is Role.COUNTESS else 0.0
        if kept_role is Role.PRINCESS:
            return 1.0
        if played_role is Role.PRINCESS:
            return 0.0
        mine, theirs = self.plays(played, others), self.plays(kept, others)
        careful = mine / (mine + theirs)
        measured = self.model.get((others, played, kept))
        if measured is None:
            return careful
        return MODEL_SHARE * measured + (1 - MODEL_SHARE) * careful


@cache
def card_book(edition_id: str, opponents: str = CAREFUL) -> CardBook:
    """The card book of the edition with that id, modelling opponents as `opponents` (one of
    `OPPONENTS`) do."""
    edition = find_edition(edition_id)
    return CardBook(
        ids=tuple(card.id for card in edition.cards),
        value={card.id: card.value for card in edition.cards},
        role={card.id: card.role for card in edition.cards},
        count={card.id: card.count for card in edition.cards},
        chooses={card.id: card.chooses for card in edition.cards},
        by_value=edition.guess_by_value,
        guesses=edition.guesses,
        model=medium_plays(edition_id) if opponents == MEDIUM else {},
    )


def medium_plays(edition_id: str) -> dict[tuple[int, str, str], float]:
    """The edition's measured shares of medium's plays (`CardBook.model`)."""
    by_others = _medium_plays().get(edition_id, {})
    return {
        (int(others), *hand.split()): share
        for others, shares in by_others.items()
        for hand, share in shares.items()
    }


@cache
def _medium_plays() -> dict[str, dict[str, dict[str, float]]]:
    return json.loads(MEDIUM_PLAYS.read_text())
