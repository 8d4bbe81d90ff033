"""Card effects: one plain function per role, run after the card is played."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from itertools import permutations
from typing import TYPE_CHECKING

from .cards import CardSpec, Role
from .choices import Keep, Look, Redraw

if TYPE_CHECKING:
    from .game import Game

Targets = tuple[int, ...]
Guess = str | int | None
# an effect gets the played card, the chosen seats and the named card or number
Effect = Callable[["Game", int, CardSpec, Targets, Guess], None]


def no_effect(game: Game, seat: int, card: CardSpec, targets: Targets, guess: Guess) -> None:
    """Spy, Countess, Count, Constable, Assassin: nothing happens when played."""


def guard(game: Game, seat: int, card: CardSpec, targets: Targets, guess: Guess) -> None:
    """Name a card (or a number, premium); a hit knocks the target out. Assassin turns it back."""
    if not targets:
        return
    target = targets[0]
    held = game.hands[target][0]
    if held.role == Role.ASSASSIN:
        game.emit("assassin", target, guard=seat)
        game.knock_out(seat)
        if game.game_over:
            return
        game.discard_hand(target)
        game.draw_replacement(target)
        return
    hit = (held.value if game.edition.guess_by_value else held.id) == guess
    if game.record:
        game.emit("guess", seat, target=target, guess=guess, hit=hit)
    if hit:
        game.knock_out(target)


def priest(game: Game, seat: int, card: CardSpec, targets: Targets, guess: Guess) -> None:
    """Look at another player's hand, privately."""
    if targets:
        _look(game, seat, targets[0])


def _look(game: Game, seat: int, target: int) -> None:
    if game.record:
        cards = [c.id for c in game.hands[target]]
        game.emit_secret("look", seat, {"cards": cards}, (seat,), target=target)


def baron(game: Game, seat: int, card: CardSpec, targets: Targets, guess: Guess) -> None:
    """Compare hands privately; the lower value is knocked out."""
    _compare(game, seat, targets, lower_loses=True)


def dowager_queen(game: Game, seat: int, card: CardSpec, targets: Targets, guess: Guess) -> None:
    """Compare hands privately; the higher value is knocked out."""
    _compare(game, seat, targets, lower_loses=False)


def _compare(game: Game, seat: int, targets: Targets, lower_loses: bool) -> None:
    if not targets:
        return
    target = targets[0]
    mine, theirs = game.hands[seat][0], game.hands[target][0]
    loser = None
    if mine.value != theirs.value:
        seat_lower = mine.value < theirs.value
        loser = seat if seat_lower == lower_loses else target
    if game.record:
        game.emit_secret(
            "compare",
            seat,
            {"cards": {str(seat): mine.id, str(target): theirs.id}},
            (seat, target),
            target=target,
            loser=loser,
        )
    if loser is not None:
        game.knock_out(loser)


def handmaid(game: Game, seat: int, card: CardSpec, targets: Targets, guess: Guess) -> None:
    """Protection from other players' cards until this player's next turn."""
    game.protect(seat)


def prince(game: Game, seat: int, card: CardSpec, targets: Targets, guess: Guess) -> None:
    """A player discards their hand without effect and draws a new card."""
    target = targets[0]
    discarded = game.discard_hand(target)
    if discarded is not None and discarded.role != Role.PRINCESS:
        game.draw_replacement(target)


def king(game: Game, seat: int, card: CardSpec, targets: Targets, guess: Guess) -> None:
    """Trade hands with another player."""
    if targets:
        _swap(game, seat, seat, targets[0])


def _swap(game: Game, actor: int, a: int, b: int) -> None:
    hands = game.hands
    if game.record:
        before = {str(a): [c.id for c in hands[a]], str(b): [c.id for c in hands[b]]}
        game.emit_secret("swap", actor, {"cards": before}, (a, b), seats=[a, b])
    hands[a], hands[b] = hands[b], hands[a]


def princess(game: Game, seat: int, card: CardSpec, targets: Targets, guess: Guess) -> None:
    """Playing the Princess knocks her player out."""
    game.knock_out(seat)


def chancellor(game: Game, seat: int, card: CardSpec, targets: Targets, guess: Guess) -> None:
    """Draw two (or what is left), keep one, put the rest on the bottom in any order."""
    deck = game.deck
    drawn = deck[:-3:-1]  # the top two cards (or what is left), top first
    if not drawn:
        game.emit("no_effect", seat, card=card.id, why="empty_deck")
        return
    del deck[-2:]
    hand = game.hands[seat]
    hand.extend(drawn)
    if game.record:
        game.emit_secret(
            "chancellor_draw", seat, {"cards": [c.id for c in drawn]}, (seat,), count=len(drawn)
        )
    game.ask(seat, "chancellor", keep_choices(tuple(hand)))


@cache
def keep_choices(hand: tuple[CardSpec, ...]) -> tuple[Keep, ...]:
    """Every way to keep one card and order the rest for the bottom, without repeats."""
    seen: dict[Keep, None] = {}
    for order in permutations(card.id for card in hand):
        seen.setdefault(Keep(order[0], order[1:]), None)
    return tuple(seen)


def sycophant(game: Game, seat: int, card: CardSpec, targets: Targets, guess: Guess) -> None:
    """Mark a player; the next card played that chooses players must include them."""
    game.marked = targets[0]
    game.emit("marked", seat, target=game.marked)


def baroness(game: Game, seat: int, card: CardSpec, targets: Targets, guess: Guess) -> None:
    """Look privately at the hands of one or two other players."""
    for target in targets:
        _look(game, seat, target)


NO_LOOK = Look(None)  # the Cardinal's player looks at neither hand


def cardinal(game: Game, seat: int, card: CardSpec, targets: Targets, guess: Guess) -> None:
    """Two players swap hands; then the Cardinal's player may look at one of the two hands:
    the other one, if it was one of the two (it holds its own)."""
    if not targets:
        return
    a, b = targets
    _swap(game, seat, a, b)
    looks: tuple[Look, ...]
    if seat == a:
        looks = (Look(b), NO_LOOK)
    elif seat == b:
        looks = (Look(a), NO_LOOK)
    else:
        looks = (Look(a), Look(b), NO_LOOK)
    game.ask(seat, "cardinal_look", looks)


def cardinal_look(game: Game, seat: int, look: Look) -> None:
    """The Cardinal's player looks at the chosen hand, or at none."""
    if look.seat is None:
        game.emit("no_look", seat)
    else:
        _look(game, seat, look.seat)


def jester(game: Game, seat: int, card: CardSpec, targets: Targets, guess: Guess) -> None:
    """Choose another player; if they win the round, the Jester's player gains a token."""
    if targets:
        game.jester = (seat, targets[0])
        game.emit("jester", seat, target=targets[0])


def bishop(game: Game, seat: int, card: CardSpec, targets: Targets, guess: Guess) -> None:
    """Name a number; a hit gains a token and lets the target discard and redraw."""
    if not targets:
        return
    target = targets[0]
    hit = game.hands[target][0].value == guess
    game.emit("guess", seat, target=target, guess=guess, hit=hit)
    if not hit:
        return
    game.gain_token(seat, "bishop")
    if not game.game_over:
        game.ask(target, "bishop_redraw", (Redraw(True), Redraw(False)))


def bishop_redraw(game: Game, seat: int, redraw: Redraw) -> None:
    """The Bishop's target discards and draws, or keeps their hand."""
    game.emit("redraw", seat, redraw=redraw.redraw)
    if redraw.redraw:
        discarded = game.discard_hand(seat)
        if discarded is not None and discarded.role != Role.PRINCESS:
            game.draw_replacement(seat)


EFFECTS: dict[str, Effect] = {
    Role.SPY: no_effect,
    Role.GUARD: guard,
    Role.PRIEST: priest,
    Role.BARON: baron,
    Role.HANDMAID: handmaid,
    Role.PRINCE: prince,
    Role.CHANCELLOR: chancellor,
    Role.KING: king,
    Role.COUNTESS: no_effect,
    Role.PRINCESS: princess,
    Role.ASSASSIN: no_effect,
    Role.JESTER: jester,
    Role.CARDINAL: cardinal,
    Role.BARONESS: baroness,
    Role.SYCOPHANT: sycophant,
    Role.COUNT: no_effect,
    Role.CONSTABLE: no_effect,
    Role.DOWAGER_QUEEN: dowager_queen,
    Role.BISHOP: bishop,
}
