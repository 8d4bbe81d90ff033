"""`lovelet simulate`: random players, to measure speed and check balance."""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field

from .engine import Game, find_edition


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


def simulate(edition_id: str, players: int, games: int, seed: int) -> SimulationReport:
    """Play `games` whole games with uniformly random legal choices."""
    edition = find_edition(edition_id)
    rng = random.Random(seed)
    report = SimulationReport(wins=[0] * players)
    started = time.process_time()
    for _ in range(games):
        game = Game(edition, players, rng, record=False)
        while not game.game_over:
            game.start_round()
            report.rounds += 1
            while not game.round_over:
                decision = game.pending
                game.act(decision.seat, rng.choice(decision.choices))
        for seat in game.game_winners:
            report.wins[seat] += 1
        report.games += 1
    report.seconds = time.process_time() - started
    return report
