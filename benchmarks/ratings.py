"""Ratings: the cost of rating a finished game, of a full recompute, and of the lobby's lookup.

Usage: python benchmarks/ratings.py [--players 200] [--games 5000]

Builds a fresh SQLite file in a temporary directory with `--players` keyed players and
`--games` finished games of four seats (three keyed humans and a medium bot, one round each),
timing `finish_game` (which rates the game in the same transaction), then
`lovelet admin ratings --recompute`'s `recompute_ratings`, then `ratings_of` for every player
at once (what each lobby broadcast asks for).
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from server.store import SeatRecord, Store

T0 = datetime(2025, 1, 1, tzinfo=UTC)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--games", type=int, default=5000)
    args = parser.parse_args()
    rng = random.Random(1)
    keys = [f"SHA256:player{i}" for i in range(args.players)]
    with tempfile.TemporaryDirectory() as tmp, Store.open(Path(tmp) / "lovelet.db") as store:
        for key in keys:
            store.claim_nickname(key, key[7:], set())
        finishing: list[float] = []
        for n in range(args.games):
            seats = [SeatRecord(k, k[7:]) for k in rng.sample(keys, 3)]
            seats.append(SeatRecord(None, "medium bot", "medium"))
            game_id = store.start_game("classic", seats, T0 + timedelta(minutes=n))
            winner = rng.randrange(4)
            tokens = [rng.randrange(4) for _ in range(4)]
            tokens[winner] = 4
            store.record_round(game_id, 1, [winner], tokens)
            started = time.perf_counter()
            store.finish_game(game_id, [winner], T0 + timedelta(minutes=n, seconds=30))
            finishing.append(time.perf_counter() - started)
        started = time.perf_counter()
        rated = store.recompute_ratings()
        recompute = time.perf_counter() - started
        started = time.perf_counter()
        for _ in range(100):
            store.ratings_of(keys)
        lookup = (time.perf_counter() - started) / 100
    finishing.sort()
    p99 = finishing[int(len(finishing) * 0.99)]
    print(
        f"finish_game + rating: median {statistics.median(finishing) * 1e3:.2f} ms, "
        f"p99 {p99 * 1e3:.2f} ms over {args.games} games"
    )
    print(f"recompute: {rated} rated games in {recompute:.2f} s ({rated / recompute:.0f} games/s)")
    print(f"ratings_of {args.players} players (one lobby broadcast): {lookup * 1e3:.2f} ms")


if __name__ == "__main__":
    main()
