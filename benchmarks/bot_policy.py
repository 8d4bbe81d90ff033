"""How far the medium bot's plays are from the best it could make: a policy-improvement check.

Usage: python benchmarks/bot_policy.py [--games N] [--rollouts R] [--workers W] [--seed S]
Medium plays against 3 easy bots (4-player 2019). At each of its plays with a choice of card,
every option (each card and target, with medium's own guess) is played on from the true position
to the round's end R times: the hidden cards reshuffled, medium continuing as itself, the easy
bots as themselves. The true position is one draw from what medium may believe, so over many
decisions these playouts value each option as fairly as medium's information allows.

A policy that no change of a single decision improves is the best there is (policy
improvement), so the gain printed bounds how much better a bot can do against these opponents.
Options are picked per hand and stage on half the decisions and measured on the other half,
so the gain is not inflated by picking the luckiest options.
"""

from __future__ import annotations

import argparse
import copy
import math
import random
import statistics
import time
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from server.bots import Bot, make_bot
from server.bots.medium import MediumBot
from server.bots.offered import offered
from server.engine import Game, View, choice_from_dict, find_edition

EDITION = "2019"
PLAYERS = 4
LATE = 5  # a decision is "late" with this many cards or fewer left in the deck


@dataclass
class Decision:
    """One of medium's plays: its hand and stage, and each option's playout tokens."""

    category: tuple[str, ...]  # the hand, sorted, and "early" or "late"
    chosen: str  # the card medium played
    tokens: dict[str, float]  # card -> mean tokens gained this round, playing it


class Seats:
    """A game in play with its bots, their logs and random streams."""

    def __init__(self, game: Game, bots: list[Bot], rngs: list[random.Random]) -> None:
        self.game = game
        self.bots = bots
        self.rngs = rngs
        self.logs: list[list[dict]] = [[] for _ in bots]

    def view(self, seat: int) -> tuple[dict, list[dict]]:
        """`seat`'s view and its whole visible log, brought up to date."""
        log = self.logs[seat]
        log.extend(self.game.log(seat, len(log)))
        return self.game.view(seat), log

    def step(self) -> None:
        """The pending seat's bot decides and acts."""
        seat = self.game.pending.seat
        view, log = self.view(seat)
        choice = self.bots[seat].choose(view, log, self.rngs[seat])
        self.game.act(seat, choice_from_dict(choice))

    def playout(self, seat: int, choice: dict, rng: random.Random) -> int:
        """Tokens `seat` gains this round if it makes `choice` now, in a copy of the game whose
        hidden cards are reshuffled."""
        game = copy.deepcopy(self.game, {id(self.game.edition): self.game.edition})
        game.rng = random.Random(rng.random())
        hidden = game.deck + game.set_aside
        rng.shuffle(hidden)
        game.deck, game.set_aside = hidden[: len(game.deck)], hidden[len(game.deck) :]
        copied = Seats(
            game, copy.deepcopy(self.bots), [random.Random(rng.random()) for _ in self.bots]
        )
        copied.logs = copy.deepcopy(self.logs)
        before = game.tokens[seat]
        game.act(seat, choice_from_dict(choice))
        while not (game.round_over or game.game_over):
            copied.step()
        return game.tokens[seat] - before


def options(bot: MediumBot, view: View, log: list[dict]) -> tuple[dict[str, dict], str]:
    """Medium's best-scoring choice for each card in hand, and the card it plays."""
    best: dict[str, tuple[dict, float]] = {}
    for choice, score in zip(offered(view), bot.scores(view, log), strict=True):
        card = choice["card"]
        if card not in best or score > best[card][1]:
            best[card] = (choice, score)
    chosen = max(best, key=lambda card: best[card][1])
    return {card: choice for card, (choice, _) in best.items()}, chosen


def measure(seats: Seats, me: int, rollouts: int, rng: random.Random) -> Decision | None:
    """The decision pending for `me`, each card's option measured by playouts; None without a
    choice of card."""
    view, log = seats.view(me)
    if view.pending.kind != "play" or len({c.card for c in view.choices}) < 2:
        return None
    by_card, chosen = options(seats.bots[me], view, log)
    tokens = {
        card: sum(seats.playout(me, choice, rng) for _ in range(rollouts)) / rollouts
        for card, choice in by_card.items()
    }
    stage = "late" if view.deck_size <= LATE else "early"
    return Decision((*sorted(view.hand), stage), chosen, tokens)


@dataclass
class Sample:
    """Medium's measured decisions over some games, the rounds played and its tokens."""

    decisions: list[Decision]
    rounds: int = 0
    tokens: int = 0


def play_games(first: int, games: int, rollouts: int, seed: int) -> Sample:
    """Medium's measured decisions over games `first` to `first + games`."""
    sample = Sample([])
    for number in range(first, first + games):
        me = number % PLAYERS
        deal = f"{seed}/{number}"
        bots = [make_bot("medium" if s == me else "easy") for s in range(PLAYERS)]
        game = Game(find_edition(EDITION), PLAYERS, random.Random(deal))
        seats = Seats(game, bots, [random.Random(f"{deal}/{s}") for s in range(PLAYERS)])
        rng = random.Random(f"{deal}/playouts")
        while not game.game_over:
            if game.round_over:
                game.start_round()
                sample.rounds += 1
                continue
            if game.pending.seat == me:
                decision = measure(seats, me, rollouts, rng)
                if decision is not None:
                    sample.decisions.append(decision)
            seats.step()
        sample.tokens += game.tokens[me]
    return sample


def better_cards(decisions: list[Decision]) -> dict[tuple[str, ...], str]:
    """Per category, the card whose playouts gained most on `decisions`."""
    sums: dict[tuple[str, ...], dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for decision in decisions:
        for card, tokens in decision.tokens.items():
            sums[decision.category][card] += tokens
    return {category: max(cards, key=cards.__getitem__) for category, cards in sums.items()}


def gains(decisions: list[Decision], picks: dict[tuple[str, ...], str]) -> list[float]:
    """Per decision, the tokens gained by playing the picked card instead of medium's."""
    return [
        decision.tokens[picks.get(decision.category, decision.chosen)]
        - decision.tokens[decision.chosen]
        for decision in decisions
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--rollouts", type=int, default=16, help="playouts per option")
    parser.add_argument("--workers", type=int, default=2, help="processes")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    started = time.perf_counter()
    chunk = -(-args.games // args.workers)
    with ProcessPoolExecutor(args.workers) as pool:
        jobs = [
            pool.submit(play_games, first, min(chunk, args.games - first), args.rollouts, args.seed)
            for first in range(0, args.games, chunk)
        ]
        samples = [job.result() for job in jobs]
    decisions = [decision for sample in samples for decision in sample.decisions]
    rounds = sum(sample.rounds for sample in samples)
    tokens = sum(sample.tokens for sample in samples)
    halves = decisions[::2], decisions[1::2]
    held_out = gains(halves[1], better_cards(halves[0])) + gains(halves[0], better_cards(halves[1]))
    in_sample = sum(gains(decisions, better_cards(decisions)))
    margin = 1.96 * statistics.stdev(held_out) * math.sqrt(len(held_out))  # 95%, of the sum
    print(
        f"{EDITION}, {PLAYERS} players, medium vs {PLAYERS - 1} easy: {len(decisions)} decisions "
        f"with a choice of card in {rounds} rounds, {args.rollouts} playouts per option, "
        f"{time.perf_counter() - started:.0f} s"
    )
    print(f"  medium gains {tokens / rounds:.3f} tokens a round")
    print(
        f"  playing the better card per hand and stage gains {sum(held_out) / rounds:+.4f} "
        f"± {margin / rounds:.4f} tokens a round (95% CI), picked on one half and measured on "
        f"the other ({in_sample / rounds:+.4f} picked and measured on all)"
    )


if __name__ == "__main__":
    main()
