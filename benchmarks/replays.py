"""Cost of a replay request: the server rebuilds the whole game from its seed and action log
for every round asked for. Games are played by random legal choices (longer than bots'
games), stored in a temporary SQLite file, then every round of each is asked for.

Usage: python benchmarks/replays.py [--games N]
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path

from protocol import ReplayRequest, encode
from server.engine import Game, choice_to_dict, find_edition
from server.lobby.replays import replay_for
from server.store import SeatRecord, Store

TABLES = (("classic", 4), ("2019", 6), ("premium", 8), ("ppea", 6))  # the largest of each


def store_game(store: Store, edition: str, players: int, seed: int) -> int:
    """One game of random legal choices, stored as a table stores it; its id."""
    seats = [SeatRecord(None, f"p{i}") for i in range(players)]
    game_id = store.start_game(edition, seats, seed=seed)
    game, rng = Game(find_edition(edition), players, random.Random(seed)), random.Random(seed)
    seq = 0
    while not game.game_over:
        if game.round_over:
            game.start_round()
        seat, choice = game.pending.seat, rng.choice(game.pending.choices)
        game.act(seat, choice)
        store.record_action(game_id, seq, seat, choice_to_dict(choice))
        seq += 1
    store.finish_game(game_id, game.game_winners)
    return game_id


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=5, help="games per edition (default 5)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder, Store.open(Path(folder) / "b.db") as store:
        print("edition  seats  actions(max)  rounds(max)  ms/request(median, max)  KiB(max)")
        for edition, players in TABLES:
            ids = [store_game(store, edition, players, seed) for seed in range(args.games)]
            times, sizes, actions, rounds = [], [], [], []
            for game_id in ids:
                actions.append(len(store.action_log(game_id).actions))
                number, total = 1, 1
                while number <= total:
                    started = time.perf_counter()
                    request = ReplayRequest(game_id, 0, number)
                    reply = replay_for(store, request, None, any_seat=True)
                    sizes.append(len(encode(reply)))
                    times.append((time.perf_counter() - started) * 1000)
                    total = reply.rounds
                    number += 1
                rounds.append(total)
            print(
                f"{edition:8} {players:5}  {max(actions):12}  {max(rounds):11}"
                f"  {statistics.median(times):10.1f}, {max(times):6.1f}"
                f"  {max(sizes) / 1024:16.0f}"
            )


if __name__ == "__main__":
    main()
