"""What keyed players have achieved: finished games only; guests and bots never rank."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import datetime

from ..services.rating import BOT_PREFIX
from .ratings import RatingRecord
from .times import from_text


@dataclass(frozen=True, slots=True)
class EditionStats:
    """A player's record in one edition."""

    games: int
    wins: int


@dataclass(frozen=True, slots=True)
class RecentGame:
    """One finished game from a player's point of view."""

    game_id: int
    edition: str
    ended_at: datetime
    seat: int
    won: bool
    players: list[str]  # every seat's nickname, in seat order


@dataclass(frozen=True, slots=True)
class LeaderRow:
    """One line of the leaderboard: a rated player, their rating, finished games and wins."""

    fingerprint: str
    nickname: str
    games: int
    wins: int
    rating: RatingRecord

    @property
    def win_rate(self) -> float:
        """Wins per finished game."""
        return self.wins / self.games if self.games else 0.0


def player_stats(conn: sqlite3.Connection, fingerprint: str) -> dict[str, EditionStats]:
    """Games and wins per edition id (editions never played are absent)."""
    rows = conn.execute(
        "SELECT g.edition, count(*), sum(s.won) FROM game_seats s JOIN games g ON g.id = s.game_id"
        " WHERE s.identity = ? AND g.status = 'finished' GROUP BY g.edition ORDER BY g.edition",
        (fingerprint,),
    )
    return {edition: EditionStats(games, wins) for edition, games, wins in rows}


def recent_games(
    conn: sqlite3.Connection, fingerprint: str, limit: int = 10, public: bool = False
) -> list[RecentGame]:
    """The player's latest finished games (with `public`, those not played at a private
    table only), newest first."""
    private = " AND g.private = 0" if public else ""
    rows = conn.execute(
        "SELECT g.id, g.edition, g.ended_at, s.seat, s.won"
        " FROM game_seats s JOIN games g ON g.id = s.game_id"
        f" WHERE s.identity = ? AND g.status = 'finished'{private}"
        " ORDER BY g.ended_at DESC, g.id DESC LIMIT ?",
        (fingerprint, limit),
    ).fetchall()
    names = _seat_names(conn, [row[0] for row in rows])
    return [
        RecentGame(game_id, edition, from_text(ended), seat, bool(won), names[game_id])
        for game_id, edition, ended, seat, won in rows
    ]


def favourite_cards(
    conn: sqlite3.Connection, fingerprint: str, limit: int = 3, games: int = 100
) -> list[tuple[str, int]]:
    """The cards the player played most in their latest `games` finished games, with how
    many times, most played first."""
    return conn.execute(
        "SELECT json_extract(e.public, '$.card') AS card, count(*) AS times"
        " FROM (SELECT s.game_id, s.seat FROM game_seats s JOIN games g ON g.id = s.game_id"
        "       WHERE s.identity = ? AND g.status = 'finished'"
        "       ORDER BY g.ended_at DESC, g.id DESC LIMIT ?) mine"
        " JOIN game_events e ON e.game_id = mine.game_id AND e.seat = mine.seat"
        " WHERE e.kind = 'play' GROUP BY card ORDER BY times DESC, card LIMIT ?",
        (fingerprint, games, limit),
    ).fetchall()


def _seat_names(conn: sqlite3.Connection, game_ids: list[int]) -> dict[int, list[str]]:
    """Every seat's nickname, in seat order, for each of `game_ids`."""
    names: dict[int, list[str]] = {game_id: [] for game_id in game_ids}
    marks = ",".join("?" * len(game_ids))
    for game_id, nickname in conn.execute(
        f"SELECT game_id, nickname FROM game_seats WHERE game_id IN ({marks})"
        " ORDER BY game_id, seat",
        game_ids,
    ):
        names[game_id].append(nickname)
    return names


def leaderboard(conn: sqlite3.Connection, limit: int = 10, min_games: int = 0) -> list[LeaderRow]:
    """Players with at least `min_games` rated games, highest rating first; current nicknames."""
    rows = conn.execute(
        "SELECT p.fingerprint, p.nickname,"
        " (SELECT count(*) FROM game_seats s JOIN games g ON g.id = s.game_id"
        "  WHERE s.identity = r.identity AND g.status = 'finished'),"
        " (SELECT count(*) FROM game_seats s JOIN games g ON g.id = s.game_id"
        "  WHERE s.identity = r.identity AND g.status = 'finished' AND s.won),"
        " r.mu, r.sigma, r.games"
        " FROM ratings r JOIN players p ON p.fingerprint = r.identity"
        " WHERE r.games >= ?"
        " ORDER BY r.mu DESC, r.sigma, p.nickname COLLATE NOCASE LIMIT ?",
        (min_games, limit),
    )
    return [
        LeaderRow(key, name, games, wins, RatingRecord(mu, sigma, rated))
        for key, name, games, wins, mu, sigma, rated in rows
    ]


def bot_leaderboard(
    conn: sqlite3.Connection, limit: int = 10, min_games: int = 0
) -> list[LeaderRow]:
    """The bot ladder, highest rating first: programs with at least `min_games` laddered games
    (by their current nicknames) and every server bot level that played one (`LEVEL bot`)."""
    rows = conn.execute(
        "SELECT b.player, p.nickname, b.games, b.wins, b.mu, b.sigma FROM bot_ratings b"
        " LEFT JOIN players p ON p.fingerprint = b.player"
        " WHERE b.games >= ? OR b.player LIKE ?"
        " ORDER BY b.mu DESC, b.sigma, b.player LIMIT ?",
        (min_games, f"{BOT_PREFIX}%", limit),
    )
    return [
        LeaderRow(key, name or _bot_name(key), games, wins, RatingRecord(mu, sigma, games))
        for key, name, games, wins, mu, sigma in rows
    ]


def _bot_name(key: str) -> str:
    """A server bot level's name on the ladder: `medium bot`."""
    return f"{key.removeprefix(BOT_PREFIX)} bot"
