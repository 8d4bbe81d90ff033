"""How far a bot's plays are from the best it could make: a policy-improvement check, and for
the hard bot what its search gains over medium's choice and what seeing the true hands would.

Usage: python benchmarks/bot_policy.py [--bot medium|hard] [--against easy|medium]
                                       [--players N] [--games N] [--rollouts R]
                                       [--budget MS] [--oracle] [--workers W] [--seed S]
The bot plays against `--players - 1` bots of `--against` (2019 rules; default medium vs 3
easy). At each of its plays with a choice of card, every option (each card with medium's best
target and guess for it; for the hard bot also medium's choice and the hard bot's, and with
`--oracle` the choice of a hard bot whose search deals the true hands instead of hands drawn
from its beliefs) is played on from the true position to the round's end R times: the hidden
cards (deck and set-aside) reshuffled alike for every option, the seat continuing as medium,
the other bots as themselves. The true position is one draw from what the seat may believe,
so over many decisions these playouts value each option as fairly as its information allows.

A policy that no change of a single decision improves is the best there is (policy
improvement), so the held-out gain bounds how much better a bot can do against these
opponents by changing its card choices. Options are picked per hand and stage on half the
decisions and measured on the other half, so the gain is not inflated by picking the luckiest
options; "the best option at every decision" is picked and measured on the same playouts (a
generous ceiling). The hard bot's gain over medium's choice, and the oracle's, are measured on
the same playouts.
"""

from __future__ import annotations

import argparse
import copy
import math
import random
import statistics
import time
from collections import defaultdict
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from server.bots import Bot, Budget, HardBot, make_bot
from server.bots.beliefs import Beliefs
from server.bots.hard import clone, deal_hidden
from server.bots.medium import MediumBot
from server.engine import Choice, Game, Position, View, find_edition

EDITION = "2019"
LATE = 5  # a decision is "late" with this many cards or fewer left in the deck
BOT, MEDIUM, ORACLE = "bot", "medium", "oracle"  # options besides the cards


@dataclass
class Decision:
    """One of the bot's plays: its hand and stage, and each option's playout tokens (by card,
    and `BOT`, `MEDIUM`, `ORACLE`: the bot's, medium's and the oracle's choices)."""

    category: tuple[str, ...]  # the hand, sorted, and "early" or "late"
    tokens: dict[str, float]  # option -> mean tokens gained this round, playing it


class Seats:
    """A game in play with its bots, their logs and random streams."""

    def __init__(self, game: Game, bots: list[Bot], rngs: list[random.Random]) -> None:
        self.game = game
        self.bots = bots
        self.rngs = rngs
        self.logs: list[list[dict]] = [[] for _ in bots]

    def view(self, seat: int) -> tuple[View, list[dict]]:
        """`seat`'s view and its whole visible log, brought up to date."""
        log = self.logs[seat]
        log.extend(self.game.log(seat, len(log)))
        return self.game.view(seat), log

    def step(self) -> None:
        """The pending seat's bot decides and acts."""
        seat = self.game.pending.seat
        view, log = self.view(seat)
        choice = self.bots[seat].choose(view, log, self.rngs[seat])
        self.game.act(seat, choice)

    def playout(self, seat: int, player: Bot, choice: Choice, seed: str) -> int:
        """Tokens `seat` gains this round if it makes `choice` now and then plays as `player`,
        in a copy of the game whose hidden cards are reshuffled from `seed`."""
        rng = random.Random(seed)
        game = copy.deepcopy(self.game, {id(self.game.edition): self.game.edition})
        game.rng = random.Random(rng.random())
        hidden = game.deck + game.set_aside
        rng.shuffle(hidden)
        game.deck, game.set_aside = hidden[: len(game.deck)], hidden[len(game.deck) :]
        bots = [player if s == seat else bot for s, bot in enumerate(self.bots)]
        copied = Seats(game, copy.deepcopy(bots), [random.Random(rng.random()) for _ in bots])
        copied.logs = copy.deepcopy(self.logs)
        before = game.tokens[seat]
        game.act(seat, choice)
        while not (game.round_over or game.game_over):
            copied.step()
        return game.tokens[seat] - before


def by_card(medium: MediumBot, view: View, log: list[dict]) -> tuple[dict[str, Choice], Choice]:
    """Medium's best-scoring choice for each card in hand, and its choice."""
    best: dict[str, tuple[Choice, float]] = {}
    for choice, score in zip(view.choices, medium.scores(view, log), strict=True):
        card = choice.card
        if card not in best or score > best[card][1]:
            best[card] = (choice, score)
    chosen = max(best.values(), key=lambda pair: pair[1])[0]
    return {card: choice for card, (choice, _) in best.items()}, chosen


def true_hands(game: Game) -> Callable[[dict, Beliefs, random.Random], tuple[Position, float]]:
    """A dealer for the hard bot's search that deals every opponent its true hand in `game`
    (the hidden cards shuffled as usual): the oracle."""

    def deal(view: View, beliefs: Beliefs, rng: random.Random) -> tuple[Position, float]:
        told = clone(beliefs)
        for seat, hand in enumerate(game.hands):
            if seat != view.viewer and hand:
                told.weights[seat] = {hand[0].id: 1.0}
        dealt = deal_hidden(view, told, rng)
        assert dealt is not None, "the true hands are always a possible deal"
        return dealt

    return deal


@dataclass(frozen=True)
class Setup:
    """What is measured: the bot, its opponents, the table, the playouts."""

    bot: str
    against: str
    players: int
    rollouts: int
    budget: Budget
    oracle: bool
    seed: int


def measure(seats: Seats, me: int, setup: Setup, label: str) -> Decision | None:
    """The bot's decision pending for `me`, each option measured by playouts (the bot then
    plays its choice); None (and no measuring) without a choice of card."""
    game = seats.game
    view, log = seats.view(me)
    bot = seats.bots[me]
    medium = bot._medium if isinstance(bot, HardBot) else bot
    assert isinstance(medium, MediumBot)
    if view.pending.kind != "play" or len({c.card for c in view.choices}) < 2:
        return None
    options, medium_choice = by_card(medium, view, log)
    options[MEDIUM] = medium_choice
    rng = seats.rngs[me]
    if isinstance(bot, HardBot):
        if setup.oracle:
            oracle = HardBot(bot.budget, deal=true_hands(game))
            oracle._medium = copy.deepcopy(medium)
            options[ORACLE] = oracle.choose(view, log, random.Random(rng.random()))
        options[BOT] = bot.choose(view, log, rng)
    else:
        options[BOT] = medium_choice
    tokens = playouts(seats, me, copy.deepcopy(medium), options, setup, label)
    stage = "late" if view.deck_size <= LATE else "early"
    seats.game.act(me, options[BOT])
    return Decision((*sorted(view.hand), stage), tokens)


def playouts(
    seats: Seats, me: int, player: MediumBot, options: dict[str, Choice], setup: Setup, label: str
) -> dict[str, float]:
    """Each option's mean tokens over `setup.rollouts` playouts, the same shuffles for each
    (an option equal to another is measured once)."""
    measured: list[tuple[Choice, float]] = []
    tokens = {}
    for name, choice in options.items():
        done = next((value for other, value in measured if other == choice), None)
        if done is None:
            total = sum(
                seats.playout(me, player, choice, f"{label}/{i}") for i in range(setup.rollouts)
            )
            done = total / setup.rollouts
            measured.append((choice, done))
        tokens[name] = done
    return tokens


@dataclass
class Sample:
    """The bot's measured decisions over some games, the rounds played and its tokens."""

    decisions: list[Decision]
    rounds: int = 0
    tokens: int = 0


def new_bot(level: str, budget: Budget) -> Bot:
    """A bot of `level` (the hard bot with `budget`)."""
    return HardBot(budget) if level == "hard" else make_bot(level)


def play_games(first: int, games: int, setup: Setup) -> Sample:
    """The bot's measured decisions over games `first` to `first + games`."""
    sample = Sample([])
    players = setup.players
    for number in range(first, first + games):
        me = number % players
        deal = f"{setup.seed}/{players}/{number}"
        levels = [setup.bot if s == me else setup.against for s in range(players)]
        bots = [new_bot(level, setup.budget) for level in levels]
        game = Game(find_edition(EDITION), players, random.Random(deal))
        seats = Seats(game, bots, [random.Random(f"{deal}/{s}") for s in range(players)])
        decisions = 0
        while not game.game_over:
            if game.round_over:
                game.start_round()
                sample.rounds += 1
                continue
            if game.pending.seat == me:
                decision = measure(seats, me, setup, f"{deal}/playouts/{decisions}")
                decisions += 1
                if decision is not None:
                    sample.decisions.append(decision)
                    continue
            seats.step()
        sample.tokens += game.tokens[me]
    return sample


def better_cards(decisions: list[Decision]) -> dict[tuple[str, ...], str]:
    """Per category, the card whose playouts gained most on `decisions`."""
    sums: dict[tuple[str, ...], dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for decision in decisions:
        for option, tokens in decision.tokens.items():
            if option not in (BOT, MEDIUM, ORACLE):
                sums[decision.category][option] += tokens
    return {category: max(cards, key=cards.__getitem__) for category, cards in sums.items()}


def gains(decisions: list[Decision], picks: dict[tuple[str, ...], str]) -> list[float]:
    """Per decision, the tokens gained by playing the picked card instead of the bot's choice."""
    return [
        decision.tokens[picks.get(decision.category, BOT)] - decision.tokens[BOT]
        for decision in decisions
    ]


def over(decisions: list[Decision], better: str, worse: str) -> list[float]:
    """Per decision, the tokens option `better` gains over option `worse`."""
    return [d.tokens[better] - d.tokens[worse] for d in decisions if better in d.tokens]


def per_round(values: list[float], rounds: int) -> str:
    """The sum of per-decision `values` per round, with its 95% confidence interval."""
    if len(values) < 2:
        return "n/a"
    margin = 1.96 * statistics.stdev(values) * math.sqrt(len(values))
    return f"{sum(values) / rounds:+.4f} ± {margin / rounds:.4f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bot", choices=("medium", "hard"), default="medium")
    parser.add_argument("--against", choices=("easy", "medium"), default="easy")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--rollouts", type=int, default=16, help="playouts per option")
    parser.add_argument("--budget", type=float, default=150, help="hard bot: CPU ms a decision")
    parser.add_argument("--oracle", action="store_true", help="hard bot: also the true hands'")
    parser.add_argument("--workers", type=int, default=2, help="processes")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    setup = Setup(
        args.bot,
        args.against,
        args.players,
        args.rollouts,
        Budget(seconds=args.budget / 1000),
        args.oracle,
        args.seed,
    )
    started = time.perf_counter()
    chunk = -(-args.games // args.workers)
    with ProcessPoolExecutor(args.workers) as pool:
        jobs = [
            pool.submit(play_games, first, min(chunk, args.games - first), setup)
            for first in range(0, args.games, chunk)
        ]
        samples = [job.result() for job in jobs]
    report(setup, samples, args.games, time.perf_counter() - started)


def report(setup: Setup, samples: list[Sample], games: int, seconds: float) -> None:
    """Print the bot's tokens, the held-out and in-sample improvements, and for the hard bot
    its gain and the oracle's over medium's choice."""
    decisions = [decision for sample in samples for decision in sample.decisions]
    rounds = sum(sample.rounds for sample in samples)
    tokens = sum(sample.tokens for sample in samples)
    halves = decisions[::2], decisions[1::2]
    held_out = gains(halves[1], better_cards(halves[0])) + gains(halves[0], better_cards(halves[1]))
    in_sample = sum(gains(decisions, better_cards(decisions)))
    best = [max(d.tokens.values()) - d.tokens[BOT] for d in decisions]
    others = setup.players - 1
    print(
        f"{EDITION}, {setup.players} players, {setup.bot} vs {others} {setup.against}: "
        f"{games} games, {len(decisions)} decisions with a choice of card in {rounds} rounds, "
        f"{setup.rollouts} playouts per option, {seconds:.0f} s"
    )
    print(f"  {setup.bot} gains {tokens / rounds:.3f} tokens a round (95% CIs below, per round)")
    print(
        f"  playing the better card per hand and stage gains {per_round(held_out, rounds)} "
        f"tokens a round, picked on one half and measured on the other "
        f"({in_sample / rounds:+.4f} picked and measured on all)"
    )
    print(f"  the best option at every decision gains {per_round(best, rounds)} (a ceiling)")
    if setup.bot == "hard":
        print(f"  hard's choice over medium's: {per_round(over(decisions, BOT, MEDIUM), rounds)}")
        if setup.oracle:
            oracle = over(decisions, ORACLE, MEDIUM)
            print(f"  the oracle's (true hands) over medium's: {per_round(oracle, rounds)}")
    changed = sum(d.tokens[BOT] != d.tokens[MEDIUM] for d in decisions)
    print(f"  {changed} of {len(decisions)} decisions differ from medium's choice in value")


if __name__ == "__main__":
    main()
