"""A quick estimate of a seat's chance to win the round holding a given card.

The model: each opponent's hand is a distribution (from `Beliefs`); opponents act like
careful random players (never the Princess by choice); the card kept now matters more the
closer the showdown is. All numbers are in tokens this seat expects from the round.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from server.engine import Role, View

from .beliefs import Beliefs
from .cards import CardBook

Dist = dict[str, float]
Lookahead = Callable[["Table", str], float]

SHOWDOWN_WEIGHT_EARLY = 0.25  # how much the kept card's rank counts while the round is young
DENIAL = 0.5  # an opponent's token counts this much against one of this seat's
DENIAL_AT_TARGET = 3.0  # ... when that token would win them the game
KILL_WEIGHT = 1.0  # share of the modelled gain from an opponent's knock-out that is believed
DANGER_SCALE = 1.5  # how much more dangerous opponents are than the model of them says
MAX_DANGER = 0.95  # nobody is that sure to be knocked out by one opponent's turn
TOP_VALUE = 15  # showdown values are clipped here (cards go to 9, Counts add at most 2)
THREATS = frozenset({Role.GUARD, Role.BARON, Role.PRINCE, Role.DOWAGER_QUEEN})


@dataclass
class Table:
    """Everything one decision needs, from the seat's view and beliefs."""

    book: CardBook
    me: int
    hand: list[str]
    opponents: list[int]  # alive, in turn order after me
    protected: set[int]
    dists: dict[int, Dist]
    pool: dict[str, int]  # unseen copies not known to lie elsewhere: what a draw may bring
    deck_size: int
    bonus: list[int]  # Count bonus per seat
    tokens: list[int]
    target: int  # tokens that win the game
    spies: frozenset[int]  # seats in the round that have played or discarded a Spy
    exposed: dict[int, str]  # opponent seat -> the card of mine they know
    guess_options: int  # how many guesses could name some unseen card
    lookahead: Lookahead | None = None  # the next turn's value of keeping a card, if looked at
    looked_ahead: bool = False  # whether this is the next turn a lookahead imagines
    _memo: dict = field(default_factory=dict)  # results that depend on the whole table
    _shared: dict = field(default_factory=dict)  # results a lookahead's table shares with it

    @classmethod
    def from_view(cls, view: View, beliefs: Beliefs, lookahead: Lookahead | None = None) -> Table:
        """The table as the viewing seat knows it."""
        book = beliefs.book
        me, players = view.viewer, view.players
        seats = view.seats
        pool = dict(view.unseen)
        for card in beliefs.known_in_deck():
            pool[card] -= 1
        order = [(me + step) % players for step in range(1, players)]
        opponents = [seat for seat in order if seats[seat].alive]
        dists = beliefs.distributions(opponents, pool)
        return cls(
            book=book,
            me=me,
            hand=list(view.hand),
            opponents=opponents,
            protected={s for s, seat in enumerate(seats) if seat.protected},
            dists=dists,
            pool={card: n for card, n in pool.items() if n > 0},
            deck_size=view.deck_size,
            bonus=[_counts(book, seat.discards) for seat in seats],
            tokens=[seat.tokens for seat in seats],
            target=view.target,
            spies=frozenset(
                s
                for s, seat in enumerate(seats)
                if seat.alive and any(book.has(card, Role.SPY) for card in seat.discards)
            ),
            exposed=dict(beliefs.exposed),
            guess_options=_guess_options(book, view.unseen, view.hand),
            lookahead=lookahead,
        )

    # -------------------------------------------------------------- the estimate

    def win(self, card: str, shielded: bool = False, bonus: int = 0) -> float:
        """Tokens expected from the round when keeping `card` (protected, with `bonus` more
        Counts played)."""
        key = (card, shielded, bonus)
        if key not in self._memo:
            parts = self._parts(card, bonus)
            self._memo[key] = _combine(parts, self._weight(len(parts)), shielded)
            self._memo[key] += self.future(card)
        return self._memo[key]

    def win_replacing(self, card: str, seat: int, dist: Dist) -> float:
        """`win(card)` if `seat` held `dist` instead."""
        parts = dict(self._parts(card, 0))
        acting = seat in self.acting()
        parts[seat] = self._part(card, seat, dist, len(parts) + 1, 0, acting)
        return _combine(parts, self._weight(len(parts)), shielded=False) + self.future(card)

    def _parts(self, card: str, bonus: int) -> dict[int, tuple[float, float]]:
        """Per opponent: the chance `card` beats their hand, and of surviving their turn."""
        acting = self.acting()
        return self.cached(
            ("parts", card, bonus),
            lambda: {
                seat: self._part(card, seat, dist, len(self.dists) + 1, bonus, seat in acting)
                for seat, dist in self.dists.items()
            },
        )

    def _part(
        self, card: str, seat: int, dist: Dist, players: int, bonus: int, acting: bool
    ) -> tuple[float, float]:
        """`seat`'s entry of `_parts`, if it held `dist` and `acting` says if it plays before
        this seat's next turn."""
        if not acting:
            return self.beat(card, seat, dist, bonus), 1.0
        beat = self.beat(card, seat, self.after_turn(dist), bonus)
        return beat, 1 - self.danger(card, seat, dist, players)

    def _weight(self, others: int) -> float:
        """How much the kept card's showdown rank counts, with `others` opponents left."""
        showdown = self.showdown_weight(others)
        return showdown + (1 - showdown) * SHOWDOWN_WEIGHT_EARLY

    def future(self, card: str) -> float:
        """What the lookahead adds to keeping `card`: the best play at the next turn, holding
        it and a fresh draw, instead of the card's rank alone (0 without a lookahead). Only
        cards in hand are looked at; any other card gets their average, to save time."""
        if self.lookahead is None or not self.another_turn() or not self.hand:
            return 0.0
        if card not in self.hand:
            held = set(self.hand)
            return sum(self.future(card) for card in held) / len(held)
        key = ("future", card)
        if key not in self._memo:
            parts = self._parts(card, 0)
            strength = _combine(parts, self._weight(len(parts)), shielded=True)
            later = self.lookahead(self.next_turn(), card)
            self._memo[key] = self.survival(card) * (later - strength)
        return self._memo[key]

    def next_turn(self) -> Table:
        """This table as it may be at this seat's next turn: the opponents before it have
        drawn and played, nobody is protected. It looks no further."""
        if "next" not in self._memo:
            acting = self.acting()
            self._memo["next"] = replace(
                self,
                hand=[],
                protected=set(),
                deck_size=max(self.deck_size - len(acting) - 1, 0),
                dists={s: self.after_turn(d) if s in acting else d for s, d in self.dists.items()},
                lookahead=None,
                looked_ahead=True,
                _memo={},
                _shared=self._shared,
            )
        return self._memo["next"]

    def _win_without(self, card: str, seat: int) -> float:
        """`win(card)`, not looking ahead, with `seat` out: the others' attacks fall on fewer
        players, and near the end another opponent may get the last turn."""
        parts = self._parts(card, 0)
        targets = len(parts)  # the players each opponent may choose, before and after
        crowding = targets / (targets - 1) if targets > 1 else 1.0
        acting = self.acting()
        still = [other for other in self.opponents if other != seat]
        acting_after = set(still[: max(self.deck_size, 0)])
        others = {}
        for other in still:
            if (other in acting) == (other in acting_after):
                beaten, survived = parts[other]
                others[other] = (beaten, 1 - min((1 - survived) * crowding, MAX_DANGER))
            else:
                dist = self.dists[other]
                others[other] = self._part(card, other, dist, targets, 0, other in acting_after)
        return _combine(others, self._weight(len(others)), shielded=False)

    def round_survival(self, card: str) -> float:
        """Chance of lasting to the end of the round, holding cards as safe as `card`."""
        survive = self.survival(card)
        turns_left = max(1.0, self.deck_size / (len(self.opponents) + 1))
        return survive**turns_left

    def another_turn(self) -> bool:
        """Whether the deck lasts until this seat's next turn."""
        return self.deck_size > len(self.opponents)

    def showdown_weight(self, others: int) -> float:
        """How surely the card kept now is the one shown at the showdown."""
        if self.deck_size <= others:
            return 1.0
        return others / self.deck_size

    def beat(self, card: str, seat: int, dist: Dist, bonus: int = 0) -> float:
        """Chance `card` beats `seat`'s hand at a showdown (ties count half)."""
        book = self.book
        mine = min(book.value[card] + self.bonus[self.me] + bonus, TOP_VALUE)
        below, at, special = self._remember(("ranks", seat), dist, self._ranks, self._shared)
        odds = below[mine] + 0.5 * at[mine]
        for other, p in special:
            # the Princess beats the Bishop whatever their values say
            theirs = book.value[other] + self.bonus[seat]
            odds += p * (_showdown(book, card, mine, other, theirs) - _by_value(mine, theirs))
        return odds

    def _ranks(self, key: tuple, dist: Dist) -> tuple[list[float], list[float], list]:
        """For `seat`'s hand: the chance of each showdown value being below or at each value,
        and the cards the Princess-Bishop rule may concern."""
        book, bonus = self.book, self.bonus[key[1]]
        at = [0.0] * (TOP_VALUE + 1)
        special = []
        for card, p in dist.items():
            at[min(book.value[card] + bonus, TOP_VALUE)] += p
            if book.role[card] in (Role.PRINCESS, Role.BISHOP):
                special.append((card, p))
        below = [0.0] * (TOP_VALUE + 1)
        for value in range(1, TOP_VALUE + 1):
            below[value] = below[value - 1] + at[value - 1]
        return below, at, special if self.book.ids_of(Role.BISHOP) else []

    def survival(self, card: str) -> float:
        """Chance of still being in the round at the next turn, holding `card`."""
        survive = 1.0
        for _, survived in self._parts(card, 0).values():
            survive *= survived
        return survive

    def acting(self) -> set[int]:
        """The opponents that take a turn before this seat's next one."""
        return self.cached(("acting",), lambda: set(self.opponents[: max(self.deck_size, 0)]))

    def after_turn(self, dist: Dist) -> Dist:
        """The card a seat holding `dist` keeps after drawing and playing, as a careful
        random player."""
        if len(dist) == 1:
            return self._kept_holding(next(iter(dist)))
        return self._remember(("after turn",), dist, self._after_turn, self._shared)

    def _after_turn(self, key: tuple, dist: Dist) -> Dist:
        kept: Dist = {}
        for old, p_old in dist.items():
            for card, p in self._kept_holding(old).items():
                kept[card] = kept.get(card, 0.0) + p_old * p
        return kept

    def _kept_holding(self, old: str) -> Dist:
        """`after_turn` of a seat known to hold `old`."""
        key = ("kept", old)
        if key not in self._shared:
            others = len(self.opponents)
            kept: Dist = {}
            for new, p_new in self.draw_odds().items():
                played_old = self.book.chance_to_play(old, new, others)
                kept[new] = kept.get(new, 0.0) + p_new * played_old
                kept[old] = kept.get(old, 0.0) + p_new * (1 - played_old)
            self._shared[key] = kept
        return self._shared[key]

    def danger(self, card: str, seat: int, dist: Dist, alive: int) -> float:
        """Chance that `seat`, playing one of its two cards at random, knocks out `card`."""
        targets = alive - 1 - len(self.protected) + (seat in self.protected)
        if targets <= 0:
            return 0.0
        guard, prince, baron_above, queen_below = self._remember(
            ("attacks",), dist, self._attacks, self._shared
        )
        mine = self.book.value[card]
        danger = (
            guard * self.guessed(card, seat) + baron_above[mine] + queen_below[mine]
        ) / targets
        if self.book.role[card] is Role.PRINCESS:
            danger += prince / (targets + 1)
        return min(DANGER_SCALE * danger, MAX_DANGER)

    def _attacks(self, key: tuple, dist: Dist) -> tuple[float, float, list[float], list[float]]:
        """For a seat holding `dist`: the chance it plays a Guard, a Prince, a Baron keeping
        more than each value, a Dowager Queen keeping less."""
        guard = prince = 0.0
        baron = [0.0] * (TOP_VALUE + 1)
        queen = [0.0] * (TOP_VALUE + 1)
        for (role, kept), p in self.threats(dist).items():
            if role is Role.GUARD:
                guard += p
            elif role is Role.PRINCE:
                prince += p
            elif role is Role.BARON:
                baron[kept] += p
            else:
                queen[kept] += p
        baron_above = [sum(baron[value + 1 :]) for value in range(TOP_VALUE + 1)]
        queen_below = [sum(queen[:value]) for value in range(TOP_VALUE + 1)]
        return guard, prince, baron_above, queen_below

    def guessed(self, card: str, seat: int) -> float:
        """Chance a Guard of `seat` aimed at me names `card`."""
        role = self.book.role[card]
        if role in (Role.GUARD, Role.ASSASSIN):
            return 0.0
        if self.exposed.get(seat) == card:
            return 1.0
        return 1 / max(self.guess_options, 1)

    def threats(self, dist: Dist) -> dict[tuple[Role, int], float]:
        """For a seat holding `dist` and drawing, as a careful random player: the chance of
        playing each threatening role while keeping a card of each value."""
        if len(dist) == 1:
            return self._threats_holding(next(iter(dist)))
        return self._remember(("threats",), dist, self._threats, self._shared)

    def _threats(self, key: tuple, dist: Dist) -> dict[tuple[Role, int], float]:
        threats: dict[tuple[Role, int], float] = {}
        for old, p_old in dist.items():
            for threat, p in self._threats_holding(old).items():
                threats[threat] = threats.get(threat, 0.0) + p_old * p
        return threats

    def _threats_holding(self, old: str) -> dict[tuple[Role, int], float]:
        """`threats` of a seat known to hold `old` before its draw."""
        key = ("holding", old)
        if key in self._shared:
            return self._shared[key]
        book = self.book
        others = len(self.opponents)
        threats: dict[tuple[Role, int], float] = {}
        for new, p_new in self.draw_odds().items():
            chance = book.chance_to_play(old, new, others)
            for played, kept, p in ((old, new, chance), (new, old, 1 - chance)):
                role = book.role[played]
                if p > 0 and role in THREATS:
                    threat = (role, book.value[kept])
                    threats[threat] = threats.get(threat, 0.0) + p_new * p
        self._shared[key] = threats
        return threats

    def draw_odds(self) -> Dist:
        """What a card drawn now may be."""
        if "draw" not in self._shared:
            total = sum(self.pool.values()) or 1
            self._shared["draw"] = {card: n / total for card, n in self.pool.items()}
        return self._shared["draw"]

    def win_without(self, card: str, seat: int) -> float:
        """`win(card)` once `seat` is knocked out of the round."""
        key = ("without", card, seat)
        if key not in self._memo:
            now = self.win(card)
            gain = KILL_WEIGHT * (self._win_without(card, seat) + self.future(card) - now)
            spies = self.spy_outcome(self.spies - {seat}) - self.spy_outcome(self.spies)
            spies *= self.round_survival(card)
            self._memo[key] = now + gain + spies + self.leader_denied(now, seat)
        return self._memo[key]

    def threat(self, seat: int) -> float:
        """How much an opponent's token counts against one of this seat's: the more, the
        closer it brings them to winning the game."""
        if self.tokens[seat] + 1 >= self.target:
            return DENIAL_AT_TARGET
        return DENIAL

    def leader_denied(self, win: float, seat: int) -> float:
        """Knocking `seat` out hands its chance of the round to the other opponents: worth it
        when `seat` threatens more than they do."""
        others = [s for s in self.opponents if s != seat]
        if not others:
            return 0.0
        their_chance = (1 - win) / len(self.opponents)
        others_threat = sum(self.threat(s) for s in others) / len(others)
        return their_chance * (self.threat(seat) - others_threat)

    def spy_outcome(self, spies: frozenset[int]) -> float:
        """The Spy's token if `spies` show a Spy at the end: this seat's, or an opponent's."""
        if len(spies) != 1:
            return 0.0
        (seat,) = spies
        return 1.0 if seat == self.me else -self.threat(seat)

    def cached(self, key: tuple, compute: Callable[[], Any]) -> Any:
        """`compute()` once per key on this table."""
        if key not in self._memo:
            self._memo[key] = compute()
        return self._memo[key]

    def _remember(
        self, key: tuple, dist: Any, compute: Callable[[tuple, Any], Any], memo: dict | None = None
    ) -> Any:
        """`compute(key, dist)` once per key and `dist` object (in `memo`, by default the
        table's); the memo keeps `dist` alive, so its id is not reused."""
        memo = self._memo if memo is None else memo
        memo_key = (key, id(dist))
        entry = memo.get(memo_key)
        if entry is None or entry[0] is not dist:
            entry = memo[memo_key] = (dist, compute(key, dist))
        return entry[1]

    def best_of_draws(self, draws: int) -> list[tuple[float, float]]:
        """The odds of each value `win` gives the best of `draws` (0–2) cards drawn now."""
        key = ("best of", draws)
        if key not in self._memo:
            pool, total = self.pool, sum(self.pool.values())
            worth = {card: self.win(card) for card in pool}
            odds: dict[float, float] = {}
            if draws == 1 or (draws == 2 and total < 2):
                for card, n in pool.items():
                    odds[worth[card]] = odds.get(worth[card], 0.0) + n / total
            elif draws == 2:
                for first, n_first in pool.items():
                    for second, n_second in pool.items():
                        pairs = n_first * (n_second - (first == second))
                        if pairs > 0:
                            best = max(worth[first], worth[second])
                            odds[best] = odds.get(best, 0.0) + pairs / (total * (total - 1))
            self._memo[key] = list(odds.items())
        return self._memo[key]

    def holding(self, card: str) -> Dist:
        """The distribution of a hand known to be `card` (one object per card)."""
        key = ("certain", card)
        if key not in self._shared:
            self._shared[key] = {card: 1.0}
        return self._shared[key]


def _showdown(book: CardBook, card: str, mine: int, other: str, theirs: int) -> float:
    """1 if `card` (worth `mine`) beats `other` (worth `theirs`), 0.5 on a tie, else 0."""
    roles = (book.role[card], book.role[other])
    if roles == (Role.PRINCESS, Role.BISHOP):
        return 1.0
    if roles == (Role.BISHOP, Role.PRINCESS):
        return 0.0
    return _by_value(mine, theirs)


def _combine(parts: dict[int, tuple[float, float]], weight: float, shielded: bool) -> float:
    """The round's estimate from each opponent's (beaten, survived) chances."""
    beat = survive = 1.0
    for beaten, survived in parts.values():
        beat *= beaten
        survive *= survived
    strength = weight * beat + (1 - weight) / (len(parts) + 1)
    return strength if shielded else strength * survive


def _by_value(mine: int, theirs: int) -> float:
    """1, 0.5 or 0 as `mine` is above, equal to or below `theirs`."""
    if mine == theirs:
        return 0.5
    return 1.0 if mine > theirs else 0.0


def _counts(book: CardBook, discards: list[str]) -> int:
    return sum(1 for card in discards if book.role[card] is Role.COUNT)


def _guess_options(book: CardBook, unseen: dict[str, int], hand: list[str]) -> int:
    """How many guesses name a card an opponent might think a player holds."""
    possible = [card for card, n in unseen.items() if n > 0] + list(hand)
    return sum(1 for guess in book.guesses if any(book.named(card, guess) for card in possible))
