"""The engine's view of a seat and its log events as the protocol's records, and a player's
choice back from the protocol's record to the engine's: the one place any of them changes type.

`server.engine.View` and `protocol.View` have the same fields in the same order
(tests/test_protocol_views.py holds them to it); a choice crosses through the engine's
one choice converter (`choice_to_dict`/`choice_from_dict`) and the protocol's
(`choice_from_wire`/`choice_to_wire`); an event, as a seat may see it (`Event.for_seat`),
becomes its kind's record by the protocol's `event_from_wire`.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from protocol import (
    Choice,
    PendingView,
    SeatView,
    View,
    choice_from_wire,
    choice_to_wire,
    event_from_wire,
    events,
)

from .. import engine


def wire_view(view: engine.View, decision: int = 0) -> View:
    """The protocol record of `view`, its pending decision numbered `decision`."""
    pending = view.pending
    return View(
        view.edition,
        view.players,
        view.viewer,
        view.round,
        view.target,
        view.tokens,
        view.deck_size,
        view.set_aside,
        view.face_up,
        view.hand,
        tuple(map(_seat, view.seats)),
        view.turn,
        PendingView(pending.seat, pending.kind, decision) if pending is not None else None,
        tuple(map(wire_choice, view.choices)),
        view.marked,
        view.jester,
        view.unseen,
        view.round_over,
        view.round_winners,
        view.game_over,
        view.game_winners,
        view.next_start,
    )


@lru_cache(maxsize=8192, typed=True)  # typed: Look(1) == Redraw(True) as tuples
def wire_choice(choice: engine.Choice) -> Choice:
    """The protocol's record of an engine choice (kept: a decision is sent many times)."""
    return choice_from_wire(engine.choice_to_dict(choice))


def engine_choice(choice: Choice) -> engine.Choice:
    """The engine's choice for the protocol's record `choice` (a player's `Act`)."""
    return engine.choice_from_dict(choice_to_wire(choice))


def wire_events(log: Sequence[engine.Event], seat: int | None) -> tuple[events.Event, ...]:
    """The protocol's records of `log`'s events as `seat` (None: a spectator) may see them."""
    return tuple(event_from_wire(event.for_seat(seat)) for event in log)


def _seat(seat: engine.SeatView) -> SeatView:
    return SeatView(seat.alive, seat.protected, seat.discards, seat.hand_size, seat.tokens)
