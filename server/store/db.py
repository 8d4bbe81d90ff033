"""The connection: file, pragmas, transactions, and the versioned schema migrations."""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from .errors import MigrationError, SchemaTooNewError, StoreError
from .private import PRIVATE_FILE, private_dir, tighten
from .schema import MIGRATIONS

BUSY_TIMEOUT_MS = 5000
SIDE_FILES = ("-wal", "-shm", "-journal")

log = logging.getLogger(__name__)


def connect(path: Path, migrations: Sequence[str] = MIGRATIONS) -> sqlite3.Connection:
    """Open (creating it and its directory if needed) and migrate the database at `path`.

    Autocommit: every statement outside `transaction()` is committed when it returns. WAL with
    `synchronous=NORMAL` keeps each commit across a crash of the process (not of the machine).
    The directory is made 0700 and the files 0600, whatever the umask (SQLite gives its WAL
    and shared-memory files the mode of the database file).
    """
    make_private(path)
    try:
        conn = sqlite3.connect(path, isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000)
    except sqlite3.Error as err:
        raise StoreError(f"cannot open the database {path}: {err}") from None
    try:
        _configure(conn)
        migrate(conn, migrations, path)
    except sqlite3.Error as err:
        conn.close()
        raise StoreError(f"cannot use the database {path}: {err}") from err
    except BaseException:
        conn.close()
        raise
    return conn


def make_private(path: Path) -> None:
    """Create `path`'s directory (0700) and the empty file (0600) if missing; tighten both,
    and any side file SQLite left, if group or others may read them."""
    private_dir(path.parent)
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE))
    for file in (path, *(path.with_name(path.name + suffix) for suffix in SIDE_FILES)):
        if file.exists():
            tighten(file, PRIVATE_FILE)


def _configure(conn: sqlite3.Connection) -> None:
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
    if mode.lower() != "wal":
        raise StoreError(f"the database cannot use WAL journaling (got {mode!r})")
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute("PRAGMA foreign_keys = ON")


def schema_version(conn: sqlite3.Connection) -> int:
    """The version recorded in the file (`PRAGMA user_version`; 0 for a new file)."""
    return conn.execute("PRAGMA user_version").fetchone()[0]


def migrate(conn: sqlite3.Connection, migrations: Sequence[str], path: Path | str = "") -> int:
    """Bring the schema up to `len(migrations)`, one transaction per migration; the version."""
    latest = len(migrations)
    found = schema_version(conn)
    if found > latest:
        raise SchemaTooNewError(
            f"the database {path} has schema version {found}, but this lovelet knows only up "
            f"to version {latest}: upgrade lovelet (or restore an older backup)"
        )
    for version in range(found + 1, latest + 1):
        _apply(conn, version, migrations[version - 1])
    return latest


def _apply(conn: sqlite3.Connection, version: int, script: str) -> None:
    """Run one migration unless another process has run it meanwhile."""
    with transaction(conn, immediate=True):
        if schema_version(conn) >= version:
            return
        try:
            for statement in split_statements(script):
                conn.execute(statement)
        except sqlite3.Error as err:
            raise MigrationError(f"migration to schema version {version} failed: {err}") from err
        conn.execute(f"PRAGMA user_version = {version:d}")


def split_statements(script: str) -> Iterator[str]:
    """The complete SQL statements of `script` (semicolons in strings and triggers kept)."""
    pending = ""
    for piece in script.split(";"):
        pending += piece + ";"
        if sqlite3.complete_statement(pending):
            if pending.strip(" \t\r\n;"):
                yield pending.strip()
            pending = ""
    if pending.strip(" \t\r\n;"):
        raise MigrationError(f"incomplete SQL statement: {pending.strip()[:60]!r}")


@contextmanager
def transaction(conn: sqlite3.Connection, immediate: bool = False) -> Iterator[None]:
    """One transaction around the block, committed on success and rolled back on error.

    Inside an open transaction it simply joins it. `immediate` takes the write lock at once.
    """
    if conn.in_transaction:
        yield
        return
    conn.execute("BEGIN IMMEDIATE" if immediate else "BEGIN")
    try:
        yield
    except BaseException:
        if conn.in_transaction:  # SQLite may already have rolled back (e.g. disk full)
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
