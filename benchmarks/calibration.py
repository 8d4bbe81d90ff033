"""How medium's estimate of the round maps to the share of rounds it wins: the hard bot's
`CALIBRATION` (the value of a playout that stops at the seat's next turn).

Usage: python benchmarks/calibration.py [--games N] [--edition E] [--players N] [--seed S]
Medium plays against medium; at each of its plays the estimate of its best choice (as the
hard bot's playouts score it: clipped to 0-1, no lookahead) is paired with the round's outcome
for that seat (1 won, a shared win by its share, else 0). Printed per number of players still
in the round: the least-squares line outcome = a + b × estimate, and the mean outcome per
tenth of the estimate.
"""

from __future__ import annotations

import argparse
import statistics
from collections import defaultdict

from selfplay import in_the_round, medium_game

from server.bots.hard import best_choice

TENTHS = range(10)
Row = tuple[int, float, float]  # players in the round, estimate, outcome


def play_game(edition_id: str, players: int, seed: str) -> list[Row]:
    """Every play's (players in the round, estimate, outcome) over one game of medium bots."""
    rows: list[Row] = []
    waiting: list[tuple[int, int, float]] = []  # seat, players in the round, estimate
    for decision in medium_game(edition_id, players, seed):
        view = decision.view
        if view.pending.kind == "play":
            estimate, _ = best_choice(view, decision.bot.beliefs(view, decision.log))
            waiting.append((view.viewer, in_the_round(view), min(max(estimate, 0.0), 1.0)))
        if decision.game.round_over:
            winners = decision.game.round_winners
            for who, alive, estimate in waiting:
                rows.append((alive, estimate, (who in winners) / len(winners)))
            waiting = []
    return rows


def fit(rows: list[Row]) -> tuple[float, float]:
    """The least-squares line outcome = a + b × estimate, as (a, b)."""
    estimates = [estimate for _, estimate, _ in rows]
    outcomes = [outcome for _, _, outcome in rows]
    slope, offset = statistics.linear_regression(estimates, outcomes)
    return offset, slope


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--edition", default="2019")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    by_alive: dict[int, list[Row]] = defaultdict(list)
    for number in range(args.games):
        seed = f"{args.seed}/{args.players}/{number}"
        for row in play_game(args.edition, args.players, seed):
            by_alive[row[0]].append(row)
    print(f"{args.edition}, {args.players} players, medium vs medium, {args.games} games")
    for alive, rows in sorted(by_alive.items()):
        offset, slope = fit(rows)
        tenths: dict[int, list[float]] = defaultdict(list)
        for _, estimate, outcome in rows:
            tenths[min(int(estimate * 10), 9)].append(outcome)
        means = " ".join(f"{statistics.mean(tenths[t]):.2f}" if tenths[t] else "-" for t in TENTHS)
        print(
            f"  {alive} in the round: outcome = {offset:.3f} + {slope:.3f} × estimate "
            f"({len(rows)} plays); by tenth of the estimate: {means}"
        )


if __name__ == "__main__":
    main()
