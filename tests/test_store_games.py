"""Games: seats, the event log written as it happens (and surviving kill -9), rounds, endings."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from server.store import EventRecord, SeatRecord, Store

ROOT = Path(__file__).resolve().parent.parent
T0 = datetime(2025, 5, 1, 20, 0, tzinfo=UTC)
ANN = "SHA256:ann-key"
SEATS = [
    SeatRecord(ANN, "ann"),
    SeatRecord(None, "guest-7"),
    SeatRecord(None, "easy bot 3", "easy"),
]


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "lovelet.sqlite3") as opened:
        opened.claim_nickname(ANN, "ann", set())
        yield opened


def test_a_game_keeps_its_seats_with_guests_as_names_only(store: Store) -> None:
    game_id = store.start_game("2019", SEATS, T0)
    [game] = store.unfinished_games()
    assert (game.id, game.edition, game.status, game.started_at) == (game_id, "2019", "playing", T0)
    assert game.seats == SEATS
    assert [p.fingerprint for p in store.players()] == [ANN]


def test_events_keep_public_and_secret_parts_apart(store: Store) -> None:
    game_id = store.start_game("2019", SEATS, T0)
    store.record_event(game_id, 0, "round_start", None, {"round": 1, "tokens": [0, 0, 0]})
    store.record_event(game_id, 1, "draw", 2, {}, {"card": "princess"}, (2,))
    store.record_event(game_id, 2, "play", 2, {"card": "guard", "targets": (0,), "guess": "priest"})
    events = store.game_log(game_id).events
    assert events == [
        EventRecord(0, "round_start", None, {"round": 1, "tokens": [0, 0, 0]}, None, ()),
        EventRecord(1, "draw", 2, {}, {"card": "princess"}, (2,)),
        EventRecord(2, "play", 2, {"card": "guard", "targets": [0], "guess": "priest"}, None, ()),
    ]
    public = sqlite3.connect(store.path).execute("SELECT group_concat(public) FROM game_events")
    assert "princess" not in public.fetchone()[0]


def test_an_event_number_is_written_once(store: Store) -> None:
    game_id = store.start_game("2019", SEATS, T0)
    store.record_event(game_id, 0, "round_start", None, {})
    with pytest.raises(sqlite3.IntegrityError):
        store.record_event(game_id, 0, "round_start", None, {})


def test_rounds_and_the_end_of_a_game(store: Store) -> None:
    game_id = store.start_game("classic", SEATS, T0)
    store.record_round(game_id, 1, [0], [1, 0, 0])
    store.record_round(game_id, 2, [1, 2], [1, 1, 1])
    end = T0 + timedelta(minutes=20)
    store.finish_game(game_id, [0], end)
    log = store.game_log(game_id)
    assert [(r.round_no, r.winners, r.tokens) for r in log.rounds] == [
        (1, [0], [1, 0, 0]),
        (2, [1, 2], [1, 1, 1]),
    ]
    assert (log.game.status, log.game.ended_at, log.game.winners) == ("finished", end, [0])
    assert store.unfinished_games() == []
    with pytest.raises(KeyError):
        store.finish_game(game_id, [1], end)


def test_an_abandoned_game_is_closed_without_winners(store: Store) -> None:
    game_id = store.start_game("classic", SEATS, T0)
    store.abandon_game(game_id, T0)
    assert store.game_log(game_id).game.status == "abandoned"
    assert store.unfinished_games() == []


def test_an_unknown_game_has_no_log(store: Store) -> None:
    with pytest.raises(KeyError):
        store.game_log(404)


def test_an_unknown_keyed_identity_cannot_take_a_seat(store: Store) -> None:
    with pytest.raises(sqlite3.IntegrityError):
        store.start_game("2019", [SeatRecord("SHA256:nobody", "x")], T0)


WRITER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from server.store import SeatRecord, Store

    store = Store.open(Path(sys.argv[1]))
    game_id = store.start_game("2019", [SeatRecord(None, "a"), SeatRecord(None, "b")])
    print("game", game_id, flush=True)
    for seq in range(10_000_000):
        store.record_event(game_id, seq, "draw", seq % 2, {"n": seq}, {"card": "x"}, (seq % 2,))
        print(seq, flush=True)
    """
)


def test_every_acknowledged_event_survives_kill_9(tmp_path: Path) -> None:
    path = tmp_path / "lovelet.sqlite3"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path)], stdout=subprocess.PIPE, text=True, env=env
    )
    try:
        game_id = int(writer.stdout.readline().split()[1])
        acknowledged = [int(writer.stdout.readline()) for _ in range(500)]
        writer.send_signal(signal.SIGKILL)
        rest = writer.stdout.read()  # acks already in the reader's buffer, then the pipe's
        writer.wait(timeout=30)
    finally:
        writer.kill()
        writer.stdout.close()
    assert writer.returncode == -signal.SIGKILL
    acknowledged += [int(line) for line in rest.split()]
    with Store.open(path) as store:
        stored = [event.seq for event in store.game_log(game_id).events]
    assert stored[: len(acknowledged)] == acknowledged == list(range(len(acknowledged)))
    assert len(stored) - len(acknowledged) <= 1  # at most the write it was killed after
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()


def test_a_game_cut_off_by_a_restart_ends_at_its_last_event(tmp_path: Path) -> None:
    path, played = tmp_path / "lovelet.sqlite3", T0 + timedelta(minutes=7)
    with Store.open(path, clock=lambda: T0) as store:
        game = store.start_game("2019", [SeatRecord(None, "ann"), SeatRecord(None, "bob")])
    with Store.open(path, clock=lambda: played) as store:
        store.record_event(game, 0, "draw", 0, {})
    with Store.open(path, clock=lambda: T0 + timedelta(days=1)) as store:  # the restart
        quiet = store.start_game("2019", [SeatRecord(None, "cat"), SeatRecord(None, "dan")])
        assert store.abandon_unfinished() == [game, quiet]
        assert store.game_log(game).game.ended_at == played
        assert store.game_log(quiet).game.ended_at == T0 + timedelta(days=1)  # no events
        assert store.game_log(game).game.status == "abandoned"
