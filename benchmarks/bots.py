"""Win share of the medium bot against easy bots, with 95% confidence intervals, and bot speed.

Usage: python benchmarks/bots.py [--games N] [--edition E] [--seed S]
Drives whole games through the engine; each bot sees only its seat's view and visible log.
The medium bot's seat rotates from game to game. Target: >= 75% of 4-player games won.
"""

from __future__ import annotations

import argparse
import math
import random
import time
from dataclasses import dataclass

from server.bots import Bot, make_bot
from server.engine import Game, choice_from_dict, find_edition


@dataclass
class Tally:
    """Games the medium bot won, and the bots' decisions and thinking time."""

    games: int = 0
    wins: float = 0.0
    decisions: int = 0
    seconds: float = 0.0

    def share(self) -> float:
        """The medium bot's win share (a shared win counts by its share)."""
        return self.wins / max(self.games, 1)

    def margin(self) -> float:
        """Half-width of the 95% confidence interval of `share`."""
        share = self.share()
        return 1.96 * math.sqrt(share * (1 - share) / max(self.games, 1))


def play_game(edition_id: str, bots: list[Bot], rng: random.Random, tally: Tally) -> list[int]:
    """One whole game; returns its winners."""
    game = Game(find_edition(edition_id), len(bots), rng)
    logs: list[list[dict]] = [[] for _ in bots]
    while not game.game_over:
        if game.round_over:
            game.start_round()
            continue
        seat = game.pending.seat
        log = logs[seat]
        log.extend(game.log(seat, len(log)))
        view = game.view(seat)
        started = time.perf_counter()
        choice = bots[seat].choose(view, log, rng)
        tally.seconds += time.perf_counter() - started
        tally.decisions += 1
        game.act(seat, choice_from_dict(choice))
    return game.game_winners


def medium_against_easy(edition_id: str, players: int, games: int, seed: int) -> Tally:
    """`games` games of one medium bot against easy bots, its seat rotating."""
    rng = random.Random(seed)
    tally = Tally()
    for number in range(games):
        medium_seat = number % players
        bots = [make_bot("medium" if s == medium_seat else "easy") for s in range(players)]
        winners = play_game(edition_id, bots, rng, tally)
        if medium_seat in winners:
            tally.wins += 1 / len(winners)
        tally.games += 1
    return tally


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2_500, help="games per configuration")
    parser.add_argument("--edition", default="2019")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--players", type=int, nargs="+", default=[4, 2])
    args = parser.parse_args()
    for players in args.players:
        started = time.perf_counter()
        tally = medium_against_easy(args.edition, players, args.games, args.seed)
        wall = time.perf_counter() - started
        print(
            f"{args.edition} {players} players, medium vs {players - 1} easy: "
            f"medium wins {100 * tally.share():.1f}% ± {100 * tally.margin():.1f}% "
            f"(95% CI, {tally.games} games, fair share {100 / players:.0f}%); "
            f"{tally.decisions / tally.seconds:,.0f} decisions/s "
            f"({1e6 * tally.seconds / tally.decisions:.0f} µs each), {wall:.0f} s"
        )


if __name__ == "__main__":
    main()
