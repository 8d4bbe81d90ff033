"""Every use of Textual's and Rich's internals on the server side, in one place.

The SSH driver needs a few things neither library offers as public API: Textual's xterm
parser, the app's error hook, and a guard on the process-wide stdio redirection.
They are reached only through the functions here, so an upgrade that moves one breaks this
module alone, and the upgrade canary (tests/test_library_canary.py) says which symbol moved.
The patches (`PATCHES`: the render-cost ones of `server.render`, this module's own, the app's
`lovelet_tui.compat` parts and asyncssh's ignore packets in `server.ssh.hooks`) are each
optional and fail-safe: `install_patches` puts in force those the operator chose (setting
`render_patches`) whose library is at a version they were verified with (`VERIFIED`), and
warns about the others. Textual, Rich and asyncssh are pinned in pyproject.toml.
"""

from __future__ import annotations

import contextlib
import logging
import weakref
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from importlib.metadata import version
from typing import TYPE_CHECKING, Any

import textual.app
from rich.style import Style
from textual._compositor import ChopsUpdate, Compositor
from textual._styles_cache import StylesCache
from textual._xterm_parser import XTermParser
from textual.cache import LRUCache
from textual.color import Color

from lovelet_tui import compat as tui_compat
from server.render import chops, strips
from server.ssh import hooks

if TYPE_CHECKING:
    from textual.app import App

log = logging.getLogger(__name__)

__all__ = [
    "XTermParser",
    "close_parser",
    "install_patches",
    "install_stdio_guard",
    "patches_installed",
    "route_errors",
    "uninstall_patches",
    "uninstall_stdio_guard",
]


def close_parser(parser: XTermParser) -> None:
    """Drop the parser's state: its class-level cache would otherwise keep the last event,
    and through it the app, alive after the session."""
    parser._gen.close()


def route_errors(app: App[Any], on_error: Callable[[BaseException], None]) -> None:
    """Unhandled exceptions go to `on_error`, then to Textual's handler (which closes the
    app, printing to its `error_console`)."""
    original = app._handle_exception

    def handle_exception(error: Exception) -> None:
        on_error(error)
        original(error)

    app._handle_exception = handle_exception  # type: ignore[method-assign]


_REDIRECTS = {"redirect_stdout": textual.app.redirect_stdout}
_REDIRECTS["redirect_stderr"] = textual.app.redirect_stderr


def install_stdio_guard() -> None:
    """Make Textual's `redirect_stdout/stderr` do nothing in this process (idempotent): every
    app here is a session. They swap the process-wide sys.stdout; overlapping sessions would
    restore them out of order and leave sys.stdout pointing into a finished app."""
    for name in _REDIRECTS:
        setattr(textual.app, name, _no_redirect)


def uninstall_stdio_guard() -> None:
    """Textual's own redirection again."""
    for name, redirect in _REDIRECTS.items():
        setattr(textual.app, name, redirect)


def _no_redirect(target: object) -> contextlib.AbstractContextManager[object]:
    return contextlib.nullcontext(target)


_render_chops = Compositor._render_chops
_render_segments = ChopsUpdate.render_segments
_lru_clear = LRUCache.clear
_get_inner_outer = StylesCache.get_inner_outer


InnerOuter = tuple[Style, Style]
_INNER_OUTER: weakref.WeakKeyDictionary[StylesCache, dict[tuple[Color, Color], InnerOuter]] = (
    weakref.WeakKeyDictionary()
)


def _inner_outer_held_weakly(
    self: StylesCache, base_background: Color, background: Color
) -> InnerOuter:
    """Textual's `StylesCache.get_inner_outer`, cached for each styles cache as Textual does,
    but only while it lives. Textual's `lru_cache` on the method keeps the instance in its
    key, so it kept the last 1,024 widgets' styles caches, with every line they rendered,
    after their apps ended: 10 MB after 40 sessions came and went, most of 49 MB after one
    session opened help 300 times (issue 34). Not shared between instances either: Rich keeps
    a style's escape codes on the style, for the colour depth it was first drawn with.
    Upstream: a per-instance dict in `StylesCache.__init__` instead of `lru_cache` on the
    method (patch `inner_outer`)."""
    known = _INNER_OUTER.get(self)
    if known is None:
        known = _INNER_OUTER[self] = {}
    colours = (base_background, background)
    pair = known.get(colours)
    if pair is None:
        pair = known[colours] = _get_inner_outer.__wrapped__(self, base_background, background)
    return pair


def _lru_clear_unlinked(self: LRUCache[Any, Any]) -> None:
    """Textual's `LRUCache.clear` drops its ring of entries whole: a cycle of lists, with
    every cached value, left for a whole collection. Unlink each entry once it is cleared.
    Upstream: the same loop in `LRUCache.clear` (patch `lru_clear`)."""
    links = list(self._cache.values())
    _lru_clear(self)
    for link in links:
        link.clear()


VERIFIED: dict[str, tuple[str, ...]] = {
    "textual": tui_compat.TEXTUAL_VERIFIED,
    "asyncssh": ("2.24.1",),
}
"""The library versions the patches were verified with: the test suite passed on them with
every patch in force (requirements/test.txt; tests/test_lock.py keeps the two in step)."""


@dataclass(frozen=True, slots=True)
class Patch:
    """One replacement of a library's internals, and how to put the library's own back."""

    name: str
    library: str
    install: Callable[[], None]
    uninstall: Callable[[], None]


def _swap(name: str, owner: type, method: str, ours: Any, theirs: Any) -> Patch:
    """A patch called `name` of the method `method` of `owner` (a library's class)."""
    library = owner.__module__.split(".")[0]
    return Patch(
        name, library, lambda: setattr(owner, method, ours), lambda: setattr(owner, method, theirs)
    )


def _tui_part(part: str) -> Patch:
    return Patch(
        part, "textual", lambda: tui_compat.use(part, True), lambda: tui_compat.use(part, False)
    )


def _chops() -> Patch:
    def install() -> None:
        Compositor._render_chops = chops.render_repainted_lines  # type: ignore[method-assign,assignment]
        ChopsUpdate.render_segments = chops.render_segments  # type: ignore[method-assign,assignment]

    def uninstall() -> None:
        Compositor._render_chops = _render_chops  # type: ignore[method-assign]
        ChopsUpdate.render_segments = _render_segments  # type: ignore[method-assign]

    return Patch("chops", "textual", install, uninstall)


def _inner_outer_install() -> None:
    StylesCache.get_inner_outer = _inner_outer_held_weakly  # type: ignore[method-assign,assignment]
    _get_inner_outer.cache_clear()  # what Textual's cache kept so far


PATCHES: tuple[Patch, ...] = (
    Patch("strips", "textual", strips.install, strips.uninstall),
    _chops(),
    _swap("lru_clear", LRUCache, "clear", _lru_clear_unlinked, _lru_clear),
    Patch(
        "inner_outer",
        "textual",
        _inner_outer_install,
        lambda: setattr(StylesCache, "get_inner_outer", _get_inner_outer),
    ),
    _tui_part("repaint_rows"),
    _tui_part("shared_stylesheet"),
    Patch(
        "cbc_countermeasure",
        "asyncssh",
        lambda: setattr(hooks.SKIP_NEEDLESS_IGNORES, "on", True),
        lambda: setattr(hooks.SKIP_NEEDLESS_IGNORES, "on", False),
    ),
)
"""Every patch, each optional: with none, the server renders and sends exactly what plain
Textual, Rich and asyncssh do. What each buys: benchmarks/results/ (issue 35)."""
PATCH_NAMES = tuple(patch.name for patch in PATCHES)
_IN_FORCE: list[str] = []


def install_patches(
    chosen: Iterable[str] = PATCH_NAMES, versions: Mapping[str, str] | None = None
) -> tuple[str, ...]:
    """Put the `chosen` patches in force, and take every other out; a patch whose library is
    at a version it was not verified with stays out, with one warning per library. Logs
    what is in force and returns its names. `versions`: the installed ones, by default read
    from the packages' metadata."""
    versions = versions or {library: version(library) for library in VERIFIED}
    wanted = set(chosen)
    unverified = {lib for lib, known in VERIFIED.items() if versions[lib] not in known}
    for library in sorted(unverified):
        skipped = [p.name for p in PATCHES if p.library == library and p.name in wanted]
        if skipped:
            log.warning(
                "%s %s is not a version lovelet's patches were verified with (%s): running "
                "without %s (server/ssh/compat.py)",
                library,
                versions[library],
                ", ".join(VERIFIED[library]),
                ", ".join(skipped),
            )
    uninstall_patches()
    for patch in PATCHES:
        if patch.name in wanted and patch.library not in unverified:
            patch.install()
            _IN_FORCE.append(patch.name)
    _log_in_force(_IN_FORCE)
    return tuple(_IN_FORCE)


def _log_in_force(in_force: list[str]) -> None:
    if len(in_force) == len(PATCHES):
        log.info("render patches on: all %d", len(PATCHES))
    elif not in_force:
        log.info("render patches off: Textual, Rich and asyncssh run as released")
    else:
        left_out = [name for name in PATCH_NAMES if name not in in_force]
        log.info("render patches on: %s; off: %s", ", ".join(in_force), ", ".join(left_out))


def uninstall_patches() -> None:
    """Textual's, Rich's and asyncssh's own code again, everywhere."""
    for patch in PATCHES:
        patch.uninstall()
    _IN_FORCE.clear()


def patches_installed() -> tuple[str, ...]:
    """The names of the patches in force."""
    return tuple(_IN_FORCE)
