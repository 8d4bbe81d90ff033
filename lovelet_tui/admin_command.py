"""The admin command line's grammar: one typed line to one `Admin` message.

The server decides what each command does; this only checks the shape so a typo is caught
before anything is sent.
"""

from __future__ import annotations

import re

from protocol import Admin
from protocol.registry import MAX_ADMIN_TARGET, MAX_ADMIN_TEXT, MAX_BAN_SECONDS

USAGE = (
    "kick NAME",
    "ban NAME|KEY|ADDRESS [30m|12h|7d|2w] [REASON]",
    "unban ID|VALUE",
    "announce TEXT",
    "motd [TEXT]  (no text clears it)",
)
UNIT_SECONDS = {"m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
_DURATION = re.compile(r"(\d{1,9})([mhdw])")


class AdminSyntaxError(ValueError):
    """The line is not a command; the message says what is expected."""


def parse_admin(line: str) -> Admin:
    """The `Admin` message for a typed line such as `ban bob 1d spam`."""
    word, _, rest = line.strip().partition(" ")
    command, rest = word.lower(), rest.strip()
    if command in ("kick", "unban"):
        return Admin(command, _single(rest, _usage(command)))
    if command == "ban":
        return _ban(rest)
    if command == "announce":
        if not rest:
            raise AdminSyntaxError(f"usage: {_usage(command)}")
        return Admin(command, text=_text(rest))
    if command == "motd":
        return Admin(command, text=_text(rest) if rest else None)
    known = "kick, ban, unban, announce or motd"
    if not word:
        raise AdminSyntaxError(f"type a command: {known}")
    raise AdminSyntaxError(f"unknown command {word[:20]!r}: {known}")


def _ban(rest: str) -> Admin:
    target, _, more = rest.partition(" ")
    first, _, after = more.strip().partition(" ")
    duration = _seconds(first)
    reason = (after if duration is not None else more).strip()
    return Admin("ban", _single(target, _usage("ban")), duration, _text(reason) or None)


def _seconds(word: str) -> int | None:
    """`30m`, `12h`, `7d` or `2w` in seconds; None if `word` is not a duration."""
    match = _DURATION.fullmatch(word.lower())
    if match is None:
        return None
    seconds = int(match[1]) * UNIT_SECONDS[match[2]]
    if not 0 < seconds <= MAX_BAN_SECONDS:
        raise AdminSyntaxError("a ban lasts from 1 minute to 10 years (leave it out: forever)")
    return seconds


def _single(value: str, usage: str) -> str:
    if not value or " " in value:
        raise AdminSyntaxError(f"usage: {usage}")
    if len(value) > MAX_ADMIN_TARGET:
        raise AdminSyntaxError(f"a target has at most {MAX_ADMIN_TARGET} characters")
    return value


def _text(value: str) -> str:
    if len(value) > MAX_ADMIN_TEXT:
        raise AdminSyntaxError(f"a text has at most {MAX_ADMIN_TEXT} characters")
    return value


def _usage(command: str) -> str:
    return next(line for line in USAGE if line.startswith(command))
