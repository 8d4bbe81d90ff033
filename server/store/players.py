"""Keyed players and the nicknames their keys reserve. Guests are never stored."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import datetime

from ..sanitize import with_suffix
from .db import transaction
from .times import from_text, to_text


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
) -> Claim:
    """The name `fingerprint` (None: a guest) plays under, reserving it to a keyed player.

    `wanted` is theirs if nobody online holds it and no other key reserved it; otherwise they
    get the first free `wanted-2`, `wanted-3`... and a one-line notice saying why.
    """
    taken = {name_key(name) for name in online}
    with transaction(conn, immediate=True):
        name, notice = wanted, None
        problem = _problem(conn, fingerprint, wanted, taken)
        if problem is not None:
            name = _free_variant(conn, fingerprint, wanted, taken)
            notice = f"{problem}, so you are {name} here."
        if fingerprint is not None:
            _remember(conn, fingerprint, name, now)
    return Claim(name, notice)


def _problem(
    conn: sqlite3.Connection, fingerprint: str | None, wanted: str, taken: set[str]
) -> str | None:
    """Why `wanted` cannot be had, in words for the player; None if it can."""
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


def _remember(conn: sqlite3.Connection, fingerprint: str, name: str, now: datetime) -> None:
    """Record the player's visit and reserve `name` to their key."""
    stamp = to_text(now)
    conn.execute(
        "INSERT INTO players (fingerprint, nickname, first_seen, last_seen) VALUES (?, ?, ?, ?)"
        " ON CONFLICT (fingerprint) DO UPDATE"
        " SET nickname = excluded.nickname, last_seen = excluded.last_seen",
        (fingerprint, name, stamp, stamp),
    )
    conn.execute(
        "INSERT INTO nicknames (name_key, name, fingerprint, claimed_at) VALUES (?, ?, ?, ?)"
        " ON CONFLICT (name_key) DO UPDATE SET name = excluded.name"
        " WHERE nicknames.fingerprint = excluded.fingerprint",
        (name_key(name), name, fingerprint, stamp),
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
