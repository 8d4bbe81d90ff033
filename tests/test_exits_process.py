"""`lovelet serve`'s exit statuses as a supervisor sees them (server/ops/exits.py): a
database from a newer lovelet is refused with the status systemd is told not to restart
on (deploy/*.service), by one process and by `--workers`, whose supervisor then stops
instead of restarting its core forever. Real processes, a real SQLite file and redis-server.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from redis_helpers import redis_server
from test_ops_process import ServerProcess, fast_env

from server.ops.exits import REFUSED_CONFIG, REFUSED_DATA
from server.store import Store, database_path

NEWER = 10_000
"""A schema version no lovelet has reached yet."""


def newer_database(data_dir: Path) -> None:
    """The data directory holds a database that a newer lovelet wrote."""
    data_dir.mkdir(mode=0o700)
    path = database_path(data_dir)
    Store.open(path).close()
    with sqlite3.connect(path) as conn:
        conn.execute(f"PRAGMA user_version = {NEWER}")


async def test_a_database_from_a_newer_lovelet_exits_with_the_refused_data_status(
    tmp_path: Path,
) -> None:
    newer_database(tmp_path / "data")
    async with ServerProcess.run(fast_env(tmp_path / "data")) as server:
        assert await server.exited(30) == REFUSED_DATA
    assert any("upgrade lovelet" in line for line in server.stderr), server.output


async def test_workers_stop_when_the_core_exits_with_a_status_no_restart_cures(
    tmp_path: Path,
) -> None:
    newer_database(tmp_path / "data")
    async with (
        redis_server() as redis,
        ServerProcess.run(
            fast_env(tmp_path / "data"), ["--workers", "1", "--broker", redis.url]
        ) as server,
    ):
        assert await server.exited(60) == REFUSED_DATA
    assert any("a restart cannot cure it" in line for line in server.stderr), server.output


async def test_a_refused_configuration_exits_with_its_status(tmp_path: Path) -> None:
    async with ServerProcess.run(fast_env(tmp_path, LOVELET_ROLE="core")) as server:
        assert await server.exited(30) == REFUSED_CONFIG
