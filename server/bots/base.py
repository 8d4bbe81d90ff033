"""The bot interface and the one registry of bot levels: a bot sees exactly what a human seat
sees and returns one of its choices."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Protocol

from server.engine import Choice, View

from .easy import EasyBot
from .hard import HardBot
from .medium import MediumBot


class Bot(Protocol):
    """A player that decides from the seat's view and visible log, like a human session."""

    level: str

    def choose(self, view: View, log: list[dict], rng: random.Random) -> Choice:
        """One element of `view.choices`, given the seat's whole visible log so far."""
        ...


BOTS: dict[str, Callable[[], Bot]] = {"easy": EasyBot, "medium": MediumBot, "hard": HardBot}
LEVELS = tuple(BOTS)  # weakest first
SEARCHING = frozenset({"hard"})  # levels that think for long: tables ask the bot pool


def make_bot(level: str) -> Bot:
    """A new bot of that level (one of `LEVELS`); ValueError otherwise."""
    try:
        return BOTS[level]()
    except KeyError:
        raise ValueError(f"unknown bot level {level!r} (known: {', '.join(LEVELS)})") from None
