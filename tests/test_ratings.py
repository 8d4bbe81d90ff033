"""Ratings on a real SQLite file: who is rated, how the estimate moves, recompute = incremental."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from server.services.rating import MU, SIGMA, Entrant, rate
from server.store import SeatRecord, Store

T0 = datetime(2025, 6, 1, tzinfo=UTC)
ANN, BOB, CAT = "SHA256:ann", "SHA256:bob", "SHA256:cat"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "lovelet.db") as opened:
        for key, name in ((ANN, "ann"), (BOB, "bob"), (CAT, "cat")):
            opened.claim_nickname(key, name, set())
        yield opened


def seat(who: str) -> SeatRecord:
    """A keyed player by fingerprint, 'guest', or a bot level."""
    if who.startswith("SHA256:"):
        return SeatRecord(who, who.split(":")[1])
    if who == "guest":
        return SeatRecord(None, "guest")
    return SeatRecord(None, f"{who} bot", who)


def play(store: Store, seats: list[str], winners: list[int], hour: int, tokens=None) -> int:
    game_id = store.start_game("classic", [seat(s) for s in seats], T0 + timedelta(hours=hour))
    if tokens is not None:
        store.record_round(game_id, 1, winners, tokens)
    store.finish_game(game_id, winners, T0 + timedelta(hours=hour, minutes=30))
    return game_id


def test_two_keyed_humans_are_rated_the_winner_up_and_both_surer(store: Store) -> None:
    play(store, [ANN, BOB], [0], 1)
    ann, bob = store.rating(ANN), store.rating(BOB)
    assert ann is not None and bob is not None
    assert ann.mu > MU > bob.mu
    assert ann.sigma < SIGMA and bob.sigma < SIGMA
    assert (ann.games, bob.games) == (1, 1)
    play(store, [ANN, BOB], [0], 2)
    again = store.rating(ANN)
    assert again.mu > ann.mu and again.sigma < ann.sigma and again.games == 2


def test_a_game_with_one_keyed_human_rates_nobody(store: Store) -> None:
    play(store, [ANN, "guest"], [0], 1)
    play(store, [ANN, "easy"], [0], 2)
    play(store, ["guest", "guest", ANN], [2], 3)
    assert store.rating(ANN) is None


def test_guests_take_no_part_and_bots_are_fixed_references() -> None:
    humans = [Entrant(ANN, None, False, 1), Entrant(BOB, None, False, 0)]
    with_guest = rate([*humans, Entrant(None, None, True, 4)], {})
    without = rate(humans, {})
    assert with_guest == without  # the guest who won changes nothing
    beaten_by_easy = rate([*humans, Entrant(None, "easy", True, 4)], {})
    beaten_by_medium = rate([*humans, Entrant(None, "medium", True, 4)], {})
    assert set(beaten_by_easy) == {ANN, BOB}  # the bot gets no rating of its own
    assert beaten_by_easy[ANN].mu < beaten_by_medium[ANN].mu  # losing to a weaker bot costs more


def test_places_after_the_winner_follow_the_tokens(store: Store) -> None:
    play(store, [ANN, BOB, CAT], [0], 1, tokens=[4, 3, 0])
    assert store.rating(BOB).mu > store.rating(CAT).mu


def test_abandoned_and_unfinished_games_are_not_rated(store: Store) -> None:
    store.abandon_game(store.start_game("classic", [seat(ANN), seat(BOB)], T0), T0)
    store.start_game("classic", [seat(ANN), seat(BOB)], T0)
    assert store.ratings_of([ANN, BOB]) == {}


def test_recompute_gives_what_the_games_gave_one_by_one(store: Store) -> None:
    play(store, [ANN, BOB], [0], 1)
    play(store, [BOB, CAT, "medium"], [2], 2, tokens=[1, 0, 5])
    play(store, [CAT, ANN, "guest"], [1], 3, tokens=[2, 6, 0])
    play(store, [ANN, "easy"], [1], 4)
    incremental = store.ratings_of([ANN, BOB, CAT])
    assert store.recompute_ratings() == 3
    assert store.ratings_of([ANN, BOB, CAT]) == incremental


def test_the_leaderboard_ranks_by_rating_from_a_minimum_of_rated_games(store: Store) -> None:
    play(store, [ANN, BOB], [0], 1)
    play(store, [ANN, BOB], [0], 2)
    play(store, [CAT, BOB], [0], 3)
    play(store, [ANN, "easy"], [1], 4)  # unrated, but counted in games and wins
    board = store.leaderboard(10, min_games=1)
    assert [(row.nickname, row.games, row.wins) for row in board] == [
        ("ann", 3, 2),
        ("cat", 1, 1),
        ("bob", 3, 0),
    ]
    assert board[0].rating.mu > board[1].rating.mu > board[2].rating.mu
    assert [row.nickname for row in store.leaderboard(10, min_games=2)] == ["ann", "bob"]
    assert [row.fingerprint for row in store.leaderboard(1, min_games=1)] == [ANN]
