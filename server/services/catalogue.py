"""The catalogue a session is sent in `welcome`: every edition from the engine's registry and
every bot level from the bots' registry. Adding either there is all a new one needs."""

from __future__ import annotations

from functools import cache

from protocol import CardInfo, Catalogue, EditionInfo

from ..bots import LEVELS
from ..engine import DEFAULT_EDITION, EDITIONS, CardSpec, Edition, Role


@cache
def catalogue() -> Catalogue:
    """This server's editions, in registry order, and bot levels, weakest first."""
    return Catalogue(tuple(map(_edition, EDITIONS.values())), LEVELS, DEFAULT_EDITION)


def _edition(edition: Edition) -> EditionInfo:
    return EditionInfo(
        edition.id,
        edition.name,
        edition.short,
        edition.min_players,
        edition.max_players,
        edition.rules,
        tuple(map(_card, edition.cards)),
    )


def _card(card: CardSpec) -> CardInfo:
    out = card.role == Role.PRINCESS
    return CardInfo(card.id, card.name, card.value, card.count, card.text, out_if_played=out)
