"""Which look a session starts in, the order Ctrl+T goes through them, and what the looks keep
of Textual's filters."""

from __future__ import annotations

import pytest
from rich.terminal_theme import MONOKAI
from textual.filter import ANSIToTruecolor, Monochrome

from lovelet_tui.colour import NO_COLOUR, Look, look_filters, look_for

COLOUR, MONOCHROME, SIXTEEN = Look.COLOUR, Look.MONOCHROME, Look.SIXTEEN


@pytest.mark.parametrize(
    ("term", "env", "look"),
    [
        ("xterm-256color", {}, COLOUR),
        ("tmux-256color", {"LANG": "C.UTF-8"}, COLOUR),
        ("xterm-kitty", {}, COLOUR),
        ("xterm", {}, SIXTEEN),
        ("xterm", {"COLORTERM": "truecolor"}, COLOUR),
        ("screen", {}, SIXTEEN),
        ("linux", {}, SIXTEEN),
        ("xterm-16color", {}, SIXTEEN),
        ("vt100", {}, MONOCHROME),
        ("VT220", {}, MONOCHROME),
        ("dumb", {}, MONOCHROME),
        ("xterm-mono", {}, MONOCHROME),
        ("vt100-color", {}, SIXTEEN),
        ("xterm-256color", {"NO_COLOR": "1"}, MONOCHROME),
        ("xterm", {"NO_COLOR": "1", "COLORTERM": "truecolor"}, MONOCHROME),
        ("xterm-256color", {"NO_COLOR": ""}, COLOUR),  # no-color.org: set and not empty
    ],
)
def test_term_colorterm_and_no_color_choose_the_look(
    term: str, env: dict[str, str], look: Look
) -> None:
    assert look_for(term, env) is look


def test_ctrl_t_goes_through_every_look() -> None:
    assert [COLOUR.next, MONOCHROME.next, SIXTEEN.next] == [MONOCHROME, SIXTEEN, COLOUR]


def test_the_servers_own_no_color_never_decides_a_sessions_look() -> None:
    truecolor = ANSIToTruecolor(MONOKAI)
    assert look_filters([truecolor, Monochrome()], COLOUR) == [truecolor]
    assert look_filters([truecolor, Monochrome()], SIXTEEN) == [truecolor]
    assert look_filters([truecolor, Monochrome()], MONOCHROME) == [truecolor, NO_COLOUR]
