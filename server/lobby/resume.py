"""Tables that survive a restart: at start, every table whose game was in progress when the
server stopped (killed, crashed, or stopped on purpose) is rebuilt from the store.

The game is replayed with the engine from its seed and actions, as `server.lobby.rebuild`
does, and checked against the stored log; the table gets back its code, name, settings, seats and
host. Every human seat is held for the grace period, awaited: no bot decides for it before
its turn timer (started afresh, or with the time a scaled core kept: `outage`) runs out or,
without a timer, before the grace does. Then the takeover bot plays the seat for whoever did
not come back. A player with a key is back
in their seat as they log in; a guest types their rejoin code; spectators join by the code.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from dataclasses import dataclass

from ..bots import LEVELS
from ..engine import Event, Game, choice_from_dict, find_edition
from ..ops.logs import log_error, log_tables_resumed
from ..store import EventRecord, GameRecorder, KeptTable
from ..store.times import now as utc_now
from .board import Board
from .hints import HintRule
from .lobby import Lobby
from .outage import KeptTurn, take_turn_timers
from .rebuild import ReplayError
from .runner import Deps, TableSettings
from .seating import Seat
from .table import Table


@dataclass(frozen=True, slots=True)
class Resumed:
    """What a start rebuilt: the tables (by code) and the games that could not be rebuilt."""

    tables: tuple[str, ...]
    games: tuple[int, ...]  # the rebuilt tables' games, still in progress
    failed: tuple[int, ...]  # games that could not be rebuilt, now abandoned


def resume_tables(lobby: Lobby) -> Resumed:
    """Rebuild every kept table of `lobby.store` into `lobby`; a table that cannot be rebuilt
    is logged and its game abandoned."""
    store = lobby.store
    if store is None:
        return Resumed((), (), ())
    started = time.perf_counter()
    deps = Deps(lobby.rng, lobby.clock, lobby.bots, store, lobby.metrics)
    tables: list[Table] = []
    failed: list[int] = []
    turns = take_turn_timers(store)
    for kept in store.kept_tables():
        turn = turns.get(kept.game_id)
        try:
            tables.append(rebuild_table(kept, lobby.settings.table, lobby.board, deps, turn))
        except Exception as err:  # one table's bad record must not stop the server
            log_error(
                "could not rebuild a table: its game is abandoned",
                err,
                table=kept.table.code,
                game=kept.game_id,
            )
            store.abandon_game(kept.game_id)
            failed.append(kept.game_id)
    resumed = Resumed(
        tuple(table.code for table in tables),
        tuple(t.runner.record.recorder.game_id for t in tables if t.runner.record.recorder),
        tuple(failed),
    )
    log_tables_resumed(len(resumed.tables), len(failed), time.perf_counter() - started)
    return resumed


def rebuild_table(
    kept: KeptTable,
    settings: TableSettings,
    board: Board,
    deps: Deps,
    turn: KeptTurn | None = None,
) -> Table:
    """The table `kept` describes, open on `board`, its game going on where it stopped (and
    its turn timer where `turn`, kept by the last core, says, if it is for the same decision
    and a keyed player's: a guest's comes back only with their rejoin code, and gets a whole
    turn).

    Raises ReplayError if the stored game does not rebuild (nothing is opened then).
    """
    assert deps.store is not None
    game, log = rebuild_game(kept)
    record = kept.table
    private = bool(record.settings.get("private", False))
    code = record.code if record.code not in board.tables else board.new_code(private)
    table = Table(
        code,
        record.name,
        game.edition,
        game.players,
        record.settings.get("timer"),
        settings,
        board,
        deps,
        bool(record.settings.get("takeover", False)),
        private,
        HintRule(record.settings.get("hints")),
        bot_level=record.settings.get("bot_level", LEVELS[0]),
    )
    table.seating.programs_delay = record.settings.get("bot_delay")
    board.adopt(table)
    _seat_everyone(table, kept)
    actions = len(kept.actions.actions)
    recorder = GameRecorder.resume(deps.store, kept.game_id, len(kept.events), actions, game.round)
    age = (utc_now() - kept.started_at).total_seconds()
    same = turn is not None and turn.events == len(log)
    # a guest takes the seat back by typing a rejoin code: their turn starts afresh
    left = (
        (turn.seat, turn.left)
        if same and turn is not None and turn.seat not in kept.guests
        else None
    )
    table.runner.resume(game, log, recorder, max(age, 0.0), actions, left)
    return table


def rebuild_game(kept: KeptTable) -> tuple[Game, list[Event]]:
    """The kept table's game as it stood (its seed and actions replayed) and the table's log.

    Raises ReplayError if there is no seed, an action does not apply, or the replayed game
    does not give the stored log.
    """
    actions = kept.actions
    if actions.seed is None:
        raise ReplayError("this game was stored without its seed")
    game = Game(find_edition(actions.edition), actions.players, random.Random(actions.seed))
    game.start_round()
    for action in actions.actions:
        if game.round_over and not game.game_over:
            game.start_round()
        try:
            game.act(action.seat, choice_from_dict(action.choice))
        except Exception as err:
            raise ReplayError(f"action {action.seq} does not apply: {err}") from err
    if game.game_over:
        raise ReplayError("the game is over but was not recorded as finished")
    dealt = sum(record.kind == "round_start" for record in kept.events)
    if game.round_over and dealt > game.round:
        game.start_round()  # the next round was dealt before anyone acted in it
    return game, table_log(game.events, kept.events)


def table_log(engine: Sequence[Event], stored: Sequence[EventRecord]) -> list[Event]:
    """The table's log: the engine's own events, with the entries the table added (a bot
    playing for someone) where the store has them. ReplayError if they disagree."""
    log: list[Event] = []
    made = 0
    for record in stored:
        if made < len(engine) and (engine[made].kind, engine[made].seat) == (
            record.kind,
            record.seat,
        ):
            log.append(engine[made])
            made += 1
        else:
            log.append(
                Event(record.kind, record.seat, record.public, record.secret, record.audience)
            )
    if made != len(engine):
        raise ReplayError(f"the stored log holds {made} of the game's {len(engine)} events")
    return log


def _seat_everyone(table: Table, kept: KeptTable) -> None:
    """Bots in their seats; every human's seat held and awaited; the host as it was."""
    seating, guests = table.seating, kept.guests
    for index, record in enumerate(kept.seats):
        if record.bot_level is not None:
            seating.seats[index] = Seat(name=record.nickname, bot_level=record.bot_level)
            continue
        guest = guests.get(index)
        seating.seats[index] = Seat(
            record.nickname,
            record.identity or f"guest:kept:{kept.game_id}:{index}",
            guest=record.identity is None,
            rejoin=guest.rejoin if guest else None,
            address=guest.address if guest else None,
            awaited=True,
        )
        table.doors.hold(index)
    host = kept.table.host_seat
    humans = [seat for seat in seating.seats if seat.identity]
    if host is not None and 0 <= host < len(seating.seats) and seating.seats[host].identity:
        humans.insert(0, seating.seats[host])
    if humans:
        seating.host, seating.host_name = humans[0].identity, humans[0].name
