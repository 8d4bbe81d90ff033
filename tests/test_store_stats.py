"""Stats: finished games only, per edition; the leaderboard ranks rated keyed players only."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from server.store import EditionStats, SeatRecord, Store
from server.store.ratings import HISTORY

T0 = datetime(2025, 6, 1, tzinfo=UTC)
ANN, BOB, CAT = "SHA256:ann", "SHA256:bob", "SHA256:cat"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "lovelet.sqlite3") as opened:
        for key, name in ((ANN, "ann"), (BOB, "bob"), (CAT, "cat")):
            opened.claim_nickname(key, name, set())
        yield opened


def _game(store: Store, edition: str, seats: list[str | None], winners: list[int], n: int) -> int:
    records = [
        SeatRecord(key, key.split(":")[1] if key else f"guest{i}") for i, key in enumerate(seats)
    ]
    game_id = store.start_game(edition, records, T0 + timedelta(hours=n))
    store.finish_game(game_id, winners, T0 + timedelta(hours=n, minutes=30))
    return game_id


def test_player_stats_count_finished_games_and_wins_per_edition(store: Store) -> None:
    _game(store, "2019", [ANN, BOB], [0], 1)
    _game(store, "2019", [ANN, BOB], [1], 2)
    _game(store, "classic", [BOB, ANN, None], [1, 2], 3)  # a shared win counts for each
    store.abandon_game(store.start_game("2019", [SeatRecord(ANN, "ann")], T0), T0)
    store.start_game("premium", [SeatRecord(ANN, "ann")], T0)  # in progress
    assert store.player_stats(ANN) == {
        "2019": EditionStats(2, 1),
        "classic": EditionStats(1, 1),
    }
    assert store.player_stats(CAT) == {}


def test_recent_games_newest_first_with_every_seat_named(store: Store) -> None:
    first = _game(store, "2019", [ANN, None], [0], 1)
    second = _game(store, "classic", [BOB, None, ANN], [0], 2)
    recent = store.recent_games(ANN, limit=5)
    assert [(g.game_id, g.edition, g.seat, g.won) for g in recent] == [
        (second, "classic", 2, False),
        (first, "2019", 0, True),
    ]
    assert recent[0].players == ["bob", "guest1", "ann"]
    assert recent[0].ended_at == T0 + timedelta(hours=2, minutes=30)
    assert [g.game_id for g in store.recent_games(ANN, limit=1)] == [second]


def test_the_leaderboard_ranks_rated_keyed_players_only(store: Store) -> None:
    _game(store, "2019", [ANN, BOB, None], [2], 1)  # the guest wins: never ranked
    _game(store, "2019", [ANN, BOB], [0], 2)
    _game(store, "2019", [ANN, BOB], [1], 3)
    _game(store, "2019", [CAT, ANN], [0], 4)
    _game(store, "2019", [ANN, BOB], [0], 5)
    _game(store, "2019", [CAT, BOB], [0], 6)
    board = store.leaderboard(10)
    # ann: 2 wins in 5; cat: 2 wins in 2; bob: 1 win in 5
    assert [(row.nickname, row.wins, row.games) for row in board] == [
        ("cat", 2, 2),
        ("ann", 2, 5),
        ("bob", 1, 5),
    ]
    assert board[0].win_rate == 1.0 and board[1].win_rate == pytest.approx(0.4)
    assert [row.fingerprint for row in store.leaderboard(1)] == [CAT]


def test_the_leaderboard_shows_current_nicknames(store: Store) -> None:
    _game(store, "2019", [ANN, BOB], [0], 1)
    store.claim_nickname(ANN, "annie", set())
    assert store.leaderboard(1)[0].nickname == "annie"


def test_a_players_rating_history_keeps_their_latest_rated_games_in_order(store: Store) -> None:
    assert store.rating_history(ANN) == []
    for n in range(HISTORY + 3):
        _game(store, "2019", [ANN, BOB], [n % 2], n)
    history = store.rating_history(ANN)
    assert len(history) == HISTORY
    assert history[-1] == pytest.approx(store.rating(ANN).mu)  # type: ignore[union-attr]
    assert store.rating_history(CAT) == []
    store.recompute_ratings()
    assert store.rating_history(ANN) == pytest.approx(history)


def test_favourite_cards_count_the_players_own_plays_in_finished_games(store: Store) -> None:
    game_id = _game(store, "classic", [ANN, BOB], [0], 1)
    plays = [(0, "guard"), (1, "guard"), (0, "priest"), (0, "guard"), (1, "baron")]
    for seq, (seat, card) in enumerate(plays):
        store.record_event(game_id, seq, "play", seat, {"card": card, "targets": []})
    store.record_event(game_id, 9, "discard", 0, {"card": "baron"})
    unfinished = store.start_game("classic", [SeatRecord(ANN, "ann")], T0)
    store.record_event(unfinished, 0, "play", 0, {"card": "king", "targets": []})
    assert store.favourite_cards(ANN) == [("guard", 2), ("priest", 1)]
    assert store.favourite_cards(BOB, limit=1) == [("baron", 1)]


def test_a_players_public_games_leave_out_private_tables(store: Store) -> None:
    public = _game(store, "2019", [ANN, BOB], [0], 1)
    private = store.start_game("2019", [SeatRecord(ANN, "ann")], T0, private=True)
    store.finish_game(private, [0], T0 + timedelta(hours=5))
    assert [g.game_id for g in store.recent_games(ANN)] == [private, public]
    assert [g.game_id for g in store.recent_games(ANN, public=True)] == [public]
