"""Rich renderables drawn once per width for every session, then shown as styled lines.

A Rich `Table` is measured and rendered again on every layout of the widget that holds it:
opening and closing the help screen cost about 200 ms of the server's time, most of it in its
two tables (about 90 ms with them rendered once). Reference text is the same for every player
of an edition, so it is rendered once per (content, width) and kept; a screen shows the kept
lines, which cost next to nothing to measure.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from functools import lru_cache

from rich.console import Console, RenderableType
from rich.segment import Segment
from rich.text import Text
from textual.geometry import Size
from textual.widget import Widget

Build = Callable[[], RenderableType]
"""Makes the renderable; called once per content key and width."""


class Prerendered(Widget):
    """Shows what `build` makes, rendered at the widget's width and kept under `key` (which
    must stand for everything `build` depends on)."""

    DEFAULT_CSS = """
    Prerendered {
        height: auto;
    }
    """

    def __init__(self, key: Hashable, build: Build) -> None:
        super().__init__()
        self._key = key
        self._build = build

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._lines(width).plain.split("\n"))

    def render(self) -> Text:
        return self._lines(self.content_region.width or self.app.size.width)

    def _lines(self, width: int) -> Text:
        return rendered(self._key, max(1, width), self._build)


def rendered(key: Hashable, width: int, build: Build) -> Text:
    """`build()` rendered at `width` as styled text, from the process-wide cache."""
    return _rendered(key, width, _Builder(build))


class _Builder:
    """`build`, left out of the cache key (the key stands for it), and let go of once called:
    the cache keeps its key, which would otherwise keep whatever `build` refers to (the
    first screen drawn at each width, and its whole app) for the life of the process."""

    def __init__(self, build: Build) -> None:
        self._build: Build | None = build

    def build(self) -> RenderableType:
        """What `build` makes (once)."""
        build, self._build = self._build, None
        assert build is not None, "built twice"
        return build()

    def __hash__(self) -> int:
        return 0

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Builder)


@lru_cache(maxsize=256)
def _rendered(key: Hashable, width: int, builder: _Builder) -> Text:
    console = Console(width=width, color_system="truecolor", legacy_windows=False)
    lines = console.render_lines(builder.build(), console.options, pad=False)
    text = Text("\n").join(_line(line) for line in lines)
    text.no_wrap = True
    text.overflow = "crop"
    return text


def _line(segments: list[Segment]) -> Text:
    return Text.assemble(*((s.text, s.style) for s in segments if not s.control))
