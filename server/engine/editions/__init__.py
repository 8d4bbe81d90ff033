"""The registry of editions: one module each, found by id."""

from __future__ import annotations

from ..edition import Edition
from .classic import CLASSIC
from .ppea import PPEA
from .premium import PREMIUM
from .v2019 import V2019

EDITIONS: dict[str, Edition] = {e.id: e for e in (CLASSIC, V2019, PREMIUM, PPEA)}
DEFAULT_EDITION = V2019.id  # what a new table and the command line offer first


def find_edition(edition_id: str) -> Edition:
    """The edition with that id; KeyError listing the known ids otherwise."""
    try:
        return EDITIONS[edition_id]
    except KeyError:
        known = ", ".join(EDITIONS)
        raise KeyError(f"unknown edition {edition_id!r} (known: {known})") from None
