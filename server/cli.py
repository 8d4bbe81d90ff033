"""The `lovelet` command line."""

from __future__ import annotations

from .commands.checkout import go_on_in_checkout_venv
from .commands.quiet import quiet_library_warnings

go_on_in_checkout_venv()  # before the first third-party import
quiet_library_warnings()  # before the libraries that warn as they are imported

import argparse
import asyncio
import os
import secrets
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import platformdirs

from .bots import LEVELS
from .engine import DEFAULT_EDITION, EDITIONS
from .ops.admin import add_admin_parser
from .ops.config import Config, add_config_flags
from .ops.logs import ProcessTag


def _scenario(args: argparse.Namespace) -> int:
    from .commands.scenarios import scenario_command

    return scenario_command(args.files)


def _simulate(args: argparse.Namespace) -> int:
    from .commands.simulate import simulate

    try:
        EDITIONS[args.edition].check_players(args.players)
    except ValueError as err:
        print(f"lovelet simulate: {err}", file=sys.stderr)
        return 2
    report = simulate(args.edition, args.players, args.games, args.seed, args.bots)
    print("\n".join(report.lines()))
    return 0


def _arena(args: argparse.Namespace) -> int:
    from .commands.arena import ArenaOptions, arena

    command = args.bot[1:] if args.bot[:1] == ["--"] else args.bot
    try:
        EDITIONS[args.edition].check_players(args.players)
    except ValueError as err:
        print(f"lovelet arena: {err}", file=sys.stderr)
        return 2
    if not command or args.games < 1:
        print("lovelet arena: give --games of 1 or more and a COMMAND after --", file=sys.stderr)
        return 2
    options = ArenaOptions(
        tuple(command), args.games, args.against, args.edition, args.players, args.json
    )
    return arena(options)


def _serve(args: argparse.Namespace) -> int:
    import logging

    from .ops.config import ConfigError, flags_from_args, load_config, unknown_environment
    from .ops.exits import FAILED, REFUSED_DATA
    from .ops.logs import say, setup_logging
    from .services.bot_pool import shared_pool
    from .ssh.keys import HostKeyError
    from .store import MigrationError, SchemaTooNewError, StoreError

    try:
        config = load_config(flags_from_args(args), os.environ, args.config)
    except ConfigError as err:
        print(f"lovelet serve: {err}", file=sys.stderr)
        return 2
    tag = process_tag(config)
    setup_logging(config.log_format, config.log_level, tag=tag)
    for name in unknown_environment(os.environ):
        logging.getLogger("server.ops.config").warning("ignoring unknown variable %s", name)
    problem = _role_problem(config)
    if problem is not None:
        say(f"lovelet serve: {problem}", error=True)
        return 2
    try:
        with asyncio.Runner(loop_factory=_event_loop_factory()) as runner:
            return runner.run(_run_role(config, args.argv, tag.id))
    except (HostKeyError, SchemaTooNewError, MigrationError) as err:  # a restart cannot cure
        say(f"lovelet serve: {err}", error=True)
        return REFUSED_DATA
    except (StoreError, ValueError, OSError) as err:
        say(f"lovelet serve: {err}", error=True)
        return FAILED
    finally:
        shared_pool().kill()  # the exit would otherwise wait for each hard-bot worker


def process_tag(config: Config) -> ProcessTag:
    """What this process's log lines call it: `supervisor` for `--workers`, a core or a
    front-end with the id it goes by on the broker, or `all`."""
    if config.role in ("core", "frontend") and config.broker is not None:
        return ProcessTag(config.role, secrets.token_hex(6))
    return ProcessTag("supervisor" if config.workers else config.role)


def _role_problem(config: Config) -> str | None:
    """Why the role and worker settings cannot run as given (None: they can)."""
    if config.broker is None and config.role != "all":
        return f"role {config.role} needs a broker (--broker redis://HOST:PORT/DB)"
    if config.broker is None and config.workers:
        return "workers need a broker (--broker redis://HOST:PORT/DB)"
    return None


async def _run_role(config: Config, argv: Sequence[str], part_id: str | None) -> int:
    """The whole server in this process, one part of it (`part_id`: its id on the broker),
    or a core and N front-ends."""
    from .commands.serve import serve

    if config.role == "core":
        from .commands.cluster import serve_core

        return await serve_core(config, part_id)
    if config.role == "frontend":
        from .commands.cluster import serve_frontend

        return await serve_frontend(config, part_id)
    if config.workers:
        from .commands.cluster import supervise

        return await supervise(config, argv)
    await serve(config)
    return 0


def _event_loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop's event loop where it is installed (everywhere but Windows): it takes less CPU
    per session update than asyncio's own. None: asyncio's own."""
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop


def _config_init(args: argparse.Namespace) -> int:
    from .ops.config import ConfigError, config_init_path, write_default_config

    try:
        path = config_init_path(args.path, {"data_dir": args.data_dir}, os.environ)
        written = write_default_config(path, args.force)
    except (ConfigError, OSError) as err:
        print(f"lovelet config init: {err}", file=sys.stderr)
        return 1
    print(f"wrote {written}")
    return 0


def _play(args: argparse.Namespace) -> int:
    from .commands.local import play
    from .store import StoreError

    try:
        EDITIONS[args.edition].check_players(args.players)
    except ValueError as err:
        print(f"lovelet play: {err}", file=sys.stderr)
        return 2
    where = data_dir(args.data_dir)
    try:
        play(args.edition, args.players, args.bots, args.bot_delay, where, tutorial=args.tutorial)
    except (StoreError, OSError) as err:
        print(f"lovelet play: {err}", file=sys.stderr)
        return 1
    return 0


def _replay(args: argparse.Namespace) -> int:
    from .commands.local_replay import replay_command

    seat = None if args.seat is None else args.seat - 1
    return replay_command(data_dir(args.data_dir), args.game_id, seat)


def _seat_number(text: str) -> int:
    """A seat number from 1 to 8, for argparse."""
    if not text.isdigit() or not 1 <= int(text) <= 8:
        raise argparse.ArgumentTypeError(f"expected a seat number from 1 to 8, got {text!r}")
    return int(text)


def _game_id(text: str) -> int:
    """A game id (a positive whole number, as `lovelet admin games` lists them)."""
    if not text.isdigit() or not 1 <= int(text) < 2**63:
        raise argparse.ArgumentTypeError(f"expected a game id such as 12, got {text!r}")
    return int(text)


def _seconds(text: str) -> float:
    """A number of seconds from 0 to 30, for argparse."""
    try:
        seconds = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not 0 <= seconds <= 30:
        raise argparse.ArgumentTypeError(f"must be between 0 and 30, got {text}")
    return seconds


def data_dir(flag: str | None) -> Path:
    """The data directory: the flag, else $LOVELET_DATA_DIR, else the platform's user data dir."""
    chosen = flag or os.environ.get("LOVELET_DATA_DIR")
    return Path(chosen) if chosen else Path(platformdirs.user_data_dir("lovelet"))


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand."""
    parser = argparse.ArgumentParser(prog="lovelet", description="Love Letter over SSH.")
    commands = parser.add_subparsers(dest="command", required=True)

    scenario = commands.add_parser("scenario", help="run rule-scenario files")
    scenario.add_argument("files", nargs="+", help="TOML scenario files")
    scenario.set_defaults(run=_scenario)

    sim = commands.add_parser("simulate", help="play games of random players or bots")
    sim.add_argument("--edition", choices=sorted(EDITIONS), default=DEFAULT_EDITION)
    sim.add_argument("--players", type=int, default=4)
    sim.add_argument("--games", type=int, default=1000)
    sim.add_argument("--seed", type=int, default=1)
    sim.add_argument(
        "--bots", choices=["random", *LEVELS], default="random", help="who plays every seat"
    )
    sim.set_defaults(run=_simulate)

    arena = commands.add_parser(
        "arena", help="run a bot program (on stdin/stdout) against the server's bots, no SSH"
    )
    arena.add_argument("--games", type=int, default=20)
    arena.add_argument("--against", choices=LEVELS, default="medium")
    arena.add_argument("--edition", choices=sorted(EDITIONS), default=DEFAULT_EDITION)
    arena.add_argument("--players", type=int, default=4)
    arena.add_argument("--json", action="store_true", help="JSON lines instead of msgpack")
    arena.add_argument("bot", nargs=argparse.REMAINDER, metavar="-- COMMAND...")
    arena.set_defaults(run=_arena)

    serve = commands.add_parser("serve", help="run the SSH server")
    add_config_flags(serve)
    serve.set_defaults(run=_serve)

    config = commands.add_parser("config", help="configuration files")
    config_commands = config.add_subparsers(dest="config_command", required=True)
    init = config_commands.add_parser("init", help="write a commented config.toml")
    init.add_argument("path", nargs="?", type=Path, help="default: config.toml in the data dir")
    init.add_argument("--force", action="store_true", help="overwrite an existing file")
    init.add_argument("--data-dir", help="the data directory (for the default path)")
    init.set_defaults(run=_config_init)

    local = commands.add_parser("play", help="play in this terminal against bots")
    local.add_argument("--edition", choices=sorted(EDITIONS), default=DEFAULT_EDITION)
    local.add_argument("--players", type=int, default=4)
    local.add_argument("--bots", choices=LEVELS, default="medium")
    local.add_argument(
        "--bot-delay",
        type=_seconds,
        default=0.6,
        metavar="SECONDS",
        help="how long each bot waits before it plays (default 0.6)",
    )
    local.add_argument(
        "--tutorial",
        action="store_true",
        help="a guided first game against two easy bots (the other options do not apply)",
    )
    local.add_argument(
        "--data-dir", help="the data directory whose database keeps your games (stats, replays)"
    )
    local.set_defaults(run=_play)

    replay = commands.add_parser(
        "replay", help="step through a finished game in this terminal, from the database"
    )
    replay.add_argument("game_id", type=_game_id, help="the game's id (see `lovelet admin games`)")
    view = replay.add_mutually_exclusive_group()
    view.add_argument(
        "--seat", type=_seat_number, metavar="N", help="that seat's view (1 is the first seat)"
    )
    view.add_argument(
        "--public", action="store_true", help="the public (spectator) view, the default"
    )
    replay.add_argument("--data-dir", help="the data directory holding the database")
    replay.set_defaults(run=_replay)

    add_admin_parser(commands, data_dir)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `lovelet` console script."""
    args = build_parser().parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)  # `--workers` runs it again
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
