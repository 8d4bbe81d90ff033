"""The bounded cache shared by every session's rendered lines."""

from __future__ import annotations

from lovelet_tui.recent import RecentCache


def test_keeps_its_size_freeing_one_entry_for_each_new_one() -> None:
    """Freed one at a time, not in bulk: the interpreter's count of new objects, which sets
    off its young collections, stays level."""
    cache: RecentCache[int, str] = RecentCache(100)
    for number in range(1_000):
        cache[number] = str(number)
        assert len(cache) == min(number + 1, 100)
    assert cache.get(999) == "999"
    assert cache.get(0) is None


def test_an_entry_in_use_stays() -> None:
    cache: RecentCache[str, int] = RecentCache(10)
    cache["used"] = 1
    for number in range(1_000):
        cache[str(number)] = number
        assert cache.get("used") == 1


def test_an_entry_unused_for_its_size_is_forgotten() -> None:
    cache: RecentCache[str, int] = RecentCache(10)
    cache["once"] = 1
    for number in range(10):
        cache[str(number)] = number
    assert cache.get("once") is None


def test_setting_a_kept_key_replaces_its_value() -> None:
    cache: RecentCache[str, int] = RecentCache(4)
    cache["a"], cache["b"] = 1, 2
    cache["a"] = 3
    assert (cache.get("a"), cache.get("b"), len(cache)) == (3, 2, 2)
    cache.clear()
    assert (cache.get("a"), len(cache)) == (None, 0)
