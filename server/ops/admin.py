"""`lovelet admin`: look after the database from a shell (works while the server runs too).

lovelet admin bans [--all]                     list bans in force (or every ban)
lovelet admin ban fingerprint|address VALUE [--for 3d] [--reason TEXT]
lovelet admin unban ID|VALUE                   lift a ban by id, or every ban on a value
lovelet admin players                          list keyed players
lovelet admin motd [TEXT | --clear]            show or set the message of the day
lovelet admin games [--limit N]                list the latest games, newest first
lovelet admin ratings [--recompute]            list ratings (or rebuild them from the games)
lovelet admin backup PATH                      a consistent copy (mode 0600), server running or not
lovelet admin restore PATH                     put a backup back (stop the server first)
lovelet admin announce TEXT                    tell every connected player, now (server running)
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from pathlib import Path

from protocol.registry import MAX_ADMIN_TEXT, MAX_MOTD

from ..services.sanitize import clean_text
from ..store import MOTD, Ban, SeatRecord, Store, StoreError, database_path
from ..store.times import now as utc_now
from .backup import BackupError, backup, restore
from .control import ControlError, announcement, send_announcement

CELL_MAX = 80
_DURATION = re.compile(r"(\d+)([mhdw])")
_UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}
BOT_WORD = re.compile(r"\bbot\b")  # a seat's name that says it is a bot

# ------------------------------------------------------------------ parsers


def add_admin_parser(
    subparsers: argparse._SubParsersAction, data_dir_of: Callable[[str | None], Path]
) -> argparse.ArgumentParser:
    """Mount `admin` under the `lovelet` parser; `data_dir_of(flag)` resolves --data-dir.

    Sets `run(args) -> int` as the parsed arguments' default, like the other commands.
    """
    admin = subparsers.add_parser(
        "admin",
        help="manage bans, players, games, ratings and the MOTD; announce to players",
        description=__doc__,
    )
    admin.formatter_class = argparse.RawDescriptionHelpFormatter
    admin.add_argument("--data-dir", help="where the database lives")
    again = argparse.ArgumentParser(add_help=False)
    again.add_argument("--data-dir", default=argparse.SUPPRESS, help="where the database lives")
    _add_actions(admin, [again])
    admin.set_defaults(run=lambda args: run_admin(args, data_dir_of(args.data_dir)))
    return admin


def admin_command(args: Sequence[str], data_dir: Path) -> int:
    """Run `lovelet admin ARGS` against the database in `data_dir`; the exit status."""
    parser = argparse.ArgumentParser(
        prog="lovelet admin",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_actions(parser, [])
    return run_admin(parser.parse_args(list(args)), data_dir)


def _add_actions(parser: argparse.ArgumentParser, parents: list[argparse.ArgumentParser]) -> None:
    actions = parser.add_subparsers(dest="admin_command", required=True, metavar="COMMAND")

    bans = actions.add_parser("bans", parents=parents, help="list bans in force")
    bans.add_argument("--all", action="store_true", help="lifted and expired bans too")
    bans.set_defaults(action=_bans, creates=False)

    ban = actions.add_parser("ban", parents=parents, help="ban a key or an address")
    ban.add_argument("kind", choices=["fingerprint", "address"])
    ban.add_argument("value", help="SHA256:... fingerprint, IP address or CIDR network")
    ban.add_argument("--for", dest="duration", type=duration, help="e.g. 30m, 12h, 7d, 2w")
    ban.add_argument("--reason", default="", help="shown to admins")
    ban.set_defaults(action=_ban, creates=True)

    unban = actions.add_parser("unban", parents=parents, help="lift a ban by id or value")
    unban.add_argument("target", metavar="ID|VALUE")
    unban.set_defaults(action=_unban, creates=False)

    players = actions.add_parser("players", parents=parents, help="list keyed players")
    players.set_defaults(action=_players, creates=False)

    motd = actions.add_parser("motd", parents=parents, help="show or set the message of the day")
    motd.add_argument("text", nargs="?", help="the new message")
    motd.add_argument("--clear", action="store_true", help="remove the message")
    motd.set_defaults(action=_motd, creates=True)

    games = actions.add_parser("games", parents=parents, help="list the latest games")
    games.add_argument("--limit", type=int, default=50, help="how many (default 50)")
    games.set_defaults(action=_games, creates=False)

    ratings = actions.add_parser("ratings", parents=parents, help="list or rebuild ratings")
    ratings.add_argument(
        "--recompute", action="store_true", help="rebuild every rating from the finished games"
    )
    ratings.set_defaults(action=_ratings, creates=False)

    copy = actions.add_parser("backup", parents=parents, help="copy the database, consistently")
    copy.add_argument("path", type=Path, help="the copy to write (replaced if it exists)")
    copy.set_defaults(action=_backup, creates=False)

    back = actions.add_parser("restore", parents=parents, help="put a backup back (server stopped)")
    back.add_argument("path", type=Path, help="a file `lovelet admin backup` wrote")
    back.set_defaults(action=_restore, creates=True)

    tell = actions.add_parser(
        "announce", parents=parents, help="tell every connected player, through the server"
    )
    tell.add_argument("text", help=f"at most {MAX_ADMIN_TEXT} characters, on one line")
    tell.set_defaults(action=None, creates=False)


def duration(text: str) -> timedelta:
    """'90m', '12h', '7d', '2w' as a timedelta (argparse type)."""
    match = _DURATION.fullmatch(text.strip().lower())
    if match is None or int(match[1]) == 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a duration like 30m, 12h, 7d or 2w")
    return timedelta(**{_UNITS[match[2]]: int(match[1])})


# ------------------------------------------------------------------ running


def run_admin(args: argparse.Namespace, data_dir: Path) -> int:
    """Open the database and run the chosen action; errors become a message and status 1."""
    if args.admin_command == "announce":
        return _announce(args.text, data_dir)
    path = database_path(data_dir)
    if not args.creates and not path.exists():
        _fail(f"no database at {path} (has `lovelet serve` run with this data directory?)")
        return 1
    try:
        with Store.open(path) as store:
            return args.action(args, store)
    except StoreError as err:
        _fail(str(err))
        return 1


def _fail(message: str) -> None:
    print(f"lovelet admin: {message}", file=sys.stderr)


def _bans(args: argparse.Namespace, store: Store) -> int:
    now = utc_now()
    bans = store.all_bans() if args.all else store.active_bans(now)
    if not bans:
        print("No bans." if args.all else "No bans in force.")
        return 0
    headers = ["ID", "KIND", "VALUE", "UNTIL", "REASON", "BY", "SINCE"]
    rows = [_ban_row(ban) for ban in bans]
    if args.all:
        headers.append("STATE")
        for row, ban in zip(rows, bans, strict=True):
            row.append(_ban_state(ban, now))
    print(table(headers, rows))
    return 0


def _ban_row(ban: Ban) -> list[str]:
    until = "forever" if ban.until is None else when(ban.until)
    return [str(ban.id), ban.kind, ban.value, until, ban.reason, ban.by, when(ban.created_at)]


def _ban_state(ban: Ban, now: datetime) -> str:
    if ban.lifted_at is not None:
        return f"lifted {when(ban.lifted_at)}"
    return "in force" if ban.in_force(now) else "expired"


def _ban(args: argparse.Namespace, store: Store) -> int:
    until = None if args.duration is None else utc_now() + args.duration
    try:
        ban = store.add_ban(args.kind, args.value, until, args.reason, "lovelet admin")
    except ValueError as err:
        _fail(str(err))
        return 2
    print(f"Ban {ban.id}: {ban.kind} {ban.value}, until {_ban_row(ban)[3]}.")
    return 0


def _unban(args: argparse.Namespace, store: Store) -> int:
    target: int | str = int(args.target) if args.target.isdigit() else args.target
    lifted = store.lift_ban(target)
    if not lifted:
        _fail(f"no ban in force matches {args.target!r}")
        return 1
    for ban in lifted:
        print(f"Lifted ban {ban.id}: {ban.kind} {ban.value}.")
    return 0


def _players(args: argparse.Namespace, store: Store) -> int:
    players = store.players()
    if not players:
        print("No keyed players yet.")
        return 0
    rows = [
        [p.nickname, p.fingerprint, when(p.first_seen), when(p.last_seen), str(p.games)]
        for p in players
    ]
    print(table(["NICKNAME", "FINGERPRINT", "FIRST SEEN", "LAST SEEN", "GAMES"], rows))
    return 0


def _games(args: argparse.Namespace, store: Store) -> int:
    games = store.games(max(args.limit, 1))
    if not games:
        print("No games yet.")
        return 0
    rows = [
        [
            str(game.id),
            game.edition,
            ", ".join(_seat_name(seat) for seat in game.seats),
            when(game.started_at),
            "-" if game.ended_at is None else when(game.ended_at),
            game.status,
        ]
        for game in games
    ]
    print(table(["ID", "EDITION", "PLAYERS", "STARTED", "ENDED", "STATUS"], rows))
    return 0


def _seat_name(seat: SeatRecord) -> str:
    """A seat's name, marked "(bot)" or "(guest)" where the name does not say so already
    (the tables name bots "easy bot 3", and a player's seat once a bot took it "ana (bot)")."""
    if seat.bot_level is not None:
        return seat.nickname if BOT_WORD.search(seat.nickname) else f"{seat.nickname} (bot)"
    return seat.nickname if seat.identity is not None else f"{seat.nickname} (guest)"


def _ratings(args: argparse.Namespace, store: Store) -> int:
    if args.recompute:
        rated = store.recompute_ratings()
        print(f"Ratings rebuilt from {rated} rated game{'s' * (rated != 1)}.")
        return 0
    board = store.leaderboard(limit=1_000_000)
    if not board:
        print("Nobody is rated yet.")
        return 0
    rows = [
        [
            row.nickname,
            str(round(row.rating.mu)),
            str(round(row.rating.sigma)),
            str(row.rating.games),
            row.fingerprint,
        ]
        for row in board
    ]
    print(table(["NICKNAME", "RATING", "±", "RATED GAMES", "FINGERPRINT"], rows))
    return 0


def _backup(args: argparse.Namespace, store: Store) -> int:
    try:
        pages = backup(store.path, args.path)
    except (BackupError, OSError) as err:
        _fail(str(err))
        return 1
    print(f"Backed up {store.path} to {args.path} ({pages} pages, integrity ok, mode 0600).")
    return 0


def _restore(args: argparse.Namespace, store: Store) -> int:
    try:
        pages = restore(args.path, store.path)
    except (BackupError, OSError) as err:
        _fail(str(err))
        return 1
    print(f"Restored {store.path} from {args.path} ({pages} pages). Start the server now.")
    return 0


def _announce(text: str, data_dir: Path) -> int:
    """Not the database: the running server's control socket (server/ops/control.py)."""
    cleaned = announcement(text)
    if not cleaned:
        _fail("nothing to announce (the text is empty once control characters are removed)")
        return 2
    if len(clean_text(text, len(text) + 1)) > MAX_ADMIN_TEXT:
        _fail(f"an announcement is at most {MAX_ADMIN_TEXT} characters")
        return 2
    try:
        told = send_announcement(data_dir, cleaned)
    except ControlError as err:
        _fail(str(err))
        return 1
    print(f"Announced to {told} player{'s' * (told != 1)}: {cleaned}")
    return 0


def _motd(args: argparse.Namespace, store: Store) -> int:
    if args.clear:
        store.set_setting(MOTD, None)
        print("Message of the day removed.")
    elif args.text is not None:
        text = motd_text(args.text)
        if len(text) > MAX_MOTD:
            _fail(f"the message of the day is longer than {MAX_MOTD} characters")
            return 2
        store.set_setting(MOTD, text)
        print("Message of the day set.")
    else:
        print(motd_text(store.get_setting(MOTD) or "") or "No message of the day.")
    return 0


def motd_text(text: str) -> str:
    """The message with newlines kept and every other control character removed."""
    return "\n".join(clean_text(line, MAX_MOTD) for line in text.splitlines()).strip("\n")


# ------------------------------------------------------------------ output


def when(instant: datetime) -> str:
    """An instant as admins read it: UTC to the minute."""
    return instant.strftime("%Y-%m-%d %H:%MZ")


def table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A plain left-aligned table; cells are made safe for the terminal first."""
    cells = [
        list(headers),
        *([clean_text(str(cell), CELL_MAX) or "-" for cell in row] for row in rows),
    ]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    return "\n".join(
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in cells
    )
