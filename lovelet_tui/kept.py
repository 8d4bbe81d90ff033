"""Screens an app shows again rather than makes anew.

A screen made for a moment and closed is garbage full of reference cycles; in a server that
paces Python's collector for hundreds of apps it waits, frozen, for a whole collection, which
stops every session (server/render/collector.py). A player can open and close help, the
rules, the stats and the new-table form many times a second, so those are installed once per
app and shown again (one of each kind at a time: another edition's replaces it once it is
closed), each starting afresh.
"""

from __future__ import annotations

from collections.abc import Callable
from weakref import WeakKeyDictionary

from textual.app import App
from textual.screen import Screen

_KEPT: WeakKeyDictionary[App[object], dict[str, str]] = WeakKeyDictionary()
"""For each app: the name of the screen installed for each kind."""


def show_kept(app: App[object], kind: str, key: str, make: Callable[[], Screen[object]]) -> None:
    """Push the app's screen of `kind` for `key`, installing it from `make()` the first time
    (and putting away the one of that kind for another key, unless it is shown)."""
    name = f"{kind} {key}"
    kept = _KEPT.setdefault(app, {})
    old = kept.get(kind)
    if old != name:
        if old is not None and app.get_screen(old) not in app.screen_stack:
            app.uninstall_screen(old)
        if not app.is_screen_installed(name):
            app.install_screen(make(), name)
        kept[kind] = name
    if app.get_screen(name) not in app.screen_stack:
        app.push_screen(name)
