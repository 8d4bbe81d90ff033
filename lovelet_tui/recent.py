"""A bounded map that keeps what was used recently, for caches shared by every session.

Textual's `FIFOCache` evicts its oldest key by iterating its dict from the start, which
walks over every slot earlier evictions left empty: once full, a miss costs about 4 µs
against 0.4 µs here. A shared cache of rendered lines misses on every new row.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Generic, TypeVar

Key = TypeVar("Key", bound=Hashable)
Value = TypeVar("Value")


class RecentCache(Generic[Key, Value]):
    """At most `size` entries in two generations: new entries go to the young one; when it
    holds half of `size`, it becomes the old one and the old one is dropped. An entry found
    in the old generation moves to the young one, so what is used stays."""

    def __init__(self, size: int) -> None:
        self._half = max(1, size // 2)
        self._young: dict[Key, Value] = {}
        self._old: dict[Key, Value] = {}

    def get(self, key: Key) -> Value | None:
        """The value kept for `key`, or None."""
        value = self._young.get(key)
        if value is None:
            value = self._old.pop(key, None)
            if value is not None:
                self[key] = value
        return value

    def __setitem__(self, key: Key, value: Value) -> None:
        young = self._young
        if len(young) >= self._half and key not in young:
            self._old, self._young = young, {}
            young = self._young
        young[key] = value

    def __len__(self) -> int:
        return len(self._young) + len(self._old)

    def clear(self) -> None:
        """Forget every entry."""
        self._young.clear()
        self._old.clear()
