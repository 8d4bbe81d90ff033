"""The message shown instead of a screen when the terminal is below 80×24."""

from __future__ import annotations

from textual.widgets import Static

MIN_WIDTH, MIN_HEIGHT = 80, 24


class TooSmall(Static):
    """Hidden unless the screen has a `-narrow` or `-short` breakpoint class (see app.tcss)."""

    DEFAULT_CSS = """
    TooSmall {
        display: none;
        width: 1fr;
        height: 1fr;
        content-align: center middle;
        text-style: bold;
        background: $background;
    }
    """

    def __init__(self) -> None:
        super().__init__(f"Terminal too small (need {MIN_WIDTH}×{MIN_HEIGHT}).\nPlease enlarge it.")
