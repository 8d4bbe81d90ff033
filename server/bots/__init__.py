"""Bots: players that see exactly what a human seat sees. See `base.Bot`."""

from .base import LEVELS, Bot, make_bot
from .easy import EasyBot
from .medium import MediumBot

__all__ = ["LEVELS", "Bot", "EasyBot", "MediumBot", "make_bot"]
