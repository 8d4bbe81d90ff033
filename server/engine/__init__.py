"""The rules engine: pure Python, no I/O. See docs/engine.md."""

from .cards import CardSpec, Chooses, Role
from .choices import (
    Choice,
    Decision,
    Keep,
    Look,
    Play,
    Redraw,
    choice_from_dict,
    choice_to_dict,
    choice_type,
)
from .edition import Edition
from .editions import DEFAULT_EDITION, EDITIONS, find_edition
from .errors import EngineError, IllegalAction, SetupError
from .events import Event
from .game import Game
from .position import Position
from .view import PendingView, SeatView, View

__all__ = [
    "DEFAULT_EDITION",
    "EDITIONS",
    "CardSpec",
    "Choice",
    "Chooses",
    "Decision",
    "Edition",
    "EngineError",
    "Event",
    "Game",
    "IllegalAction",
    "Keep",
    "Look",
    "PendingView",
    "Play",
    "Position",
    "Redraw",
    "Role",
    "SeatView",
    "SetupError",
    "View",
    "choice_from_dict",
    "choice_to_dict",
    "choice_type",
    "find_edition",
]
