"""Strips with the server's patch: whole-strip divides and crops leave no self-reference, and
every result is what Textual's own methods give."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from server.render import strips

BOLD = Style(bold=True)


@pytest.fixture(autouse=True)
def _patched() -> Iterator[None]:
    """The patch for this test only: other tests see Textual's own strips."""
    strips.install()
    yield
    strips.uninstall()


def _strip() -> Strip:
    return Strip([Segment("Guard ", BOLD), Segment("on Bo")], 11)


def test_a_whole_strip_divided_and_cropped_is_freed_by_reference_counting() -> None:
    gc.collect()
    line = _strip()
    assert line.divide([11]) == [line]
    assert line.crop_extend(0, 11, None) is line
    del line
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        gc.collect()
        assert not [found for found in gc.garbage if isinstance(found, Strip)]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()


def test_results_match_textual_for_every_kind_of_cut() -> None:
    for cuts in ([11], [4, 11], [3, 6, 11], [11, 12], [20]):
        ours = [s.text for s in _strip().divide(cuts)]
        theirs = [s.text for s in strips._divide(_strip(), cuts)]
        assert ours == theirs, cuts
    for start, end in ((0, 11), (0, 15), (2, 11), (0, 5), (3, 20)):
        ours_line = _strip().crop_extend(start, end, BOLD)
        theirs_line = strips._crop_extend(_strip(), start, end, BOLD)
        assert list(ours_line) == list(theirs_line), (start, end)


def test_uninstalled_the_strip_caches_its_whole_self_again() -> None:
    strips.uninstall()
    line = _strip()
    assert line.crop_extend(0, 11, None) is line and not strips.installed()
    strips.install()
    assert strips.installed()
