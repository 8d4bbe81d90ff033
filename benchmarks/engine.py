"""Random-playout speed of the rules engine: rounds per second per edition and player count.

Usage: python benchmarks/engine.py [--seconds S] [--edition E] [--players N] [--anchor BINARY]
Target: >= 20,000 rounds/s for 2019 with 4 players on one core.

The first line says whether the engine runs compiled (mypyc, see setup.py) or pure Python.

`--anchor BINARY` also runs a C++ engine side by side, for classic with 4 players, and prints
our share of its speed: with this script's loop picking each choice and calling `Game.act`, and
with `Game.play_randomly` picking them inside the engine (compiled with it, if it is). The
anchor is jthemphill/love-letter (C++, classic rules), built outside this repository: its Round,
PublicInfo, Random and RandomBot sources with `g++ -O2`, and a driver of your own that, for
about `argv[1]` seconds of CPU time, plays rounds of 4 players as its Server::round does (a
Round from one shuffled deck, a RandomBot per seat, each turn startTurn, makeChoice,
completeTurn until isOver, the winner starting the next round) and prints "<N> rounds/s" on its
first line. Make its `Random` constructor's `std::random_device` static (one per process): as
published, each RandomBot opens its own, four a round, and on a VM where `cpuid` traps that
alone costs ~44 µs a round, 25 times the game itself (22k rounds/s instead of ~600k).
The figures vary with the machine's load (CPU time, not wall time, is measured): compare only
figures taken in the same run.
"""

from __future__ import annotations

import argparse
import random
import re
import subprocess
import time

from server.engine import EDITIONS, Game, find_edition, game


def playout_rounds(
    edition_id: str, players: int, seconds: float, seed: int = 1, in_engine: bool = False
) -> float:
    """Play random rounds for about `seconds` of CPU time; return rounds per CPU second.

    Each decision is a uniformly random legal choice, picked by this loop and applied with
    `Game.act`, or (`in_engine`) picked alike by `Game.play_randomly`: the same games."""
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
            if in_engine:
                game.play_randomly(rng)
                continue
            act = game.act
            while not game.round_over:
                pending = game.pending
                choices = pending.choices
                act(pending.seat, choices[int(uniform() * len(choices))])
        rounds += 200
        now = time.process_time()
        if now >= deadline:
            return rounds / (now - started)


def anchor_rounds(binary: str, seconds: float) -> float:
    """The anchor's rounds per CPU second, from the first number its first line prints."""
    out = subprocess.run([binary, str(seconds)], capture_output=True, text=True, check=True)
    found = re.match(r"\s*([\d.,]+)", out.stdout)
    if found is None:
        raise SystemExit(f"{binary} printed no rounds/s: {out.stdout[:80]!r}")
    return float(found.group(1).replace(",", ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="time per configuration")
    parser.add_argument("--edition", choices=sorted(EDITIONS), help="only this edition")
    parser.add_argument("--players", type=int, help="only this player count")
    parser.add_argument("--anchor", help="a built C++ anchor to compare with (see above)")
    args = parser.parse_args()
    compiled = not game.__file__.endswith(".py")
    print(f"engine: {'compiled (mypyc)' if compiled else 'pure Python'}")
    if args.anchor:
        ours = playout_rounds("classic", 4, args.seconds)
        in_engine = playout_rounds("classic", 4, args.seconds, in_engine=True)
        theirs = anchor_rounds(args.anchor, args.seconds)
        for how, rate in (("act loop", ours), ("play_randomly", in_engine)):
            print(
                f"classic  4 players, {how:13}: {rate:10,.0f} rounds/s, "
                f"C++ anchor {theirs:10,.0f}: {rate / theirs:.3f}x"
            )
        return
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
