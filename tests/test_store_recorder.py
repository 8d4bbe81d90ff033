"""GameRecorder: a real engine game mirrored into the store, complete enough to replay."""

from __future__ import annotations

import json
import logging
import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from server.engine import EDITIONS, Event, Game, find_edition
from server.store import SeatRecord, Store
from server.store.recorder import GameRecorder

ANN = "SHA256:ann"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "lovelet.sqlite3") as opened:
        opened.claim_nickname(ANN, "ann", set())
        yield opened


def _seats(players: int) -> list[SeatRecord]:
    return [SeatRecord(ANN, "ann")] + [
        SeatRecord(None, f"easy bot {i + 1}", "easy") for i in range(1, players)
    ]


def _play(store: Store, edition: str, players: int, seed: int) -> tuple[Game, GameRecorder]:
    """A whole game of random legal choices, synced after every step as the table does."""
    rng = random.Random(seed)
    game = Game(find_edition(edition), players, rng)
    recorder = GameRecorder.start(store, edition, _seats(players))
    while not game.game_over:
        game.start_round()
        recorder.sync(game.events)
        while not game.round_over:
            decision = game.pending
            game.act(decision.seat, rng.choice(decision.choices))
            recorder.sync(game.events)
    return game, recorder


def _plain(value: object) -> object:
    return json.loads(json.dumps(value))


@pytest.mark.parametrize("edition", sorted(EDITIONS))
def test_a_recorded_game_replays_every_seats_view(store: Store, edition: str) -> None:
    players = find_edition(edition).min_players
    game, recorder = _play(store, edition, players, seed=len(edition))
    log = store.game_log(recorder.game_id)
    assert recorder.finished and log.game.status == "finished"
    assert log.game.winners == game.game_winners
    ends = [e.public for e in game.events if e.kind == "round_end"]
    assert [(r.winners, r.tokens) for r in log.rounds] == [
        (e["winners"], e["tokens"]) for e in ends
    ]
    assert [r.round_no for r in log.rounds] == list(range(1, len(ends) + 1))
    replayed = [Event(e.kind, e.seat, e.public, e.secret, e.audience) for e in log.events]
    assert len(replayed) == len(game.events)
    for seat in (None, *range(players)):
        original = [_plain(e.for_seat(seat)) for e in game.events]
        assert [e.for_seat(seat) for e in replayed] == original
    assert store.player_stats(ANN)[edition].games == 1


def test_autoplay_entries_the_table_adds_are_recorded_too(store: Store) -> None:
    recorder = GameRecorder.start(store, "2019", _seats(2))
    recorder.sync([Event("autoplay", 1, {"reason": "timeout"})])
    recorder.sync([Event("autoplay", 1, {"reason": "timeout"})])  # nothing new
    assert [e.kind for e in store.game_log(recorder.game_id).events] == ["autoplay"]


def test_an_abandoned_game_is_marked_once_and_never_counts(store: Store) -> None:
    recorder = GameRecorder.start(store, "classic", _seats(2))
    game_id = recorder.game_id
    recorder.abandon()
    recorder.abandon()
    assert store.game_log(game_id).game.status == "abandoned"
    assert store.player_stats(ANN) == {}


def test_a_finished_game_is_not_abandoned(store: Store) -> None:
    _, recorder = _play(store, "classic", 2, seed=3)
    game_id = recorder.game_id
    recorder.abandon()
    assert store.game_log(game_id).game.status == "finished"


def test_a_storage_failure_stops_recording_not_the_game(
    store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    recorder = GameRecorder.start(store, "2019", _seats(2))
    store.close()
    with caplog.at_level(logging.ERROR):
        recorder.sync([Event("draw", 0, {}, {"card": "princess"}, (0,))])
        recorder.sync([Event("draw", 0, {}, {"card": "princess"}, (0,))])
        recorder.abandon()
    assert not recorder.recording
    assert len(caplog.records) == 1
    assert "princess" not in caplog.text  # never a hidden card in the logs


def test_a_guest_identity_is_refused_and_the_game_goes_on(
    store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.ERROR):
        recorder = GameRecorder.start(store, "2019", [SeatRecord("guest:1234", "g")])
    recorder.sync([Event("round_start", None, {"round": 1})])
    assert not recorder.recording
    assert "could not record" in caplog.text
