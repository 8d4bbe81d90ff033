"""Nicknames: reserved to the key that used them, suffixed for everyone else; guests unstored."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from server.store import Claim, NameRules, SeatRecord, Store
from server.store.players import is_reserved

T0 = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)
ANN, BOB = "SHA256:ann-key", "SHA256:bob-key"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "lovelet.sqlite3", clock=lambda: T0) as opened:
        yield opened


def _rows(store: Store, sql: str) -> list[tuple]:
    conn = sqlite3.connect(store.path)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def test_a_keyed_player_gets_a_free_name_and_reserves_it(store: Store) -> None:
    assert store.claim_nickname(ANN, "ann", set()) == Claim("ann", None)
    [player] = store.players()
    assert (player.fingerprint, player.nickname, player.first_seen, player.games) == (
        ANN,
        "ann",
        T0,
        0,
    )


def test_the_same_key_gets_its_name_back_and_last_seen_moves(store: Store) -> None:
    store.claim_nickname(ANN, "ann", set())
    later = T0 + timedelta(days=3)
    assert store.claim_nickname(ANN, "ANN", set(), now=later) == Claim("ANN", None)
    [player] = store.players()
    assert (player.nickname, player.first_seen, player.last_seen) == ("ANN", T0, later)


def test_another_key_gets_a_suffixed_name_and_a_notice(store: Store) -> None:
    store.claim_nickname(ANN, "ann", set())
    claim = store.claim_nickname(BOB, "ann", set())
    assert claim.name == "ann-2"
    assert claim.notice is not None and "reserved" in claim.notice and "ann-2" in claim.notice
    assert "\n" not in claim.notice


def test_the_suffixed_name_is_stable_for_that_key(store: Store) -> None:
    store.claim_nickname(ANN, "ann", set())
    assert store.claim_nickname(BOB, "ann", set()).name == "ann-2"
    carl = "SHA256:carl-key"
    assert store.claim_nickname(carl, "ann", set()).name == "ann-3"
    assert store.claim_nickname(BOB, "ann", set()).name == "ann-2"


def test_names_compare_case_insensitively(store: Store) -> None:
    store.claim_nickname(ANN, "Ann", set())
    assert store.claim_nickname(BOB, "aNN", set()).name == "aNN-2"
    assert store.claim_nickname(None, "ANN", set()).name == "ANN-3"  # aNN-2 is BOB's


def test_a_guest_asking_for_a_reserved_name_gets_a_suffix_and_is_never_stored(
    store: Store,
) -> None:
    store.claim_nickname(ANN, "ann", set())
    claim = store.claim_nickname(None, "ann", set())
    assert claim.name == "ann-2"
    assert claim.notice is not None and "guest" in claim.notice
    assert store.claim_nickname(None, "zed", set()) == Claim("zed", None)
    assert _rows(store, "SELECT fingerprint FROM players") == [(ANN,)]
    assert _rows(store, "SELECT name FROM nicknames") == [("ann",)]
    assert store.claim_nickname(BOB, "zed", set()) == Claim("zed", None)  # guests reserve nothing


def test_a_name_that_looks_like_one_reserved_to_another_key_is_taken(store: Store) -> None:
    store.claim_nickname(ANN, "victim", set())
    claim = store.claim_nickname(BOB, "vıctım", set())  # Latin dotless ı
    assert claim == Claim(
        "vıctım-2",
        "The name vıctım looks like victim, which is reserved by another player's SSH key,"
        " so you are vıctım-2 here.",
    )
    guest = store.claim_nickname(None, "ＶＩＣＴＩＭ", set())
    assert guest.notice == (
        "The name ＶＩＣＴＩＭ looks like victim, which belongs to a player with an SSH key"
        " and you are a guest, so you are ＶＩＣＴＩＭ-3 here."  # -2 looks like BOB's vıctım-2
    )


def test_a_name_that_looks_like_one_online_is_taken(store: Store) -> None:
    assert store.claim_nickname(None, "b0b", {"bob"}) == Claim(
        "b0b-2",
        "The name b0b looks like bob, and someone called bob is playing right now,"
        " so you are b0b-2 here.",
    )


def test_nicknames_keyed_by_case_alone_are_keyed_again_and_the_first_claim_stays(
    tmp_path: Path,
) -> None:
    path = tmp_path / "lovelet.sqlite3"
    with Store.open(path, clock=lambda: T0) as store:
        store.claim_nickname(ANN, "victim", set())
        store.claim_nickname(BOB, "zed", set())
    later = (T0 + timedelta(days=1)).isoformat()
    conn = sqlite3.connect(path)
    with conn:  # as an older lovelet keyed them: by case alone
        conn.execute("DELETE FROM settings WHERE key = 'name_keys'")
        for name in ("vıctım", "ѕсоре"):
            conn.execute(
                "INSERT INTO nicknames VALUES (?, ?, ?, ?, ?)", (name, name, BOB, later, later)
            )
    conn.close()
    with Store.open(path, clock=lambda: T0) as store:
        rows = _rows(store, "SELECT name_key, name, fingerprint FROM nicknames ORDER BY name_key")
        assert rows == [("scope", "ѕсоре", BOB), ("victim", "victim", ANN), ("zed", "zed", BOB)]
        assert store.owner_of("scope") == BOB


def test_an_online_name_is_not_given_twice(store: Store) -> None:
    claim = store.claim_nickname(ANN, "ann", {"ANN", "ann-2"})
    assert claim.name == "ann-3"
    assert claim.notice is not None and "playing right now" in claim.notice
    assert store.claim_nickname(None, "bob", {"Bob"}).name == "bob-2"


def test_a_suffix_skips_names_reserved_by_others_and_names_online(store: Store) -> None:
    store.claim_nickname(ANN, "ann", set())
    store.claim_nickname(BOB, "ann-2", set())
    assert store.claim_nickname(None, "ann", {"ann-3"}).name == "ann-4"


def test_a_suffixed_long_name_stays_within_the_length_limit(store: Store) -> None:
    long = "abcdefghijklmnop"  # 16 characters, the limit
    store.claim_nickname(ANN, long, set())
    claim = store.claim_nickname(BOB, long, set())
    assert claim.name == "abcdefghijklmn-2"


def test_players_count_their_finished_games(store: Store) -> None:
    store.claim_nickname(ANN, "ann", set())
    seats = [SeatRecord(ANN, "ann"), SeatRecord(None, "guesty")]
    done = store.start_game("classic", seats, T0)
    store.finish_game(done, [0], T0)
    store.start_game("classic", seats, T0)  # still going: not counted
    [player] = store.players()
    assert player.games == 1


def _reserved_to(store: Store, fingerprint: str) -> list[str]:
    rows = _rows(store, f"SELECT name FROM nicknames WHERE fingerprint = '{fingerprint}'")
    return sorted(name for (name,) in rows)


def test_a_key_keeps_only_its_most_recently_used_names(store: Store) -> None:
    rules = NameRules(per_key=3)
    for minute, name in enumerate(["a1", "a2", "a3", "a1", "a4"]):
        store.claim_nickname(ANN, name, set(), T0 + timedelta(minutes=minute), rules)
    assert _reserved_to(store, ANN) == ["a1", "a3", "a4"]  # a2 was the least recently used
    assert store.claim_nickname(BOB, "a2", set(), T0 + timedelta(minutes=9), rules).name == "a2"


def test_a_reservation_unused_for_the_expiry_time_lapses(store: Store) -> None:
    rules = NameRules(expire_after=timedelta(days=30))
    store.claim_nickname(ANN, "ann", set(), T0, rules)
    store.claim_nickname(ANN, "ann", set(), T0 + timedelta(days=20), rules)  # used again
    late = T0 + timedelta(days=49)
    assert store.claim_nickname(BOB, "ann", set(), late, rules).name == "ann-2"
    assert store.claim_nickname(BOB, "ann", set(), late + timedelta(days=2), rules).name == "ann"


@pytest.mark.parametrize(
    "wanted",
    [
        "admin",
        "ADMIN",
        "Root",
        "ad.min",
        "admin-2",
        "lovelet_1",
        "Ädmin",
        "ａｄｍｉｎ",
        "r00t",
        "ѕуѕор",
    ],
)
def test_names_that_could_pass_for_the_server_or_staff_are_nobodys(
    store: Store, wanted: str
) -> None:
    assert is_reserved(wanted)
    for fingerprint in (None, ANN):
        claim = store.claim_nickname(fingerprint, wanted, set())
        assert claim.name == "player-2"
        assert claim.notice == (
            f"The name {wanted} is reserved for the server and its staff, so you are player-2 here."
        )
    assert not any(map(is_reserved, ["administrate", "rooted", "adminка"]))
