"""Tables kept across a restart: what a table is around its game in progress (code, name,
settings, host) and its guests' rejoin codes, kept until the game ends.

The game itself (seed, seats, every action and log entry) is in the games tables; together
they are all a restarted server needs to rebuild the table (`server.lobby.resume`).
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from .games import ActionLog, EventRecord, SeatRecord, action_log, game_log


@dataclass(frozen=True, slots=True)
class TableRecord:
    """A table beyond its game: its code, name, settings (JSON values) and the host's seat."""

    code: str
    name: str
    settings: dict[str, Any]
    host_seat: int | None = None


@dataclass(frozen=True, slots=True)
class GuestRecord:
    """A guest's seat: the one-time code that takes it back, and the address they came from."""

    rejoin: str
    address: str | None = None


@dataclass(frozen=True, slots=True)
class KeptTable:
    """A table whose game was in progress when the server stopped: what rebuilds it."""

    game_id: int
    table: TableRecord
    seats: list[SeatRecord]
    guests: dict[int, GuestRecord]
    actions: ActionLog
    events: list[EventRecord]
    started_at: datetime


def keep_table(conn: sqlite3.Connection, game_id: int, table: TableRecord) -> None:
    """Keep the table around game `game_id` (call inside the transaction that starts it)."""
    conn.execute(
        "INSERT INTO kept_tables (game_id, code, name, settings, host_seat) VALUES (?, ?, ?, ?, ?)",
        (game_id, table.code, table.name, json.dumps(table.settings), table.host_seat),
    )


def keep_guest(conn: sqlite3.Connection, game_id: int, seat: int, guest: GuestRecord) -> None:
    """The guest at `seat` takes it back with `guest.rejoin` from now on (the last code wins);
    nothing is kept for a game whose table is not kept."""
    conn.execute(
        "INSERT OR REPLACE INTO kept_guests (game_id, seat, rejoin, address)"
        " SELECT game_id, ?, ?, ? FROM kept_tables WHERE game_id = ?",
        (seat, guest.rejoin, guest.address, game_id),
    )


def forget_table(conn: sqlite3.Connection, game_id: int) -> None:
    """The game ended: its table (and guests' codes) need not be kept any more."""
    conn.execute("DELETE FROM kept_tables WHERE game_id = ?", (game_id,))


def kept_tables(conn: sqlite3.Connection) -> list[KeptTable]:
    """Every kept table whose game is still in progress, oldest game first."""
    rows = conn.execute(
        "SELECT k.game_id, k.code, k.name, k.settings, k.host_seat FROM kept_tables k"
        " JOIN games g ON g.id = k.game_id WHERE g.status = 'playing' ORDER BY k.game_id"
    ).fetchall()
    return [_kept(conn, *row) for row in rows]


def _kept(
    conn: sqlite3.Connection,
    game_id: int,
    code: str,
    name: str,
    settings: str,
    host_seat: int | None,
) -> KeptTable:
    log = game_log(conn, game_id)
    guests = {
        seat: GuestRecord(rejoin, address)
        for seat, rejoin, address in conn.execute(
            "SELECT seat, rejoin, address FROM kept_guests WHERE game_id = ?", (game_id,)
        )
    }
    return KeptTable(
        game_id,
        TableRecord(code, name, json.loads(settings), host_seat),
        log.game.seats,
        guests,
        action_log(conn, game_id),
        log.events,
        log.game.started_at,
    )
