"""The session's look (full colour, 16 colours or monochrome), first chosen from the client's
TERM, COLORTERM and NO_COLOR, then switched by the player.

The colour depth is one for the whole process (Rich caches each style's escape codes on the
style itself, and Textual shares styles between apps). The other two looks work at any depth:
16 colours is Textual's `ansi-dark` theme, whose colours are the terminal's own 16 (SGR 30-37,
40-47, 90-97, 100-107, never 38/48); monochrome is a line filter turning every colour into the
terminal's default (SGR 39/49) with the `App:nocolor` rules of app.tcss showing focus and
selection in reverse video.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from enum import StrEnum

from textual.filter import LineFilter, Monochrome, NoColor

MONOCHROME_TERMS = re.compile(r"dumb|unknown|vt\d+(?!.*colou?r).*|.+-(m|mono)", re.IGNORECASE)
"""TERM values of terminals without colour: dumb, the VT series, terminfo's `-m`/`-mono`."""
SIXTEEN_COLOUR_TERMS = re.compile(
    r"(xterm|screen|tmux|linux|rxvt|ansi|cygwin|putty|konsole|gnome|vt\d+)"
    r"(-(8|16)?colou?r)?",
    re.IGNORECASE,
)
"""TERM values whose terminfo entry has 8 or 16 colours (`xterm`, `screen`, `linux`...);
names with 256color, and those not listed (kitty, alacritty...), get the server's depth."""
FULL_COLORTERM = frozenset({"truecolor", "24bit"})
ANSI_THEME = "ansi-dark"


class Look(StrEnum):
    """How a session is drawn; Ctrl+T moves to the next one."""

    COLOUR = "colour"
    MONOCHROME = "monochrome"
    SIXTEEN = "16 colours"

    @property
    def next(self) -> Look:
        """The look Ctrl+T switches to."""
        looks = list(Look)
        return looks[(looks.index(self) + 1) % len(looks)]


NO_COLOUR = NoColor()
"""Shared by every monochrome session: it keeps no state."""


def look_for(term: str, env: Mapping[str, str]) -> Look:
    """The look a session starts in: monochrome for a colourless TERM or NO_COLOR set to
    anything but the empty string (no-color.org), 16 colours for an 8- or 16-colour TERM
    unless COLORTERM says truecolor, else the server's colours."""
    if env.get("NO_COLOR") or MONOCHROME_TERMS.fullmatch(term):
        return Look.MONOCHROME
    if SIXTEEN_COLOUR_TERMS.fullmatch(term) and env.get("COLORTERM") not in FULL_COLORTERM:
        return Look.SIXTEEN
    return Look.COLOUR


def look_filters(filters: Sequence[LineFilter], look: Look) -> list[LineFilter]:
    """Textual's line filters for one app, without the ones it set from the process's own
    NO_COLOR (that environment is the server's, not the player's), ending with
    `NO_COLOUR` in the monochrome look."""
    kept = [f for f in filters if not isinstance(f, Monochrome | NoColor)]
    return [*kept, NO_COLOUR] if look is Look.MONOCHROME else kept
