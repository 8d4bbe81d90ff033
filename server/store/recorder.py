"""`GameRecorder`: one table game's log written to the store as it happens.

The table calls `action(seat, choice)` for each decision the engine accepted and `sync(log)`
after every change; the recorder writes the actions and entries it has not written yet and the
round and game results they announce, as one transaction committed before `sync` returns (so
before any client is sent them). A storage failure is logged once and ends
the recording, never the game.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..engine import Choice, choice_to_dict
from .games import SeatRecord
from .ratings import RatingChange
from .tables import GuestRecord, TableRecord

if TYPE_CHECKING:
    from ..engine import Event
    from .store import Store

log = logging.getLogger(__name__)


def _failed(message: str, error: Exception, **fields: object) -> None:
    """A storage failure, with its traceback and context fields, through stdlib logging (the
    operator's handlers format `fields`; the store imports no operations code)."""
    log.error(message, exc_info=error, extra={"fields": fields})


class GameRecorder:
    """Mirrors one game's event log into the store; every method is safe to call on failure."""

    def __init__(self, store: Store, game_id: int | None) -> None:
        self._store = store
        self.game_id = game_id
        self.finished = False
        self._written = 0
        self._round = 0
        self._actions = 0
        self._unwritten: list[tuple[int, Choice]] = []
        self.rated: dict[str, RatingChange] = {}  # by identity, once a rated game finished

    @classmethod
    def start(
        cls,
        store: Store,
        edition: str,
        seats: Sequence[SeatRecord],
        seed: int | None = None,
        table: TableRecord | None = None,
    ) -> GameRecorder:
        """Record a new game seeded with `seed` (and keep its `table` until it ends); if that
        fails, a recorder that records nothing."""
        try:
            return cls(store, store.start_game(edition, seats, seed=seed, table=table))
        except Exception as err:
            _failed("could not record a new game", err, edition=edition)
            return cls(store, None)

    @classmethod
    def resume(
        cls, store: Store, game_id: int, entries: int, actions: int, round_no: int
    ) -> GameRecorder:
        """Go on recording game `game_id` rebuilt after a restart, whose first `entries` log
        entries and `actions` actions are stored, in round `round_no`."""
        recorder = cls(store, game_id)
        recorder._written, recorder._actions, recorder._round = entries, actions, round_no
        return recorder

    @property
    def recording(self) -> bool:
        """Whether writes still go to the store."""
        return self.game_id is not None

    def action(self, seat: int, choice: Choice) -> None:
        """The engine accepted `seat`'s `choice`; written with the next `sync`."""
        if self.game_id is not None:
            self._unwritten.append((seat, choice))

    def sync(self, log: Sequence[Event]) -> None:
        """Write the pending actions and the entries of `log` not yet written."""
        if self.game_id is None or (self._written == len(log) and not self._unwritten):
            return
        try:
            with self._store.batch():
                for offset, (seat, choice) in enumerate(self._unwritten):
                    seq = self._actions + offset
                    self._store.record_action(self.game_id, seq, seat, choice_to_dict(choice))
                for seq in range(self._written, len(log)):
                    self._write(seq, log[seq])
            self._actions += len(self._unwritten)
            self._unwritten.clear()
            self._written = len(log)
        except Exception as err:
            _failed("game log not saved; recording stopped", err, game=self.game_id)
            self.game_id = None

    def _write(self, seq: int, event: Event) -> None:
        store, game_id = self._store, self.game_id
        store.record_event(
            game_id, seq, event.kind, event.seat, event.public, event.secret, event.to
        )
        if event.kind == "round_start":
            self._round = event.public["round"]
        elif event.kind == "round_end":
            store.record_round(
                game_id, self._round, event.public["winners"], event.public["tokens"]
            )
        elif event.kind == "game_end":
            self.rated = store.finish_game(game_id, event.public["winners"])
            self.finished = True

    def replace_seat(self, seat: int, record: SeatRecord) -> None:
        """`record` plays `seat` from now on (and is credited with its result); once the game
        is over, nothing changes (a player leaving a finished table keeps their result)."""
        if self.game_id is None or self.finished:
            return
        try:
            self._store.replace_seat(self.game_id, seat, record)
        except Exception as err:
            _failed("could not record a seat's new player", err, game=self.game_id)

    def keep_guest(self, seat: int, guest: GuestRecord) -> None:
        """The guest at `seat` takes it back with `guest.rejoin` after a restart too."""
        if self.game_id is None:
            return
        try:
            self._store.keep_guest(self.game_id, seat, guest)
        except Exception as err:
            _failed("could not keep a guest's rejoin code", err, game=self.game_id)

    def abandon(self) -> None:
        """The game stops unfinished (table closed, server stopping); not in the stats."""
        if self.game_id is None or self.finished:
            return
        try:
            self._store.abandon_game(self.game_id)
        except Exception as err:
            _failed("could not mark a game abandoned", err, game=self.game_id)
        self.game_id = None
