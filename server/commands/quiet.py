"""The warnings of lovelet's dependencies that a user of `lovelet` never sees.

Each entry is one known warning, filtered by its category and by the library module that
triggers it, never by a blanket `ignore`: lovelet's own warnings, and any other library
warning, still show. `quiet_library_warnings` runs at the entry point, before the libraries
are imported (a library warns as it is imported). An explicit `-W` or `PYTHONWARNINGS` wins:
then nothing is filtered.
"""

from __future__ import annotations

import importlib
import sys
import warnings
from dataclasses import dataclass


@dataclass(frozen=True)
class KnownWarning:
    """A dependency's warning: its category (`module:Class`), the module that triggers it (a
    regular expression matched from the start of the module name) and why it is harmless."""

    category: str
    module: str
    why: str


KNOWN_WARNINGS = (
    KnownWarning(
        "cryptography.utils:CryptographyDeprecationWarning",
        r"asyncssh\.crypto\.",
        "asyncssh 2.24 names cryptography's DSA types in its annotations as it is imported, "
        "and cryptography 51 deprecates DSA: a notice to asyncssh, not to lovelet's users",
    ),
)
"""Every dependency warning lovelet filters."""


def quiet_library_warnings() -> None:
    """Filter each known dependency warning, unless the user asked for warnings themselves."""
    if sys.warnoptions:
        return
    for known in KNOWN_WARNINGS:
        module_name, class_name = known.category.split(":")
        try:
            category = getattr(importlib.import_module(module_name), class_name)
        except (ImportError, AttributeError):
            continue  # a library version without that warning has nothing to filter
        warnings.filterwarnings("ignore", category=category, module=known.module)
