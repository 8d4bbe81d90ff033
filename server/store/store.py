"""`Store`: the one object the server holds; each call is one small, committed write or read.

Use it from one thread (the event loop's): the connection refuses other threads.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

from . import bans, friends, games, players, ratings, settings, stats, tables
from .bans import Ban, BanKind
from .db import connect, schema_version, transaction
from .errors import StoreError
from .games import ActionLog, GameLog, GameRecord, SeatRecord
from .players import DEFAULT_NAME_RULES, Claim, NameRules, Player
from .ratings import RatingChange, RatingRecord
from .stats import EditionStats, LeaderRow, RecentGame
from .tables import GuestRecord, KeptTable, TableRecord
from .times import now as utc_now

DB_FILENAME = "lovelet.db"  # as `Config.database_path`


def database_path(data_dir: Path) -> Path:
    """Where the database lives in a data directory."""
    return data_dir / DB_FILENAME


class Store:
    """Players, games, stats, bans and settings in one SQLite file."""

    def __init__(self, conn: sqlite3.Connection, path: Path, clock: Callable[[], datetime]):
        self._conn = conn
        self.path = path
        self._clock = clock

    @classmethod
    def open(cls, path: Path, clock: Callable[[], datetime] = utc_now) -> Store:
        """Open or create the database at `path`, migrate it to the current schema and key
        its nicknames as this lovelet compares names (`players.rekey`).

        Raises `StoreError` (`SchemaTooNewError` for a file from a newer lovelet).
        """
        conn = connect(path)
        try:
            players.rekey(conn)
        except sqlite3.Error as err:
            conn.close()
            raise StoreError(f"cannot key the nicknames of {path}: {err}") from err
        return cls(conn, path, clock)

    def close(self) -> None:
        """Close the connection; every write is already committed."""
        self._conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def schema_version(self) -> int:
        """The schema version of the open file."""
        return schema_version(self._conn)

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Make every write in the block one transaction (all or nothing, one commit)."""
        with transaction(self._conn):
            yield

    # ------------------------------------------------------------- players

    def claim_nickname(
        self,
        fingerprint: str | None,
        wanted: str,
        online: set[str],
        now: datetime | None = None,
        rules: NameRules = DEFAULT_NAME_RULES,
    ) -> Claim:
        """The name a player gets (see `players.claim_nickname`); guests are not stored."""
        return players.claim_nickname(
            self._conn, fingerprint, wanted, online, now or self._clock(), rules
        )

    def record_visit(self, fingerprint: str, name: str) -> None:
        """A player seen as `name` without reserving it (`lovelet play`'s own player)."""
        players.record_visit(self._conn, fingerprint, name, self._clock())

    def players(self) -> list[Player]:
        """Every keyed player, most recently seen first."""
        return players.players(self._conn)

    # ------------------------------------------------------------- games

    def start_game(
        self,
        edition: str,
        seats: Sequence[SeatRecord],
        started_at: datetime | None = None,
        seed: int | None = None,
        table: TableRecord | None = None,
        private: bool = False,
    ) -> int:
        """Record a new game in progress (seeded with `seed`), and keep the `table` it is
        played at until it ends; its id. A game at a private table (or `private`) is
        replayed only by its players."""
        private = private or bool(table is not None and table.settings.get("private"))
        with self.batch():
            game_id = games.start_game(
                self._conn, edition, seats, started_at or self._clock(), seed, private
            )
            if table is not None:
                tables.keep_table(self._conn, game_id, table)
        return game_id

    def keep_guest(self, game_id: int, seat: int, guest: GuestRecord) -> None:
        """The guest at `seat` of a kept table's game takes it back with `guest.rejoin`."""
        tables.keep_guest(self._conn, game_id, seat, guest)

    def kept_tables(self) -> list[KeptTable]:
        """The kept tables of games still in progress: what a restart rebuilds."""
        return tables.kept_tables(self._conn)

    def record_action(self, game_id: int, seq: int, seat: int, choice: dict[str, Any]) -> None:
        """Append action `seq`: `seat` chose `choice` (as `choice_to_dict` writes it)."""
        games.record_action(self._conn, game_id, seq, seat, choice)

    def action_log(self, game_id: int) -> ActionLog:
        """What rebuilds a game with the engine: edition, seats, seed, actions; KeyError."""
        return games.action_log(self._conn, game_id)

    def replace_seat(self, game_id: int, seat: int, record: SeatRecord) -> None:
        """`record` plays `seat` of a game in progress from now on, and gets its result."""
        games.replace_seat(self._conn, game_id, seat, record)

    def record_event(
        self,
        game_id: int,
        seq: int,
        kind: str,
        seat: int | None,
        data: dict[str, Any],
        secret: dict[str, Any] | None = None,
        audience: Sequence[int] = (),
    ) -> None:
        """Append event `seq`: `data` is public, `secret` only for the seats in `audience`."""
        games.record_event(
            self._conn, game_id, seq, kind, seat, data, secret, audience, self._clock()
        )

    def record_round(
        self, game_id: int, round_no: int, winners: Sequence[int], tokens: Sequence[int]
    ) -> None:
        """How a round ended."""
        games.record_round(self._conn, game_id, round_no, winners, tokens)

    def finish_game(
        self, game_id: int, winners: Sequence[int], ended_at: datetime | None = None
    ) -> dict[str, RatingChange]:
        """The game was won by these seats; it counts in the stats and ratings from now on.
        What it did to each keyed player's rating (empty: not rated)."""
        with self.batch():
            games.finish_game(self._conn, game_id, winners, ended_at or self._clock())
            return ratings.rate_game(self._conn, game_id)

    def abandon_game(self, game_id: int, ended_at: datetime | None = None) -> None:
        """The game stopped unfinished; it never counts in the stats."""
        games.abandon_game(self._conn, game_id, ended_at or self._clock())

    def abandon_unfinished(self, keep: Collection[int] = ()) -> list[int]:
        """Mark games left in progress (by a crash or a kill) abandoned, but those in `keep`
        (rebuilt), ended at their last recorded event; their ids. Their logs are kept."""
        return games.abandon_unfinished(self._conn, keep)

    def unfinished_games(self) -> list[GameRecord]:
        """Games still marked in progress."""
        return games.unfinished_games(self._conn)

    def game_log(self, game_id: int) -> GameLog:
        """Header, seats, rounds and every event of a game; KeyError if unknown."""
        return games.game_log(self._conn, game_id)

    def games(self, limit: int = 50) -> list[GameRecord]:
        """The latest games in any state, newest first."""
        return games.recent_games(self._conn, limit)

    def game(self, game_id: int) -> GameRecord:
        """One game's header and seats; KeyError if there is no such game."""
        return games.game(self._conn, game_id)

    def finished_public_games(
        self, limit: int = 10, identity: str | None = None
    ) -> list[GameRecord]:
        """The latest finished games not played at a private table (only those `identity`
        sat in, if given), newest first."""
        return games.finished_public_games(self._conn, limit, identity)

    def owner_of(self, name: str) -> str | None:
        """The key fingerprint the nickname `name`, or one that looks like it, is reserved to."""
        return players.owner_of(self._conn, name)

    # ------------------------------------------------------------- stats

    def player_stats(self, fingerprint: str) -> dict[str, EditionStats]:
        """Finished games and wins per edition id."""
        return stats.player_stats(self._conn, fingerprint)

    def recent_games(
        self, fingerprint: str, limit: int = 10, public: bool = False
    ) -> list[RecentGame]:
        """The player's latest finished games (with `public`, none of a private table),
        newest first."""
        return stats.recent_games(self._conn, fingerprint, limit, public)

    def favourite_cards(self, fingerprint: str, limit: int = 3) -> list[tuple[str, int]]:
        """The cards the player played most lately, with how many times, most played first."""
        return stats.favourite_cards(self._conn, fingerprint, limit)

    def leaderboard(self, limit: int = 10, min_games: int = 0) -> list[LeaderRow]:
        """Players with at least `min_games` rated games, highest rating first."""
        return stats.leaderboard(self._conn, limit, min_games)

    def bot_leaderboard(self, limit: int = 10, min_games: int = 0) -> list[LeaderRow]:
        """The bot ladder: programs with at least `min_games` laddered games, and the server's
        bots, highest rating first."""
        return stats.bot_leaderboard(self._conn, limit, min_games)

    # ------------------------------------------------------------- ratings

    def rating(self, fingerprint: str) -> RatingRecord | None:
        """A keyed player's rating, or None before their first rated game."""
        return ratings.ratings_of(self._conn, [fingerprint]).get(fingerprint)

    def bot_rating(self, fingerprint: str) -> RatingRecord | None:
        """A program's rating on the bot ladder, or None before its first laddered game."""
        return ratings.bot_ratings_of(self._conn, [fingerprint]).get(fingerprint)

    def rating_history(self, fingerprint: str) -> list[float]:
        """A keyed player's rating after each of their latest rated games, oldest first."""
        return ratings.history(self._conn, fingerprint)

    def ratings_of(self, fingerprints: Sequence[str]) -> dict[str, RatingRecord]:
        """The ratings of those of `fingerprints` who have one."""
        return ratings.ratings_of(self._conn, fingerprints)

    def recompute_ratings(self) -> int:
        """Rebuild every rating from the finished games; how many games were rated."""
        return ratings.recompute(self._conn)

    # ------------------------------------------------------------- friends

    def add_friend(self, player: str, friend: str) -> None:
        """Mark `friend` (a key) as `player`'s friend; `TooManyFriends` past the limit."""
        friends.add_friend(self._conn, player, friend, self._clock())

    def remove_friend(self, player: str, friend: str) -> None:
        """`friend` is no longer `player`'s friend."""
        friends.remove_friend(self._conn, player, friend)

    def friends_of(self, player: str) -> dict[str, str]:
        """`player`'s friends: key to current nickname, in nickname order."""
        return friends.friends_of(self._conn, player)

    # ------------------------------------------------------------- bans

    def add_ban(
        self, kind: BanKind, value: str, until: datetime | None, reason: str = "", by: str = ""
    ) -> Ban:
        """Ban a key fingerprint or an address/CIDR network; ValueError for a bad value."""
        return bans.add_ban(self._conn, kind, value, until, reason, by, self._clock())

    def lift_ban(self, target: int | str) -> list[Ban]:
        """Lift a ban by id, or every ban on a value; the bans lifted (empty: none matched)."""
        return bans.lift_ban(self._conn, target, self._clock())

    def active_bans(self, now: datetime | None = None) -> list[Ban]:
        """Bans in force now."""
        return bans.active_bans(self._conn, now or self._clock())

    def all_bans(self) -> list[Ban]:
        """Every ban, including lifted and expired ones."""
        return bans.all_bans(self._conn)

    def is_banned(
        self, fingerprint: str | None, address: str | None, now: datetime | None = None
    ) -> Ban | None:
        """The ban in force on this key or address, if any."""
        return bans.is_banned(self._conn, fingerprint, address, now or self._clock())

    # ------------------------------------------------------------- settings

    def get_setting(self, key: str, default: str | None = None) -> str | None:
        """A stored setting, or `default`."""
        return settings.get_setting(self._conn, key, default)

    def set_setting(self, key: str, value: str | None) -> None:
        """Store a setting; None removes it."""
        settings.set_setting(self._conn, key, value)
