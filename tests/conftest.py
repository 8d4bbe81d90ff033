"""Set-up for the whole test session.

Bytecode is cached out of the source tree. The suite starts many Python processes (`lovelet`
servers and clients, the bot pool's workers, pytest's own workers), each importing the game's
modules; with PYTHONDONTWRITEBYTECODE set (as some sandboxes and CI images do) every one of
them compiled those modules from source again, about a quarter of a second per `lovelet serve`
and seconds per pytest worker. Compiled files now go under `.pytest_cache/pycache/` (git
ignores it; `pytest --cache-clear` or deleting it is always safe) and are written and read
there by this process and every process it starts, unless PYTHONPYCACHEPREFIX already names a
place for them. Nothing is written next to the sources.

The dependencies' known warnings (server/commands/quiet.py) are filtered here as `lovelet`
filters them, so that the summary shows only warnings worth reading.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from server.commands.quiet import KNOWN_WARNINGS

PYCACHE = Path(__file__).resolve().parent.parent / ".pytest_cache" / "pycache"


def _cache_bytecode_out_of_tree() -> None:
    if sys.pycache_prefix is None:
        sys.pycache_prefix = str(PYCACHE)
        os.environ["PYTHONPYCACHEPREFIX"] = sys.pycache_prefix
    sys.dont_write_bytecode = False
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


_cache_bytecode_out_of_tree()


def pytest_configure(config: pytest.Config) -> None:
    for known in KNOWN_WARNINGS:
        category = known.category.replace(":", ".")
        config.addinivalue_line("filterwarnings", f"ignore::{category}:{known.module}")
