"""Which build of the engine the tests run: pure Python, unless CI's compiled run says otherwise.

`.ci/compiled` builds the engine with mypyc in a scratch copy and runs the engine's tests there
with LOVELET_EXPECT_COMPILED=1; everywhere else the sources themselves must run (a compiled
module left in a checkout would shadow every later edit of its source).
"""

from __future__ import annotations

import os

from server.engine import cards, edition, effects, game, legal

COMPILED = (cards, edition, effects, game, legal)  # setup.py's list


def test_the_engine_runs_the_build_expected() -> None:
    expected = os.environ.get("LOVELET_EXPECT_COMPILED") == "1"
    for module in COMPILED:
        assert module.__file__ is not None
        assert module.__file__.endswith(".py") != expected, module.__file__
