"""Monte-Carlo: deal the hidden cards as a seat's beliefs allow, play a choice on with the real
engine, the rest of the round by careful random players, and score the game it leaves."""

from __future__ import annotations

import random
from collections import Counter
from functools import cache
from itertools import chain

from server.engine import (
    CardSpec,
    Choice,
    Game,
    Play,
    Position,
    Redraw,
    Role,
    choice_from_dict,
    find_edition,
)

from .beliefs import Beliefs

ROUND_SHARE_2P = 0.67  # the share of rounds this seat wins against one easy bot, about
ROUND_SHARE_POWER = 0.67  # ... and with n players, that times (2 / n) ** this power
TRIES = 8  # random picks tried before listing the sensible choices
PRINCESS, PRINCE = Role.PRINCESS, Role.PRINCE


def deal_hidden(view: dict, beliefs: Beliefs, rng: random.Random) -> tuple[Position, float] | None:
    """A position the seat's view and beliefs allow, and its importance weight (the hands
    are drawn one seat at a time, not from their joint odds). None if the beliefs do not add up."""
    me, players = view["viewer"], view["players"]
    pool = Counter(view["unseen"])
    pool.subtract(beliefs.known_in_deck())
    if min(pool.values(), default=0) < 0:
        return None
    hands: list[list[str]] = [[] for _ in range(players)]
    hands[me] = list(view["hand"])
    weight = 1.0
    for seat, info in enumerate(view["seats"]):
        if seat == me or not info["alive"]:
            continue
        card, odds = _draw_weighted(pool, beliefs.weights[seat], rng)
        if card is None:
            return None
        hands[seat] = [card]
        weight *= odds
        pool[card] -= 1
    rest = list(pool.elements())
    deck_size = view["deck_size"]
    known = beliefs.bottom[:deck_size]
    if len(rest) != deck_size - sum(card is not None for card in known) + view["set_aside"]:
        return None
    rng.shuffle(rest)
    bottom_first = [card if card is not None else rest.pop() for card in known]
    bottom_first += [rest.pop() for _ in range(deck_size - len(known))]
    return Position(
        hands=hands,
        deck=bottom_first[::-1],
        set_aside=rest,
        face_up=view["face_up"],
        discards=[info["discards"] for info in view["seats"]],
        alive=[info["alive"] for info in view["seats"]],
        protected=[info["protected"] for info in view["seats"]],
        turn=me,
        kind=view["pending"]["kind"],
        marked=view["marked"],
        jester=tuple(view["jester"]) if view["jester"] else None,
    ), weight


def _draw_weighted(
    pool: Counter, weights: dict[str, float], rng: random.Random
) -> tuple[str | None, float]:
    """A card of `pool` by count × weight (by count alone if no card has weight), and the
    total it was drawn from (None, 0 from an empty pool)."""
    odds = {card: n * weights.get(card, 0.0) for card, n in pool.items() if n > 0}
    if sum(odds.values()) <= 0:
        odds = {card: float(n) for card, n in pool.items() if n > 0}
    total = sum(odds.values())
    pick = rng.random() * total
    for card, p in odds.items():
        pick -= p
        if pick < 0:
            return card, total
    return max(odds, key=odds.__getitem__, default=None), total


def play_out(game: Game, rng: random.Random) -> None:
    """Every seat plays the rest of the round as a careful random player."""
    while not game.round_over:
        seat = game.pending.seat
        game.act(seat, careful_choice(game, seat, rng))


def careful_choice(game: Game, seat: int, rng: random.Random) -> Choice:
    """What the easy bot would choose: any choice but one knocking itself out or naming a card
    the seat has seen every copy of."""
    choices = game.pending.choices
    for _ in range(TRIES):
        choice = choices[int(rng.random() * len(choices))]
        if not _reckless(game, seat, choice):
            return choice
    sensible = [choice for choice in choices if not _reckless(game, seat, choice)]
    return rng.choice(sensible or choices)


def _reckless(game: Game, seat: int, choice: Choice) -> bool:
    """Whether `choice` knocks `seat` out for sure or names a card it has seen every copy of."""
    if type(choice) is not Play:
        return type(choice) is Redraw and choice.redraw and game.hands[seat][0].role == PRINCESS
    card = game.edition.by_id[choice.card]
    if card.role == PRINCESS:
        return True
    if card.role == PRINCE and seat in choice.targets:
        hand = game.hands[seat]
        return (hand[1] if hand[0] is card else hand[0]).role == PRINCESS
    return choice.guess is not None and not _nameable(game, seat, choice.guess)


def _nameable(game: Game, seat: int, guess: str | int) -> bool:
    """Whether `guess` names a card `seat` has not seen every copy of."""
    named, copies = _named(game.edition.id)[guess]
    places = (game.hands[seat], game.face_up, *game.discards)
    return sum(map(named.__contains__, chain.from_iterable(places))) < copies


@cache
def _named(edition_id: str) -> dict[str | int, tuple[frozenset[CardSpec], int]]:
    """Per guess: the cards it names, and their copies."""
    edition = find_edition(edition_id)
    named = {}
    for guess in edition.guesses:
        cards = frozenset(
            card
            for card in edition.cards
            if (card.value if edition.guess_by_value else card.id) == guess
        )
        named[guess] = cards, sum(card.count for card in cards)
    return named


def game_share(game: Game, me: int) -> float:
    """This seat's share of the game after the round: exact if the game ended, else its chance
    of winning it from these tokens (see `_chance`)."""
    if game.game_over:
        winners = game.game_winners
        return 1 / len(winners) if me in winners else 0.0
    tokens = game.tokens
    others = tuple(sorted(t for seat, t in enumerate(tokens) if seat != me))
    share = ROUND_SHARE_2P * (2 / game.players) ** ROUND_SHARE_POWER
    return _chance(tokens[me], others, game.target, share)


@cache
def _chance(mine: int, others: tuple[int, ...], target: int, share: float) -> float:
    """The chance of reaching `target` first if each round goes to this seat with `share`,
    else to an opponent at random."""
    if mine >= target:
        return 1.0
    if others and max(others) >= target:
        return 0.0
    odds = share * _chance(mine + 1, others, target, share)
    for i in range(len(others)):
        raised = tuple(sorted((*others[:i], others[i] + 1, *others[i + 1 :])))
        odds += (1 - share) / len(others) * _chance(mine, raised, target, share)
    return odds


def search(
    view: dict, beliefs: Beliefs, candidates: list[dict], deals: int, rng: random.Random
) -> list[float]:
    """Each candidate's mean game share over `deals` dealt positions, the same for each
    (an empty list if the beliefs do not add up to a position)."""
    edition = find_edition(view["edition"])
    tokens = [seat["tokens"] for seat in view["seats"]]
    me = view["viewer"]
    choices = [choice_from_dict(candidate) for candidate in candidates]
    totals = [0.0] * len(candidates)
    weights = 0.0
    for _ in range(deals):
        dealt = deal_hidden(view, beliefs, rng)
        if dealt is None:
            break
        position, weight = dealt
        seed = rng.getrandbits(32)  # each candidate's playout draws alike
        for i, choice in enumerate(choices):
            game = Game.from_position(edition, position, tokens, random.Random(seed))
            game.act(me, choice)
            play_out(game, game.rng)
            totals[i] += weight * game_share(game, me)
        weights += weight
    return [total / weights for total in totals] if weights else []
