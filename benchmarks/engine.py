"""Random-playout speed of the rules engine: rounds per second per edition and player count.

Usage: python benchmarks/engine.py [--seconds S] [--edition E] [--players N]
Target: >= 20,000 rounds/s for 2019 with 4 players on one core.
"""

from __future__ import annotations

import argparse
import random
import time

from server.engine import EDITIONS, Game, find_edition


def playout_rounds(edition_id: str, players: int, seconds: float, seed: int = 1) -> float:
    """Play random rounds for about `seconds` of CPU time; return rounds per CPU second."""
    rng = random.Random(seed)
    edition = find_edition(edition_id)
    uniform = rng.random
    rounds = 0
    game = Game(edition, players, rng, record=False)
    started = time.process_time()
    deadline = started + seconds
    while True:
        for _ in range(200):
            if game.game_over:
                game = Game(edition, players, rng, record=False)
            game.start_round()
            while not game.round_over:
                seat, _, choices = game.pending
                game.act(seat, choices[int(uniform() * len(choices))])
        rounds += 200
        now = time.process_time()
        if now >= deadline:
            return rounds / (now - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="time per configuration")
    parser.add_argument("--edition", choices=sorted(EDITIONS), help="only this edition")
    parser.add_argument("--players", type=int, help="only this player count")
    args = parser.parse_args()
    for edition in EDITIONS.values():
        if args.edition and edition.id != args.edition:
            continue
        for players in range(edition.min_players, edition.max_players + 1):
            if args.players and players != args.players:
                continue
            rate = playout_rounds(edition.id, players, args.seconds)
            print(f"{edition.id:8} {players} players: {rate:10,.0f} rounds/s")


if __name__ == "__main__":
    main()
