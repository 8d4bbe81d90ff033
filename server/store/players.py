"""Keyed players and the nicknames their keys reserve. Guests are never stored."""

from __future__ import annotations

import sqlite3
import unicodedata
from dataclasses import dataclass
from datetime import datetime, timedelta

from ..services.sanitize import with_suffix
from .db import transaction
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
that differ only in case, punctuation or a trailing number (`Admin`, `ad.min`, `root-2`)."""
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


def is_reserved(name: str) -> bool:
    """Whether `name` (a cleaned nickname) could pass for the server or its staff: its
    letters, accents and compatibility forms folded (`Ädmin`, `ａｄｍｉｎ`), are one of
    RESERVED_NAMES."""
    letters = "".join(c for c in unicodedata.normalize("NFKD", name) if c.isalpha())
    return letters.casefold() in RESERVED_NAMES


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


def name_key(name: str) -> str:
    """Names compare case-insensitively."""
    return name.casefold()


def owner_of(conn: sqlite3.Connection, name: str) -> str | None:
    """The fingerprint `name` is reserved to, if any."""
    row = conn.execute(
        "SELECT fingerprint FROM nicknames WHERE name_key = ?", (name_key(name),)
    ).fetchone()
    return row[0] if row else None


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
    other key reserved it; otherwise they get the first free `wanted-2`, `wanted-3`... (for a
    reserved name `player-2`...) and a one-line notice saying why. Reservations unused for
    `rules.expire_after` lapse first; the key keeps its `rules.per_key` most recently used.
    """
    taken = {name_key(name) for name in online}
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
    conn: sqlite3.Connection, fingerprint: str | None, wanted: str, taken: set[str]
) -> str | None:
    """Why `wanted` cannot be had, in words for the player; None if it can."""
    if is_reserved(wanted):
        return f"The name {wanted} is reserved for the server and its staff"
    owner = owner_of(conn, wanted)
    if owner is not None and owner != fingerprint:
        if fingerprint is None:
            return f"The name {wanted} belongs to a player with an SSH key and you are a guest"
        return f"The name {wanted} is reserved by another player's SSH key"
    if name_key(wanted) in taken:
        return f"Someone called {wanted} is playing right now"
    return None


def _free_variant(
    conn: sqlite3.Connection, fingerprint: str | None, wanted: str, taken: set[str]
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
    conn.execute(
        "INSERT INTO players (fingerprint, nickname, first_seen, last_seen) VALUES (?, ?, ?, ?)"
        " ON CONFLICT (fingerprint) DO UPDATE"
        " SET nickname = excluded.nickname, last_seen = excluded.last_seen",
        (fingerprint, name, stamp, stamp),
    )
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
