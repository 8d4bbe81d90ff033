"""Hints at a table: the hard bot's choice for a player's pending decision, worked out in the
bot pool from that seat's view and log only, once per decision, within a per-seat rate limit."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from math import ceil

from protocol import ErrorReply, Hint, Message

from ..bots.advice import Advice
from ..engine import Event
from ..services.views import wire_choice
from .errors import TableError
from .limits import RateLimit
from .runner import GameRunner
from .seating import Member, Seating

Send = Callable[[Member, Message], None]


@dataclass(frozen=True, slots=True)
class HintRule:
    """Whether a table allows hints: `allowed` True or False as its host chose, or None (the
    default): allowed when a bot plays at the table."""

    allowed: bool | None = None

    def applies(self, seating: Seating) -> bool:
        """Whether players may ask for hints at a table seated as `seating` is now."""
        if self.allowed is not None:
            return self.allowed
        return any(seat.bot_level is not None for seat in seating.seats)


class HintDesk:
    """Answers `hint` requests: one search per decision (a second ask gets the same answer),
    at most `burst` searches per seat in any `interval` seconds."""

    def __init__(
        self,
        rule: HintRule,
        seating: Seating,
        runner: GameRunner,
        send: Send,
        changed: Callable[[], None],
    ) -> None:
        self.rule, self._seating, self._runner = rule, seating, runner
        self._send, self._changed = send, changed
        self._answers: dict[tuple[int, int, int], Hint] = {}  # (epoch, step, seat) -> hint
        self._asking: dict[tuple[int, int, int], list[Member]] = {}  # searches under way
        self._limits: dict[int, RateLimit] = {}

    def allowed(self) -> bool:
        """Whether players may ask for hints now (never on a server that allows none)."""
        runner = self._runner
        if runner.settings.hint_burst <= 0 or runner.scripted_step() is not None:
            return False  # none on the server, or the tutorial's scripted round is played
        return self.rule.applies(self._seating)

    def ask(self, member: Member, index: int) -> None:
        """`member`, seated at `index`, asks for a hint on its pending decision."""
        runner, settings = self._runner, self._runner.settings
        if not self.allowed():
            raise TableError("no_hints", "hints are off at this table")
        game = runner.game
        if runner.status != "playing" or game is None or game.pending is None:
            raise TableError("not_your_turn", "a hint is for a decision of yours")
        if game.pending.seat != index:
            raise TableError("not_your_turn", "a hint is for a decision of yours")
        key = (runner.epoch, runner.step, index)
        if key in self._answers:
            self._send(member, self._answers[key])
            return
        if key in self._asking:
            if member not in self._asking[key]:
                self._asking[key].append(member)
            return
        self._charge(index)
        self._asking = {key: [member]}  # a new decision: older searches are moot
        names = [seat.name or f"seat {i + 1}" for i, seat in enumerate(self._seating.seats)]
        view, log = game.view(index), runner.seat_log(index)
        seed = runner.deps.rng.getrandbits(64)
        deliver = partial(self._answered, key)
        runner.deps.bots.advise(view, log, names, seed, settings.bot_budget, deliver)

    def _charge(self, index: int) -> None:
        settings, now = self._runner.settings, self._runner.deps.clock.now()
        limit = self._limits.setdefault(
            index, RateLimit(settings.hint_burst, settings.hint_interval)
        )
        if not limit.allow(now):
            wait = ceil(limit.wait(now))
            raise TableError(
                "hint_limit",
                f"at most {settings.hint_burst} hints in {settings.hint_interval:g} s: "
                f"the next in {wait} s",
            )

    def _answered(self, key: tuple[int, int, int], advice: Advice | None) -> None:
        """A search is back: if the decision is still pending, the log says a hint was used
        and whoever asked gets it."""
        waiting = self._asking.pop(key, [])
        runner = self._runner
        epoch, step, index = key
        if runner.closed or (runner.epoch, runner.step) != (epoch, step):
            return
        if advice is None:  # the pool failed (and said why in the server's log)
            for member in waiting:
                self._send(member, ErrorReply("internal", "the hint could not be worked out"))
            return
        choice = wire_choice(advice.choice)
        hint = Hint(choice, advice.text, advice.alternative_text)
        self._answers = {key: hint}
        runner.log.append(Event("hint", index, {}))
        self._changed()
        for member in waiting:
            self._send(member, hint)
