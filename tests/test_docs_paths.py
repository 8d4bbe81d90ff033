"""The operator and architecture docs name files that exist and every refusal reason the
metrics count: a moved file or a new reason breaks a test rather than the reader's trust."""

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


def test_the_metrics_table_names_every_refusal_reason() -> None:
    from server.ops.metrics import REFUSAL_REASONS

    row = next(
        line
        for line in (ROOT / "docs/self-hosting.md").read_text().splitlines()
        if line.startswith("| `lovelet_refusals_total{reason}`")
    )
    assert [reason for reason in REFUSAL_REASONS if f"`{reason}`" not in row] == []
