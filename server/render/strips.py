"""Textual strips that never refer to themselves, so reference counting frees them.

Textual's `Strip` caches the results of `divide` and `crop_extend` in the strip itself. When the
result is the strip itself (a line cut at its own end: what the compositor does with most lines
of every frame), the strip ends up referring to itself, and only a cyclic garbage collection
frees it. Under the server's paced collector (see `server.render.collector`), which freezes what
survives each second, such strips would wait for the next whole collection: about 4 MB a second
with 200 players. `install` makes those two methods return the strip itself without caching
it; every other case runs Textual's own code, so what is drawn does not change.

Upstream, the fix is two lines in `Strip.divide` and `Strip.crop_extend`: return `self`
before caching when the cut or crop is the whole strip (patch `strips` in
`server.ssh.compat.PATCHES`; what it buys: benchmarks/results/2026-12-06-patches.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rich.style import Style
from textual.strip import Strip

_divide = Strip.divide
_crop_extend = Strip.crop_extend


def _divide_without_self(self: Strip, cuts: Iterable[int]) -> Sequence[Strip]:
    cuts = list(cuts)
    length = self.cell_length
    if [cut for cut in cuts if cut <= length] == [length]:
        return [self]
    return _divide(self, cuts)


def _crop_extend_without_self(self: Strip, start: int, end: int, style: Style | None) -> Strip:
    if start == 0 and end == self.cell_length:
        return self
    return _crop_extend(self, start, end, style)


def install() -> None:
    """Patch `Strip` (idempotent): whole-strip divides and crops are no longer cached."""
    Strip.divide = _divide_without_self  # type: ignore[method-assign]
    Strip.crop_extend = _crop_extend_without_self  # type: ignore[method-assign]


def uninstall() -> None:
    """Textual's own `Strip` methods again (idempotent)."""
    Strip.divide = _divide  # type: ignore[method-assign]
    Strip.crop_extend = _crop_extend  # type: ignore[method-assign]


def installed() -> bool:
    """Whether `Strip` is patched now."""
    return Strip.divide is _divide_without_self
