"""Every use of Textual's and Rich's internals on the server side, in one place.

The SSH driver needs a few things neither library offers as public API: Textual's xterm
parser and clock, a full repaint, the app's error hooks, the console's colour depth, and a
guard on the process-wide stdio redirection. They are reached only through the functions
here, so an upgrade that moves one breaks this module alone, and the upgrade canary
(tests/test_library_canary.py) says which symbol moved. The render-cost patches
(`server.render.strips`, `server.render.cursor_moves`, `server.render.chops`) are installed
and undone through `install_patches` / `uninstall_patches`. Textual and Rich are pinned in
pyproject.toml.
"""

from __future__ import annotations

import contextlib
import weakref
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import textual.app
from rich.color import ColorSystem
from rich.console import Console
from rich.style import Style
from textual._compositor import ChopsUpdate, Compositor
from textual._styles_cache import StylesCache
from textual._time import get_time
from textual._xterm_parser import XTermParser
from textual.cache import LRUCache
from textual.color import Color
from textual.message import Message
from textual.message_pump import MessagePump

from server.render import chops, cursor_moves, strips, teardown

if TYPE_CHECKING:
    from textual.app import App
    from textual.screen import Screen

__all__ = [
    "XTermParser",
    "close_parser",
    "install_patches",
    "install_stdio_guard",
    "parser_delay",
    "patches_installed",
    "repaint",
    "route_errors",
    "set_color_system",
    "uninstall_patches",
    "uninstall_stdio_guard",
]


def parser_delay(parser: XTermParser) -> float | None:
    """Seconds until the parser's pending timeout (a lone Esc) resolves; None if none."""
    deadline = parser._timeout_time
    return None if deadline is None else max(0.0, deadline - get_time())


def close_parser(parser: XTermParser) -> None:
    """Drop the parser's state: its class-level cache would otherwise keep the last event,
    and through it the app, alive after the session."""
    parser._gen.close()


def repaint(app: App[Any]) -> None:
    """Send a full frame of the app's screen (in the app's task)."""
    screen = app.screen
    app._display(screen, screen._compositor.render_full_update())


def set_color_system(console: Console, system: ColorSystem) -> None:
    """Pin the console's colour depth (Rich reads it from the environment otherwise)."""
    console._color_system = system


def route_errors(app: App[Any], on_error: Callable[[BaseException], None]) -> None:
    """Unhandled exceptions go to `on_error`, then Textual's handler, and a fatal error just
    closes the app (no traceback with local variables on the server's stderr)."""
    original = app._handle_exception

    def handle_exception(error: Exception) -> None:
        on_error(error)
        original(error)

    app._handle_exception = handle_exception  # type: ignore[method-assign]
    app._fatal_error = app._close_messages_no_wait  # type: ignore[method-assign]


_REDIRECTS = {"redirect_stdout": textual.app.redirect_stdout}
_REDIRECTS["redirect_stderr"] = textual.app.redirect_stderr


def install_stdio_guard(skip: Callable[[Any], bool]) -> None:
    """Make Textual's `redirect_stdout/stderr` a no-op for apps whose driver `skip` accepts
    (idempotent). They swap the process-wide sys.stdout; overlapping sessions would restore
    them out of order and leave sys.stdout pointing into a finished app."""
    for name, redirect in _REDIRECTS.items():
        setattr(textual.app, name, _guarded(redirect, skip))


def uninstall_stdio_guard() -> None:
    """Textual's own redirection again."""
    for name, redirect in _REDIRECTS.items():
        setattr(textual.app, name, redirect)


def _guarded(redirect: Callable[[Any], Any], skip: Callable[[Any], bool]) -> Callable[[Any], Any]:
    def maybe_redirect(target: Any) -> contextlib.AbstractContextManager[Any]:
        if skip(getattr(getattr(target, "app", None), "_driver", None)):
            return contextlib.nullcontext()
        return redirect(target)

    return maybe_redirect


_replace_screen = textual.app.App._replace_screen
_get_dispatch_methods = MessagePump._get_dispatch_methods
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
    a style's escape codes on the style, for the colour depth it was first drawn with."""
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
    every cached value, left for a whole collection. Unlink each entry once it is cleared."""
    links = list(self._cache.values())
    _lru_clear(self)
    for link in links:
        link.clear()


async def _replace_screen_then_free(self: App[Any], screen: Screen[Any]) -> Screen[Any]:
    replaced = await _replace_screen(self, screen)
    if not screen.is_attached:  # removed: not kept installed, nor on another stack
        teardown.later(screen)
    return replaced


Handlers = tuple[tuple[type, Callable[..., Any]], ...]
_HANDLERS: dict[tuple[type, type, str], Handlers | None] = {}
_HANDLERS_KEPT = 4096  # pairs of classes: a program has a few hundred
_UNSEEN: Any = object()


def _handlers_of(pump_class: type, message_class: type, method_name: str) -> Handlers | None:
    """Each class of `pump_class` with a handler for `message_class`, and the handler, in
    Textual's order; None if a handler has selectors (they match each message anew)."""
    message_mro = [kind for kind in message_class.__mro__ if issubclass(kind, Message)]
    handlers: list[tuple[type, Callable[..., Any]]] = []
    for cls in pump_class.__mro__:
        decorated = cls.__dict__.get("_decorated_handlers") or {}
        for kind in message_mro:
            for method, selectors in decorated.get(kind, []):
                if selectors:
                    return None
                if all(method is not known for _, known in handlers):
                    handlers.append((cls, method))
        method = cls.__dict__.get(f"_{method_name}") or cls.__dict__.get(method_name)
        on_decorated = {function for pairs in decorated.values() for function, _ in pairs}
        if method is not None and method not in on_decorated:  # `@on` handlers only as such
            handlers.append((cls, method))
    return tuple(handlers)


def _dispatch_methods_known(
    self: MessagePump, method_name: str, message: Message
) -> Iterator[tuple[type, Callable[..., Any]]]:
    """Textual's `MessagePump._get_dispatch_methods`, with the walk of both classes' MROs
    done once per pair of classes instead of for every message."""
    key = (type(self), type(message), method_name)
    handlers = _HANDLERS.get(key, _UNSEEN)
    if handlers is _UNSEEN:
        handlers = _handlers_of(*key)
        if len(_HANDLERS) < _HANDLERS_KEPT:
            _HANDLERS[key] = handlers
    if handlers is None:
        yield from _get_dispatch_methods(self, method_name, message)
        return
    current = None
    for cls, method in handlers:
        if cls is not current:
            if message._no_default_action:  # a handler prevented the base classes' ones
                return
            current = cls
        yield cls, method.__get__(self, cls)


def install_patches() -> None:
    """The render-cost patches (idempotent): `Strip` keeps no self-reference, Rich makes
    one cursor move per position, a partial update renders only the lines it repaints and
    sends no empty piece, a cleared `LRUCache` leaves no cycle, a message's handlers are
    looked up once per pair of classes, every screen an app removes has its cycles freed
    (`server.render.teardown`), and a widget's styles cache is not kept after its app."""
    strips.install()
    cursor_moves.install()
    Compositor._render_chops = chops.render_repainted_lines  # type: ignore[method-assign,assignment]
    ChopsUpdate.render_segments = chops.render_segments  # type: ignore[method-assign,assignment]
    textual.app.App._replace_screen = _replace_screen_then_free  # type: ignore[method-assign]
    LRUCache.clear = _lru_clear_unlinked  # type: ignore[method-assign]
    MessagePump._get_dispatch_methods = _dispatch_methods_known  # type: ignore[method-assign,assignment]
    StylesCache.get_inner_outer = _inner_outer_held_weakly  # type: ignore[method-assign,assignment]
    _get_inner_outer.cache_clear()  # what it kept so far


def patches_installed() -> bool:
    """Whether `install_patches` is in force (its `LRUCache` and `App` patches)."""
    return LRUCache.clear is _lru_clear_unlinked


def uninstall_patches() -> None:
    """Textual's and Rich's own `Strip`, `Control`, `Compositor`, `LRUCache`, `App` and
    `StylesCache` again."""
    strips.uninstall()
    cursor_moves.uninstall()
    Compositor._render_chops = _render_chops  # type: ignore[method-assign]
    ChopsUpdate.render_segments = _render_segments  # type: ignore[method-assign]
    textual.app.App._replace_screen = _replace_screen  # type: ignore[method-assign]
    LRUCache.clear = _lru_clear  # type: ignore[method-assign]
    MessagePump._get_dispatch_methods = _get_dispatch_methods  # type: ignore[method-assign]
    StylesCache.get_inner_outer = _get_inner_outer  # type: ignore[method-assign]
    teardown.forget()
