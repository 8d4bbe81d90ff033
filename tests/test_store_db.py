"""The database file: pragmas, versioned migrations, transactions."""

from __future__ import annotations

import json
import os
import sqlite3
import stat
from datetime import UTC, datetime
from pathlib import Path

import pytest

from server.store import MigrationError, SchemaTooNewError, SeatRecord, Store, StoreError
from server.store.db import connect, split_statements
from server.store.schema import MIGRATIONS, SCHEMA_VERSION, V1_GAMES

T0 = datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC)


def test_open_creates_the_directory_and_sets_the_pragmas(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "er" / "lovelet.sqlite3"
    conn = connect(path)
    try:
        assert path.is_file()
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL
        assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
        assert conn.execute("PRAGMA busy_timeout").fetchone()[0] == 5000
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    finally:
        conn.close()


def test_reopening_a_current_database_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    with Store.open(path) as store:
        store.set_setting("motd", "hello")
    with Store.open(path) as store:
        assert store.schema_version == SCHEMA_VERSION
        assert store.get_setting("motd") == "hello"


def _make_v1_database(path: Path) -> None:
    """A database as the first released lovelet left it, written without the store's code."""
    conn = sqlite3.connect(path)
    conn.executescript(V1_GAMES)
    stamp = T0.isoformat(timespec="microseconds")
    conn.execute("INSERT INTO players VALUES ('SHA256:ann', 'ann', ?, ?)", (stamp, stamp))
    conn.execute("INSERT INTO nicknames VALUES ('ann', 'ann', 'SHA256:ann', ?)", (stamp,))
    conn.execute(
        "INSERT INTO games (id, edition, status, started_at, ended_at, winners)"
        " VALUES (7, '2019', 'finished', ?, ?, '[0]')",
        (stamp, stamp),
    )
    conn.execute("INSERT INTO game_seats VALUES (7, 0, 'SHA256:ann', 'ann', NULL, 1)")
    conn.execute("INSERT INTO game_seats VALUES (7, 1, NULL, 'easy bot 2', 'easy', 0)")
    conn.execute("INSERT INTO game_rounds VALUES (7, 1, '[0]', '[1, 0]')")
    conn.execute(
        "INSERT INTO game_events VALUES (7, 0, 'draw', 0, '{}', ?, '[0]')",
        (json.dumps({"card": "guard"}),),
    )
    conn.execute("PRAGMA user_version = 1")
    conn.commit()
    conn.close()


def test_a_v1_database_upgrades_with_its_data_intact(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    _make_v1_database(path)
    with Store.open(path) as store:
        assert store.schema_version == SCHEMA_VERSION
        log = store.game_log(7)
        assert log.game.status == "finished"
        assert log.game.winners == [0]
        assert log.game.seats == [
            SeatRecord("SHA256:ann", "ann", None),
            SeatRecord(None, "easy bot 2", "easy"),
        ]
        assert [(r.round_no, r.winners, r.tokens) for r in log.rounds] == [(1, [0], [1, 0])]
        event = log.events[0]
        assert (event.kind, event.public, event.secret, event.audience) == (
            "draw",
            {},
            {"card": "guard"},
            (0,),
        )
        assert store.player_stats("SHA256:ann")["2019"].wins == 1
        assert store.claim_nickname("SHA256:bob", "ANN", set(), now=T0).name == "ANN-2"
        store.add_ban("address", "10.0.0.0/8", None)  # version 2's tables work
        store.set_setting("motd", "upgraded")
        assert len(store.active_bans(T0)) == 1


def test_a_database_from_a_newer_lovelet_is_refused_clearly(tmp_path: Path) -> None:
    path = tmp_path / "new.sqlite3"
    Store.open(path).close()
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 3}")
    conn.close()
    with pytest.raises(SchemaTooNewError, match=rf"version {SCHEMA_VERSION + 3}.*upgrade lovelet"):
        Store.open(path)


def test_a_file_that_is_not_a_database_is_refused_clearly(tmp_path: Path) -> None:
    path = tmp_path / "lovelet.db"
    path.write_bytes(b"this is not SQLite" * 100)
    with pytest.raises(StoreError, match=f"cannot use the database {path}"):
        Store.open(path)


def test_a_failing_migration_rolls_back_to_the_last_good_version(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    broken = (*MIGRATIONS, "CREATE TABLE half_done (a); CREATE TABLE oops (;")
    with pytest.raises(MigrationError, match=f"version {len(broken)}"):
        connect(path, broken)
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
    tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_schema")}
    assert "half_done" not in tables
    conn.close()


def test_migrations_run_in_order_and_only_once(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    steps = ("CREATE TABLE t (n INTEGER);", "INSERT INTO t VALUES (2);")
    connect(path, steps[:1]).close()
    connect(path, steps).close()
    conn = connect(path, steps)
    assert conn.execute("SELECT n FROM t").fetchall() == [(2,)]
    conn.close()


def test_statements_split_keeping_triggers_and_strings_whole() -> None:
    script = """
    CREATE TABLE a (x TEXT);
    CREATE TRIGGER t AFTER INSERT ON a BEGIN UPDATE a SET x = 'p;q'; END;
    INSERT INTO a VALUES (';')
    """
    statements = list(split_statements(script))
    assert len(statements) == 3
    assert statements[1].endswith("END;")


def test_a_batch_is_all_or_nothing(tmp_path: Path) -> None:
    with Store.open(tmp_path / "db.sqlite3") as store:
        game_id = store.start_game("2019", [SeatRecord(None, "g", None)], T0)
        with pytest.raises(sqlite3.IntegrityError), store.batch():
            store.record_event(game_id, 0, "a", None, {})
            store.record_event(game_id, 0, "duplicate", None, {})
        with store.batch():
            store.record_event(game_id, 0, "a", None, {})
            with store.batch():  # nested: joins the outer one
                store.record_event(game_id, 1, "b", None, {})
        assert [e.kind for e in store.game_log(game_id).events] == ["a", "b"]


def test_the_database_is_private_whatever_the_umask(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    old_mask = os.umask(0o022)
    try:
        data_dir.mkdir(mode=0o755)  # made by an operator beforehand
        with Store.open(data_dir / "lovelet.db") as store:
            store.set_setting("motd", "hello")  # the WAL and shared-memory files exist now
            modes = {f.name: stat.S_IMODE(f.stat().st_mode) for f in data_dir.iterdir()}
    finally:
        os.umask(old_mask)
    assert modes == {"lovelet.db": 0o600, "lovelet.db-shm": 0o600, "lovelet.db-wal": 0o600}
    assert stat.S_IMODE(data_dir.stat().st_mode) == 0o700


def test_a_database_left_readable_by_an_older_version_is_made_private(tmp_path: Path) -> None:
    path = tmp_path / "lovelet.db"
    Store.open(path).close()
    path.chmod(0o644)
    Store.open(path).close()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
