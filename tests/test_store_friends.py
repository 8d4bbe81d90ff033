"""Friends in the store: by key, listed by current nickname, bounded per player."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from server.store import MAX_FRIENDS, Store, TooManyFriends

ANN, BOB, CY = "SHA256:ann", "SHA256:bob", "SHA256:cy"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "lovelet.db") as opened:
        for key, name in ((ANN, "ann"), (BOB, "bob"), (CY, "Cy")):
            opened.claim_nickname(key, name, set())
        yield opened


def test_friends_are_listed_by_current_nickname_and_removed(store: Store) -> None:
    store.add_friend(ANN, CY)
    store.add_friend(ANN, BOB)
    store.add_friend(ANN, BOB)  # again: nothing changes
    assert store.friends_of(ANN) == {BOB: "bob", CY: "Cy"}
    assert store.friends_of(BOB) == {}  # one way: bob marked nobody
    store.claim_nickname(BOB, "bobby", set())
    assert store.friends_of(ANN)[BOB] == "bobby"
    store.remove_friend(ANN, BOB)
    assert store.friends_of(ANN) == {CY: "Cy"}


def test_a_player_has_a_bounded_number_of_friends(store: Store) -> None:
    keys = [f"SHA256:p{i}" for i in range(MAX_FRIENDS + 1)]
    for key in keys:
        store.claim_nickname(key, key[7:], set())
    for key in keys[:MAX_FRIENDS]:
        store.add_friend(ANN, key)
    store.add_friend(ANN, keys[0])  # a friend already: still fine
    with pytest.raises(TooManyFriends):
        store.add_friend(ANN, keys[-1])
    assert len(store.friends_of(ANN)) == MAX_FRIENDS
