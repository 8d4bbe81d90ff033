"""The `lovelet` command line."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from .engine import EDITIONS


def _scenario(args: argparse.Namespace) -> int:
    from .scenarios import scenario_command

    return scenario_command(args.files)


def _simulate(args: argparse.Namespace) -> int:
    from .simulate import simulate

    try:
        EDITIONS[args.edition].check_players(args.players)
    except ValueError as err:
        print(f"lovelet simulate: {err}", file=sys.stderr)
        return 2
    report = simulate(args.edition, args.players, args.games, args.seed)
    print("\n".join(report.lines()))
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand."""
    parser = argparse.ArgumentParser(prog="lovelet", description="Love Letter over SSH.")
    commands = parser.add_subparsers(dest="command", required=True)

    scenario = commands.add_parser("scenario", help="run rule-scenario files")
    scenario.add_argument("files", nargs="+", help="TOML scenario files")
    scenario.set_defaults(run=_scenario)

    sim = commands.add_parser("simulate", help="play random games and report speed")
    sim.add_argument("--edition", choices=sorted(EDITIONS), default="2019")
    sim.add_argument("--players", type=int, default=4)
    sim.add_argument("--games", type=int, default=1000)
    sim.add_argument("--seed", type=int, default=1)
    sim.set_defaults(run=_simulate)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `lovelet` console script."""
    args = build_parser().parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
