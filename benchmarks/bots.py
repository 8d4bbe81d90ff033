"""Win share of one bot against others, with 95% confidence intervals, and bot speed.

Usage: python benchmarks/bots.py [--bot LEVEL] [--against LEVEL ...] [--players N ...]
                                 [--games N] [--edition E] [--budget MS] [--paired] [--seed S]
                                 [--every N] [--jobs N]
Drives whole games through the engine; each bot sees only its seat's view and visible log.
The bot's seat rotates from game to game. `--bot` defaults to medium, `--against` to easy and
random (any legal choice, the Princess included: the setting in which a published
card-counting bot wins ~77% of 4-player games). Targets: medium >= 75% of 4-player games
against easy; hard >= 33% of 4-player games against 3 medium (25% is parity), >= 60% of
2-player games against one.
Game N deals from its own random stream (from the seed and N) and each seat decides from
another, so whatever the bots choose, runs with one seed deal alike (up to a tied round's
random next starter): two versions of a bot meet the same deals, and the difference of their
shares is much less noisy than either share. `--paired` also plays each game with an
`--against` bot in the bot's seat and prints that difference with its own interval.
`--budget` sets the hard bot's CPU time per decision (default 150 ms). `--jobs N` plays the
games in N processes (the hard bot's budget is CPU time, so its strength does not depend on
how busy the machine is); the results are the same as with one.
"""

from __future__ import annotations

import argparse
import math
import random
import time
from collections import defaultdict
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

from server.bots import LEVELS, Bot, Budget, HardBot, make_bot
from server.engine import Choice, Game, View, find_edition


@dataclass
class Tally:
    """The bot's share of each game, and each level's thinking time per decision."""

    shares: list[float] = field(default_factory=list)
    seconds: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))

    def add(self, other: Tally) -> None:
        """Count `other`'s games and decisions in this tally too."""
        self.shares += other.shares
        for level, times in other.seconds.items():
            self.seconds[level] += times

    def share(self) -> float:
        """The bot's win share (a shared win counts by its share)."""
        return mean(self.shares)

    def margin(self) -> float:
        """Half-width of the 95% confidence interval of `share`."""
        return margin(self.shares)

    def speed(self, level: str) -> str:
        """Decisions per second, median and 99th percentile time of one level's decisions."""
        times = sorted(self.seconds[level])
        if not times:
            return f"{level}: no decisions"
        median, p99 = times[len(times) // 2], times[int(len(times) * 0.99)]
        return (
            f"{level}: {len(times) / sum(times):,.0f} decisions/s, "
            f"median {1e3 * median:.2f} ms, p99 {1e3 * p99:.2f} ms"
        )


def mean(values: list[float]) -> float:
    """The mean of `values` (0 for none)."""
    return sum(values) / max(len(values), 1)


def margin(values: list[float]) -> float:
    """Half-width of the 95% confidence interval of the mean of `values`."""
    n = len(values)
    if n < 2:
        return math.inf
    average = mean(values)
    variance = sum((v - average) ** 2 for v in values) / (n - 1)
    return 1.96 * math.sqrt(variance / n)


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
        game.act(seat, choice)
    return game.game_winners


class RandomPlayer:
    """Any legal choice, uniformly: the opponents of the published card-counting bot."""

    level = "random"

    def choose(self, view: View, log: list[dict], rng: random.Random) -> Choice:
        """One of `view.choices`, at random."""
        return rng.choice(view.choices)


def new_bot(level: str, budget: Budget) -> Bot:
    """A bot of `level` (the hard bot with `budget`), or a random player."""
    if level == "random":
        return RandomPlayer()
    return HardBot(budget) if level == "hard" else make_bot(level)


@dataclass(frozen=True)
class Match:
    """One bot of `level` against `players - 1` bots of `against`."""

    level: str
    against: str
    edition_id: str
    players: int
    budget: Budget

    def game(self, number: int, seed: int, level: str, tally: Tally) -> float:
        """Game `number`, with a `level` bot in the rotating seat: that seat's share."""
        seat = number % self.players
        bots = [
            new_bot(level if s == seat else self.against, self.budget) for s in range(self.players)
        ]
        winners = play_game(self.edition_id, bots, f"{seed}/{self.players}/{number}", tally)
        return 1 / len(winners) if seat in winners else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bot", choices=LEVELS, default="medium")
    parser.add_argument("--against", nargs="+", default=["easy", "random"])
    parser.add_argument("--players", type=int, nargs="+", default=[4, 2])
    parser.add_argument("--games", type=int, default=2_500, help="games per configuration")
    parser.add_argument("--edition", default="2019")
    parser.add_argument("--budget", type=float, default=150, help="hard bot: CPU ms a decision")
    parser.add_argument("--paired", action="store_true", help="also the --against bot's share")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--every", type=int, default=0, help="also print after every N games")
    parser.add_argument("--jobs", type=int, default=1, help="processes playing the games")
    args = parser.parse_args()
    budget = Budget(seconds=args.budget / 1000)
    for against in args.against:
        for players in args.players:
            report(Match(args.bot, against, args.edition, players, budget), args)


def report(match: Match, args: argparse.Namespace) -> None:
    """Play `args.games` games of `match` (and the paired ones) and print the result, also
    every `args.every` games on the way."""
    started = time.perf_counter()
    tally, baseline = Tally(), Tally()
    for number, (played, paired) in enumerate(games(match, args), 1):
        tally.add(played)
        baseline.add(paired)
        if args.every and number % args.every == 0 and number < args.games:
            print_result(match, tally, baseline, time.perf_counter() - started)
    print_result(match, tally, baseline, time.perf_counter() - started)


def games(match: Match, args: argparse.Namespace) -> Iterator[tuple[Tally, Tally]]:
    """Each game's tally and its paired game's (empty unless `--paired`), in order, played in
    `args.jobs` processes."""
    numbers = range(args.games)
    if args.jobs <= 1:
        yield from (play_pair(match, number, args.seed, args.paired) for number in numbers)
        return
    with ProcessPoolExecutor(args.jobs) as pool:
        count = len(numbers)
        yield from pool.map(
            play_pair, [match] * count, numbers, [args.seed] * count, [args.paired] * count
        )


def play_pair(match: Match, number: int, seed: int, paired: bool) -> tuple[Tally, Tally]:
    """Game `number` with the bot in the rotating seat, and if `paired` with an `--against`
    bot there instead."""
    played, baseline = Tally(), Tally()
    played.shares.append(match.game(number, seed, match.level, played))
    if paired:
        baseline.shares.append(match.game(number, seed, match.against, baseline))
    return played, baseline


def print_result(match: Match, tally: Tally, baseline: Tally, seconds: float) -> None:
    """The bot's share with its interval, the paired gain if measured, and the bots' speed."""
    players, level = match.players, match.level
    print(
        f"{match.edition_id}, {players} players, {level} vs {players - 1} {match.against}: "
        f"{level} wins {100 * tally.share():.1f}% ± {100 * tally.margin():.1f}% (95% CI) of "
        f"{len(tally.shares)} games (fair share {100 / players:.0f}%), {seconds:.0f} s"
    )
    if baseline.shares:
        gains = [a - b for a, b in zip(tally.shares, baseline.shares, strict=True)]
        print(
            f"  paired: {match.against} in its seat wins {100 * baseline.share():.1f}% of the "
            f"same deals; {level} gains {100 * mean(gains):+.1f} ± {100 * margin(gains):.1f} "
            "points (95% CI)"
        )
    print(f"  {tally.speed(level)}; {tally.speed(match.against)}", flush=True)


if __name__ == "__main__":
    main()
