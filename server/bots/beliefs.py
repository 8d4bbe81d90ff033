"""What one seat has learned this round, from its own visible log only."""

from __future__ import annotations

from collections import Counter

from server.engine import Role, View
from server.engine.event_catalogue import EVENTS

from .cards import CAREFUL, CardBook, card_book

Weights = dict[str, float]


class Beliefs:
    """The seat's hand, what it has seen, and a weight per card for each other seat's hand.

    A weight is relative to the pool of cards the seat has not seen; a distribution over an
    opponent's hand is pool count × weight, normalised. A single weighted card means known.
    """

    def __init__(
        self, book: CardBook, me: int, players: int, face_up: list[str], deck_size: int
    ) -> None:
        self.book = book
        self.me = me
        self.hand: list[str] = []
        self.seen = Counter(face_up)  # visible to everyone: face up, played, discarded
        self.deck_size = deck_size
        self.bottom: list[str | None] = []  # returned under the deck, bottom first; None: unknown
        self.weights: list[Weights] = [self.uniform() for _ in range(players)]
        self.alive = [True] * players
        self.drew: dict[int, str | None] = {}  # opponents mid-turn -> their draw, if known
        self.exposed: dict[int, str] = {}  # opponent seat -> the card of mine they know
        self.last_role: Role | None = None  # the role of the last card played
        self.compared: tuple[int, bool] | None = None  # (winner, lower loses) until the knockout

    def sync(self, view: View) -> None:
        """Take who is in the round and the deck's size from the view, which is never wrong."""
        self.alive = [seat.alive for seat in view.seats]
        self.deck_size = view.deck_size

    def uniform(self) -> Weights:
        """No knowledge: every card as likely as the pool makes it."""
        return dict.fromkeys(self.book.ids, 1.0)

    # ------------------------------------------------------------------ reading

    def pool(self) -> dict[str, int]:
        """Copies of each card this seat has not seen and does not know to lie in the deck."""
        counts = {card: self.book.count[card] - self.seen[card] for card in self.book.ids}
        for card in self.hand:
            counts[card] -= 1
        for card in self.known_in_deck():
            counts[card] -= 1
        return counts

    def known_in_deck(self) -> list[str]:
        """The cards this seat put under the deck that are still in it."""
        return [card for card in self.bottom[: self.deck_size] if card is not None]

    def known(self, seat: int) -> str | None:
        """The card `seat` holds if this seat knows it."""
        weights = self.weights[seat]
        return next(iter(weights)) if len(weights) == 1 else None

    def pool_for(self, seat: int, pool: dict[str, int]) -> dict[str, int]:
        """The pool `seat`'s card comes from: less the cards known in other opponents' hands."""
        own = dict(pool)
        for other, alive in enumerate(self.alive):
            card = self.known(other) if alive and other not in (seat, self.me) else None
            if card is not None and own.get(card, 0) > 0:
                own[card] -= 1
        return own

    def distributions(self, seats: list[int], pool: dict[str, int]) -> dict[int, dict[str, float]]:
        """Each of `seats`' hand distributions. Exact over every way the pool may be dealt
        to them when that is small enough; otherwise one seat at a time."""
        marginal = {seat: self.distribution(seat, self.pool_for(seat, pool)) for seat in seats}
        ways = 1
        for dist in marginal.values():
            ways *= len(dist)
        if ways > MAX_DEALS or len(seats) < 2:
            return marginal
        joint: dict[int, dict[str, float]] = {seat: {} for seat in seats}
        self._deal_out(seats, dict(pool), 1.0, [], joint)
        total = sum(joint[seats[0]].values())
        if total <= 0:
            return marginal
        return {s: {c: p / total for c, p in d.items() if p > 0} for s, d in joint.items()}

    def _deal_out(
        self,
        seats: list[int],
        pool: dict[str, int],
        odds: float,
        dealt: list[str],
        joint: dict[int, dict[str, float]],
    ) -> None:
        """Add the odds of every deal of `pool` to the seats after `dealt` into `joint`."""
        if len(dealt) == len(seats):
            for seat, card in zip(seats, dealt, strict=True):
                joint[seat][card] = joint[seat].get(card, 0.0) + odds
            return
        weights = self.weights[seats[len(dealt)]]
        for card, n in pool.items():
            weight = weights.get(card, 0.0)
            if n > 0 and weight > 0:
                pool[card] -= 1
                self._deal_out(seats, pool, odds * n * weight, [*dealt, card], joint)
                pool[card] += 1

    def distribution(self, seat: int, pool: dict[str, int]) -> dict[str, float]:
        """Probability of each card being `seat`'s hand, given `pool_for(seat)`."""
        weights = self.weights[seat]
        raw = {card: n * weights[card] for card, n in pool.items() if n > 0 and card in weights}
        total = sum(raw.values())
        if total <= 0:
            raw = {card: float(n) for card, n in pool.items() if n > 0}
            total = sum(raw.values()) or 1.0
        return {card: p / total for card, p in raw.items() if p > 0}

    # ------------------------------------------------------------------ events

    def apply(self, event: dict) -> None:
        """Learn from one event of the seat's log (after this round's `round_start`)."""
        handler = _HANDLERS.get(event["kind"])
        if handler is not None:
            handler(self, event)

    def _deal(self, event: dict) -> None:
        if event["seat"] == self.me:
            self.hand = [event["card"]]

    def _draw(self, event: dict) -> None:
        seat = event["seat"]
        known = None
        if not event.get("set_aside"):
            self.deck_size -= 1
            known = self.bottom[self.deck_size] if self.deck_size < len(self.bottom) else None
        if seat == self.me:
            self.hand.append(event["card"])
        elif "set_aside" in event:
            self.weights[seat] = {known: 1.0} if known else self.uniform()
        else:
            self.drew[seat] = known

    def _play(self, event: dict) -> None:
        seat, card = event["seat"], event["card"]
        self.last_role = self.book.role[card]
        if seat == self.me:
            self.hand.remove(card)
            self.exposed = {s: c for s, c in self.exposed.items() if c in self.hand}
        elif seat in self.drew:
            drawn = self.drew.pop(seat)
            if drawn is None:
                self._infer_kept(seat, card)
            else:
                self._infer_kept_known_draw(seat, card, drawn)
        self.seen[card] += 1
        if seat != self.me and event.get("guess") is not None:
            self._infer_from_guess(seat, event["guess"])

    def _infer_from_guess(self, seat: int, guess: str | int) -> None:
        """A careful player names only cards it cannot see all of, its own hand included:
        each card `seat` may hold leaves it that many sensible guesses, `guess` among them."""
        book = self.book
        unseen = {g: 0 for g in book.guesses}  # copies each guess names that `seat` cannot see
        for card in book.ids:
            for g in book.guesses:
                if book.named(card, g):
                    unseen[g] += book.count[card] - self.seen[card]
        sensible = sum(1 for n in unseen.values() if n > 0)
        weights = self.weights[seat]
        for held in list(weights):
            # holding the last unseen copy of what a guess names makes that guess senseless
            lost = [g for g, n in unseen.items() if n == 1 and book.named(held, g)]
            if guess in lost or unseen.get(guess, 0) <= 0:
                del weights[held]
            else:
                weights[held] /= sensible - len(lost)

    def _infer_kept(self, seat: int, played: str) -> None:
        """Bayes: which card `seat` kept, given its old card, a draw from the pool, and the play."""
        pool = self.pool_for(seat, self.pool())
        old = self.distribution(seat, pool)
        total = sum(pool.values())
        if total < 2:
            self.weights[seat] = self.uniform()
            return

        def drawn(old_card: str, new_card: str) -> float:
            return (pool[new_card] - (old_card == new_card)) / (total - 1)

        kept_odds: Weights = {}
        for kept, n in pool.items():
            if n <= 0:
                continue
            odds = old.get(played, 0.0) * drawn(played, kept)
            if kept != played:
                odds += old.get(kept, 0.0) * drawn(kept, played)
            odds *= self.book.chance_to_play(played, kept, sum(self.alive) - 1)
            remaining = n - (kept == played)
            if odds > 0 and remaining > 0:
                kept_odds[kept] = odds / remaining
        self.weights[seat] = kept_odds or self.uniform()

    def _infer_kept_known_draw(self, seat: int, played: str, drawn: str) -> None:
        """Bayes as above, when this seat put the drawn card under the deck itself."""
        pool = self.pool_for(seat, self.pool())
        pool[drawn] -= 1
        old = self.distribution(seat, pool)
        others = sum(self.alive) - 1
        if played != drawn:
            self.weights[seat] = {drawn: 1.0}
            return
        kept_odds = {
            kept: p * self.book.chance_to_play(played, kept, others) / pool[kept]
            for kept, p in old.items()
        }
        self.weights[seat] = {card: w for card, w in kept_odds.items() if w > 0} or self.uniform()

    def _discard(self, event: dict) -> None:
        seat, card = event["seat"], event["card"]
        self.seen[card] += 1
        if seat == self.me:
            if card in self.hand:
                self.hand.remove(card)
            self.exposed = {}
        else:
            self.weights[seat] = self.uniform()

    def _knocked_out(self, event: dict) -> None:
        seat, cards = event["seat"], event["cards"]
        self.seen.update(cards)
        self.alive[seat] = False
        if seat == self.me:
            self.hand = []
        if self.compared is not None and cards:
            winner, lower_loses = self.compared
            self.compared = None
            self._restrict(winner, self.book.value[cards[0]], above=lower_loses)

    def _restrict(self, seat: int, value: int, above: bool) -> None:
        """`seat` holds a card of value above (or below) `value`."""
        values = self.book.value
        self.weights[seat] = {
            card: w
            for card, w in self.weights[seat].items()
            if (values[card] > value if above else values[card] < value)
        }

    def _guess(self, event: dict) -> None:
        target, guess, hit = event["target"], event["guess"], event["hit"]
        if target == self.me:
            return
        named = self.book.named
        keep_named = hit and self.last_role is Role.BISHOP
        self.weights[target] = {
            card: w for card, w in self.weights[target].items() if named(card, guess) == keep_named
        }

    def _look(self, event: dict) -> None:
        seat, target = event["seat"], event["target"]
        if seat == self.me and event.get("cards"):
            self.weights[target] = {event["cards"][0]: 1.0}
        elif target == self.me and self.hand:
            self.exposed[seat] = self.hand[0]

    def _compare(self, event: dict) -> None:
        seat, target, loser = event["seat"], event["target"], event["loser"]
        if self.me in (seat, target):
            other = target if seat == self.me else seat
            if loser is None:
                self.weights[other] = {event["cards"][str(other)]: 1.0}
                self.exposed[other] = self.hand[0]
        elif loser is not None:
            winner = target if loser == seat else seat
            self.compared = (winner, self.last_role is not Role.DOWAGER_QUEEN)
        else:
            self._tie(seat, target)

    def _tie(self, a: int, b: int) -> None:
        """Two other seats compared equal values: each holds what the other may hold."""
        pool = self.pool()
        value = self.book.value
        by_value = []
        for seat in (a, b):
            odds: dict[int, float] = {}
            for card, p in self.distribution(seat, self.pool_for(seat, pool)).items():
                odds[value[card]] = odds.get(value[card], 0.0) + p
            by_value.append(odds)
        for seat, other_odds in ((a, by_value[1]), (b, by_value[0])):
            self.weights[seat] = {
                card: w * other_odds.get(value[card], 0.0)
                for card, w in self.weights[seat].items()
                if other_odds.get(value[card], 0.0) > 0
            }

    def _swap(self, event: dict) -> None:
        a, b = event["seats"]
        if self.me not in (a, b):
            self.weights[a], self.weights[b] = self.weights[b], self.weights[a]
            return
        other = b if a == self.me else a
        before = event["cards"]
        mine, theirs = before[str(self.me)], before[str(other)]
        self.hand = list(theirs)
        self.weights[other] = {mine[0]: 1.0} if mine else self.uniform()
        self.exposed = {other: self.hand[0]} if self.hand else {}

    def _chancellor_draw(self, event: dict) -> None:
        self.deck_size -= event["count"]
        if event["seat"] == self.me:
            self.hand.extend(event["cards"])

    def _chancellor_return(self, event: dict) -> None:
        seat, count = event["seat"], event["count"]
        self.deck_size += count
        if seat == self.me:
            self.hand = [event["keep"]]
            self.bottom[:0] = reversed(event["bottom"])
            self.exposed = {}
            return
        self.bottom[:0] = [None] * count
        kept_old = 1 / (count + 1)  # the old card is one of count + 1 kept at random
        pool = self.pool_for(seat, self.pool())
        total = sum(pool.values()) or 1
        old = self.distribution(seat, pool)
        self.weights[seat] = {
            card: kept_old * old.get(card, 0.0) / n + (1 - kept_old) / total
            for card, n in pool.items()
            if n > 0
        }


def handlers_of_kinds(handlers: dict) -> dict:
    """`handlers`, after checking that each names an event kind of the catalogue (TypeError
    at import otherwise; tests/test_bots.py checks they read only the kinds' fields)."""
    for kind in handlers:
        if kind not in EVENTS:
            raise TypeError(f"beliefs handle {kind!r}, which is not an event kind")
    return handlers


MAX_DEALS = 200  # deal the pool exactly to the opponents when there are no more ways

_HANDLERS = handlers_of_kinds(
    {
        "deal": Beliefs._deal,
        "draw": Beliefs._draw,
        "play": Beliefs._play,
        "discard": Beliefs._discard,
        "knocked_out": Beliefs._knocked_out,
        "guess": Beliefs._guess,
        "look": Beliefs._look,
        "compare": Beliefs._compare,
        "swap": Beliefs._swap,
        "chancellor_draw": Beliefs._chancellor_draw,
        "chancellor_return": Beliefs._chancellor_return,
    }
)
"""What each event kind teaches; the kinds are the event catalogue's."""


class RoundFollower:
    """Keeps a seat's `Beliefs` in step with its log: incrementally, or replayed from scratch."""

    def __init__(self, opponents: str = CAREFUL) -> None:
        self.opponents = opponents  # the model of the opponents' plays (`cards.OPPONENTS`)
        self.beliefs: Beliefs | None = None
        self._consumed = 0  # log entries already applied
        self._last: dict | None = None  # the last applied entry, to recognise the same log
        self._round_at = -1  # where this round's round_start lies in the log
        self._round_start: dict | None = None

    def follow(self, view: View, log: list[dict]) -> Beliefs:
        """The beliefs after every entry of `log`, the seat's whole visible log so far."""
        if not self._continues(view, log):
            self._restart(view, log)
        for event in log[self._consumed :]:
            if event["kind"] == "round_start":
                self._begin(view, event, self._consumed)
            elif self.beliefs is not None:
                self.beliefs.apply(event)
            self._consumed += 1
        self._last = log[-1] if log else None
        if self.beliefs is None or self._round_start is None:
            self.beliefs = beliefs_from_view(view, self.opponents)
        self.beliefs.sync(view)
        return self.beliefs

    def _continues(self, view: View, log: list[dict]) -> bool:
        beliefs = self.beliefs
        return (
            beliefs is not None
            and beliefs.me == view.viewer
            and 0 < self._consumed <= len(log)
            and log[self._consumed - 1] == self._last
            and 0 <= self._round_at < len(log)
            and log[self._round_at] == self._round_start
        )

    def _restart(self, view: View, log: list[dict]) -> None:
        starts = [i for i, event in enumerate(log) if event["kind"] == "round_start"]
        self.beliefs = None
        self._round_start = None
        self._consumed = starts[-1] if starts else len(log)

    def _begin(self, view: View, event: dict, index: int) -> None:
        book = card_book(view.edition, self.opponents)
        players = view.players
        face_up = list(event["face_up"])
        deck_size = sum(book.count.values()) - 1 - len(face_up) - players
        self.beliefs = Beliefs(book, view.viewer, players, face_up, deck_size)
        self._round_at = index
        self._round_start = event


def beliefs_from_view(view: View, opponents: str = CAREFUL) -> Beliefs:
    """Beliefs from the view alone, for a log that does not hold the round's start."""
    book = card_book(view.edition, opponents)
    beliefs = Beliefs(book, view.viewer, view.players, view.face_up, view.deck_size)
    for seat in view.seats:
        beliefs.seen.update(seat.discards)
    beliefs.hand = list(view.hand)
    return beliefs
