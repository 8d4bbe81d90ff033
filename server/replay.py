"""Rebuild a stored game with the engine from its seed and action log, one step per action.

The table seeds each game's `random.Random` with the stored seed, starts a round whenever the
previous one is over, and applies each accepted action; doing the same here gives the same game.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from .engine import Choice, Event, Game, choice_from_dict, find_edition
from .store import ActionLog


class ReplayError(Exception):
    """The stored game cannot be rebuilt (no seed, or an action the engine refuses)."""


@dataclass(frozen=True, slots=True)
class ReplayStep:
    """One action and what followed it; `seat`/`choice` are None for the opening deal."""

    seat: int | None
    choice: Choice | None
    events: list[Event]


def replay(log: ActionLog) -> list[ReplayStep]:
    """Every step of the game `log` describes, the opening deal first.

    Raises ReplayError for a game stored without a seed or with an action that does not apply.
    """
    if log.seed is None:
        raise ReplayError("this game was stored without its seed")
    game = Game(find_edition(log.edition), log.players, random.Random(log.seed))
    game.start_round()
    steps = [ReplayStep(None, None, list(game.events))]
    for action in log.actions:
        seen = len(game.events)
        if game.round_over and not game.game_over:
            game.start_round()
        choice = choice_from_dict(action.choice)
        try:
            game.act(action.seat, choice)
        except Exception as err:
            raise ReplayError(f"action {action.seq} does not apply: {err}") from err
        steps.append(ReplayStep(action.seat, choice, game.events[seen:]))
    return steps


def replayed_events(log: ActionLog) -> list[Event]:
    """The whole event log of the rebuilt game, as the table logged it."""
    return [event for step in replay(log) for event in step.events]
