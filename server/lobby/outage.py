"""Turn timers across outages of a scaled server (docs/scaling.md): every table's clock
stops while the core cannot reach the broker (players cannot act then) and goes on with the
time that was left; and a core keeps each human turn timer's time left in the store, once a
second, so that a core taking over after a crash or a stop goes on where the last one was.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..ops.logs import log_error
from ..services.clock import Timer
from ..store import Store, StoreError

if TYPE_CHECKING:
    from .lobby import Lobby
    from .table import Table

TURN_TIMERS = "turn_timers"
"""The store setting holding them: {game id: [events in its log, seat, seconds left]}."""
KEEP_INTERVAL = 1.0
"""Seconds between two writes of the timers (what a crash can lose of them)."""


@dataclass(frozen=True, slots=True)
class KeptTurn:
    """A human's turn timer as the store kept it: for the decision after `events` log
    entries, `seat` had `left` seconds."""

    events: int
    seat: int
    left: float


def pause_clocks(lobby: Lobby) -> None:
    """Stop every table's clock (bots' delays, turn timers, pauses between rounds)."""
    for table in list(lobby.tables.values()):
        table.runner.turns.pause()


def resume_clocks(lobby: Lobby) -> None:
    """Start every table's clock again with the time each timer had left."""
    for table in list(lobby.tables.values()):
        table.runner.turns.resume()


def turn_timers(lobby: Lobby) -> dict[str, list[float]]:
    """Each open game's running (or paused) human turn timer, as the store keeps it."""
    timers: dict[str, list[float]] = {}
    for table in lobby.tables.values():
        kept = _kept_turn(table)
        if kept is not None:
            game_id, turn = kept
            timers[str(game_id)] = [turn.events, turn.seat, round(turn.left, 1)]
    return timers


def _kept_turn(table: Table) -> tuple[int, KeptTurn] | None:
    runner = table.runner
    recorder = runner.record.recorder
    running = runner.turns.turn_left()
    if runner.closed or recorder is None or running is None:
        return None
    return recorder.game_id, KeptTurn(len(runner.log), *running)


def take_turn_timers(store: Store) -> dict[int, KeptTurn]:
    """The turn timers the last core kept, by game id; they are used once (removed)."""
    try:
        text = store.get_setting(TURN_TIMERS)
        store.set_setting(TURN_TIMERS, None)
        stored = json.loads(text) if text else {}
        return {
            int(game): KeptTurn(int(events), int(seat), float(left))
            for game, (events, seat, left) in stored.items()
        }
    except (StoreError, sqlite3.Error, ValueError, TypeError) as err:
        log_error("the kept turn timers could not be read: they start afresh", err)
        return {}


class TimerKeeper:
    """Writes the lobby's turn timers to its store every `KEEP_INTERVAL` seconds (when they
    changed), and once more as it stops."""

    def __init__(self, lobby: Lobby) -> None:
        assert lobby.store is not None
        self._lobby = lobby
        self._store = lobby.store
        self._written: str | None = None
        self._timer: Timer | None = None

    def start(self) -> None:
        """Keep them from now on."""
        self._timer = self._lobby.clock.call_later(KEEP_INTERVAL, self._tick)

    def stop(self, last: bool = True) -> None:
        """Stop; with `last`, keep them one last time (call it before the tables close)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if last:
            self.keep()

    def _tick(self) -> None:
        self._timer = self._lobby.clock.call_later(KEEP_INTERVAL, self._tick)
        self.keep()

    def keep(self) -> None:
        """Write the timers now, unless they are as last written."""
        text = json.dumps(turn_timers(self._lobby), sort_keys=True)
        if text == self._written:
            return
        try:
            self._store.set_setting(TURN_TIMERS, text)
        except (StoreError, sqlite3.Error) as err:
            log_error("could not keep the turn timers", err)
            return
        self._written = text
