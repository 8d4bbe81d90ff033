"""How medium chooses which of its two cards to play: the hard bot's model of its opponents
(`server/bots/opponents.json`, read by `server.bots.cards`).

Usage: python benchmarks/opponent_model.py [--games N] [--jobs N] [--seed S] [--write]
Medium plays against medium in every edition at every player count; at each of its plays
holding two different cards, the hand, the card it played and how many others were in the
round are counted. Printed: per edition, the plays counted and the hands stored. `--write`
stores, per edition, number of others in the round and hand, the share
of those plays that played each card (hands seen fewer than `MIN_HANDS` times are left out:
the model falls back to a careful random player for them).
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from selfplay import in_the_round, medium_game

from server.engine import EDITIONS, Play, find_edition

MIN_HANDS = 30  # a hand needs this many plays to be stored
OUT = Path(__file__).resolve().parent.parent / "server" / "bots" / "opponents.json"
Key = tuple[int, str, str]  # others in the round, card played, card kept


def play_game(edition_id: str, players: int, seed: str) -> Counter[Key]:
    """Every play from two different cards over one game of medium bots."""
    plays: Counter[Key] = Counter()
    for decision in medium_game(edition_id, players, seed):
        hand, choice = decision.view.hand, decision.choice
        if decision.view.pending.kind == "play" and len(hand) == 2 and hand[0] != hand[1]:
            assert isinstance(choice, Play)
            kept = hand[1] if choice.card == hand[0] else hand[0]
            plays[in_the_round(decision.view) - 1, choice.card, kept] += 1
    return plays


def collect(edition_id: str, games: int, seed: int, jobs: int) -> Counter[Key]:
    """The plays of `games` games at each player count of the edition."""
    edition = find_edition(edition_id)
    tasks = [
        (edition_id, players, f"{seed}/{edition_id}/{players}/{number}")
        for players in range(edition.min_players, edition.max_players + 1)
        for number in range(games)
    ]
    total: Counter[Key] = Counter()
    with ProcessPoolExecutor(jobs) as pool:
        for plays in pool.map(play_game, *zip(*tasks, strict=True), chunksize=8):
            total.update(plays)
    return total


def shares(plays: Counter[Key]) -> dict[str, dict[str, float]]:
    """Per number of others, "played kept" -> the share of plays from that hand that played
    `played`, for hands seen at least `MIN_HANDS` times."""
    model: dict[str, dict[str, float]] = {}
    for (others, played, kept), count in sorted(plays.items()):
        seen = count + plays[others, kept, played]
        if seen >= MIN_HANDS:
            model.setdefault(str(others), {})[f"{played} {kept}"] = round(count / seen, 3)
    return model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=400, help="games per player count")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--write", action="store_true", help=f"store the model in {OUT.name}")
    args = parser.parse_args()
    model = {}
    for edition_id in EDITIONS:
        plays = collect(edition_id, args.games, args.seed, args.jobs)
        model[edition_id] = shares(plays)
        hands = sum(len(by_hand) for by_hand in model[edition_id].values()) // 2
        print(f"{edition_id}: {sum(plays.values()):,} plays, {hands} hands stored", flush=True)
    if args.write:
        OUT.write_text(json.dumps(model, indent=0, sort_keys=True) + "\n")
        print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
