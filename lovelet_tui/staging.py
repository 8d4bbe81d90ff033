"""A pending decision staged one step at a time over its flat list of legal choices.

The client knows no rules: it narrows the legal choices it was sent by their fields, in order
(card, then targets, then guess; keep, then bottom; look; redraw). Each step offers the values
still possible; targets are picked one player at a time, as sets. When one choice is left, it
is the answer.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

from lovelet_tui.actions import DIGITS
from lovelet_tui.names import Names
from protocol import Choice

STEPS = {
    "play": ("card", "targets", "guess"),
    "keep": ("keep", "bottom"),
    "look": ("seat",),
    "redraw": ("redraw",),
}
PROMPTS = {
    "card": "Play which card?",
    "targets": "On whom?",
    "guess": "Name a card:",
    "keep": "Keep which card?",
    "bottom": "Put under the deck (top first):",
    "seat": "Look at one of the two hands?",
    "redraw": "Discard your hand and draw?",
}
DONE = "done"  # the targets picked so far are all of them
NOTHING: tuple[Hashable, ...] = ((), None)  # a field with nothing to choose


@dataclass(frozen=True, slots=True)
class Option:
    """One value of the current step: the key that picks it and how it reads."""

    key: str
    label: str
    value: Hashable


@dataclass(slots=True)
class _Narrowed:
    """What the picks so far leave of a decision."""

    candidates: list[Choice]
    step: str | None
    options: list[Option] | None = None


class Staging:
    """Walks the steps of one decision; `pick` returns the whole choice once one is left."""

    def __init__(self, choices: Sequence[Choice], names: Names) -> None:
        self.choices = list(choices)
        self.names = names
        self.steps = STEPS.get(self.choices[0].TYPE, ()) if self.choices else ()
        self.picks: list[tuple[str, Hashable]] = []  # (step, value), in the order taken
        self.cursor = 0
        self._narrowed: _Narrowed | None = None  # what the picks leave, until they change

    @property
    def step(self) -> str | None:
        """The field chosen now; None once the choice is complete."""
        return self._narrow().step

    @property
    def prompt(self) -> str:
        """The question of the current step."""
        step = self.step
        if step == "targets" and self._targets():
            return f"{self.names.group(self._targets(), capital=True)} and who else?"
        if step == "guess" and any(isinstance(o.value, int) for o in self.options):
            return "Name a number:"
        if step == "seat":
            return self._look_prompt()
        return PROMPTS.get(step or "", "")

    def _look_prompt(self) -> str:
        """The Cardinal's optional look: at one of two hands, or at the one you do not hold."""
        seats = [o.value for o in self.options if isinstance(o.value, int)]
        if len(seats) == 1:
            return f"Look at {self.names.whose(seats[0])} hand?"
        return PROMPTS["seat"]

    @property
    def options(self) -> list[Option]:
        """The values of the current step among the choices still possible."""
        narrowed = self._narrow()
        if narrowed.options is None:
            narrowed.options = self._options(narrowed.step, narrowed.candidates)
        return narrowed.options

    def _options(self, step: str | None, candidates: list[Choice]) -> list[Option]:
        if step is None:
            return []
        if step == "targets":
            values = self._target_values(candidates)
        else:
            values = list(dict.fromkeys(_value(c, step) for c in candidates))
        keys = self._numbers(values) if step == "guess" else None
        if keys is None:
            keys = [DIGITS[i] if i < len(DIGITS) else "" for i in range(len(values))]
        return [Option(k, self._label(step, v), v) for k, v in zip(keys, values, strict=True)]

    @property
    def can_back(self) -> bool:
        """Is there a pick to undo?"""
        return bool(self.picks)

    def pick(self, index: int) -> Choice | None:
        """Take option `index`; the complete choice when nothing is left to pick, else None."""
        step, options = self.step, self.options
        if step is None or not 0 <= index < len(options):
            return None
        self.picks.append((step, options[index].value))
        self._narrowed = None
        self.cursor = 0
        return self._candidates()[0] if self.step is None else None

    def pick_key(self, key: str) -> Choice | None:
        """Take the option shown with `key`, if any."""
        for index, option in enumerate(self.options):
            if option.key == key:
                return self.pick(index)
        return None

    def choose(self) -> Choice | None:
        """Take the option under the cursor."""
        return self.pick(self.cursor)

    def move(self, delta: int) -> None:
        """Move the cursor, staying on the list."""
        self.cursor = max(0, min(len(self.options) - 1, self.cursor + delta))

    def back(self) -> bool:
        """Undo the last pick; False when there was none."""
        if not self.picks:
            return False
        self.picks.pop()
        self._narrowed = None
        self.cursor = 0
        return True

    # ------------------------------------------------------------------ narrowing

    def _targets(self) -> list[int]:
        return [v for s, v in self.picks if s == "targets" and isinstance(v, int)]

    def _narrow(self) -> _Narrowed:
        """The choices the picks leave and the step they are at (options once asked for)."""
        narrowed = self._narrowed
        if narrowed is None:
            candidates = [c for c in self.choices if self._matches(c)]
            step = next((s for s in self.steps if not self._settled(s, candidates)), None)
            narrowed = self._narrowed = _Narrowed(candidates, step)
        return narrowed

    def _candidates(self) -> list[Choice]:
        return self._narrow().candidates

    def _matches(self, choice: Choice) -> bool:
        targets = set(_targets_of(choice))
        for step, value in self.picks:
            if step != "targets":
                if _value(choice, step) != value:
                    return False
            elif value == DONE:
                if targets != set(self._targets()):
                    return False
            elif value not in targets:
                return False
        return True

    def _settled(self, step: str, candidates: list[Choice]) -> bool:
        """Is `step` decided: picked, or the same for every choice left?"""
        if step == "targets":
            picked = set(self._targets())
            return any(s == step and v == DONE for s, v in self.picks) or all(
                set(_targets_of(c)) == picked for c in candidates
            )
        if any(s == step for s, _ in self.picks):
            return True
        values = {_value(c, step) for c in candidates}
        return len(values) == 1 and values <= set(NOTHING)

    def _target_values(self, candidates: list[Choice]) -> list[Hashable]:
        """Seats still to add, in seat order, then DONE if the seats so far can be all."""
        picked = set(self._targets())
        seats = sorted({t for c in candidates for t in _targets_of(c)} - picked)
        complete = any(set(_targets_of(c)) == picked for c in candidates)
        return [*seats, DONE] if complete else list(seats)

    # ------------------------------------------------------------------ labels

    def _numbers(self, guesses: list[Hashable]) -> list[str] | None:
        """Guesses keyed by their card's value (a number's own digit); a second card of a
        value already keyed (ppea's two Princesses, both 6) takes the first digit no value
        uses. None if a value is not a digit or the digits run out."""
        numbers = [g if isinstance(g, int) else _card_value(self.names, g) for g in guesses]
        if not all(isinstance(n, int) and 0 <= n <= 9 for n in numbers):
            return None
        keys = [str(n) for n in numbers]
        seconds = [i for i, key in enumerate(keys) if key in keys[:i]]
        spare = [digit for digit in DIGITS if digit not in keys]
        if len(spare) < len(seconds):
            return None
        for index, digit in zip(seconds, spare, strict=False):
            keys[index] = digit
        return keys

    def _label(self, step: str, value: Any) -> str:
        names = self.names
        if step in ("card", "keep"):
            return names.card(value)
        if step == "targets":
            if value == DONE:
                return f"Only {names.group(self._targets())}" if self._targets() else "No one"
            return names.player(value, capital=True)
        if step == "guess":
            return (
                names.of_value(value) or str(value) if isinstance(value, int) else names.card(value)
            )
        if step == "bottom":
            return ", then ".join(names.card(card) for card in value)
        if step == "seat":
            return self._look_label(value)
        return "Yes: discard and draw" if value else "No: keep it"

    def _look_label(self, seat: int | None) -> str:
        lookable = sum(isinstance(getattr(c, "seat", None), int) for c in self._candidates())
        if seat is None:
            return "No" if lookable == 1 else "Neither"
        hand = f"{self.names.whose(seat, capital=True)} hand"
        return f"Yes: look at {self.names.whose(seat)} hand" if lookable == 1 else hand


def _value(choice: Choice, step: str) -> Hashable:
    """The choice's field `step` (None if its kind has no such field)."""
    return getattr(choice, step, None)


def _targets_of(choice: Choice) -> tuple[int, ...]:
    return getattr(choice, "targets", ())


def _card_value(names: Names, card_id: Hashable) -> int | None:
    card = names.cards.get(str(card_id))
    return card.value if card else None
