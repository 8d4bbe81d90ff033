"""Ratings of keyed players, and the bot ladder: updated as each game finishes, or rebuilt
from the finished games."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass

from ..services.rating import Entrant, Rating, is_rated, rate, rate_ladder
from .db import transaction

HISTORY = 20  # ratings kept a player: the latest rated games'


@dataclass(frozen=True, slots=True)
class RatingRecord:
    """A player's rating, its uncertainty and how many rated games it comes from."""

    mu: float
    sigma: float
    games: int


def entrants(conn: sqlite3.Connection, game_id: int) -> list[Entrant]:
    """Every seat of a game as the rating rule sees it; tokens from its last recorded round."""
    last = conn.execute(
        "SELECT tokens FROM game_rounds WHERE game_id = ? ORDER BY round_no DESC LIMIT 1",
        (game_id,),
    ).fetchone()
    rows = conn.execute(
        "SELECT identity, bot_level, won, api_bot FROM game_seats WHERE game_id = ? ORDER BY seat",
        (game_id,),
    ).fetchall()
    tokens = json.loads(last[0]) if last else [0] * len(rows)
    return [
        Entrant(identity, bot_level, bool(won), tokens[i] if i < len(tokens) else 0, bool(api))
        for i, (identity, bot_level, won, api) in enumerate(rows)
    ]


@dataclass(frozen=True, slots=True)
class RatingChange:
    """What a rated game did to a keyed player's rating: before it (a newcomer's for their
    first) and after it."""

    before: float
    after: Rating


def rate_game(conn: sqlite3.Connection, game_id: int) -> dict[str, RatingChange]:
    """Apply a finished game to its keyed players' ratings, and to the bot ladder; each
    player's change (empty: unrated)."""
    seats = entrants(conn, game_id)
    ladder_game(conn, game_id, seats)
    if not is_rated(seats):
        return {}
    identities = [s.identity for s in seats if s.identity is not None]
    before = ratings_of(conn, identities)
    after = rate(seats, {key: Rating(r.mu, r.sigma) for key, r in before.items()})
    conn.executemany(
        "INSERT INTO ratings (identity, mu, sigma, games, last_game) VALUES (?, ?, ?, 1, ?)"
        " ON CONFLICT (identity) DO UPDATE SET mu = excluded.mu, sigma = excluded.sigma,"
        " games = games + 1, last_game = excluded.last_game",
        [(key, r.mu, r.sigma, game_id) for key, r in after.items()],
    )
    _remember(conn, game_id, after)
    return {
        key: RatingChange(before[key].mu if key in before else Rating().mu, rating)
        for key, rating in after.items()
    }


def _remember(conn: sqlite3.Connection, game_id: int, after: dict[str, Rating]) -> None:
    """Add each player's new rating to their history, which keeps its latest `HISTORY`."""
    conn.executemany(
        "INSERT INTO rating_history (identity, game_id, mu) VALUES (?, ?, ?)",
        [(key, game_id, r.mu) for key, r in after.items()],
    )
    conn.executemany(
        "DELETE FROM rating_history WHERE identity = ? AND id NOT IN (SELECT id"
        " FROM rating_history WHERE identity = ? ORDER BY id DESC LIMIT ?)",
        [(key, key, HISTORY) for key in after],
    )


def history(conn: sqlite3.Connection, identity: str) -> list[float]:
    """A player's rating after each of their latest rated games, oldest first."""
    rows = conn.execute(
        "SELECT mu FROM rating_history WHERE identity = ? ORDER BY id DESC LIMIT ?",
        (identity, HISTORY),
    ).fetchall()
    return [mu for (mu,) in reversed(rows)]


def ladder_game(conn: sqlite3.Connection, game_id: int, seats: list[Entrant]) -> None:
    """Apply a finished game to the bot ladder (if a program played in it)."""
    keys = [s.ladder_key for s in seats if s.ladder_key is not None]
    before = bot_ratings_of(conn, keys)
    after = rate_ladder(seats, {key: Rating(r.mu, r.sigma) for key, r in before.items()})
    won = {s.ladder_key for s in seats if s.won}
    conn.executemany(
        "INSERT INTO bot_ratings (player, mu, sigma, games, wins, last_game)"
        " VALUES (?, ?, ?, 1, ?, ?) ON CONFLICT (player) DO UPDATE SET mu = excluded.mu,"
        " sigma = excluded.sigma, games = games + 1, wins = wins + excluded.wins,"
        " last_game = excluded.last_game",
        [(key, r.mu, r.sigma, int(key in won), game_id) for key, r in after.items()],
    )


def bot_ratings_of(conn: sqlite3.Connection, keys: Iterable[str]) -> dict[str, RatingRecord]:
    """The bot ladder's ratings of those of `keys` who have one."""
    return _ratings_in(conn, "bot_ratings", "player", keys)


def recompute(conn: sqlite3.Connection) -> int:
    """Rebuild every rating from the finished games in the order they ended; games rated."""
    with transaction(conn, immediate=True):
        conn.execute("DELETE FROM ratings")
        conn.execute("DELETE FROM bot_ratings")
        conn.execute("DELETE FROM rating_history")
        finished = conn.execute(
            "SELECT id FROM games WHERE status = 'finished' ORDER BY ended_at, id"
        ).fetchall()
        return sum(bool(rate_game(conn, game_id)) for (game_id,) in finished)


def ratings_of(conn: sqlite3.Connection, identities: Iterable[str]) -> dict[str, RatingRecord]:
    """The ratings of those of `identities` who have one."""
    return _ratings_in(conn, "ratings", "identity", identities)


def _ratings_in(
    conn: sqlite3.Connection, table: str, key: str, wanted: Iterable[str]
) -> dict[str, RatingRecord]:
    """The rows of `table` (a ladder: `ratings` or `bot_ratings`, keyed by its column `key`)
    for those of `wanted` who have one."""
    keys = list(dict.fromkeys(wanted))
    if not keys:
        return {}
    marks = ",".join("?" * len(keys))
    rows = conn.execute(
        f"SELECT {key}, mu, sigma, games FROM {table} WHERE {key} IN ({marks})", keys
    )
    return {found: RatingRecord(mu, sigma, games) for found, mu, sigma, games in rows}
