"""Rebuild a stored game with the engine from its seed and action log, one step per action.

The table seeds each game's `random.Random` with the stored seed, starts a round whenever the
previous one is over, and applies each accepted action; doing the same here gives the same game.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from ..engine import Choice, Event, Game, View, choice_from_dict, find_edition
from ..store import ActionLog, ActionRecord


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
    game = _start(log)
    steps = [ReplayStep(None, None, list(game.events))]
    for action in log.actions:
        seen = len(game.events)
        if game.round_over and not game.game_over:
            game.start_round()
        choice = _apply(game, action)
        steps.append(ReplayStep(action.seat, choice, game.events[seen:]))
    return steps


def replayed_events(log: ActionLog) -> list[Event]:
    """The whole event log of the rebuilt game, as the table logged it."""
    return [event for step in replay(log) for event in step.events]


@dataclass(frozen=True, slots=True)
class Frame:
    """One step as one viewpoint saw it: the seat that decided (None: the deal), the view
    after the step, and the events it brought, to be shown as that viewpoint may see them
    (the table's own `autoplay` notes are not in the action log, so never here)."""

    actor: int | None
    view: View
    events: list[Event]


@dataclass(frozen=True, slots=True)
class RoundFrames:
    """One round of a rebuilt game as `seat` saw it (None: a spectator), and how many
    rounds the game had."""

    round: int
    rounds: int
    frames: list[Frame]


def round_frames(log: ActionLog, seat: int | None, round_no: int) -> RoundFrames:
    """Round `round_no` of the game `log` describes, step by step as `seat` saw it: the deal,
    then each decision. The whole game is rebuilt (the rounds are counted); views are made
    only for the round asked for. ReplayError as `replay`, or for a round the game lacks."""
    game = _start(log)
    frames: list[Frame] = []

    def step(actor: int | None, seen: int) -> None:
        if game.round == round_no:
            frames.append(Frame(actor, game.view(seat), game.events[seen:]))

    step(None, 0)
    for action in log.actions:
        if game.round_over and not game.game_over:
            seen = len(game.events)
            game.start_round()
            step(None, seen)
        seen = len(game.events)
        _apply(game, action)
        step(action.seat, seen)
    if not frames:
        raise ReplayError(f"the game has no round {round_no}: it had {game.round}")
    return RoundFrames(round_no, game.round, frames)


def _start(log: ActionLog) -> Game:
    """The game `log` describes, its first round dealt."""
    if log.seed is None:
        raise ReplayError("this game was stored without its seed")
    game = Game(find_edition(log.edition), log.players, random.Random(log.seed))
    game.start_round()
    return game


def _apply(game: Game, action: ActionRecord) -> Choice:
    """Apply one stored action; ReplayError if the engine refuses it."""
    choice = choice_from_dict(action.choice)
    try:
        game.act(action.seat, choice)
    except Exception as err:
        raise ReplayError(f"action {action.seq} does not apply: {err}") from err
    return choice
