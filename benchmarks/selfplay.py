"""Games of medium bots against one another, decision by decision: what the measurements of how
medium plays (benchmarks/calibration.py, benchmarks/opponent_model.py) observe."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass

from server.bots import MediumBot
from server.engine import Choice, Game, View, find_edition


@dataclass(frozen=True, slots=True)
class Decision:
    """A seat's decision once applied: the view and log it was made from, by which bot, and the
    choice. `game` already shows the position after it (`round_over`, `round_winners`)."""

    game: Game
    bot: MediumBot
    view: View
    log: list[dict]
    choice: Choice


def medium_game(edition_id: str, players: int, seed: str) -> Iterator[Decision]:
    """Every decision of one game of medium bots dealt from `seed`, the bots breaking ties from
    one stream of their own (`seed`/choices)."""
    game = Game(find_edition(edition_id), players, random.Random(seed))
    bots = [MediumBot() for _ in range(players)]
    logs: list[list[dict]] = [[] for _ in range(players)]
    rng = random.Random(f"{seed}/choices")
    while not game.game_over:
        if game.round_over:
            game.start_round()
            continue
        seat = game.pending.seat
        logs[seat].extend(game.log(seat, len(logs[seat])))
        view = game.view(seat)
        choice = bots[seat].choose(view, logs[seat], rng)
        game.act(seat, choice)
        yield Decision(game, bots[seat], view, logs[seat], choice)


def in_the_round(view: View) -> int:
    """How many players are still in the round the view shows."""
    return sum(info.alive for info in view.seats)
