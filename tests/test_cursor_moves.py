"""Cursor moves with the server's patch: one shared move per position, the same codes as Rich's."""

from __future__ import annotations

from rich.control import Control, ControlType

from server.render import cursor_moves


def test_a_move_is_made_once_per_position_with_the_codes_rich_makes() -> None:
    rich_codes = {
        (x, y): Control((ControlType.CURSOR_MOVE_TO, x, y)).segment.text
        for x in (0, 1, 43, 79)
        for y in (0, 5, 23)
    }
    cursor_moves.install()
    cursor_moves.install()
    try:
        for (x, y), codes in rich_codes.items():
            assert Control.move_to(x, y).segment.text == codes
            assert Control.move_to(x, y) is Control.move_to(x, y)
        assert Control.move_to(0, 5) is not Control.move_to(5, 0)
    finally:
        cursor_moves.uninstall()
    assert Control.move_to(0, 5) is not Control.move_to(0, 5)  # Rich's own: a new one each time
