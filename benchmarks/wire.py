"""Cost of the protocol on the broadcast path: encode and decode of a real table update.

Usage: python benchmarks/wire.py [--runs N]
"""

from __future__ import annotations

import argparse
import random
import time

from protocol import Direction, SeatInfo, TableInfo, TableState, decode, encode
from server.engine import Game, find_edition
from server.services.views import wire_view


def table_update() -> TableState:
    """A mid-game 4-player 2019 update: the seat's view and the last ten events."""
    rng = random.Random(3)
    game = Game(find_edition("2019"), 4, rng)
    game.start_round(start=0)
    for _ in range(6):
        decision = game.pending
        game.act(decision.seat, rng.choice(decision.choices))
    seats = tuple(SeatInfo(f"player{i}", None, True) for i in range(4))
    info = TableInfo("ABCD", "bench", "2019", "player0", seats, (), "playing", 90, 0)
    return TableState(info, wire_view(game.view(0)), tuple(game.log(0)[-10:]))


def per_call(function, runs: int) -> float:
    """Best-of-five microseconds per call."""
    best = float("inf")
    for _ in range(5):
        started = time.perf_counter()
        for _ in range(runs):
            function()
        best = min(best, (time.perf_counter() - started) / runs)
    return best * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5000)
    args = parser.parse_args()
    message = table_update()
    frame = encode(message)
    print(f"table update: {len(frame)} bytes")
    print(f"encode (checked):   {per_call(lambda: encode(message), args.runs):7.1f} µs")
    print(
        f"encode (unchecked): {per_call(lambda: encode(message, check=False), args.runs):7.1f} µs"
    )
    decode_frame = lambda: decode(frame, direction=Direction.TO_CLIENT)  # noqa: E731
    print(f"decode:             {per_call(decode_frame, args.runs):7.1f} µs")


if __name__ == "__main__":
    main()
