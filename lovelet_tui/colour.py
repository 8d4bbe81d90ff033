"""Colour or the monochrome look, chosen per session from the client's TERM and NO_COLOR.

The colour depth is one for the whole process (Rich caches each style's escape codes on the
style itself, and Textual shares styles between apps). The monochrome look works at any depth:
a line filter turns every colour into the terminal's default (SGR 39/49, never 38/48) and the
`App:nocolor` rules of app.tcss show focus and selection in reverse video.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from textual.filter import LineFilter, Monochrome, NoColor

MONOCHROME_TERMS = re.compile(r"dumb|unknown|vt\d+(?!.*colou?r).*|.+-(m|mono)", re.IGNORECASE)
"""TERM values of terminals without colour: dumb, the VT series, terminfo's `-m`/`-mono`."""

NO_COLOUR = NoColor()
"""Shared by every monochrome session: it keeps no state."""


def wants_monochrome(term: str, env: Mapping[str, str]) -> bool:
    """Whether a session starts in the monochrome look: a colourless TERM, or NO_COLOR set
    to anything but the empty string (no-color.org)."""
    return bool(env.get("NO_COLOR")) or MONOCHROME_TERMS.fullmatch(term) is not None


def look_filters(filters: Sequence[LineFilter], monochrome: bool) -> list[LineFilter]:
    """Textual's line filters for one app, without the ones it set from the process's own
    NO_COLOR (that environment is the server's, not the player's), ending with
    `NO_COLOUR` in the monochrome look."""
    kept = [f for f in filters if not isinstance(f, Monochrome | NoColor)]
    return [*kept, NO_COLOUR] if monochrome else kept
