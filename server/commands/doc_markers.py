"""Generated references inside hand-written docs pages, between two marker comments."""

from __future__ import annotations

from pathlib import Path


def rewrite(page: Path, begin: str, end: str, reference: str) -> None:
    """Put `reference` (which starts with `begin` and ends with `end`) in place of what
    stands between those markers in `page`."""
    head, _, rest = page.read_text().partition(begin)
    _, _, tail = rest.partition(end)
    page.write_text(head + reference + tail)
