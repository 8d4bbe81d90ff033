"""Games as they happen: seats, the full event log (public and secret parts apart), rounds."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from .db import transaction
from .times import from_text, to_text


@dataclass(frozen=True, slots=True)
class SeatRecord:
    """Who sat where: a keyed player's fingerprint, or None for a guest or a bot."""

    identity: str | None
    nickname: str
    bot_level: str | None = None
    api_bot: bool = False  # a program on the bot API


@dataclass(frozen=True, slots=True)
class GameRecord:
    """One game's header and seats."""

    id: int
    edition: str
    status: str  # "playing", "finished" or "abandoned"
    started_at: datetime
    ended_at: datetime | None
    winners: list[int] | None
    seats: list[SeatRecord]
    private: bool = False  # played at a private table: its replay is only for its players


@dataclass(frozen=True, slots=True)
class RoundRecord:
    """How a round ended."""

    round_no: int
    winners: list[int]
    tokens: list[int]


@dataclass(frozen=True, slots=True)
class EventRecord:
    """One logged event; `secret` is only for the seats in `audience`."""

    seq: int
    kind: str
    seat: int | None
    public: dict[str, Any]
    secret: dict[str, Any] | None
    audience: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class GameLog:
    """Everything stored about a game: enough to replay it."""

    game: GameRecord
    rounds: list[RoundRecord]
    events: list[EventRecord]


@dataclass(frozen=True, slots=True)
class ActionRecord:
    """One accepted decision: the seat and its choice as `choice_to_dict` writes it."""

    seq: int
    seat: int
    choice: dict[str, Any]


@dataclass(frozen=True, slots=True)
class ActionLog:
    """What rebuilds a game with the engine: edition, seats, the game's seed, every action."""

    edition: str
    players: int
    seed: int | None  # None: a game recorded before seeds were kept
    actions: list[ActionRecord]


def _json(value: object) -> str:
    return json.dumps(value, separators=(",", ":"))


def start_game(
    conn: sqlite3.Connection,
    edition: str,
    seats: Sequence[SeatRecord],
    started_at: datetime,
    seed: int | None = None,
    private: bool = False,
) -> int:
    """A new game in progress; its id. `seed` seeds the game's random generator; a
    `private` game (at a private table) is replayed only by its players."""
    with transaction(conn):
        game_id = conn.execute(
            "INSERT INTO games (edition, started_at, seed, private) VALUES (?, ?, ?, ?)",
            (edition, to_text(started_at), None if seed is None else str(seed), int(private)),
        ).lastrowid
        conn.executemany(
            "INSERT INTO game_seats (game_id, seat, identity, nickname, bot_level, api_bot)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            [
                (game_id, i, s.identity, s.nickname, s.bot_level, int(s.api_bot))
                for i, s in enumerate(seats)
            ],
        )
    return game_id


def replace_seat(conn: sqlite3.Connection, game_id: int, seat: int, record: SeatRecord) -> None:
    """Someone else plays `seat` from now on (a bot for a player gone for good): the result
    is theirs."""
    with transaction(conn):
        conn.execute(
            "UPDATE game_seats SET identity = ?, nickname = ?, bot_level = ?, api_bot = ?"
            " WHERE game_id = ? AND seat = ?",
            (
                record.identity,
                record.nickname,
                record.bot_level,
                int(record.api_bot),
                game_id,
                seat,
            ),
        )


def record_event(
    conn: sqlite3.Connection,
    game_id: int,
    seq: int,
    kind: str,
    seat: int | None,
    public: dict[str, Any],
    secret: dict[str, Any] | None = None,
    audience: Sequence[int] = (),
    at: datetime | None = None,
) -> None:
    """Append one event (that happened `at`); committed on return unless inside a batch."""
    conn.execute(
        "INSERT INTO game_events (game_id, seq, kind, seat, public, secret, audience, at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (
            game_id,
            seq,
            kind,
            seat,
            _json(public),
            None if secret is None else _json(secret),
            None if secret is None else _json(list(audience)),
            None if at is None else to_text(at),
        ),
    )


def record_action(
    conn: sqlite3.Connection, game_id: int, seq: int, seat: int, choice: dict[str, Any]
) -> None:
    """Append action `seq`: `seat` chose `choice`; committed on return unless inside a batch."""
    conn.execute(
        "INSERT INTO game_actions (game_id, seq, seat, choice) VALUES (?, ?, ?, ?)",
        (game_id, seq, seat, _json(choice)),
    )


def action_log(conn: sqlite3.Connection, game_id: int) -> ActionLog:
    """A game's edition, seat count, seed and actions in order; KeyError if no such game."""
    row = conn.execute(
        "SELECT edition, seed, (SELECT count(*) FROM game_seats WHERE game_id = g.id)"
        " FROM games g WHERE id = ?",
        (game_id,),
    ).fetchone()
    if row is None:
        raise KeyError(f"no game {game_id}")
    edition, seed, players = row
    actions = [
        ActionRecord(seq, seat, json.loads(choice))
        for seq, seat, choice in conn.execute(
            "SELECT seq, seat, choice FROM game_actions WHERE game_id = ? ORDER BY seq",
            (game_id,),
        )
    ]
    return ActionLog(edition, players, None if seed is None else int(seed), actions)


def record_round(
    conn: sqlite3.Connection,
    game_id: int,
    round_no: int,
    winners: Sequence[int],
    tokens: Sequence[int],
) -> None:
    """How round `round_no` ended: its winners and everyone's tokens after it."""
    conn.execute(
        "INSERT INTO game_rounds (game_id, round_no, winners, tokens) VALUES (?, ?, ?, ?)",
        (game_id, round_no, _json(list(winners)), _json(list(tokens))),
    )


def finish_game(
    conn: sqlite3.Connection, game_id: int, winners: Sequence[int], ended_at: datetime
) -> None:
    """The game ended with these winning seats; it now counts in the stats."""
    _end(conn, game_id, "finished", winners, ended_at)


def abandon_game(conn: sqlite3.Connection, game_id: int, ended_at: datetime) -> None:
    """The game stopped before anyone won (table closed, server restarted); not in stats."""
    _end(conn, game_id, "abandoned", (), ended_at)


def abandon_unfinished(conn: sqlite3.Connection, keep: Collection[int] = ()) -> list[int]:
    """Mark every game still in progress but those in `keep` abandoned, ended at its last
    recorded event (or its start if it has none): the moment play stopped, not the moment
    this runs. Their ids."""
    rows = conn.execute(
        "SELECT g.id, coalesce((SELECT max(e.at) FROM game_events e WHERE e.game_id = g.id),"
        " g.started_at) FROM games g WHERE g.status = 'playing'"
    ).fetchall()
    rows = [(game_id, last) for game_id, last in rows if game_id not in keep]
    with transaction(conn):
        for game_id, last in rows:
            abandon_game(conn, game_id, datetime.fromisoformat(last))
    return [game_id for game_id, _ in rows]


def _end(
    conn: sqlite3.Connection,
    game_id: int,
    status: str,
    winners: Sequence[int],
    ended_at: datetime,
) -> None:
    with transaction(conn):
        updated = conn.execute(
            "UPDATE games SET status = ?, ended_at = ?, winners = ?"
            " WHERE id = ? AND status = 'playing'",
            (status, to_text(ended_at), _json(list(winners)), game_id),
        ).rowcount
        if not updated:
            raise KeyError(f"no game {game_id} in progress")
        conn.execute("DELETE FROM kept_tables WHERE game_id = ?", (game_id,))  # see tables.py
        conn.executemany(
            "UPDATE game_seats SET won = 1 WHERE game_id = ? AND seat = ?",
            [(game_id, seat) for seat in winners],
        )


def game(conn: sqlite3.Connection, game_id: int) -> GameRecord:
    """One game's header and seats; KeyError if there is no such game."""
    row = conn.execute(
        "SELECT id, edition, status, started_at, ended_at, winners, private FROM games"
        " WHERE id = ?",
        (game_id,),
    ).fetchone()
    if row is None:
        raise KeyError(f"no game {game_id}")
    return _game_record(conn, row)


def unfinished_games(conn: sqlite3.Connection) -> list[GameRecord]:
    """Games still marked in progress (after a crash: the ones that were cut short)."""
    rows = conn.execute(
        "SELECT id, edition, status, started_at, ended_at, winners, private FROM games"
        " WHERE status = 'playing' ORDER BY id"
    ).fetchall()
    return [_game_record(conn, row) for row in rows]


def recent_games(conn: sqlite3.Connection, limit: int = 50) -> list[GameRecord]:
    """The latest games in any state, newest first."""
    rows = conn.execute(
        "SELECT id, edition, status, started_at, ended_at, winners, private FROM games"
        " ORDER BY id DESC LIMIT ?",
        (limit,),
    ).fetchall()
    return [_game_record(conn, row) for row in rows]


def finished_public_games(
    conn: sqlite3.Connection, limit: int = 10, identity: str | None = None
) -> list[GameRecord]:
    """The latest finished games not played at a private table (only those `identity` sat
    in, if given), newest first."""
    played = " AND id IN (SELECT game_id FROM game_seats WHERE identity = ?)" if identity else ""
    rows = conn.execute(
        "SELECT id, edition, status, started_at, ended_at, winners, private FROM games"
        f" WHERE status = 'finished' AND private = 0{played}"
        " ORDER BY ended_at DESC, id DESC LIMIT ?",
        (identity, limit) if identity else (limit,),
    ).fetchall()
    return [_game_record(conn, row) for row in rows]


def _game_record(conn: sqlite3.Connection, row: tuple) -> GameRecord:
    game_id, edition, status, started, ended, winners, private = row
    seats = [
        SeatRecord(identity, nickname, bot_level, bool(api_bot))
        for identity, nickname, bot_level, api_bot in conn.execute(
            "SELECT identity, nickname, bot_level, api_bot FROM game_seats WHERE game_id = ?"
            " ORDER BY seat",
            (game_id,),
        )
    ]
    return GameRecord(
        game_id,
        edition,
        status,
        from_text(started),
        from_text(ended),
        None if winners is None else json.loads(winners),
        seats,
        bool(private),
    )


def game_log(conn: sqlite3.Connection, game_id: int) -> GameLog:
    """Everything about one game, events in order; KeyError if there is no such game."""
    header = game(conn, game_id)
    rounds = [
        RoundRecord(number, json.loads(winners), json.loads(tokens))
        for number, winners, tokens in conn.execute(
            "SELECT round_no, winners, tokens FROM game_rounds WHERE game_id = ? ORDER BY round_no",
            (game_id,),
        )
    ]
    events = [
        EventRecord(
            seq,
            kind,
            seat,
            json.loads(public),
            None if secret is None else json.loads(secret),
            tuple(json.loads(audience)) if audience else (),
        )
        for seq, kind, seat, public, secret, audience in conn.execute(
            "SELECT seq, kind, seat, public, secret, audience FROM game_events"
            " WHERE game_id = ? ORDER BY seq",
            (game_id,),
        )
    ]
    return GameLog(header, rounds, events)
