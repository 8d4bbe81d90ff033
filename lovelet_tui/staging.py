"""A pending decision staged one step at a time over its flat list of legal choices.

The client knows no rules: it groups the legal choices it was sent by their fields, in order
(card, then targets, then guess; keep, then bottom; look; redraw), offers the distinct values
of the next field among the choices still possible, and answers with the one choice left.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from lovelet_tui.actions import DIGITS
from lovelet_tui.names import Names

Choice = Mapping[str, Any]

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
    "seat": "Look at whose hand?",
    "redraw": "Discard your hand and draw?",
}
NOTHING: tuple[Hashable, ...] = ((), None)  # a field with nothing to choose


@dataclass(frozen=True, slots=True)
class Option:
    """One value of the current step: the key that picks it and how it reads."""

    key: str
    label: str
    value: Hashable


class Staging:
    """Walks the steps of one decision; `pick` returns the whole choice once one is left."""

    def __init__(self, choices: Sequence[Choice], names: Names) -> None:
        self.choices = list(choices)
        self.names = names
        self.steps = STEPS.get(str(self.choices[0].get("type")), ()) if self.choices else ()
        self.picked: list[Hashable] = []
        self.marks: list[int] = []  # len(picked) before each pick the player made
        self.cursor = 0
        self._skip_nothing()

    @property
    def step(self) -> str:
        """The field chosen now."""
        return self.steps[len(self.picked)]

    @property
    def prompt(self) -> str:
        """The question of the current step."""
        numbers = self.step == "guess" and any(isinstance(o.value, int) for o in self.options)
        return "Name a number:" if numbers else PROMPTS[self.step]

    @property
    def options(self) -> list[Option]:
        """The distinct values of the current step among the choices still possible."""
        values = list(dict.fromkeys(_value(c, self.step) for c in self._candidates()))
        return [self._option(i, value) for i, value in enumerate(values)]

    def pick(self, index: int) -> Choice | None:
        """Take option `index`; the complete choice when this was its last step, else None."""
        options = self.options
        if not 0 <= index < len(options):
            return None
        self.marks.append(len(self.picked))
        self.picked.append(options[index].value)
        self.cursor = 0
        self._skip_nothing()
        return self._candidates()[0] if len(self.picked) == len(self.steps) else None

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
        if not self.marks:
            return False
        del self.picked[self.marks.pop() :]
        self.cursor = 0
        return True

    def _candidates(self) -> list[Choice]:
        done = tuple(zip(self.steps, self.picked, strict=False))
        return [c for c in self.choices if all(_value(c, s) == v for s, v in done)]

    def _skip_nothing(self) -> None:
        """Take a step by itself when its only option is to choose nothing."""
        while len(self.picked) < len(self.steps):
            options = self.options
            if len(options) != 1 or options[0].value not in NOTHING:
                return
            self.picked.append(options[0].value)

    def _option(self, index: int, value: Hashable) -> Option:
        numbered = self.step == "guess" and isinstance(value, int) and 0 <= value <= 9
        key = str(value) if numbered else DIGITS[index] if index < len(DIGITS) else ""
        return Option(key, self._label(value), value)

    def _label(self, value: Any) -> str:
        names, step = self.names, self.step
        if step in ("card", "keep"):
            return names.card(value)
        if step == "targets":
            return names.group(value, capital=True) if value else "No one (no effect)"
        if step == "guess":
            return names.guess(value)
        if step == "bottom":
            return ", then ".join(names.card(card) for card in value)
        if step == "seat":
            whose = names.whose(value)
            return f"{whose[0].upper()}{whose[1:]} hand"
        return "Yes: discard and draw" if value else "No: keep it"


def _value(choice: Choice, step: str) -> Hashable:
    value = choice.get(step)
    return tuple(value) if isinstance(value, list | tuple) else value
