"""Friends: the keyed players a keyed player marked, by key, so a new name keeps them."""

from __future__ import annotations

import sqlite3
from datetime import datetime

from protocol.registry import MAX_FRIENDS

from .db import transaction
from .errors import StoreError
from .times import to_text


class TooManyFriends(StoreError):
    """The player already has `MAX_FRIENDS` friends."""


def add_friend(conn: sqlite3.Connection, player: str, friend: str, now: datetime) -> None:
    """Mark `friend` as `player`'s friend (again: nothing changes); TooManyFriends past the
    limit."""
    with transaction(conn, immediate=True):
        (count,) = conn.execute(
            "SELECT count(*) FROM friends WHERE player = ?", (player,)
        ).fetchone()
        known = conn.execute(
            "SELECT 1 FROM friends WHERE player = ? AND friend = ?", (player, friend)
        ).fetchone()
        if known is None and count >= MAX_FRIENDS:
            raise TooManyFriends(f"{MAX_FRIENDS} friends at most")
        conn.execute(
            "INSERT OR IGNORE INTO friends (player, friend, added_at) VALUES (?, ?, ?)",
            (player, friend, to_text(now)),
        )


def remove_friend(conn: sqlite3.Connection, player: str, friend: str) -> None:
    """`friend` is no longer `player`'s friend."""
    conn.execute("DELETE FROM friends WHERE player = ? AND friend = ?", (player, friend))


def friends_of(conn: sqlite3.Connection, player: str) -> dict[str, str]:
    """`player`'s friends: each one's key and current nickname, by nickname."""
    rows = conn.execute(
        "SELECT p.fingerprint, p.nickname FROM friends f JOIN players p ON p.fingerprint = f.friend"
        " WHERE f.player = ? ORDER BY p.nickname COLLATE NOCASE",
        (player,),
    )
    return dict(rows.fetchall())
