"""Server settings an operator changes at run time, such as the message of the day."""

from __future__ import annotations

import sqlite3

MOTD = "motd"


def get_setting(conn: sqlite3.Connection, key: str, default: str | None = None) -> str | None:
    """The stored value of `key`, or `default`."""
    row = conn.execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()
    return row[0] if row else default


def set_setting(conn: sqlite3.Connection, key: str, value: str | None) -> None:
    """Store `value` under `key`; None removes it."""
    if value is None:
        conn.execute("DELETE FROM settings WHERE key = ?", (key,))
        return
    conn.execute(
        "INSERT INTO settings (key, value) VALUES (?, ?)"
        " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        (key, value),
    )
