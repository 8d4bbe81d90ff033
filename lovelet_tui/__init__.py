"""The lovelet terminal UI: a Textual app that renders what the server sends."""

from lovelet_tui.app import LoveletApp
from lovelet_tui.link import Link

__all__ = ["Link", "LoveletApp"]
