"""The operator and architecture docs name files that exist: a moved or renamed file
breaks this test rather than the next reader's trust."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ["docs/architecture.md", "docs/scaling.md", "docs/self-hosting.md"]
PATH = re.compile(r"\b((?:server|protocol|lovelet_tui|deploy|benchmarks|tests)/[\w/@.\-]*\w)")


@pytest.mark.parametrize("doc", DOCS)
def test_every_path_a_doc_names_exists(doc: str) -> None:
    named = set(PATH.findall((ROOT / doc).read_text()))
    assert named, doc
    missing = sorted(path for path in named if not (ROOT / path).exists())
    assert not missing, f"{doc} names {missing}"
