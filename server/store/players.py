"""Keyed players and the nicknames their keys reserve. Guests are never stored."""

from __future__ import annotations

import sqlite3
import unicodedata
from dataclasses import dataclass
from datetime import datetime, timedelta

from ..services.lookalikes import KEY_VERSION, name_key
from ..services.sanitize import with_suffix
from .db import transaction
from .settings import get_setting, set_setting
from .times import from_text, to_text

RESERVED_NAMES = frozenset(
    {
        "admin",
        "administrator",
        "root",
        "server",
        "lovelet",
        "system",
        "moderator",
        "mod",
        "operator",
        "sysop",
        "staff",
        "support",
        "owner",
        "official",
        "superuser",
    }
)
"""Names that could pass for the server or its staff: nobody gets them, nor variants of them
that differ only in case, punctuation, a number at an end or look-alike letters (`Admin`,
`ad.min`, `root-2`, `r00t`)."""
_AFFIXES = "0123456789-_."
"""What `is_reserved` strips from the ends of a name."""
RESERVED_STAND_IN = "player"
"""The name given (with a number) to someone who asked for a reserved one."""


@dataclass(frozen=True, slots=True)
class NameRules:
    """How many nicknames one key keeps reserved, and for how long unused."""

    per_key: int = 5
    """A key claiming one more releases its least recently used reservation."""
    expire_after: timedelta = timedelta(days=180)
    """A reservation not used for this long is released."""


DEFAULT_NAME_RULES = NameRules()


def _letters(name: str) -> str:
    """The letters of `name`'s key (`name_key`), without accents."""
    return "".join(c for c in unicodedata.normalize("NFKD", name_key(name)) if c.isalpha())


_RESERVED_LETTERS = frozenset(map(_letters, RESERVED_NAMES))


def is_reserved(name: str) -> bool:
    """Whether `name` (a cleaned nickname) could pass for the server or its staff: the letters
    of its key (`name_key`, which folds case, width and look-alikes), without accents or what
    it has at its ends of _AFFIXES, are those of one of RESERVED_NAMES (`Ädmin`, `ａｄｍｉｎ`,
    `ѕуѕор` in Cyrillic)."""
    return _letters(name.strip(_AFFIXES)) in _RESERVED_LETTERS


@dataclass(frozen=True, slots=True)
class Claim:
    """The name a player gets, and why it is not the one asked for (None if it is)."""

    name: str
    notice: str | None = None


@dataclass(frozen=True, slots=True)
class Player:
    """A keyed player as the admin sees them."""

    fingerprint: str
    nickname: str
    first_seen: datetime
    last_seen: datetime
    games: int


NAME_KEYS = "name_keys"
"""The setting naming the `KEY_VERSION` the nicknames table is keyed with."""


def rekey(conn: sqlite3.Connection) -> None:
    """Key the reserved nicknames by this lovelet's `name_key`, unless they already are (an
    older lovelet keyed them by case alone). Of names that now look alike, the one claimed
    first stays reserved."""
    if get_setting(conn, NAME_KEYS) == KEY_VERSION:
        return
    with transaction(conn, immediate=True):
        rows = conn.execute(
            "SELECT name, fingerprint, claimed_at, used_at FROM nicknames ORDER BY claimed_at DESC"
        ).fetchall()
        kept = {name_key(row[0]): row for row in rows}  # the earliest claim of a key comes last
        conn.execute("DELETE FROM nicknames")
        conn.executemany(
            "INSERT INTO nicknames (name_key, name, fingerprint, claimed_at, used_at)"
            " VALUES (?, ?, ?, ?, ?)",
            [(key, *row) for key, row in kept.items()],
        )
        set_setting(conn, NAME_KEYS, KEY_VERSION)


def _reservation(conn: sqlite3.Connection, name: str) -> tuple[str, str] | None:
    """The reserved name that looks like `name` (`name_key`), and the key it is reserved to."""
    return conn.execute(
        "SELECT name, fingerprint FROM nicknames WHERE name_key = ?", (name_key(name),)
    ).fetchone()


def owner_of(conn: sqlite3.Connection, name: str) -> str | None:
    """The fingerprint `name`, or a name that looks like it, is reserved to, if any."""
    reservation = _reservation(conn, name)
    return reservation[1] if reservation else None


def claim_nickname(
    conn: sqlite3.Connection,
    fingerprint: str | None,
    wanted: str,
    online: set[str],
    now: datetime,
    rules: NameRules = DEFAULT_NAME_RULES,
) -> Claim:
    """The name `fingerprint` (None: a guest) plays under, reserving it to a keyed player.

    `wanted` is theirs if it is not reserved (`is_reserved`), nobody online holds it and no
    other key reserved it, nor a name that looks like it (`name_key`); otherwise they get the
    first free `wanted-2`, `wanted-3`... (for a reserved name `player-2`...) and a one-line
    notice saying why. Reservations unused for `rules.expire_after` lapse first; the key keeps
    its `rules.per_key` most recently used.
    """
    taken = {name_key(name): name for name in online}
    with transaction(conn, immediate=True):
        lapsed = to_text(now - rules.expire_after)
        conn.execute("DELETE FROM nicknames WHERE used_at < ?", (lapsed,))
        name, notice = wanted, None
        problem = _problem(conn, fingerprint, wanted, taken)
        if problem is not None:
            base = RESERVED_STAND_IN if is_reserved(wanted) else wanted
            name = _free_variant(conn, fingerprint, base, taken)
            notice = f"{problem}, so you are {name} here."
        if fingerprint is not None:
            _remember(conn, fingerprint, name, now, rules.per_key)
    return Claim(name, notice)


def _problem(
    conn: sqlite3.Connection, fingerprint: str | None, wanted: str, taken: dict[str, str]
) -> str | None:
    """Why `wanted` cannot be had, in words for the player; None if it can. `taken` holds
    the names online by key."""
    if is_reserved(wanted):
        return f"The name {wanted} is reserved for the server and its staff"
    reservation = _reservation(conn, wanted)
    if reservation is not None and reservation[1] != fingerprint:
        subject = _subject(wanted, reservation[0])
        if fingerprint is None:
            return f"{subject} belongs to a player with an SSH key and you are a guest"
        return f"{subject} is reserved by another player's SSH key"
    held = taken.get(name_key(wanted))
    if held is None:
        return None
    if wanted.casefold() == held.casefold():
        return f"Someone called {wanted} is playing right now"
    return f"The name {wanted} looks like {held}, and someone called {held} is playing right now"


def _subject(wanted: str, held: str) -> str:
    """`The name <wanted>`, saying it looks like `held` unless only their case differs."""
    if wanted.casefold() == held.casefold():
        return f"The name {wanted}"
    return f"The name {wanted} looks like {held}, which"


def _free_variant(
    conn: sqlite3.Connection, fingerprint: str | None, wanted: str, taken: dict[str, str]
) -> str:
    number = 2
    while True:
        candidate = with_suffix(wanted, number)
        owner = owner_of(conn, candidate)
        if name_key(candidate) not in taken and owner in (None, fingerprint):
            return candidate
        number += 1


def _remember(
    conn: sqlite3.Connection, fingerprint: str, name: str, now: datetime, per_key: int
) -> None:
    """Record the player's visit and reserve `name` to their key, which keeps its `per_key`
    most recently used names."""
    stamp = to_text(now)
    record_visit(conn, fingerprint, name, now)
    conn.execute(
        "INSERT INTO nicknames (name_key, name, fingerprint, claimed_at, used_at)"
        " VALUES (?, ?, ?, ?, ?)"
        " ON CONFLICT (name_key) DO UPDATE SET name = excluded.name, used_at = excluded.used_at"
        " WHERE nicknames.fingerprint = excluded.fingerprint",
        (name_key(name), name, fingerprint, stamp, stamp),
    )
    conn.execute(
        "DELETE FROM nicknames WHERE fingerprint = ? AND name_key NOT IN"
        " (SELECT name_key FROM nicknames WHERE fingerprint = ?"
        "  ORDER BY used_at DESC, claimed_at DESC LIMIT ?)",
        (fingerprint, fingerprint, per_key),
    )


def record_visit(conn: sqlite3.Connection, fingerprint: str, name: str, now: datetime) -> None:
    """Record that the player of `fingerprint` came as `name` (reserving no name)."""
    stamp = to_text(now)
    conn.execute(
        "INSERT INTO players (fingerprint, nickname, first_seen, last_seen) VALUES (?, ?, ?, ?)"
        " ON CONFLICT (fingerprint) DO UPDATE"
        " SET nickname = excluded.nickname, last_seen = excluded.last_seen",
        (fingerprint, name, stamp, stamp),
    )


def players(conn: sqlite3.Connection) -> list[Player]:
    """Every keyed player, most recently seen first, with their finished games."""
    rows = conn.execute(
        "SELECT p.fingerprint, p.nickname, p.first_seen, p.last_seen,"
        " (SELECT count(*) FROM game_seats s JOIN games g ON g.id = s.game_id"
        "  WHERE s.identity = p.fingerprint AND g.status = 'finished')"
        " FROM players p ORDER BY p.last_seen DESC, p.nickname"
    )
    return [
        Player(fp, nick, from_text(first), from_text(last), games)
        for fp, nick, first, last, games in rows
    ]
