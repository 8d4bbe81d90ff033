"""Legal choices for a turn's play, and why a given choice is not one of them."""

from __future__ import annotations

from itertools import combinations
from typing import TYPE_CHECKING, cast

from .cards import CardSpec, Chooses, Role
from .choices import Choice, Decision, Play
from .effects import EFFECTS, Effect

if TYPE_CHECKING:
    from .game import Game

_FORCING_ROLES = (Role.KING, Role.PRINCE)


def forced_card(hand: list[CardSpec]) -> CardSpec | None:
    """The Countess if the hand forces her to be played, else None."""
    roles = [card.role for card in hand]
    if Role.COUNTESS in roles and any(role in _FORCING_ROLES for role in roles):
        return hand[roles.index(Role.COUNTESS)]
    return None


MEMO_LIMIT = 20_000  # entries per memo before it starts afresh: bounds memory

Step = tuple[CardSpec, Effect, tuple[int, ...], str | int | None]  # card, effect, targets, guess
Steps = dict[Choice, Step]  # legal plays in order, each with what playing it takes
# a play decision; the steps of one card's plays, the other's; every step, in the order of the
# decision's choices (so that a playout picks a step by its index, unhashed)
Offer = tuple[Decision, Steps, Steps, tuple[Step, ...]]
OfferKey = tuple[CardSpec, CardSpec, int, int, int | None]  # hand, seat, unchoosable, marked


def play_offer(game: Game, seat: int) -> Offer:
    """The pending play decision of `seat`'s turn: every legal whole play (card, targets, guess).

    Memoised per edition and player count by hand, seat, who may be chosen and the Sycophant's
    mark (see `Game._begin_turn`), since the same few situations recur in every round.
    """
    first, second = game.hands[seat]
    key = (first, second, seat, game.unchoosable, game.marked)
    memo = game.offers
    found = memo.get(key)
    if found is None:
        if len(memo) >= MEMO_LIMIT:
            memo.clear()
        steps, more = hand_steps(game, first, second, seat)
        if game.marked is not None:
            steps, more = _including(steps | more, game.marked), {}
        decision = Decision(seat, "play", (*steps, *more))
        found = memo[key] = decision, steps, more, (*steps.values(), *more.values())
    return found


def hand_steps(game: Game, first: CardSpec, second: CardSpec, seat: int) -> tuple[Steps, Steps]:
    """The steps of a two-card hand's plays, card by card, the forced Countess aside.

    The tables are the card memo's own, shared (read only): merged tables, one per hand, would
    triple the memory the memos hold.
    """
    forced = forced_card([first, second])
    if forced is not None:
        return _card_steps(game, forced, seat), {}
    if first is second:
        return _card_steps(game, first, seat), {}
    return _card_steps(game, first, seat), _card_steps(game, second, seat)


def _card_steps(game: Game, card: CardSpec, seat: int) -> Steps:
    key = (card, seat, game.unchoosable, game.players)
    memo = game.edition.card_plays_memo
    steps = memo.get(key)
    if steps is None:
        if len(memo) >= MEMO_LIMIT:
            memo.clear()
        others = tuple(
            t for t in range(game.players) if t != seat and not game.unchoosable >> t & 1
        )
        effect = EFFECTS[card.role]
        plays = card_plays(card, seat, others, game.edition.guesses)
        steps = memo[key] = {play: (card, effect, play.targets, play.guess) for play in plays}
    return steps


def card_plays(
    card: CardSpec, seat: int, others: tuple[int, ...], guesses: tuple[str | int, ...]
) -> tuple[Play, ...]:
    """The plays of one card given the other players it may choose."""
    chooses = card.chooses
    if chooses == Chooses.NOBODY:
        return (Play(card.id),)
    target_sets: list[tuple[int, ...]]
    if chooses == Chooses.OTHER:
        target_sets = [(t,) for t in others]
    elif chooses == Chooses.ANY:
        target_sets = [(t,) for t in sorted((*others, seat))]
    elif chooses == Chooses.ONE_OR_TWO_OTHERS:
        target_sets = [(t,) for t in others] + list(combinations(others, 2))
    else:
        target_sets = list(combinations(sorted((*others, seat)), 2))
    if not target_sets:
        return (Play(card.id),)
    if card.guesses:
        return tuple(Play(card.id, ts, g) for ts in target_sets for g in guesses)
    return tuple(Play(card.id, ts) for ts in target_sets)


def _including(steps: Steps, marked: int) -> Steps:
    """Sycophant: of each card's plays, only those choosing `marked`, if it has any."""
    by_card: dict[str, list[Play]] = {}
    for play in steps:
        play = cast(Play, play)  # the steps of a play decision are plays
        by_card.setdefault(play.card, []).append(play)
    kept: Steps = {}
    for card_plays_ in by_card.values():
        with_mark = [play for play in card_plays_ if marked in play.targets]
        for play in with_mark or card_plays_:
            kept[play] = steps[play]
    return kept


def explain(game: Game, seat: int, choice: Choice) -> str:
    """Why `choice` is not legal for `seat` now (a sentence for the player)."""
    decision = game.pending
    assert decision is not None
    if decision.kind != "play":
        return f"expected a {decision.kind} choice, one of {len(decision.choices)} offered"
    if not isinstance(choice, Play):
        return "expected a play: a card from your hand"
    return _explain_play(game, seat, choice)


def _explain_play(game: Game, seat: int, play: Play) -> str:
    card = game.edition.by_id.get(play.card)
    if card is None or card not in game.hands[seat]:
        return f"seat {seat} does not hold {play.card!r}"
    forced = forced_card(game.hands[seat])
    if forced is not None and card is not forced:
        return f"the {forced.name} must be played while holding the King or a Prince"
    for target in play.targets:
        reason = _explain_target(game, seat, card, target)
        if reason:
            return reason
    if card.guesses and play.guess not in game.edition.guesses:
        return f"{play.guess!r} cannot be named (allowed: {list(game.edition.guesses)})"
    if game.marked is not None and card.choosing:
        return f"the Sycophant's mark: this card must choose seat {game.marked} if it can"
    return f"{play.card} with targets {list(play.targets)} is not a legal play now"


def _explain_target(game: Game, seat: int, card: CardSpec, target: object) -> str:
    if not isinstance(target, int) or not 0 <= target < game.players:
        return f"{target!r} is not a seat"
    if target == seat and card.chooses in (Chooses.OTHER, Chooses.ONE_OR_TWO_OTHERS):
        return f"the {card.name} must choose another player"
    if not game.alive[target]:
        return f"seat {target} is eliminated from this round"
    if target != seat and game.protected[target]:
        return f"seat {target} is protected"
    return ""
