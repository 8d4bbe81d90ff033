"""Kept tables in the store: written with the game, the last rejoin code wins, gone at the end."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from server.store import GuestRecord, SeatRecord, Store, TableRecord

ANN = "SHA256:ann"
SEATS = [SeatRecord(ANN, "ann"), SeatRecord(None, "bob"), SeatRecord(None, "easy bot 3", "easy")]
TABLE = TableRecord("ABCD", "ann's table", {"timer": 90, "takeover": False}, 0)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "lovelet.db") as opened:
        opened.claim_nickname(ANN, "ann", set())
        yield opened


def test_a_kept_table_comes_back_with_its_seats_guests_and_actions(store: Store) -> None:
    game = store.start_game("2019", SEATS, seed=7, table=TABLE)
    store.keep_guest(game, 1, GuestRecord("KQXM-TRWA", "198.51.100.7"))
    store.keep_guest(game, 1, GuestRecord("ACDE-FGHJ", "198.51.100.7"))
    store.record_action(game, 0, 0, {"type": "play", "card": "guard", "targets": [1]})
    store.record_event(game, 0, "round_start", None, {"round": 1})
    (kept,) = store.kept_tables()
    assert (kept.game_id, kept.table, kept.seats) == (game, TABLE, SEATS)
    assert kept.guests == {1: GuestRecord("ACDE-FGHJ", "198.51.100.7")}
    assert kept.actions.seed == 7 and [a.seq for a in kept.actions.actions] == [0]
    assert [e.kind for e in kept.events] == ["round_start"]


@pytest.mark.parametrize("end", ["finish", "abandon"])
def test_a_game_that_ends_keeps_no_table(store: Store, end: str) -> None:
    game = store.start_game("2019", SEATS, seed=1, table=TABLE)
    store.keep_guest(game, 1, GuestRecord("KQXM-TRWA"))
    if end == "finish":
        store.finish_game(game, [0])
    else:
        store.abandon_game(game)
    assert store.kept_tables() == []
    assert store.abandon_unfinished() == []


def test_a_game_without_a_kept_table_keeps_no_guest_and_is_abandoned(store: Store) -> None:
    old = store.start_game("2019", SEATS, seed=1)  # as before schema version 6
    store.keep_guest(old, 1, GuestRecord("KQXM-TRWA"))
    kept = store.start_game("2019", SEATS, seed=2, table=TABLE)
    assert [k.game_id for k in store.kept_tables()] == [kept]
    assert store.abandon_unfinished(keep=[kept]) == [old]
    assert [k.game_id for k in store.kept_tables()] == [kept]
