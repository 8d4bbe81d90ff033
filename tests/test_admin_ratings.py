"""`lovelet admin games` and `lovelet admin ratings [--recompute]` as real processes."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

from server.store import SeatRecord, Store, database_path

LOVELET = str(Path(sys.executable).with_name("lovelet"))
T0 = datetime(2025, 6, 1, 20, 0, tzinfo=UTC)
ANN, BOB = "SHA256:ann", "SHA256:bob"


def lovelet(data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [LOVELET, "admin", "--data-dir", str(data_dir), *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def seeded(data_dir: Path) -> None:
    with Store.open(database_path(data_dir)) as store:
        store.claim_nickname(ANN, "ann", set())
        store.claim_nickname(BOB, "bob", set())
        seats = [SeatRecord(ANN, "ann"), SeatRecord(BOB, "bob"), SeatRecord(None, "easy 3", "easy")]
        first = store.start_game("classic", seats, T0)
        store.finish_game(first, [1], T0 + timedelta(minutes=25))
        second = store.start_game("2019", [SeatRecord(ANN, "ann"), SeatRecord(None, "zed")], T0)
        store.abandon_game(second, T0 + timedelta(hours=1))
        store.start_game("premium", [SeatRecord(BOB, "bob"), SeatRecord(ANN, "ann")], T0)


def test_games_lists_every_game_newest_first(tmp_path: Path) -> None:
    seeded(tmp_path)
    done = lovelet(tmp_path, "games")
    assert done.returncode == 0, done.stderr
    header, *rows = done.stdout.splitlines()
    assert header.split() == ["ID", "EDITION", "PLAYERS", "STARTED", "ENDED", "STATUS"]
    assert rows[0].split()[0:2] == ["3", "premium"] and rows[0].endswith("playing")
    assert "zed (guest)" in rows[1] and rows[1].endswith("abandoned")
    assert "ann, bob, easy 3 (bot)" in rows[2]
    assert "2025-06-01 20:00Z  2025-06-01 20:25Z  finished" in rows[2]


def test_ratings_list_and_recompute_after_losing_the_table(tmp_path: Path) -> None:
    seeded(tmp_path)
    listed = lovelet(tmp_path, "ratings")
    assert listed.returncode == 0, listed.stderr
    header, bob, ann = listed.stdout.splitlines()
    assert header.split()[:4] == ["NICKNAME", "RATING", "±", "RATED"]
    assert bob.split()[0] == "bob" and ann.split()[0] == "ann"
    with sqlite3.connect(database_path(tmp_path)) as conn:
        conn.execute("DELETE FROM ratings")  # as if the ratings were lost
    assert lovelet(tmp_path, "ratings").stdout == "Nobody is rated yet.\n"
    rebuilt = lovelet(tmp_path, "ratings", "--recompute")
    assert (rebuilt.returncode, rebuilt.stdout) == (0, "Ratings rebuilt from 1 rated game.\n")
    assert lovelet(tmp_path, "ratings").stdout == listed.stdout


def test_games_without_a_database_is_an_error(tmp_path: Path) -> None:
    done = lovelet(tmp_path / "none", "games")
    assert done.returncode == 1
    assert "no database at" in done.stderr


def test_games_mark_a_bot_once(tmp_path: Path) -> None:
    """Bots named as the tables name them ("easy bot 2", a seat a bot took "cy (bot)") are
    not marked again; a bot whose name does not say so is."""
    with Store.open(database_path(tmp_path)) as store:
        store.claim_nickname(ANN, "ann", set())
        bots = [SeatRecord(None, name, "easy") for name in ("easy bot 2", "cy (bot)", "robo")]
        store.start_game("classic", [SeatRecord(ANN, "ann"), *bots], T0)
    done = lovelet(tmp_path, "games")
    assert done.returncode == 0, done.stderr
    assert "ann, easy bot 2, cy (bot), robo (bot)" in done.stdout
