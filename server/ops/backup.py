"""Copies of the database that are consistent while the server runs (SQLite's online backup
API, which sees every committed write, WAL included), readable by the owner only, and their
way back."""

from __future__ import annotations

import contextlib
import os
import sqlite3
from pathlib import Path

from ..store.private import PRIVATE_FILE, tighten


class BackupError(Exception):
    """A backup that could not be made, or a file that is no sound backup."""


def backup(database: Path, to: Path) -> int:
    """Copy `database` to `to` (mode 0600, replacing it at once when whole); its page count."""
    partial = to.with_name(to.name + ".partial")
    with contextlib.suppress(FileNotFoundError):
        partial.unlink()
    os.close(os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE))
    try:
        pages = _copy(database, partial)
        check(partial)
    except (sqlite3.Error, BackupError) as err:
        partial.unlink(missing_ok=True)
        raise BackupError(f"cannot back {database} up to {to}: {err}") from err
    os.replace(partial, to)
    return pages


def restore(copy: Path, database: Path) -> int:
    """Put the backup `copy` in place of `database` (the server stopped); its page count. The
    database file keeps its owner and mode; SQLite rewrites its WAL with it."""
    check(copy)
    try:
        pages = _copy(copy, database)
    except sqlite3.Error as err:
        raise BackupError(f"cannot restore {copy} into {database}: {err}") from err
    tighten(database, PRIVATE_FILE)
    return pages


def _copy(source: Path, target: Path) -> int:
    """Every page of `source` into `target` through SQLite's backup API; how many."""
    with (
        contextlib.closing(sqlite3.connect(source)) as reading,
        contextlib.closing(sqlite3.connect(target)) as writing,
    ):
        reading.backup(writing)
        return int(writing.execute("PRAGMA page_count").fetchone()[0])


def check(path: Path) -> None:
    """Raise BackupError unless `path` is an SQLite database whose integrity check passes."""
    if not path.is_file():
        raise BackupError(f"no file at {path}")
    try:
        with contextlib.closing(sqlite3.connect(path)) as db:
            verdict = db.execute("PRAGMA integrity_check").fetchone()[0]
    except sqlite3.Error as err:
        raise BackupError(f"{path} is not a lovelet database: {err}") from err
    if verdict != "ok":
        raise BackupError(f"{path} fails its integrity check: {verdict}")
