"""Which sessions start in the monochrome look, and what it keeps of Textual's filters."""

from __future__ import annotations

import pytest
from rich.terminal_theme import MONOKAI
from textual.filter import ANSIToTruecolor, Monochrome

from lovelet_tui.colour import NO_COLOUR, look_filters, wants_monochrome


@pytest.mark.parametrize(
    ("term", "env", "monochrome"),
    [
        ("xterm-256color", {}, False),
        ("xterm", {}, False),
        ("screen", {"LANG": "C.UTF-8"}, False),
        ("vt100", {}, True),
        ("VT220", {}, True),
        ("dumb", {}, True),
        ("xterm-mono", {}, True),
        ("vt100-color", {}, False),
        ("xterm-256color", {"NO_COLOR": "1"}, True),
        ("xterm-256color", {"NO_COLOR": ""}, False),  # no-color.org: set and not empty
    ],
)
def test_term_and_no_color_choose_the_look(
    term: str, env: dict[str, str], monochrome: bool
) -> None:
    assert wants_monochrome(term, env) is monochrome


def test_the_servers_own_no_color_never_decides_a_sessions_look() -> None:
    truecolor = ANSIToTruecolor(MONOKAI)
    assert look_filters([truecolor, Monochrome()], monochrome=False) == [truecolor]
    assert look_filters([truecolor, Monochrome()], monochrome=True) == [truecolor, NO_COLOUR]
