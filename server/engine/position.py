"""A round in play as plain data: what a hypothetical game (a bot's playout) starts from."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple


class Position(NamedTuple):
    """Every card of a round in play, by id, at the pending decision of seat `turn`.

    `turn`'s hand holds two cards, or three for a Chancellor's keep (two, if only one card
    was left to draw); every other seat in the round holds one, every knocked-out seat none.
    """

    hands: Sequence[Sequence[str]]
    deck: Sequence[str]  # top first
    set_aside: Sequence[str]
    face_up: Sequence[str]
    discards: Sequence[Sequence[str]]
    alive: Sequence[bool]
    protected: Sequence[bool]
    turn: int
    kind: str = "play"  # the pending decision: "play" or "chancellor"
    marked: int | None = None  # Sycophant
    jester: tuple[int, int] | None = None  # (Jester's player, chosen player)
