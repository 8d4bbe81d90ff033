"""The bot interface: a bot sees exactly what a human seat sees and returns one of its choices."""

from __future__ import annotations

import random
from typing import Protocol

from .easy import EasyBot
from .medium import MediumBot

LEVELS = ("easy", "medium")


class Bot(Protocol):
    """A player that decides from the seat's view and visible log, like a human session."""

    level: str

    def choose(self, view: dict, log: list[dict], rng: random.Random) -> dict:
        """One element of `view["choices"]`, given the seat's whole visible log so far."""
        ...


def make_bot(level: str) -> Bot:
    """A new bot of that level ("easy" or "medium"); ValueError otherwise."""
    if level == "easy":
        return EasyBot()
    if level == "medium":
        return MediumBot()
    raise ValueError(f"unknown bot level {level!r} (known: {', '.join(LEVELS)})")
