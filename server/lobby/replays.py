"""The `replay` answer: one round of a finished game, rebuilt by the engine from its seed and
action log, as the asker may see it.

Who may see what (docs/replays.md): the public view of any finished game, unless it was
played at a private table (then only its players); a seat's view only by the keyed player
who sat there. Hidden cards are never revealed, not even once the game is over: a seat's
view is exactly what that seat saw then, the public view what a spectator saw.
"""

from __future__ import annotations

from protocol import Replay, ReplayFrame, ReplayRequest, ReplaySeat
from protocol.registry import MAX_NAME, MAX_REPLAY_EVENTS, MAX_REPLAY_FRAMES

from ..services.sanitize import clean_text
from ..services.views import wire_events, wire_view
from ..store import GameRecord, Store
from .errors import TableError
from .rebuild import ReplayError, round_frames

MAX_ACTIONS = 2000  # a stored game longer than this is not replayed (a few hundred is usual)


def replay_for(
    store: Store | None, request: ReplayRequest, viewer: str | None, *, any_seat: bool = False
) -> Replay:
    """Round `request.round` of game `request.game_id` from `request.seat`'s view (None: the
    public one), for `viewer` (a key fingerprint; None for a guest). `any_seat`: the
    operator's own replay (`lovelet replay`), which may open every game from any seat.
    TableError if there is no such game, or the viewer may not see it."""
    if store is None:
        raise TableError("no_store", "this server keeps no games")
    game = _finished_game(store, request.game_id)
    if not any_seat:
        _check_access(game, request, viewer)
    if request.seat is not None and request.seat >= len(game.seats):
        raise TableError("no_such_seat", f"game {game.id} has no seat {request.seat + 1}")
    log = store.action_log(game.id)
    if len(log.actions) > MAX_ACTIONS:
        raise TableError("too_long", f"game {game.id} is too long to replay")
    try:
        played = round_frames(log, request.seat, request.round)
    except ReplayError as err:
        raise TableError("no_replay", f"game {game.id} cannot be replayed: {err}") from None
    if len(played.frames) > MAX_REPLAY_FRAMES or any(
        len(frame.events) > MAX_REPLAY_EVENTS for frame in played.frames
    ):
        raise TableError("too_long", f"round {request.round} is too long to replay")
    return Replay(
        game.id,
        game.edition,
        tuple(ReplaySeat(_name(seat.nickname), seat.bot_level) for seat in game.seats),
        request.seat,
        played.round,
        played.rounds,
        tuple(
            ReplayFrame(f.actor, wire_view(f.view, i), wire_events(f.events, request.seat))
            for i, f in enumerate(played.frames)
        ),
    )


def _finished_game(store: Store, game_id: int) -> GameRecord:
    missing = TableError("no_such_game", f"there is no finished game {game_id}")
    try:
        game = store.game(game_id)
    except KeyError:
        raise missing from None
    if game.status != "finished":
        raise missing
    return game


def _check_access(game: GameRecord, request: ReplayRequest, viewer: str | None) -> None:
    """A private game is only for its players (others are told it does not exist); a
    seat's view only for the keyed player who sat there."""
    seats = [seat.identity for seat in game.seats]
    played = viewer is not None and viewer in seats
    if game.private and not played:
        raise TableError("no_such_game", f"there is no finished game {game.id}")
    if request.seat is None:
        return
    if viewer is None or request.seat >= len(seats) or seats[request.seat] != viewer:
        raise TableError("not_your_seat", "you may replay your own seat's view, or the public view")


def _name(stored: str) -> str:
    return clean_text(stored, MAX_NAME) or "?"
