"""The one place information leaves a game: a seat's view, or the spectators'."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .choices import choice_to_dict

if TYPE_CHECKING:
    from .game import Game


def make_view(game: Game, seat: int | None) -> dict:
    """Everything `seat` may know now, as plain data (`None`: a spectator).

    Other players' hands appear only as sizes; what an effect showed this seat is in its
    log (`Game.log`), not here. Choices are listed only for the seat that must decide.
    """
    pending = game.pending
    own_hand = [card.id for card in game.hands[seat]] if seat is not None else []
    return {
        "edition": game.edition.id,
        "players": game.players,
        "viewer": seat,
        "round": game.round,
        "target": game.target,
        "tokens": list(game.tokens),
        "deck_size": len(game.deck),
        "set_aside": len(game.set_aside),
        "face_up": [card.id for card in game.face_up],
        "hand": own_hand,
        "seats": [_seat_view(game, s) for s in range(game.players)],
        "turn": game.turn,
        "pending": {"seat": pending.seat, "kind": pending.kind} if pending else None,
        "choices": _choices_for(game, seat),
        "marked": game.marked,
        "jester": list(game.jester) if game.jester else None,
        "unseen": _unseen(game, own_hand),
        "cards": game.edition.reference,
        "round_over": game.round_over,
        "round_winners": list(game.round_winners),
        "game_over": game.game_over,
        "game_winners": list(game.game_winners),
        "next_start": game.next_start,
    }


def _seat_view(game: Game, seat: int) -> dict:
    return {
        "alive": game.alive[seat],
        "protected": game.protected[seat],
        "discards": [card.id for card in game.discards[seat]],
        "hand_size": len(game.hands[seat]),
        "tokens": game.tokens[seat],
    }


def _choices_for(game: Game, seat: int | None) -> list[dict]:
    pending = game.pending
    if pending is None or seat != pending.seat:
        return []
    return [choice_to_dict(choice) for choice in pending.choices]


def _unseen(game: Game, own_hand: list[str]) -> dict[str, int]:
    """How many copies of each card this seat has not seen: not in its hand, discards, face up."""
    unseen = {card.id: card.count for card in game.edition.cards}
    for card_id in own_hand:
        unseen[card_id] -= 1
    for card in game.face_up:
        unseen[card.id] -= 1
    for pile in game.discards:
        for card in pile:
            unseen[card.id] -= 1
    return unseen
