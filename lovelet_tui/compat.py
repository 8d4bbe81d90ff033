"""Every use of Textual's internals in the app, in one place.

`Rows` widgets repaint changed rows without a trip through their own message loop, which
Textual offers no public API for. An upgrade that moves what this relies on breaks this module
alone, and the upgrade canary (tests/test_library_canary.py) says which symbol moved.
"""

from __future__ import annotations

from textual import messages
from textual.geometry import Region
from textual.widget import Widget


def repaint_regions(widget: Widget, regions: list[Region]) -> None:
    """Mark `regions` of a mounted, shown `widget` dirty and ask its screen to paint them at
    the next update (what `refresh` does, minus a wake-up of the widget's own loop)."""
    widget._set_dirty(*regions)
    widget.screen.post_message(messages.Update(widget))
