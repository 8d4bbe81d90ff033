"""`lovelet simulate`: random players or bots, to measure speed and check balance."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from ..bots import make_bot
from ..engine import Choice, Game, find_edition


@dataclass
class SimulationReport:
    """What a batch of random games produced."""

    games: int = 0
    rounds: int = 0
    seconds: float = 0.0
    wins: list[int] = field(default_factory=list)

    def lines(self) -> list[str]:
        """Human-readable summary lines."""
        seconds = max(self.seconds, 1e-9)
        share = [100 * w / max(self.games, 1) for w in self.wins]
        return [
            f"{self.games} games, {self.rounds} rounds in {self.seconds:.2f} s",
            f"{self.games / seconds:,.0f} games/s, {self.rounds / seconds:,.0f} rounds/s",
            "win share per seat: " + ", ".join(f"{s}: {p:.1f}%" for s, p in enumerate(share)),
        ]


def simulate(
    edition_id: str, players: int, games: int, seed: int, bots: str = "random"
) -> SimulationReport:
    """Play `games` whole games with uniformly random legal choices, or with a bot of level
    `bots` at every seat (each seeing only its own view and log)."""
    edition = find_edition(edition_id)
    rng = random.Random(seed)
    report = SimulationReport(wins=[0] * players)
    started = time.process_time()
    for _ in range(games):
        game = Game(edition, players, rng, record=bots != "random")
        decide = random_player(game, rng) if bots == "random" else bot_players(game, bots, rng)
        while not game.game_over:
            game.start_round()
            report.rounds += 1
            while not game.round_over:
                seat = game.pending.seat
                game.act(seat, decide(seat))
        for seat in game.game_winners:
            report.wins[seat] += 1
        report.games += 1
    report.seconds = time.process_time() - started
    return report


def random_player(game: Game, rng: random.Random) -> Callable[[int], Choice]:
    """A uniformly random legal choice for `game`'s pending decision."""
    return lambda seat: rng.choice(game.pending.choices)


def bot_players(game: Game, level: str, rng: random.Random) -> Callable[[int], Choice]:
    """The choice of `game`'s seat's bot of `level`, from the seat's view and visible log."""
    bots = [make_bot(level) for _ in range(game.players)]
    logs: list[list[dict]] = [[] for _ in range(game.players)]

    def decide(seat: int) -> Choice:
        log = logs[seat]
        log.extend(game.log(seat, len(log)))
        return bots[seat].choose(game.view(seat), log, rng)

    return decide
