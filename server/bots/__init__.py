"""Bots: players that see exactly what a human seat sees. See `base.Bot`."""

from .base import LEVELS, SEARCHING, Bot, make_bot
from .easy import EasyBot
from .hard import Budget, HardBot
from .medium import MediumBot

__all__ = ["LEVELS", "SEARCHING", "Bot", "Budget", "EasyBot", "HardBot", "MediumBot", "make_bot"]
