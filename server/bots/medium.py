"""The medium bot: counts cards from its own view and log, and scores every legal choice by
the tokens it expects from the round (see `estimate.Table`)."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from server.engine import Choice, Chooses, Keep, Look, Play, Redraw, Role, View

from .beliefs import Beliefs, RoundFollower
from .cards import CAREFUL, CardBook
from .estimate import Dist, Table

INFO_WEIGHT = 0.5  # a look is worth this share of the gain from knocking its target out
GUARD_AFTER_LOOK = 2.0  # a look counts this much more when a Guard is kept to use it
SPY_KEPT = 0.5  # share of the Spy bonus still expected when keeping the Spy for later
SPY_WEIGHT = 0.7  # how much the Spy's token counts against the round's
REDIRECT = 1.0  # share of the attacks a protected seat escapes that knock another player out
LOOKAHEAD_PLAYERS = 4  # look a turn ahead only with this many players in the round, for speed
LOOKAHEAD_MARGIN = 0.3  # ... and only when the best choices keeping different cards are closer
SELF_KNOCKOUT = -100.0  # the score of discarding one's own Princess: below any other choice
NUDGE = 1e-6  # a preference among choices otherwise worth the same
TIE = 1e-9  # scores this close are equal


class MediumBot:
    """Plays the choice with the best estimate, from what its seat has seen and been shown."""

    level = "medium"

    def __init__(self, opponents: str = CAREFUL) -> None:
        self._follower = RoundFollower(opponents)

    def choose(self, view: View, log: list[dict], rng: random.Random) -> Choice:
        """The best-scoring element of `view.choices`, ties broken at random."""
        choices = view.choices
        if len(choices) == 1:
            self._follower.follow(view, log)
            return choices[0]
        scores = self.scores(view, log)
        best = max(scores)
        return rng.choice([c for c, s in zip(choices, scores, strict=True) if s >= best - TIE])

    def scores(self, view: View, log: list[dict]) -> list[float]:
        """The tokens this bot expects from the round after each of `view.choices`."""
        return estimates(view, self._follower.follow(view, log))

    def beliefs(self, view: View, log: list[dict]) -> Beliefs:
        """What this bot believes after `log` (the seat's whole visible log so far)."""
        return self._follower.follow(view, log)


def estimates(view: View, beliefs: Beliefs, look_ahead: bool = True) -> list[float]:
    """The tokens a seat holding `beliefs` expects from the round after each of
    `view.choices`; on a close call at a small table, looking a turn ahead (if `look_ahead`)."""
    choices = view.choices
    score = SCORERS[view.pending.kind]
    table = Table.from_view(view, beliefs)
    scores = [score(table, choice) for choice in choices]
    if look_ahead and _worth_looking_ahead(view, choices, scores):
        table = Table.from_view(view, beliefs, next_turn_value)
        scores = [score(table, choice) for choice in choices]
    return scores


def _worth_looking_ahead(view: View, choices: Sequence[Choice], scores: list[float]) -> bool:
    """Whether a lookahead may change the choice: a small table, and a close call between
    the best choice and the best one keeping another card."""
    if view.pending.kind not in ("play", "chancellor"):
        return False
    if sum(seat.alive for seat in view.seats) > LOOKAHEAD_PLAYERS:
        return False
    best_by_kept: dict[str, float] = {}
    for choice, score in zip(choices, scores, strict=True):
        kept = _kept(view.hand, choice)
        best_by_kept[kept] = max(score, best_by_kept.get(kept, score))
    if len(best_by_kept) < 2:
        return False
    first, second = sorted(best_by_kept.values(), reverse=True)[:2]
    return first - second < LOOKAHEAD_MARGIN


def _kept(hand: list[str], choice: Play | Keep) -> str:
    """The card `choice` keeps in hand."""
    if isinstance(choice, Keep):
        return choice.keep
    kept = list(hand)
    kept.remove(choice.card)
    return kept[0] if kept else choice.card


# ------------------------------------------------------------------ plays


def score_play(table: Table, choice: Play) -> float:
    """Tokens expected from the round after this play."""
    return play_value(table, choice, _kept(table.hand, choice))


def play_value(table: Table, choice: Play, kept: str) -> float:
    """Tokens expected from the round after `choice`, keeping `kept`."""
    score = PLAY_SCORERS.get(table.book.role[choice.card], _no_effect)
    return score(table, choice, kept) + potential(table, kept)


def next_turn_value(table: Table, kept: str) -> float:
    """The lookahead: the best play's value on `table` (the next turn), holding `kept` and
    whatever a draw brings."""
    return sum(p * best_play(table, kept, drawn) for drawn, p in table.draw_odds().items())


def best_play(table: Table, first: str, second: str) -> float:
    """The value of the best play from a hand of `first` and `second`."""
    pairs = [(first, second), (second, first)]
    forced = [(played, kept) for played, kept in pairs if _forced(table.book, played, kept)]
    return table.cached(
        ("best play", *sorted((first, second))),
        lambda: max(
            play_value(table, choice, kept)
            for played, kept in forced or pairs
            for choice in plays_of(table, played)
        ),
    )


def _forced(book: CardBook, played: str, kept: str) -> bool:
    """Whether `played` is a Countess that must be played beside `kept`."""
    return book.has(played, Role.COUNTESS) and book.role[kept] in (Role.KING, Role.PRINCE)


def plays_of(table: Table, card: str) -> list[Play]:
    """The plays of `card` worth considering at a next turn: a Guard's best guess only, a
    Baroness's single looks, a Cardinal's swaps with this seat."""
    book = table.book
    chooses = book.chooses[card]
    others = [seat for seat in table.opponents if seat not in table.protected]
    if chooses is Chooses.ANY:
        target_sets = [(seat,) for seat in (*others, table.me)]
    elif chooses is Chooses.NOBODY or not others:
        target_sets = [()]
    elif chooses is Chooses.OTHER or chooses is Chooses.ONE_OR_TWO_OTHERS:
        target_sets = [(seat,) for seat in others]
    else:
        target_sets = [tuple(sorted((seat, table.me))) for seat in others]
    return [Play(card, targets, _best_guess(table, card, targets)) for targets in target_sets]


def _best_guess(table: Table, card: str, targets: tuple[int, ...]) -> str | int | None:
    """The most likely guess at the target's card, for a Guard or a Bishop."""
    book = table.book
    if not targets or book.role[card] not in (Role.GUARD, Role.BISHOP):
        return None
    seat = targets[0]
    return table.cached(
        ("best guess", seat),
        lambda: max(book.guesses, key=lambda guess: named_odds(table, seat, guess)),
    )


def potential(table: Table, kept: str) -> float:
    """What keeping a Spy promises for the next turn, where no lookahead tells."""
    if table.lookahead is not None or not table.another_turn():
        return 0.0
    if table.book.has(kept, Role.SPY):
        return SPY_KEPT * spy_bonus(table, kept)
    return 0.0


def _no_effect(table: Table, choice: Play, kept: str) -> float:
    return table.win(kept)


def _princess(table: Table, choice: Play, kept: str) -> float:
    return SELF_KNOCKOUT


def named_odds(table: Table, seat: int, guess: str | int | None) -> float:
    """The chance that `seat`'s hand is a card `guess` names."""
    named = table.book.named
    return sum(p for card, p in table.dists[seat].items() if named(card, guess))


def _role_odds(table: Table, dist: Dist, role: Role) -> float:
    return sum(p for card, p in dist.items() if table.book.role[card] is role)


def _guard(table: Table, choice: Play, kept: str) -> float:
    if not choice.targets:
        return table.win(kept)
    seat = choice.targets[0]
    hit = named_odds(table, seat, choice.guess)
    assassin = _role_odds(table, table.dists[seat], Role.ASSASSIN)
    return hit * table.win_without(kept, seat) + (1 - hit - assassin) * table.win(kept)


def info(table: Table, seat: int, kept: str) -> float:
    """What looking at `seat`'s hand is worth: more when less is known and a Guard is kept."""
    dist = table.dists[seat]
    unknown = 1 - max(dist.values(), default=1.0)
    gain = table.win_without(kept, seat) - table.win(kept)
    weight = INFO_WEIGHT * (GUARD_AFTER_LOOK if table.book.has(kept, Role.GUARD) else 1.0)
    return weight * unknown * gain


def _priest(table: Table, choice: Play, kept: str) -> float:
    if not choice.targets:
        return table.win(kept)
    return table.win(kept) + info(table, choice.targets[0], kept)


def _baroness(table: Table, choice: Play, kept: str) -> float:
    return table.win(kept) + sum(info(table, seat, kept) for seat in choice.targets)


def _compare(table: Table, choice: Play, kept: str, lower_loses: bool) -> float:
    if not choice.targets:
        return table.win(kept)
    seat = choice.targets[0]
    mine = table.book.value[kept]
    win = tie = 0.0
    for card, p in table.dists[seat].items():
        theirs = table.book.value[card]
        if theirs == mine:
            tie += p
        elif (theirs < mine) == lower_loses:
            win += p
    return win * table.win_without(kept, seat) + tie * table.win(kept)


def _baron(table: Table, choice: Play, kept: str) -> float:
    return _compare(table, choice, kept, lower_loses=True)


def _dowager_queen(table: Table, choice: Play, kept: str) -> float:
    return _compare(table, choice, kept, lower_loses=False)


def _handmaid(table: Table, choice: Play, kept: str) -> float:
    """Protection: the attacks this seat would suffer fall on the other players instead."""
    if not table.opponents:
        return table.win(kept)
    redirected = 1 - table.survival(kept)
    now = table.win(kept)
    gains = [table.win_without(kept, seat) - now for seat in table.opponents]
    return table.win(kept, shielded=True) + REDIRECT * redirected * sum(gains) / len(gains)


def _prince(table: Table, choice: Play, kept: str) -> float:
    seat = choice.targets[0]
    if seat == table.me:
        if table.book.has(kept, Role.PRINCESS):
            return SELF_KNOCKOUT
        return sum(p * table.win(card) for card, p in table.draw_odds().items())
    princess = _role_odds(table, table.dists[seat], Role.PRINCESS)
    redrawn = table.win_replacing(kept, seat, table.draw_odds())
    return princess * table.win_without(kept, seat) + (1 - princess) * redrawn


def _swap_with(table: Table, seat: int, kept: str) -> float:
    """Trade `kept` for `seat`'s hand, which then holds `kept` for sure (in a lookahead,
    roughly: as if their hand did not change)."""
    if table.looked_ahead:
        return sum(p * table.win(card) for card, p in table.dists[seat].items())
    after = table.holding(kept)
    return sum(p * table.win_replacing(card, seat, after) for card, p in table.dists[seat].items())


def _king(table: Table, choice: Play, kept: str) -> float:
    if not choice.targets:
        return table.win(kept)
    return _swap_with(table, choice.targets[0], kept)


def _cardinal(table: Table, choice: Play, kept: str) -> float:
    if not choice.targets:
        return table.win(kept)
    first, second = choice.targets
    if table.me in (first, second):
        return _swap_with(table, second if first == table.me else first, kept)
    return table.win(kept) + max(info(table, first, kept), info(table, second, kept))


def _chancellor(table: Table, choice: Play, kept: str) -> float:
    """Draw two (or what is left), keep the best of them and `kept`."""
    floor = table.win(kept)
    best = table.best_of_draws(min(2, table.deck_size))
    return sum(p * max(floor, worth) for worth, p in best) if best else floor


def spy_bonus(table: Table, kept: str) -> float:
    """The Spy's token if no other seat in the round shows a Spy at the end, or the token
    denied to the one seat that shows one."""
    if table.me in table.spies:
        return 0.0
    gain = table.spy_outcome(table.spies | {table.me}) - table.spy_outcome(table.spies)
    if not table.spies:
        unseen = sum(table.pool.get(card, 0) for card in table.book.ids_of(Role.SPY))
        gain *= max(0.0, 1 - 0.5 * unseen)
    return SPY_WEIGHT * table.round_survival(kept) * gain


def _spy(table: Table, choice: Play, kept: str) -> float:
    return table.win(kept) + spy_bonus(table, kept)


def _constable(table: Table, choice: Play, kept: str) -> float:
    return table.win(kept) + 1 - table.round_survival(kept)


def _count(table: Table, choice: Play, kept: str) -> float:
    return table.win(kept, bonus=1)


def _jester(table: Table, choice: Play, kept: str) -> float:
    if not choice.targets:
        return table.win(kept)
    seat = choice.targets[0]
    strength = {s: _mean_value(table, d) + 1 for s, d in table.dists.items()}
    their_share = strength[seat] / sum(strength.values())
    return table.win(kept) + (1 - table.win(kept)) * their_share


def _mean_value(table: Table, dist: Dist) -> float:
    return sum(p * table.book.value[card] for card, p in dist.items())


def _bishop(table: Table, choice: Play, kept: str) -> float:
    if not choice.targets:
        return table.win(kept)
    return table.win(kept) + named_odds(table, choice.targets[0], choice.guess)


def _sycophant(table: Table, choice: Play, kept: str) -> float:
    """Mark the leader, if it is not the next to play (whose card could not choose itself)."""
    seat = choice.targets[0]
    if seat == table.me:
        return table.win(kept)
    next_up = table.opponents[0] if table.opponents else None
    return table.win(kept) + NUDGE * (table.tokens[seat] + 1) * (seat != next_up)


PLAY_SCORERS: dict[Role, Callable[[Table, Play, str], float]] = {
    Role.SPY: _spy,
    Role.GUARD: _guard,
    Role.PRIEST: _priest,
    Role.BARON: _baron,
    Role.HANDMAID: _handmaid,
    Role.PRINCE: _prince,
    Role.CHANCELLOR: _chancellor,
    Role.KING: _king,
    Role.PRINCESS: _princess,
    Role.JESTER: _jester,
    Role.CARDINAL: _cardinal,
    Role.BARONESS: _baroness,
    Role.SYCOPHANT: _sycophant,
    Role.COUNT: _count,
    Role.CONSTABLE: _constable,
    Role.DOWAGER_QUEEN: _dowager_queen,
    Role.BISHOP: _bishop,
}


# ------------------------------------------------------------------ sub-decisions


def score_keep(table: Table, choice: Keep) -> float:
    """Chancellor: keep the best card; under the deck, the worse card deeper, unless it
    comes back to this seat."""
    keep = choice.keep
    return table.win(keep) + potential(table, keep) + NUDGE * _bottom_order(table, choice)


def _bottom_order(table: Table, choice: Keep) -> float:
    cycle = [*table.opponents, table.me]
    score = 0.0
    for depth, card in enumerate(choice.bottom):
        drawer = cycle[(table.deck_size + depth) % len(cycle)]
        value = table.book.value[card]
        score += value if drawer == table.me else -value * (1 + depth)
    return score


def score_look(table: Table, choice: Look) -> float:
    """Cardinal: look at the hand this seat knows least about (looking at none is worth
    nothing)."""
    seat = choice.seat
    if seat is None or seat == table.me:
        return 0.0
    return 1 - max(table.dists[seat].values(), default=1.0)


def score_redraw(table: Table, choice: Redraw) -> float:
    """Bishop's target: redraw a card worth less than a fresh draw; never the Princess."""
    held = table.hand[0]
    if not choice.redraw:
        return table.win(held)
    if table.book.has(held, Role.PRINCESS):
        return SELF_KNOCKOUT
    return sum(p * table.win(card) for card, p in table.draw_odds().items())


SCORERS: dict[str, Callable[[Table, Any], float]] = {  # each takes its kind's choices
    "play": score_play,
    "chancellor": score_keep,
    "cardinal_look": score_look,
    "bishop_redraw": score_redraw,
}
