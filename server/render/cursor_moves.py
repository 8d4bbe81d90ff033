"""Cursor moves made once per position, not once per painted piece of a line.

Every screen update Textual sends starts each piece of a changed line with a cursor move,
built by `rich.control.Control.move_to` as a new `Control` (a list of codes, a format, a
`Segment`): about 3% of the server's CPU at 200 players. `install` makes `move_to` return
one shared `Control` per position; a `Control` is never changed once made, so the escape
codes sent are the same.

Upstream, Rich could cache `Control.move_to` itself (`functools.lru_cache` on the
classmethod), as it does for styles (patch `cursor_moves`; what it buys:
benchmarks/results/2026-12-06-patches.md).
"""

from __future__ import annotations

from functools import lru_cache

from rich.control import Control

POSITIONS_KEPT = 4096  # a few line starts for each row of the tallest terminal allowed (200)

_original = Control.__dict__["move_to"]  # the classmethod itself, to put back
_move_to = _original.__func__


@lru_cache(maxsize=POSITIONS_KEPT)
def _shared_move_to(cls: type[Control], x: int, y: int) -> Control:
    return _move_to(cls, x, y)


def install() -> None:
    """Patch `Control.move_to` (idempotent): one shared `Control` per position."""
    Control.move_to = classmethod(_shared_move_to)  # type: ignore[method-assign,assignment]


def uninstall() -> None:
    """Rich's own `Control.move_to` again (idempotent)."""
    Control.move_to = _original  # type: ignore[method-assign]


def installed() -> bool:
    """Whether `Control.move_to` is patched now."""
    return Control.move_to.__func__ is _shared_move_to  # type: ignore[attr-defined]
