"""Bans by key fingerprint, by IP address and by CIDR network, with expiry and lifting."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from server.store import Store

T0 = datetime(2025, 7, 1, 9, 0, tzinfo=UTC)
KEY = "SHA256:Zm9vYmFy"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "lovelet.sqlite3", clock=lambda: T0) as opened:
        yield opened


def test_a_fingerprint_ban_matches_that_key_only(store: Store) -> None:
    ban = store.add_ban("fingerprint", KEY, None, "spam", "admin")
    assert store.is_banned(KEY, "192.0.2.1", T0) == ban
    assert store.is_banned("SHA256:other", "192.0.2.1", T0) is None
    assert store.is_banned(None, "192.0.2.1", T0) is None
    assert (ban.reason, ban.by, ban.created_at, ban.until) == ("spam", "admin", T0, None)


def test_an_address_ban_matches_that_ip(store: Store) -> None:
    store.add_ban("address", "192.0.2.7", None)
    assert store.is_banned(None, "192.0.2.7", T0) is not None
    assert store.is_banned(KEY, "192.0.2.7", T0) is not None
    assert store.is_banned(None, "192.0.2.8", T0) is None
    assert store.is_banned(None, "::ffff:192.0.2.7", T0) is not None  # IPv4-mapped IPv6


def test_a_cidr_ban_matches_its_whole_network(store: Store) -> None:
    ban = store.add_ban("address", "198.51.100.77/24", None)
    assert ban.value == "198.51.100.0/24"
    assert store.is_banned(None, "198.51.100.1", T0) == ban
    assert store.is_banned(None, "198.51.101.1", T0) is None
    store.add_ban("address", "2001:db8::/32", None)
    assert store.is_banned(None, "2001:db8:1::5", T0) is not None
    assert store.is_banned(None, "2001:db9::5", T0) is None


def test_unparseable_peers_match_no_address_ban(store: Store) -> None:
    store.add_ban("address", "0.0.0.0/0", None)
    assert store.is_banned(None, "?", T0) is None
    assert store.is_banned(None, None, T0) is None


def test_bad_ban_values_are_refused(store: Store) -> None:
    with pytest.raises(ValueError):
        store.add_ban("address", "not-an-ip", None)
    with pytest.raises(ValueError):
        store.add_ban("fingerprint", "  ", None)
    with pytest.raises(ValueError):
        store.add_ban("nickname", "bob", None)  # type: ignore[arg-type]
    assert store.all_bans() == []


def test_a_ban_expires(store: Store) -> None:
    ban = store.add_ban("fingerprint", KEY, T0 + timedelta(hours=1), "cool off")
    assert store.is_banned(KEY, None, T0 + timedelta(minutes=59)) == ban
    assert store.is_banned(KEY, None, T0 + timedelta(hours=1)) is None
    assert store.active_bans(T0) == [ban]
    assert store.active_bans(T0 + timedelta(hours=2)) == []


def test_lifting_by_id_or_by_value(store: Store) -> None:
    first = store.add_ban("fingerprint", KEY, None)
    second = store.add_ban("address", "203.0.113.0/24", None)
    third = store.add_ban("address", "203.0.113.9", None)
    [lifted] = store.lift_ban(first.id)
    assert lifted.id == first.id and lifted.lifted_at == T0
    assert store.is_banned(KEY, None, T0) is None
    assert [b.id for b in store.lift_ban("203.0.113.5/24")] == [second.id]  # normalised
    assert [b.id for b in store.active_bans(T0)] == [third.id]
    assert store.lift_ban(first.id) == []  # already lifted
    assert store.lift_ban("SHA256:never-banned") == []
    assert [b.id for b in store.all_bans()] == [first.id, second.id, third.id]
