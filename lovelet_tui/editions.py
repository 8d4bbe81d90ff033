"""How the app names editions and their cards: from the catalogue the server sent in
`welcome`, never from a list of its own. Display text only: the server checks every request."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict
from typing import Any, Protocol, cast

from textual.message_pump import MessagePump

from protocol import Catalogue

NO_CATALOGUE = Catalogue((), (), "")  # before the welcome: nothing to offer yet


class _Catalogued(Protocol):
    catalogue: Catalogue


def catalogue_of(node: MessagePump) -> Catalogue:
    """The catalogue of the app `node` belongs to (empty until the server's welcome)."""
    return cast(_Catalogued, node.app).catalogue


def edition_name(catalogue: Catalogue, edition_id: str, *, short: bool = False) -> str:
    """The edition's display name; the id itself for an edition the catalogue lacks."""
    info = catalogue.edition(edition_id)
    if info is None:
        return edition_id
    return info.short if short else info.name


def reference(catalogue: Catalogue, edition_id: str) -> list[Mapping[str, Any]]:
    """The edition's cards as reference rows (`id`, `name`, `value`, `count`, `text`, ...), as
    the help screen's card table shows them; empty for an edition the catalogue lacks."""
    info = catalogue.edition(edition_id)
    return [asdict(card) for card in info.cards] if info else []


def out_if_played(catalogue: Catalogue, edition_id: str, card_id: str) -> bool:
    """Whether playing that card knocks its player out (so the app asks first)."""
    info = catalogue.edition(edition_id)
    return any(c.id == card_id and c.out_if_played for c in info.cards) if info else False


def card_name(catalogue: Catalogue, card_id: str) -> str:
    """A card's display name, from the first edition that has it; the id itself if none."""
    for info in catalogue.editions:
        for card in info.cards:
            if card.id == card_id:
                return card.name
    return card_id
