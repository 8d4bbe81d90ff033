"""`lovelet admin` against real database files: bans, unban, players, MOTD, mounting."""

from __future__ import annotations

import argparse
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from server.ops.admin import add_admin_parser, admin_command, duration, table
from server.store import MOTD, SeatRecord, Store, database_path

ANN = "SHA256:YW5uJ3Mga2V5"


def _run(data_dir: Path, *args: str) -> int:
    return admin_command(list(args), data_dir)


def _store(data_dir: Path) -> Store:
    return Store.open(database_path(data_dir))


def _lines(capsys: pytest.CaptureFixture[str]) -> list[str]:
    return capsys.readouterr().out.splitlines()


def test_listing_without_a_database_says_where_it_looked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run(tmp_path / "nowhere", "bans") == 1
    assert f"no database at {database_path(tmp_path / 'nowhere')}" in capsys.readouterr().err
    assert not (tmp_path / "nowhere").exists()


def test_ban_then_list_bans(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        _run(tmp_path, "ban", "address", "203.0.113.9/24", "--for", "2d", "--reason", "flood") == 0
    )
    assert _run(tmp_path, "ban", "fingerprint", ANN) == 0
    capsys.readouterr()
    assert _run(tmp_path, "bans") == 0
    header, first, second = _lines(capsys)
    assert header.split() == ["ID", "KIND", "VALUE", "UNTIL", "REASON", "BY", "SINCE"]
    assert first.split()[:3] == ["1", "address", "203.0.113.0/24"]
    assert "flood" in first and "lovelet admin" in first
    assert second.split()[:4] == ["2", "fingerprint", ANN, "forever"]
    assert "-" in second.split()  # no reason


def test_an_expired_ban_is_not_listed_unless_all(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with _store(tmp_path) as store:
        store.add_ban("fingerprint", ANN, datetime.now(UTC) - timedelta(minutes=1), "old")
    assert _run(tmp_path, "bans") == 0
    assert _lines(capsys) == ["No bans in force."]
    assert _run(tmp_path, "bans", "--all") == 0
    assert _lines(capsys)[1].endswith("expired")


def test_unban_by_id_and_by_value(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with _store(tmp_path) as store:
        store.add_ban("fingerprint", ANN, None)
        store.add_ban("address", "198.51.100.4", None)
    assert _run(tmp_path, "unban", "1") == 0
    assert _lines(capsys) == [f"Lifted ban 1: fingerprint {ANN}."]
    assert _run(tmp_path, "unban", "198.51.100.4") == 0
    assert _lines(capsys) == ["Lifted ban 2: address 198.51.100.4/32."]
    assert _run(tmp_path, "unban", "1") == 1
    assert "no ban in force matches '1'" in capsys.readouterr().err
    assert _run(tmp_path, "bans", "--all") == 0
    assert all("lifted" in line for line in _lines(capsys)[1:])


def test_a_bad_ban_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(tmp_path, "ban", "address", "999.1.1.1") == 2
    assert "999.1.1.1" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        _run(tmp_path, "ban", "address", "1.2.3.4", "--for", "soon")


def test_players_lists_keyed_players_with_their_games(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    seen = datetime(2025, 1, 2, 3, 4, tzinfo=UTC)
    with _store(tmp_path) as store:
        store.claim_nickname(ANN, "ann", set(), now=seen)
        store.claim_nickname(None, "guesty", set(), now=seen)
        game = store.start_game("2019", [SeatRecord(ANN, "ann"), SeatRecord(None, "guesty")])
        store.finish_game(game, [1])
    assert _run(tmp_path, "players") == 0
    header, row = _lines(capsys)
    assert header.split() == ["NICKNAME", "FINGERPRINT", "FIRST", "SEEN", "LAST", "SEEN", "GAMES"]
    assert row.split() == ["ann", ANN, "2025-01-02", "03:04Z", "2025-01-02", "03:04Z", "1"]


def test_motd_set_show_clear(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(tmp_path, "motd") == 0
    assert _lines(capsys) == ["No message of the day."]
    assert _run(tmp_path, "motd", "Hello\x1b[2J there\nline two") == 0
    with _store(tmp_path) as store:
        assert store.get_setting(MOTD) == "Hello[2J there\nline two"
    capsys.readouterr()
    assert _run(tmp_path, "motd") == 0
    assert _lines(capsys) == ["Hello[2J there", "line two"]
    assert _run(tmp_path, "motd", "--clear") == 0
    with _store(tmp_path) as store:
        assert store.get_setting(MOTD) is None


def test_cells_cannot_drive_the_terminal() -> None:
    text = table(["A", "B"], [["x\x1b]0;pwned\x07", "\x1b[31mred"]])
    assert "\x1b" not in text and "\x07" not in text


def test_durations() -> None:
    assert duration("90m") == timedelta(minutes=90)
    assert duration("7D") == timedelta(days=7)
    assert duration("2w") == timedelta(weeks=2)
    for bad in ("0d", "1y", "d", "-1h"):
        with pytest.raises(argparse.ArgumentTypeError):
            duration(bad)


@pytest.mark.parametrize(
    "argv",
    [
        ["admin", "--data-dir", "{dir}", "bans"],
        ["admin", "bans", "--data-dir", "{dir}"],
    ],
)
def test_mounted_under_the_lovelet_parser(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    _store(tmp_path).close()
    parser = argparse.ArgumentParser(prog="lovelet")
    commands = parser.add_subparsers(dest="command", required=True)
    add_admin_parser(commands, lambda flag: Path(flag) if flag else tmp_path / "default")
    args = parser.parse_args([part.format(dir=tmp_path) for part in argv])
    assert args.run(args) == 0
    assert _lines(capsys) == ["No bans in force."]


def test_a_broken_database_is_an_error_message_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    database_path(tmp_path).write_bytes(b"garbage" * 200)
    assert _run(tmp_path, "players") == 1
    assert "lovelet admin: cannot use the database" in capsys.readouterr().err
