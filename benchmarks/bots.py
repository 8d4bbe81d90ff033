"""Win share of the medium bot against easy bots, with 95% confidence intervals, and bot speed.

Usage: python benchmarks/bots.py [--games N] [--edition E] [--players N ...]
                                 [--against easy random] [--seed S]
Drives whole games through the engine; each bot sees only its seat's view and visible log.
The medium bot's seat rotates from game to game. Target: >= 75% of 4-player games won
against easy bots. Against purely random players (any legal choice, the Princess included),
the setting in which a published card-counting bot wins ~77% of 4-player games.
Game N deals from its own random stream (from the seed and N) and each seat decides from
another, so whatever the bots choose, runs with one seed deal alike (up to a tied round's
random next starter): two versions of a bot meet the same deals, and the difference of their
shares is much less noisy than either share.
"""

from __future__ import annotations

import argparse
import math
import random
import time
from collections import defaultdict
from dataclasses import dataclass, field

from server.bots import Bot, make_bot
from server.engine import Game, choice_from_dict, find_edition


@dataclass
class Tally:
    """Games the medium bot won, and each level's thinking time per decision."""

    games: int = 0
    wins: float = 0.0
    seconds: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))

    def share(self) -> float:
        """The medium bot's win share (a shared win counts by its share)."""
        return self.wins / max(self.games, 1)

    def margin(self) -> float:
        """Half-width of the 95% confidence interval of `share`."""
        share = self.share()
        return 1.96 * math.sqrt(share * (1 - share) / max(self.games, 1))

    def speed(self, level: str) -> str:
        """Decisions per second, median and 99th percentile time of one level's decisions."""
        times = sorted(self.seconds[level])
        if not times:
            return f"{level}: no decisions"
        median, p99 = times[len(times) // 2], times[int(len(times) * 0.99)]
        return (
            f"{level}: {len(times) / sum(times):,.0f} decisions/s, "
            f"median {1e6 * median:.0f} µs, p99 {1e6 * p99:.0f} µs"
        )


def play_game(edition_id: str, bots: list[Bot], seed: str, tally: Tally) -> list[int]:
    """One whole game, dealt from `seed` (each seat deciding from its own stream); returns
    its winners."""
    game = Game(find_edition(edition_id), len(bots), random.Random(seed))
    rngs = [random.Random(f"{seed}/{seat}") for seat in range(len(bots))]
    logs: list[list[dict]] = [[] for _ in bots]
    while not game.game_over:
        if game.round_over:
            game.start_round()
            continue
        seat = game.pending.seat
        log = logs[seat]
        log.extend(game.log(seat, len(log)))
        view = game.view(seat)
        started = time.process_time()
        choice = bots[seat].choose(view, log, rngs[seat])
        tally.seconds[bots[seat].level].append(time.process_time() - started)
        game.act(seat, choice_from_dict(choice))
    return game.game_winners


class RandomPlayer:
    """Any legal choice, uniformly: the opponents of the published card-counting bot."""

    level = "random"

    def choose(self, view: dict, log: list[dict], rng: random.Random) -> dict:
        """One of `view["choices"]`, at random."""
        return rng.choice(view["choices"])


def opponent(level: str) -> Bot:
    """A bot of `level`, or a random player."""
    return RandomPlayer() if level == "random" else make_bot(level)


def medium_against(level: str, edition_id: str, players: int, games: int, seed: int) -> Tally:
    """`games` games of one medium bot against `level` opponents, its seat rotating."""
    tally = Tally()
    for number in range(games):
        medium_seat = number % players
        bots = [make_bot("medium") if s == medium_seat else opponent(level) for s in range(players)]
        winners = play_game(edition_id, bots, f"{seed}/{players}/{number}", tally)
        if medium_seat in winners:
            tally.wins += 1 / len(winners)
        tally.games += 1
    return tally


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2_500, help="games per configuration")
    parser.add_argument("--edition", default="2019")
    parser.add_argument("--players", type=int, nargs="+", default=[4, 2])
    parser.add_argument("--against", nargs="+", default=["easy", "random"])
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    for level in args.against:
        for players in args.players:
            started = time.perf_counter()
            tally = medium_against(level, args.edition, players, args.games, args.seed)
            print(
                f"{args.edition}, {players} players, medium vs {players - 1} {level}: medium "
                f"wins {100 * tally.share():.1f}% ± {100 * tally.margin():.1f}% (95% CI) of "
                f"{tally.games} games (fair share {100 / players:.0f}%), "
                f"{time.perf_counter() - started:.0f} s"
            )
            print(f"  {tally.speed('medium')}; {tally.speed(level)}")


if __name__ == "__main__":
    main()
