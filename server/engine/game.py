"""A game of Love Letter: rounds, turns, pending decisions, tokens and winners."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from functools import partial
from itertools import chain, compress, repeat, starmap
from typing import cast

from . import effects, legal
from .cards import CardSpec, Role
from .choices import Choice, Decision, Keep, Look, Play, Redraw
from .edition import Edition
from .errors import IllegalAction, SetupError
from .events import Event
from .position import Position
from .view import View, make_view


class Game:
    """The whole state of one game. Change it only through `start_round` and `act`."""

    __slots__ = (
        "_after", "_bishops", "_constables", "_counts", "_more_steps", "_ordered_steps", "_spies",
        "_spy_id", "_steps", "alive", "deck", "discards", "edition", "events", "face_up",
        "game_over", "game_winners", "hands", "jester", "marked", "next_start", "offers",
        "pending", "players", "protected", "record", "remaining", "rng", "roles", "round",
        "round_over", "round_winners", "set_aside", "target", "tokens", "turn", "unchoosable",
    )  # fmt: skip

    def __init__(
        self,
        edition: Edition,
        players: int,
        rng: random.Random | None = None,
        tokens: Sequence[int] | None = None,
        record: bool = True,
    ) -> None:
        """A game before its first round; `record=False` keeps no event log (for playouts)."""
        edition.check_players(players)
        self.edition = edition
        self.players = players
        self.rng = rng if rng is not None else random.Random()
        self.target = edition.tokens_to_win(players)
        self.tokens = list(tokens) if tokens is not None else [0] * players
        if len(self.tokens) != players:
            raise SetupError(f"tokens lists {len(self.tokens)} seats for {players} players")
        self.record = record
        self.roles = edition.roles
        # the memo of play decisions for this many players (see legal.play_offer)
        self.offers: dict[legal.OfferKey, legal.Offer] = edition.plays_memo[players]
        self._after = [*range(1, players), 0]  # the seat after each seat
        self._spies = frozenset(c for c in edition.cards if c.role == Role.SPY)
        self._spy_id = next((c.id for c in self._spies), "")
        # whether the edition has these cards, whose rules the inner loop would check in vain
        self._counts = Role.COUNT in self.roles
        self._constables = Role.CONSTABLE in self.roles
        self._bishops = Role.BISHOP in self.roles
        self.events: list[Event] = []
        self.round = 0
        self.round_over = True
        self.round_winners: list[int] = []
        self.game_over = False
        self.game_winners: list[int] = []
        self.next_start: int | None = None
        self.pending: Decision | None = None
        # the steps of the pending decision's plays, if a play decision: one card's, the other's
        self._steps: legal.Steps = {}
        self._more_steps: legal.Steps = {}
        self._ordered_steps: tuple[legal.Step, ...] = ()  # all of them, in the choices' order
        self.turn: int | None = None
        self._reset_round_state([])

    @classmethod
    def from_position(
        cls,
        edition: Edition,
        position: Position,
        tokens: Sequence[int],
        rng: random.Random | None = None,
        record: bool = False,
    ) -> Game:
        """A game in the middle of a round, at `position`; SetupError if it is not one."""
        game = cls(edition, len(position.hands), rng, tokens, record)
        game._set_position(position)
        return game

    # ----------------------------------------------------------------- set-up

    def _reset_round_state(self, deck: list[CardSpec]) -> None:
        n = self.players
        self.deck = deck  # top of the deck is the end of the list
        self.set_aside: list[CardSpec] = []
        self.face_up: list[CardSpec] = []
        self.hands: list[list[CardSpec]] = [[] for _ in range(n)]
        self.discards: list[list[CardSpec]] = [[] for _ in range(n)]
        self.alive = [True] * n
        self.remaining = n  # players still in the round: alive.count(True)
        self.protected = [False] * n
        self.unchoosable = 0  # bit per seat knocked out or protected; mirrors the two lists
        self.marked: int | None = None  # Sycophant
        self.jester: tuple[int, int] | None = None  # (Jester's player, chosen player)

    def start_round(self, deck: Sequence[str] | None = None, start: int | None = None) -> None:
        """Deal a new round: shuffled, or from `deck` (card ids, top first)."""
        if self.game_over:
            raise IllegalAction("game_over", "the game is over")
        if not self.round_over:
            raise IllegalAction("round_in_progress", "the round is still being played")
        cards = self._deck_from_ids(deck) if deck is not None else self._shuffled_deck()
        if start is not None and not 0 <= start < self.players:
            raise SetupError(f"start seat {start} is not a seat")
        self._reset_round_state(cards)
        self.round += 1
        self.round_over = False
        self.round_winners = []
        self.set_aside.append(self.deck.pop())
        if self.players == 2:
            self.face_up.extend(self.deck.pop() for _ in range(3))
        for hand in self.hands:
            hand.append(self.deck.pop())
        first = start if start is not None else self.next_start
        if first is None:
            first = self.rng.randrange(self.players)
        self.next_start = None
        if self.record:
            self._emit_round_start(first)
        self._begin_turn(first)

    def _set_position(self, position: Position) -> None:
        by_id = self.edition.by_id
        _check_position(self, position)
        self._reset_round_state([by_id[card] for card in reversed(position.deck)])
        self.set_aside = [by_id[card] for card in position.set_aside]
        self.face_up = [by_id[card] for card in position.face_up]
        self.hands = [[by_id[card] for card in hand] for hand in position.hands]
        self.discards = [[by_id[card] for card in pile] for pile in position.discards]
        self.alive = list(position.alive)
        self.remaining = self.alive.count(True)
        self.protected = list(position.protected)
        self.unchoosable = sum(
            1 << seat
            for seat in range(self.players)
            if self.protected[seat] or not self.alive[seat]
        )
        self.marked, self.jester = position.marked, position.jester
        self.round, self.round_over, self.turn = 1, False, position.turn
        hand = self.hands[position.turn]
        if position.kind == "play":
            offer = legal.play_offer(self, position.turn)
            self.pending, self._steps, self._more_steps, self._ordered_steps = offer
        else:
            self.ask(position.turn, "chancellor", effects.keep_choices(tuple(hand)))

    def _shuffled_deck(self) -> list[CardSpec]:
        """A uniformly random order: sorting by independent random keys is an unbiased
        shuffle and, unlike `Random.shuffle`, runs all in C. The key of each card is the next
        of an endless stream of `random()` (`next(stream, card)`): one per card, in deck order."""
        stream = starmap(self.rng.random, repeat(()))
        return sorted(self.edition.full_deck, key=partial(next, stream))

    def _deck_from_ids(self, deck: Sequence[str]) -> list[CardSpec]:
        expected = Counter(self.edition.deck_ids())
        given = Counter(deck)
        if given != expected:
            missing = sorted((expected - given).elements())
            extra = sorted((given - expected).elements())
            raise SetupError(
                f"deck must hold every {self.edition.id} card once: "
                f"missing {missing}, unexpected {extra}"
            )
        return [self.edition.by_id[card_id] for card_id in reversed(deck)]

    def _emit_round_start(self, first: int) -> None:
        self.emit(
            "round_start",
            None,
            round=self.round,
            start=first,
            face_up=[card.id for card in self.face_up],
            tokens=list(self.tokens),
        )
        for seat in range(self.players):
            self.emit_secret("deal", seat, {"card": self.hands[seat][0].id}, (seat,))

    # ------------------------------------------------------------------ turns

    def _begin_turn(self, seat: int) -> None:
        """`seat` draws; their play decision is pending (from the memo when it is there)."""
        self.turn = seat
        if self.unchoosable >> seat & 1:  # protected, since it is in the round
            self.protected[seat] = False
            self.unchoosable ^= 1 << seat
        card = self.deck.pop()
        hand = self.hands[seat]
        hand.append(card)
        if self.record:
            self.events.append(Event("draw", seat, {}, {"card": card.id}, (seat,)))
        key = (hand[0], card, seat, self.unchoosable, self.marked)
        offer = self.offers.get(key)  # see legal.play_offer
        if offer is None:
            offer = legal.play_offer(self, seat)
        self.pending, self._steps, self._more_steps, self._ordered_steps = offer

    def act(self, seat: int, choice: Choice) -> None:
        """Apply `seat`'s choice; IllegalAction (state unchanged) unless it is a legal choice."""
        decision = self.pending
        if decision is None:
            raise IllegalAction("no_decision", "no decision is pending")
        try:  # a lookup or two find a legal play and what playing it takes
            step = self._steps.get(choice)
            if step is None:
                step = self._more_steps.get(choice)
            if step is None and type(choice) is Play and len(choice.targets) == 2:
                step = self._in_order(choice)
        except TypeError:  # unhashable, so not a choice
            step = None
        if step is None:
            self._decide(seat, choice, decision)
            self._turn_on()
        elif seat != self.turn:  # the seat of a play decision
            self._reject_seat(seat, self.turn)
        else:
            self._play(seat, step)

    def _play(self, seat: int, step: legal.Step) -> None:
        """`seat` plays a legal play, given by its step, and the turn goes on."""
        self.pending = None
        card, effect, targets, guess = step
        hand = self.hands[seat]
        last = hand.pop()  # of the two cards held, the one not played stays
        if last is not card:  # the first was played
            hand[0] = last
        self.discards[seat].append(card)
        if self.record:
            public = {"card": card.id, "targets": targets, "guess": guess}
            self.events.append(Event("play", seat, public))
            if card.choosing and not targets:  # every other player protected or out
                self.emit("no_effect", seat, card=card.id, why="no_target")
        if card.choosing:
            self.marked = None
        effect(self, seat, card, targets, guess)
        self._turn_on()

    def _turn_on(self) -> None:
        """After a choice: unless another decision of the turn is pending, or the game is
        over, end the turn, and the round or the next turn begins."""
        if self.pending is not None or self.game_over:
            return
        if self.remaining == 1:
            self._end_round([self.alive.index(True)], "last_standing")
        elif not self.deck:
            self._showdown()
        else:
            after = self._after
            alive = self.alive
            ending = self.turn
            assert ending is not None  # a turn is being played
            turn = after[ending]
            while not alive[turn]:
                turn = after[turn]
            self._begin_turn(turn)

    def play_randomly(self, rng: random.Random) -> None:
        """Play the round on to its end, each decision a uniformly random legal choice: the
        one at `int(rng.random() * len(choices))`, as a caller's loop of `act` would pick it
        (a random playout: the engine benchmark's, or a search's)."""
        uniform = rng.random
        while not self.round_over:
            decision = self.pending
            assert decision is not None  # a round in play has a decision pending
            seat, _, choices = decision
            draw: float = uniform()
            pick = int(draw * float(len(choices)))
            if self._ordered_steps:  # a play decision: its step, found without a lookup
                self._play(seat, self._ordered_steps[pick])
            else:
                self.act(seat, choices[pick])

    def _in_order(self, play: Play) -> legal.Step | None:
        """The step of `play` with its two players in seat order, as the legal plays list
        them (a Baroness or Cardinal may name them in any order). TypeError if they are not
        comparable."""
        first, second = play.targets
        if first <= second:
            return None
        ordered = Play(play.card, (second, first), play.guess)
        return self._steps.get(ordered) or self._more_steps.get(ordered)

    def _decide(self, seat: int, choice: Choice, decision: Decision) -> None:
        """A sub-decision's choice (Chancellor, Cardinal, Bishop); any other is illegal."""
        deciding, kind, choices = decision
        if seat != deciding:
            self._reject_seat(seat, deciding)
        if kind == "play" or choice not in choices:  # a legal play has a step
            raise IllegalAction("illegal_choice", legal.explain(self, seat, choice))
        self.pending = None
        if kind == "chancellor":  # one of the offered choices, so of the decision's type
            self._keep(seat, cast(Keep, choice))
        elif kind == "cardinal_look":
            effects.cardinal_look(self, seat, cast(Look, choice))
        else:
            effects.bishop_redraw(self, seat, cast(Redraw, choice))

    def _reject_seat(self, seat: int, deciding: int | None) -> None:
        if 0 <= seat < self.players and not self.alive[seat]:
            raise IllegalAction("eliminated", f"seat {seat} is eliminated from this round")
        raise IllegalAction("not_your_turn", f"it is seat {deciding}'s decision, not seat {seat}'s")

    def _keep(self, seat: int, keep: Keep) -> None:
        kept, bottom = keep
        by_id = self.edition.by_id
        self.hands[seat] = [by_id[kept]]
        self.deck[:0] = map(by_id.__getitem__, reversed(bottom))
        if self.record:
            self.emit_secret(
                "chancellor_return",
                seat,
                {"keep": kept, "bottom": list(bottom)},
                (seat,),
                count=len(bottom),
            )

    # -------------------------------------------------- helpers for effects

    def emit(self, kind: str, seat: int | None, **public: object) -> None:
        """Record an event everyone may see."""
        if self.record:
            self.events.append(Event(kind, seat, public))

    def emit_secret(
        self, kind: str, seat: int | None, secret: dict, to: tuple[int, ...], **public: object
    ) -> None:
        """Record an event whose `secret` part only the seats in `to` may see."""
        if self.record:
            self.events.append(Event(kind, seat, public, secret, to))

    def protect(self, seat: int) -> None:
        """Handmaid: nobody else may choose `seat` until its next turn begins."""
        self.protected[seat] = True
        self.unchoosable |= 1 << seat
        if self.record:
            self.emit("protected", seat)

    def discard_hand(self, seat: int) -> CardSpec | None:
        """`seat` discards their hand without effect; a Princess knocks them out."""
        hand = self.hands[seat]
        if not hand:
            return None
        card = hand.pop()
        self.discards[seat].append(card)
        if self.record:
            self.emit("discard", seat, card=card.id)
        if card.role == Role.PRINCESS:
            self.knock_out(seat)
        return card

    def draw_replacement(self, seat: int) -> None:
        """`seat` draws a card: from the deck, or the face-down set-aside card if it is empty."""
        source = self.deck if self.deck else self.set_aside
        if not source:
            self.emit("draw_nothing", seat)
            return
        card = source.pop()
        self.hands[seat].append(card)
        if self.record:
            self.emit_secret(
                "draw", seat, {"card": card.id}, (seat,), set_aside=source is self.set_aside
            )

    def knock_out(self, seat: int) -> None:
        """`seat` leaves the round, discarding their hand face up."""
        constable = self._constables and Role.CONSTABLE in [c.role for c in self.discards[seat]]
        hand = self.hands[seat]
        if self.record:
            self.emit("knocked_out", seat, cards=[card.id for card in hand])
        self.discards[seat].extend(hand)
        hand.clear()
        self.alive[seat] = False
        self.remaining -= 1
        self.protected[seat] = False
        self.unchoosable |= 1 << seat
        if constable:
            self.gain_token(seat, "constable")

    def gain_token(self, seat: int, reason: str) -> None:
        """A token gained mid-round; reaching the target ends the game at once."""
        self.tokens[seat] += 1
        self.emit("token", seat, reason=reason, tokens=self.tokens[seat])
        if self.tokens[seat] >= self.target:
            self._end_game(mid_round=True)

    def ask(self, seat: int, kind: str, choices: tuple[Choice, ...]) -> None:
        """Make a sub-decision of the current turn pending (Chancellor, Cardinal, Bishop)."""
        self.pending = Decision(seat, kind, choices)
        self._steps = self._more_steps = {}  # few choices: compared one by one
        self._ordered_steps = ()

    # --------------------------------------------------------- round and game end

    def hand_score(self, seat: int) -> int:
        """A hand's showdown value: its card plus one per Count in the discards."""
        hand = self.hands[seat]
        if not hand:
            return -1
        return hand[0].value + self._counts_discarded(seat)

    @property
    def shown_down(self) -> bool:
        """The round ended at a showdown: the hands still held were shown to everyone."""
        return self.round_over and bool(self.round_winners) and self.remaining > 1

    def _showdown(self) -> None:
        hands = self.hands
        contenders = [seat for seat in range(self.players) if self.alive[seat]]
        shown = [seat for seat in contenders if hands[seat]]
        outranked = self._outranked(contenders)
        contenders = [seat for seat in contenders if seat not in outranked]
        scores = {seat: self.hand_score(seat) for seat in contenders}
        best = max(scores.values(), default=-2)
        winners = [seat for seat in contenders if scores[seat] == best]
        totals: dict[int, int] = {}
        if len(winners) > 1 and self.edition.tie_break_by_discards:
            totals = self._discard_totals(winners)
            winners = [seat for seat in winners if totals[seat] == max(totals.values())]
        if self.record:
            self.emit(
                "showdown",
                None,
                hands={str(s): hands[s][0].id for s in shown},
                scores={str(s): score for s, score in scores.items() if hands[s]},
                counts={str(s): n for s in contenders if (n := self._counts_discarded(s))},
                outranked={str(s): card for s, card in outranked.items()},
                discards={str(s): total for s, total in totals.items()},
            )
        self._end_round(winners, "showdown")

    def _outranked(self, contenders: list[int]) -> dict[int, str]:
        """The contenders whose hand loses whatever its value (a Bishop, to a Princess still
        held), each with the card that beats it."""
        hands = self.hands
        if not self._bishops:
            return {}
        princess = next(
            (hands[s][0].id for s in contenders if hands[s] and hands[s][0].role == Role.PRINCESS),
            None,
        )
        if princess is None:
            return {}
        return {s: princess for s in contenders if hands[s] and hands[s][0].role == Role.BISHOP}

    def _counts_discarded(self, seat: int) -> int:
        """How many Counts `seat` discarded (each adds one to its hand at a showdown)."""
        if not self._counts:
            return 0
        return [c.role for c in self.discards[seat]].count(Role.COUNT)

    def _discard_totals(self, seats: list[int]) -> dict[int, int]:
        """The value of each of `seats`' discards, added up (a showdown's tie-break)."""
        return {seat: sum([card.value for card in self.discards[seat]]) for seat in seats}

    def _end_round(self, winners: list[int], reason: str) -> None:
        self.round_over = True
        self.pending = None
        self.turn = None
        self.round_winners = winners
        bonuses = self._bonus_awards(winners)
        tokens = self.tokens
        for seat in winners:
            tokens[seat] += 1
        for seat, _ in bonuses:
            tokens[seat] += 1
        self.next_start = winners[0] if len(winners) == 1 else self.rng.choice(winners)
        if self.record:
            awards: dict[int, list[str]] = {seat: ["round"] for seat in winners}
            for seat, why in bonuses:
                awards.setdefault(seat, []).append(why)
            given = sorted(awards.items())
            self.emit(
                "round_end",
                None,
                winners=list(winners),
                reason=reason,
                gains={str(s): len(whys) for s, whys in given},
                awards={str(s): whys for s, whys in given},
                tokens=list(self.tokens),
                next_start=self.next_start,
            )
        if any(tokens >= self.target for tokens in self.tokens):
            self._end_game(mid_round=False)

    def _bonus_awards(self, winners: list[int]) -> list[tuple[int, str]]:
        """The bonus tokens of this round end (Spy, Princess pair, Jester), each with the
        reason a token records: the giving card's id, or "pair"."""
        awards: list[tuple[int, str]] = []
        if self._spies or self.edition.pair_bonus:
            alive = list(compress(range(self.players), self.alive))
        if self._spies:
            spies = [s for s in alive if not self._spies.isdisjoint(self.discards[s])]
            if len(spies) == 1:
                awards.append((spies[0], self._spy_id))
        if self.edition.pair_bonus:
            awards.extend((seat, "pair") for seat in self._pair_bonus(alive))
        if self.jester is not None and self.jester[1] in winners:
            awards.append((self.jester[0], "jester"))
        return awards

    def _pair_bonus(self, alive: list[int]) -> list[int]:
        first, second = self.edition.pair_bonus
        holders = {
            card_id: [s for s in alive if any(c.id == card_id for c in self.discards[s])]
            for card_id in (first, second)
        }
        for a in holders[first]:
            for b in holders[second]:
                if a != b:
                    return [a, b]
        return []

    def _end_game(self, mid_round: bool) -> None:
        self.round_over = True
        self.pending = None
        self.turn = None
        self.game_over = True
        self.game_winners = [s for s in range(self.players) if self.tokens[s] >= self.target]
        if mid_round:
            self.next_start = None
        self.emit("game_end", None, winners=list(self.game_winners), tokens=list(self.tokens))

    # ------------------------------------------------------------------ views

    def view(self, seat: int | None) -> View:
        """Everything `seat` may know now (`None`: a spectator); see `view.make_view`."""
        return make_view(self, seat)

    def log(self, seat: int | None, since: int = 0) -> list[dict]:
        """The events from index `since` as `seat` may see them."""
        return [event.for_seat(seat) for event in self.events[since:]]


_HELD_BY_KIND = {"play": (2,), "chancellor": (2, 3)}  # cards in the deciding seat's hand


def _check_position(game: Game, position: Position) -> None:
    """SetupError unless `position` holds every card once and is a decision of a round in play."""
    places = (position.deck, position.set_aside, position.face_up, *position.hands)
    cards = sorted(chain.from_iterable((*places, *position.discards)))
    if cards != sorted(game.edition.deck_ids()):
        raise SetupError(f"a position must hold every {game.edition.id} card once")
    turn, players = position.turn, game.players
    if not all(
        len(seq) == players for seq in (position.discards, position.alive, position.protected)
    ):
        raise SetupError(f"a position must describe each of its {players} seats")
    if not 0 <= turn < players or not position.alive[turn] or position.protected[turn]:
        raise SetupError(f"seat {turn} cannot be deciding")
    if position.kind not in _HELD_BY_KIND:
        raise SetupError(f"a position cannot be at a {position.kind!r} decision")
    for seat, hand in enumerate(position.hands):
        held = _HELD_BY_KIND[position.kind] if seat == turn else (int(position.alive[seat]),)
        if len(hand) not in held:
            raise SetupError(f"seat {seat} cannot hold {len(hand)} cards now")
