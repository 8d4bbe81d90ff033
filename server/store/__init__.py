"""Persistence in one SQLite file: players and nicknames, games and their logs, stats, bans."""

from .bans import Ban
from .errors import MigrationError, SchemaTooNewError, StoreError
from .friends import MAX_FRIENDS, TooManyFriends
from .games import (
    ActionLog,
    ActionRecord,
    EventRecord,
    GameLog,
    GameRecord,
    RoundRecord,
    SeatRecord,
)
from .players import Claim, NameRules, Player
from .ratings import RatingChange, RatingRecord
from .recorder import GameRecorder
from .settings import MOTD
from .stats import EditionStats, LeaderRow, RecentGame
from .store import DB_FILENAME, Store, database_path
from .tables import GuestRecord, KeptTable, TableRecord

__all__ = [
    "DB_FILENAME",
    "MAX_FRIENDS",
    "MOTD",
    "ActionLog",
    "ActionRecord",
    "Ban",
    "Claim",
    "EditionStats",
    "EventRecord",
    "GameLog",
    "GameRecord",
    "GameRecorder",
    "GuestRecord",
    "KeptTable",
    "LeaderRow",
    "MigrationError",
    "NameRules",
    "Player",
    "RatingChange",
    "RatingRecord",
    "RecentGame",
    "RoundRecord",
    "SchemaTooNewError",
    "SeatRecord",
    "Store",
    "StoreError",
    "TableRecord",
    "TooManyFriends",
    "database_path",
]
