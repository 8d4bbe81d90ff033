"""The schema as an ordered list of migrations: index + 1 is the version each one produces.

Append only: a released migration never changes. Each script runs inside one transaction,
so it must not use statements SQLite refuses there (`VACUUM`, `PRAGMA journal_mode`).
"""

from __future__ import annotations

V1_GAMES = """
CREATE TABLE players (
    fingerprint TEXT PRIMARY KEY,
    nickname    TEXT NOT NULL,
    first_seen  TEXT NOT NULL,
    last_seen   TEXT NOT NULL
);

CREATE TABLE nicknames (
    name_key    TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    fingerprint TEXT NOT NULL REFERENCES players (fingerprint) ON DELETE CASCADE,
    claimed_at  TEXT NOT NULL
);
CREATE INDEX nicknames_by_player ON nicknames (fingerprint);

CREATE TABLE games (
    id         INTEGER PRIMARY KEY,
    edition    TEXT NOT NULL,
    status     TEXT NOT NULL DEFAULT 'playing'
               CHECK (status IN ('playing', 'finished', 'abandoned')),
    started_at TEXT NOT NULL,
    ended_at   TEXT,
    winners    TEXT
);
CREATE INDEX games_unfinished ON games (id) WHERE status = 'playing';

CREATE TABLE game_seats (
    game_id   INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    seat      INTEGER NOT NULL,
    identity  TEXT REFERENCES players (fingerprint),
    nickname  TEXT NOT NULL,
    bot_level TEXT,
    won       INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (game_id, seat)
) WITHOUT ROWID;
CREATE INDEX game_seats_by_player ON game_seats (identity, game_id) WHERE identity IS NOT NULL;

CREATE TABLE game_rounds (
    game_id  INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    round_no INTEGER NOT NULL,
    winners  TEXT NOT NULL,
    tokens   TEXT NOT NULL,
    PRIMARY KEY (game_id, round_no)
) WITHOUT ROWID;

CREATE TABLE game_events (
    game_id  INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    seq      INTEGER NOT NULL,
    kind     TEXT NOT NULL,
    seat     INTEGER,
    public   TEXT NOT NULL,
    secret   TEXT,
    audience TEXT,
    PRIMARY KEY (game_id, seq)
) WITHOUT ROWID;
"""

V2_MODERATION = """
CREATE TABLE bans (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    kind       TEXT NOT NULL CHECK (kind IN ('fingerprint', 'address')),
    value      TEXT NOT NULL,
    reason     TEXT NOT NULL DEFAULT '',
    banned_by  TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL,
    until      TEXT,
    lifted_at  TEXT
);
CREATE INDEX bans_in_force ON bans (kind, value) WHERE lifted_at IS NULL;

CREATE TABLE settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
"""

V3_USE_TIMES = """
ALTER TABLE nicknames ADD COLUMN used_at TEXT;
UPDATE nicknames SET used_at = claimed_at;
CREATE INDEX nicknames_by_use ON nicknames (used_at);

ALTER TABLE game_events ADD COLUMN at TEXT;
"""

V4_RATINGS = """
CREATE TABLE ratings (
    identity  TEXT PRIMARY KEY REFERENCES players (fingerprint) ON DELETE CASCADE,
    mu        REAL NOT NULL,
    sigma     REAL NOT NULL,
    games     INTEGER NOT NULL,
    last_game INTEGER NOT NULL REFERENCES games (id)
);
CREATE INDEX ratings_by_mu ON ratings (mu DESC);
"""

V5_ACTIONS = """
ALTER TABLE games ADD COLUMN seed TEXT;

CREATE TABLE game_actions (
    game_id INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    seq     INTEGER NOT NULL,
    seat    INTEGER NOT NULL,
    choice  TEXT NOT NULL,
    PRIMARY KEY (game_id, seq)
) WITHOUT ROWID;
"""

V6_KEPT_TABLES = """
CREATE TABLE kept_tables (
    game_id   INTEGER PRIMARY KEY REFERENCES games (id) ON DELETE CASCADE,
    code      TEXT NOT NULL,
    name      TEXT NOT NULL,
    settings  TEXT NOT NULL,
    host_seat INTEGER
);

CREATE TABLE kept_guests (
    game_id INTEGER NOT NULL REFERENCES kept_tables (game_id) ON DELETE CASCADE,
    seat    INTEGER NOT NULL,
    rejoin  TEXT NOT NULL,
    address TEXT,
    PRIMARY KEY (game_id, seat)
) WITHOUT ROWID;
"""
"""The table around each game in progress (code, name, settings, host; guests' rejoin codes
and addresses), kept until the game ends so that a restarted server can rebuild it."""

V7_PRIVATE_GAMES = """
ALTER TABLE games ADD COLUMN private INTEGER NOT NULL DEFAULT 0;
CREATE INDEX games_finished ON games (ended_at) WHERE status = 'finished' AND private = 0;
"""

V8_BOT_LADDER = """
ALTER TABLE game_seats ADD COLUMN api_bot INTEGER NOT NULL DEFAULT 0;

CREATE TABLE bot_ratings (
    player    TEXT PRIMARY KEY,
    mu        REAL NOT NULL,
    sigma     REAL NOT NULL,
    games     INTEGER NOT NULL,
    wins      INTEGER NOT NULL,
    last_game INTEGER NOT NULL REFERENCES games (id)
);
CREATE INDEX bot_ratings_by_mu ON bot_ratings (mu DESC);
"""
"""The bot ladder: which seats were programs on the bot API, and the ratings of the ladder's
players (a program's key fingerprint, or `bot:LEVEL` for the server's bots)."""

V9_RATING_HISTORY = """
CREATE TABLE rating_history (
    id       INTEGER PRIMARY KEY,
    identity TEXT NOT NULL REFERENCES players (fingerprint) ON DELETE CASCADE,
    game_id  INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    mu       REAL NOT NULL
);
CREATE INDEX rating_history_by_player ON rating_history (identity, id);
"""
"""Each keyed player's rating after each of their latest rated games, in the order they were
rated (a profile's history; `ratings.HISTORY` of them a player)."""

V10_FRIENDS = """
CREATE TABLE friends (
    player   TEXT NOT NULL REFERENCES players (fingerprint) ON DELETE CASCADE,
    friend   TEXT NOT NULL REFERENCES players (fingerprint) ON DELETE CASCADE,
    added_at TEXT NOT NULL,
    PRIMARY KEY (player, friend)
) WITHOUT ROWID;
"""
"""The keyed players each keyed player marked as friends (`friends.MAX_FRIENDS` at most)."""

MIGRATIONS: tuple[str, ...] = (
    V1_GAMES,
    V2_MODERATION,
    V3_USE_TIMES,
    V4_RATINGS,
    V5_ACTIONS,
    V6_KEPT_TABLES,
    V7_PRIVATE_GAMES,
    V8_BOT_LADDER,
    V9_RATING_HISTORY,
    V10_FRIENDS,
)
"""Every migration in order; `len(MIGRATIONS)` is the version this code writes."""

SCHEMA_VERSION = len(MIGRATIONS)
