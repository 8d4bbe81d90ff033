"""The hard bot: medium's estimate, then a search over positions dealt from its beliefs.

Determinized Monte-Carlo: deal the cards the seat cannot see as its beliefs weigh them, play
each of the few best choices (by medium's estimate) on in the real engine from that same
position, every seat then deciding as medium does from what it would see, until this seat's
next turn or the round's end, and score what it leaves as this seat's chance of winning the
game (medium's estimate of the round from the seat's own beliefs, then the tokens). The choice
with the best mean, shrunk towards its estimate, is played.
Each decision stops at its budget of CPU time, or of wall-clock time, or of dealt positions.
"""

from __future__ import annotations

import copy
import math
import random
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache

from server.engine import Choice, Game, Play, Position, View, find_edition

from .beliefs import Beliefs
from .cards import MEDIUM, card_book
from .estimate import Table
from .medium import SCORERS, MediumBot, estimates, named_odds

BUDGET = 0.150  # seconds of CPU a decision may take, by default
CANDIDATES = 4  # the choices searched: the best by estimate ...
MARGIN = 0.35  # ... within this many tokens of the best
PRIOR_DEALS = 2.0  # the estimate counts as this many dealt positions in the final value
CONFIDENCE = 1.0  # another choice than medium's needs a gain this many standard errors above 0
MIN_DEALS = 8  # ... measured on at least this many dealt positions
# medium's estimate of the round (clipped to 0-1) -> the share of rounds it wins: a + b·estimate,
# by the players still in the round (benchmarks/calibration.py, medium against medium)
CALIBRATION = {2: (0.20, 0.55), 3: (0.25, 0.22), 4: (0.19, 0.15), 5: (0.12, 0.27), 6: (0.13, 0.08)}
SEARCHED = ("play", "chancellor")  # the decisions a position can start at
TIE = 1e-9

Dealer = Callable[[View, Beliefs, random.Random], "tuple[Position, float] | None"]
"""Deals a position a seat's view and beliefs allow, with its importance weight (`deal_hidden`)."""


@dataclass(frozen=True)
class Budget:
    """How long one decision may search: CPU seconds, at most this many dealt positions, and
    not past `until` (a `time.monotonic()` instant: a wall-clock limit, when given)."""

    seconds: float = BUDGET
    deals: int | None = None
    until: float | None = None

    def allows(self, started: float, deals: int) -> bool:
        """Whether a search that started at CPU time `started` and dealt `deals` positions
        may deal another."""
        return (
            time.process_time() < started + self.seconds
            and (self.deals is None or deals < self.deals)
            and (self.until is None or time.monotonic() < self.until)
        )


class HardBot:
    """Searches the few best choices by medium's estimate on positions its beliefs allow."""

    level = "hard"

    def __init__(
        self, budget: Budget | None = None, deal: Dealer | None = None, opponents: str = MEDIUM
    ) -> None:
        self.budget = budget or Budget()
        self.deal = deal or deal_hidden  # benchmarks/bot_policy.py's oracle deals the true hands
        self._medium = MediumBot(opponents)  # its beliefs read the others' plays as `opponents`'
        self.deals = 0  # dealt positions the last decision searched

    def choose(self, view: View, log: list[dict], rng: random.Random) -> Choice:
        """The searched best of `view.choices` (medium's best where search cannot help)."""
        return self.rank(view, log, rng).best

    def rank(self, view: View, log: list[dict], rng: random.Random) -> Ranking:
        """The choices worth playing, best first, each with this seat's chance of winning the
        game after it (searched where search can help, else from medium's estimate)."""
        started = time.process_time()
        choices = list(view.choices)
        self.deals = 0
        beliefs = self._medium.beliefs(view, log)
        scores = estimates(view, beliefs)
        if len(choices) == 1:
            return Ranking(choices, [_prior(view, scores[0])], beliefs, 0)
        candidates = _candidates(scores)
        if len(candidates) < 2 or view.pending.kind not in SEARCHED:
            best = max(scores)
            tied = [i for i, s in enumerate(scores) if s >= best - TIE]
            first = choices.index(rng.choice([choices[i] for i in tied]))
            order = [first, *(i for i in candidates if i != first)]
            return Ranking(
                [choices[i] for i in order], [_prior(view, scores[i]) for i in order], beliefs, 0
            )
        search = Search(view, beliefs, [choices[i] for i in candidates], rng, self.deal)

        def more() -> bool:
            return self.budget.allows(started, search.deals)

        while more() and search.step(more):
            pass
        self.deals = search.deals
        values = search.values([scores[i] for i in candidates])
        gains = search.gains()
        first = _confident(gains) if search.deals >= MIN_DEALS else 0
        rest = sorted((i for i in range(len(candidates)) if i != first), key=values.__getitem__)
        order = [first, *reversed(rest)]
        # the others were not found surely better: none is shown as likelier to win
        chances = [values[first], *(min(values[i], values[first]) for i in order[1:])]
        return Ranking(
            [choices[candidates[i]] for i in order],
            chances,
            beliefs,
            self.deals,
            [gains[i] for i in order],
        )


def _confident(gains: list[tuple[float, float]]) -> int:
    """The candidate with the best mean gain over the first (medium's choice) among those
    whose gain is at least `CONFIDENCE` standard errors above none; 0 if there is none."""
    sure = [i for i, (gain, error) in enumerate(gains) if gain > CONFIDENCE * error and i > 0]
    return max(sure, key=lambda i: gains[i][0], default=0)


@dataclass(frozen=True)
class Ranking:
    """A decision's best choices, best first, with the chance of winning the game after each,
    what the seat believed, how many dealt positions were searched (0: none) and, if any,
    each choice's gain over medium's with its standard error."""

    choices: list[Choice]
    chances: list[float]
    beliefs: Beliefs
    deals: int
    gains: list[tuple[float, float]] = field(default_factory=list)  # see `Search.gains`

    @property
    def best(self) -> Choice:
        """The choice to play."""
        return self.choices[0]


def _prior(view: View, round_odds: float) -> float:
    """The viewing seat's chance of winning the game from medium's estimate of the round."""
    alive = [seat.alive for seat in view.seats]
    tokens = [seat.tokens for seat in view.seats]
    odds = calibrated(round_odds, sum(alive))
    return game_chance(tokens, view.viewer, odds, alive, view.target)


def _candidates(scores: list[float]) -> list[int]:
    """The indices of the best few scores, best first, within `MARGIN` of the best."""
    best = max(scores)
    order = sorted(range(len(scores)), key=scores.__getitem__, reverse=True)
    return [i for i in order[:CANDIDATES] if scores[i] >= best - MARGIN]


class Search:
    """The candidates' weighted totals over the positions dealt so far (the same for each)."""

    def __init__(
        self,
        view: View,
        beliefs: Beliefs,
        candidates: list[Choice],
        rng: random.Random,
        deal: Dealer,
    ) -> None:
        self.view = view
        self.deal = deal
        self.beliefs = beliefs
        self.edition = find_edition(view.edition)
        self.tokens = [seat.tokens for seat in view.seats]
        self.choices = candidates
        self.rng = rng
        self.opponents = _opponent_beliefs(view, beliefs)
        self.totals = [0.0] * len(candidates)
        self.weight = 0.0
        self.deals = 0
        # per candidate, its value less the first's: sums of w·d, w²·d and w²·d², and of w²
        self.differences = [[0.0, 0.0, 0.0] for _ in candidates]
        self.squared_weight = 0.0

    def step(self, more: Callable[[], bool]) -> bool:
        """Deal one position and play every candidate on from it, while `more()` allows
        (a position not played through for every candidate is dropped); False if none was
        added."""
        dealt = self.deal(self.view, self.beliefs, self.rng)
        if dealt is None:
            return False
        position, weight = dealt
        seed = self.rng.getrandbits(32)  # each candidate's playout draws alike
        values = []
        for choice in self.choices:
            if values and not more():
                return False
            game = Game.from_position(
                self.edition, position, self.tokens, random.Random(seed), record=True
            )
            players = self._players(position)
            game.act(self.view.viewer, choice)
            values.append(play_on(game, self.view.viewer, players))
        self.totals = [t + weight * v for t, v in zip(self.totals, values, strict=True)]
        self.weight += weight
        self.squared_weight += weight * weight
        for sums, value in zip(self.differences, values, strict=True):
            difference = value - values[0]
            sums[0] += weight * difference
            sums[1] += weight * weight * difference
            sums[2] += weight * weight * difference * difference
        self.deals += 1
        return True

    def _players(self, position: Position) -> list[Beliefs | None]:
        """Every seat's beliefs at the start of a playout from `position`."""
        players: list[Beliefs | None] = []
        for seat, template in enumerate(self.opponents):
            if seat == self.view.viewer:
                players.append(clone(self.beliefs))
            elif template is None:
                players.append(None)
            else:
                beliefs = clone(template)
                beliefs.hand = list(position.hands[seat])
                players.append(beliefs)
        return players

    def gains(self) -> list[tuple[float, float]]:
        """Each candidate's mean gain in the chance of winning the game over the first's, on
        the same positions, and the standard error of that mean (weighted by importance)."""
        if self.deals < 2:
            return [(0.0, math.inf) if i else (0.0, 0.0) for i in range(len(self.choices))]
        gains = []
        for weighted, squared, squares in self.differences:
            mean = weighted / self.weight
            spread = squares - 2 * mean * squared + mean * mean * self.squared_weight
            error = math.sqrt(max(spread, 0.0) * self.deals / (self.deals - 1)) / self.weight
            gains.append((mean, error))
        return gains

    def values(self, scores: list[float]) -> list[float]:
        """Each candidate's mean chance of winning the game, the chance from its estimate
        (`scores`, medium's) counting as `PRIOR_DEALS` positions."""
        view = self.view
        alive = [seat.alive for seat in view.seats]
        priors = [
            game_chance(self.tokens, view.viewer, calibrated(score, sum(alive)), alive, view.target)
            for score in scores
        ]
        if self.deals == 0:
            return priors
        mean_weight = self.weight / self.deals
        prior_weight = PRIOR_DEALS * mean_weight
        return [
            (total + prior_weight * prior) / (self.weight + prior_weight)
            for total, prior in zip(self.totals, priors, strict=True)
        ]


def play_on(game: Game, me: int, players: list[Beliefs | None]) -> float:
    """Every seat decides as medium does until `me`'s next play or the round's end; `me`'s
    chance of winning the game then (see `game_chance`)."""
    consumed = [0] * game.players
    while not game.round_over:
        if not game.alive[me]:
            return game_chance(game.tokens, me, 0.0, game.alive, game.target)
        seat = game.pending.seat
        beliefs = players[seat]
        assert beliefs is not None
        events = game.events
        for event in events[consumed[seat] :]:
            beliefs.apply(event.for_seat(seat))
        consumed[seat] = len(events)
        view = game.view(seat)
        beliefs.sync(view)
        value, choice = best_choice(view, beliefs)
        if seat == me and view.pending.kind == "play":
            odds = calibrated(value, game.remaining)
            return game_chance(game.tokens, me, odds, game.alive, game.target)
        game.act(seat, choice)
    if game.game_over:
        return 1 / len(game.game_winners) if me in game.game_winners else 0.0
    return standing_chance(game.tokens, me, game.target)


def calibrated(estimate: float, alive: int) -> float:
    """The chance of winning the round for a seat whose estimate (medium's) is `estimate`,
    with `alive` players in it: medium's estimate orders positions well but spreads them
    far wider than the rounds' outcomes do."""
    odds = min(max(estimate, 0.0), 1.0)
    if not CALIBRATION:
        return odds
    offset, slope = CALIBRATION[min(max(alive, 2), max(CALIBRATION))]
    return offset + slope * odds


def game_chance(
    tokens: Sequence[int], me: int, round_odds: float, alive: Sequence[bool], target: int
) -> float:
    """`me`'s chance of winning the game if it wins this round with `round_odds` (medium's
    estimate, clipped to 0-1), else one of the other seats still in it, equally likely."""
    odds = min(max(round_odds, 0.0), 1.0)
    others = [seat for seat, inside in enumerate(alive) if inside and seat != me]
    chance = odds * standing_chance(_plus_one(tokens, me), me, target)
    for seat in others:
        chance += (1 - odds) / len(others) * standing_chance(_plus_one(tokens, seat), me, target)
    return chance


def _plus_one(tokens: Sequence[int], seat: int) -> list[int]:
    return [t + (s == seat) for s, t in enumerate(tokens)]


def standing_chance(tokens: Sequence[int], me: int, target: int) -> float:
    """`me`'s chance of winning the game from these tokens between rounds, each round won by
    each seat alike."""
    others = tuple(sorted(t for seat, t in enumerate(tokens) if seat != me))
    return _chance(tokens[me], others, target)


@cache
def _chance(mine: int, others: tuple[int, ...], target: int) -> float:
    """The chance of reaching `target` first (a tie shared) if every round goes to one of the
    `len(others) + 1` seats, each as likely."""
    top = max(others, default=0)
    if mine >= target or top >= target:
        return (mine >= top) / (1 + sum(t == mine for t in others)) if mine >= target else 0.0
    share = 1 / (len(others) + 1)
    odds = share * _chance(mine + 1, others, target)
    for i in range(len(others)):
        raised = tuple(sorted((*others[:i], others[i] + 1, *others[i + 1 :])))
        odds += share * _chance(mine, raised, target)
    return odds


def best_choice(view: View, beliefs: Beliefs) -> tuple[float, Choice]:
    """Medium's best choice by its estimate, without a lookahead, and its value (a forced
    choice's too: a playout reaching one is not a lost round); of the choices naming a card
    it scores only the likeliest guess at each target, as it would choose anyway."""
    choices = list(view.choices)
    table = Table.from_view(view, beliefs)
    score = SCORERS[view.pending.kind]
    if len(choices) == 1:
        return score(table, choices[0]), choices[0]
    best_guess: dict[tuple, tuple[float, Play]] = {}
    scored: list[Choice] = []
    for choice in choices:
        if not isinstance(choice, Play) or choice.guess is None:
            scored.append(choice)
            continue
        key = (choice.card, *choice.targets)
        odds = named_odds(table, choice.targets[0], choice.guess)
        if key not in best_guess or odds > best_guess[key][0]:
            best_guess[key] = (odds, choice)
    scored += [choice for _, choice in best_guess.values()]
    values = [score(table, choice) for choice in scored]
    best = max(range(len(values)), key=values.__getitem__)
    return values[best], scored[best]


def _opponent_beliefs(view: View, beliefs: Beliefs) -> list[Beliefs | None]:
    """What each opponent in the round may believe now, as far as this seat can tell: the
    cards everyone has seen, and this seat's card if they were shown it (None: not in it).
    They believe as medium does (careful opponents): medium plays their turns in a playout."""
    me = view.viewer
    book = card_book(view.edition)
    templates: list[Beliefs | None] = []
    for seat, info in enumerate(view.seats):
        if seat == me or not info.alive:
            templates.append(None)
            continue
        theirs = Beliefs(book, seat, view.players, view.face_up, view.deck_size)
        for other in view.seats:
            theirs.seen.update(other.discards)
        theirs.alive = [other.alive for other in view.seats]
        theirs.bottom = [None] * len(beliefs.bottom)
        shown = beliefs.exposed.get(seat)
        if shown is not None:
            theirs.weights[me] = {shown: 1.0}
        if view.pending.kind == "play":
            theirs.drew[me] = None  # this seat has drawn a card they have not seen
        templates.append(theirs)
    return templates


def clone(beliefs: Beliefs) -> Beliefs:
    """A copy of `beliefs` that a playout may change (the card book is shared)."""
    twin = copy.copy(beliefs)
    twin.hand = list(beliefs.hand)
    twin.seen = Counter(beliefs.seen)
    twin.bottom = list(beliefs.bottom)
    twin.weights = [dict(weights) for weights in beliefs.weights]
    twin.alive = list(beliefs.alive)
    twin.drew = dict(beliefs.drew)
    twin.exposed = dict(beliefs.exposed)
    return twin


def deal_hidden(view: View, beliefs: Beliefs, rng: random.Random) -> tuple[Position, float] | None:
    """A position the seat's view and beliefs allow, and its importance weight (the hands
    are drawn one seat at a time, not from their joint odds). None if the beliefs do not add up."""
    me, players = view.viewer, view.players
    pool = Counter(view.unseen)
    pool.subtract(beliefs.known_in_deck())
    if min(pool.values(), default=0) < 0:
        return None
    hands: list[list[str]] = [[] for _ in range(players)]
    hands[me] = list(view.hand)
    weight = 1.0
    for seat, info in enumerate(view.seats):
        if seat == me or not info.alive:
            continue
        card, odds = _draw_weighted(pool, beliefs.weights[seat], rng)
        if card is None:
            return None
        hands[seat] = [card]
        weight *= odds
        pool[card] -= 1
    rest = list(pool.elements())
    deck_size = view.deck_size
    known = beliefs.bottom[:deck_size]
    if len(rest) != deck_size - sum(card is not None for card in known) + view.set_aside:
        return None
    rng.shuffle(rest)
    bottom_first = [card if card is not None else rest.pop() for card in known]
    bottom_first += [rest.pop() for _ in range(deck_size - len(known))]
    return Position(
        hands=hands,
        deck=bottom_first[::-1],
        set_aside=rest,
        face_up=view.face_up,
        discards=[info.discards for info in view.seats],
        alive=[info.alive for info in view.seats],
        protected=[info.protected for info in view.seats],
        turn=me,
        kind=view.pending.kind,
        marked=view.marked,
        jester=tuple(view.jester) if view.jester else None,
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
