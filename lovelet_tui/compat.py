"""Every use of Textual's internals in the app, in one place.

`Rows` widgets repaint changed rows without a trip through their own message loop or their
screen's, which Textual offers no public API for. `SharedStylesheet` parses each CSS source
once per process, not once per app. An upgrade that moves what this relies on breaks this
module alone, and the upgrade canary (tests/test_library_canary.py) says which symbol moved.

Both are optional (`use`): without them a `Rows` widget calls `refresh` and each app parses
its own CSS, as any Textual app does. They are on by default only on a Textual version they
were verified with (`TEXTUAL_VERIFIED`); the server switches them with its other patches
(`server.ssh.compat`, setting `render_patches`).
"""

from __future__ import annotations

from importlib.metadata import version

from textual import messages
from textual.cache import LRUCache
from textual.css.model import RuleSet
from textual.css.stylesheet import Stylesheet
from textual.css.types import CSSLocation
from textual.geometry import Region
from textual.widget import Widget

TEXTUAL_VERIFIED = ("8.2.8",)
"""Textual versions the test suite passed on with these in use (requirements/test.txt)."""
PARTS = ("repaint_rows", "shared_stylesheet")
"""What `use` switches: `repaint_regions`'s direct repaint, and `SharedStylesheet`."""
_IN_USE = dict.fromkeys(PARTS, version("textual") in TEXTUAL_VERIFIED)


def use(part: str, on: bool) -> None:
    """Switch one of `PARTS` on or off for apps made (or rows repainted) from now on."""
    if part not in _IN_USE:
        raise ValueError(f"no such part: {part!r}")
    _IN_USE[part] = on


def in_use(part: str) -> bool:
    """Whether one of `PARTS` is on."""
    return _IN_USE[part]


ParseKey = tuple[str, CSSLocation, bool, int, str]
"""What `Stylesheet._parse_rules` parses: css, where it was read from, whether it is a
widget's default CSS, its tie breaker and its scope."""

_PARSED: LRUCache[tuple[tuple[str, str], ...], dict[ParseKey, list[RuleSet]]] = LRUCache(8)
"""Parsed rules by CSS variables (one set per theme in use), then by what was parsed."""


def repaint_regions(widget: Widget, regions: list[Region]) -> None:
    """Mark `regions` of a mounted, shown `widget` dirty and have its screen paint them at
    its next update.

    What `refresh` does, without its messages: `refresh` wakes the widget's own loop, which
    posts `Update` to the screen, whose handler adds the widget to the screen's dirty set and
    prompts an idle pass, which resumes the screen's update timer. For the screen shown, with
    no batch open, this adds the widget and resumes the timer itself. Otherwise it posts the
    `Update`, and Textual decides when to paint. Not in use: `refresh`. Upstream: a
    `Widget.refresh` that marks the screen's dirty set directly when it is the current
    screen (part `repaint_rows`).
    """
    if not _IN_USE["repaint_rows"]:
        widget.refresh(*regions)
        return
    widget._set_dirty(*regions)
    screen = widget.screen
    if screen.app._batch_count or not screen.is_current or screen not in screen._compositor:
        screen.post_message(messages.Update(widget))
        return
    screen._dirty_widgets.add(widget)
    screen._update_timer.resume()


class SharedStylesheet(Stylesheet):
    """A `Stylesheet` that shares its parsed rules with every other one in the process that
    has the same CSS variables: an app parses no CSS another app parsed before it.

    Rules are only read once parsed (Textual already shares them between the nodes of an app
    and between an app's own parses), so apps can share them too. Upstream: a process-wide
    cache of parsed rules keyed as `ParseKey` is (part `shared_stylesheet`)."""

    def __init__(self, *, variables: dict[str, str] | None = None) -> None:
        super().__init__(variables=variables)
        self.parsed = parsed_for(variables or {})

    def set_variables(self, variables: dict[str, str]) -> None:
        """New variables (a new theme): rules parsed with these."""
        super().set_variables(variables)
        self.parsed = parsed_for(variables)

    def _parse_rules(
        self,
        css: str,
        read_from: CSSLocation,
        is_default_rules: bool = False,
        tie_breaker: int = 0,
        scope: str = "",
    ) -> list[RuleSet]:
        key = (css, read_from, is_default_rules, tie_breaker, scope)
        rules = self.parsed.get(key)
        if rules is None:
            rules = super()._parse_rules(css, read_from, is_default_rules, tie_breaker, scope)
            self.parsed[key] = rules
        return rules

    def reparse(self) -> None:
        """Parse every source again with the current variables, through the shared rules.

        `Stylesheet.reparse` does the same in a fresh stylesheet of its own class (which
        would parse everything again); `parse` also leaves the rules as they were on an error.
        """
        self.parse()


def stylesheet(variables: dict[str, str]) -> Stylesheet:
    """A new app's stylesheet: shared rules if in use, else Textual's own."""
    if _IN_USE["shared_stylesheet"]:
        return SharedStylesheet(variables=variables)
    return Stylesheet(variables=variables)


def parsed_for(variables: dict[str, str]) -> dict[ParseKey, list[RuleSet]]:
    """The process's rules parsed with `variables`."""
    key = tuple(sorted(variables.items()))
    parsed = _PARSED.get(key)
    if parsed is None:
        parsed = {}
        _PARSED[key] = parsed
    return parsed
