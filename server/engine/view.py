"""The one place information leaves a game: a seat's view, or the spectators'.

A view is a frozen record (`View`, with a `SeatView` per seat and the `PendingView`);
`protocol.View` is its wire twin, field for field (tests/test_protocol_views.py keeps them so).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .choices import Choice

if TYPE_CHECKING:
    from .game import Game


@dataclass(frozen=True, slots=True)
class SeatView:
    """What everyone may know of one seat."""

    alive: bool
    protected: bool
    discards: tuple[str, ...]  # card ids, oldest first
    hand_size: int
    tokens: int


@dataclass(frozen=True, slots=True)
class PendingView:
    """Whose decision is awaited, and of which kind ("play", "chancellor", ...)."""

    seat: int
    kind: str


@dataclass(frozen=True, slots=True)
class View:
    """Everything one seat (`viewer`; None: a spectator) may know at one moment.

    Other players' hands appear only as sizes; what an effect showed this seat is in its log
    (`Game.log`), not here. `choices` are the pending decision's legal choices, for the seat
    that must decide only. `unseen`: copies of each card not in the viewer's hand, the
    discards or face up. The edition's cards themselves are in its reference (the protocol's
    catalogue), not here.
    """

    edition: str
    players: int
    viewer: int | None
    round: int
    target: int  # tokens to win
    tokens: tuple[int, ...]
    deck_size: int
    set_aside: int  # cards set aside face down
    face_up: tuple[str, ...]
    hand: tuple[str, ...]  # the viewer's card ids; empty for a spectator
    seats: tuple[SeatView, ...]
    turn: int | None
    pending: PendingView | None
    choices: tuple[Choice, ...]
    marked: int | None  # the Sycophant's chosen seat
    jester: tuple[int, int] | None  # (the Jester's player, the seat they bet on)
    unseen: Mapping[str, int]
    round_over: bool
    round_winners: tuple[int, ...]
    game_over: bool
    game_winners: tuple[int, ...]
    next_start: int | None


def make_view(game: Game, seat: int | None) -> View:
    """Everything `seat` may know now (`None`: a spectator)."""
    pending = game.pending
    own_hand = tuple(card.id for card in game.hands[seat]) if seat is not None else ()
    return View(
        game.edition.id,
        game.players,
        seat,
        game.round,
        game.target,
        tuple(game.tokens),
        len(game.deck),
        len(game.set_aside),
        tuple(card.id for card in game.face_up),
        own_hand,
        tuple(_seat_view(game, s) for s in range(game.players)),
        game.turn,
        PendingView(pending.seat, pending.kind) if pending else None,
        tuple(pending.choices) if pending is not None and seat == pending.seat else (),
        game.marked,
        game.jester,
        _unseen(game, seat, own_hand),
        game.round_over,
        tuple(game.round_winners),
        game.game_over,
        tuple(game.game_winners),
        game.next_start,
    )


def _seat_view(game: Game, seat: int) -> SeatView:
    return SeatView(
        game.alive[seat],
        game.protected[seat],
        tuple(card.id for card in game.discards[seat]),
        len(game.hands[seat]),
        game.tokens[seat],
    )


def _unseen(game: Game, seat: int | None, own_hand: tuple[str, ...]) -> dict[str, int]:
    """How many copies of each card this seat has not seen: not in its hand, discards, face
    up, or another's hand shown at the showdown."""
    unseen = {card.id: card.count for card in game.edition.cards}
    for card_id in own_hand:
        unseen[card_id] -= 1
    for card in game.face_up:
        unseen[card.id] -= 1
    for pile in game.discards:
        for card in pile:
            unseen[card.id] -= 1
    if game.shown_down:
        for other, hand in enumerate(game.hands):
            for card in hand if other != seat else ():
                unseen[card.id] -= 1
    return unseen
