"""Persistence in one SQLite file: players and nicknames, games and their logs, stats, bans."""

from .bans import Ban
from .errors import MigrationError, SchemaTooNewError, StoreError
from .games import EventRecord, GameLog, GameRecord, RoundRecord, SeatRecord
from .players import Claim, NameRules, Player
from .recorder import GameRecorder
from .settings import MOTD
from .stats import EditionStats, LeaderRow, RecentGame
from .store import DB_FILENAME, Store, database_path

__all__ = [
    "DB_FILENAME",
    "MOTD",
    "Ban",
    "Claim",
    "EditionStats",
    "EventRecord",
    "GameLog",
    "GameRecord",
    "GameRecorder",
    "LeaderRow",
    "MigrationError",
    "NameRules",
    "Player",
    "RecentGame",
    "RoundRecord",
    "SchemaTooNewError",
    "SeatRecord",
    "Store",
    "StoreError",
    "database_path",
]
