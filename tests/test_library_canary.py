"""The upgrade canary: every private Textual and Rich symbol lovelet relies on, and every
library method it patches, is still where it was and takes what it took.

After a Textual or Rich upgrade, a failure here names the symbol that moved and the module
that relies on it (`server/ssh/compat.py`, `lovelet_tui/compat.py`, the render patches, or the
tests' screen reader): fix that module, nothing else. `test_private_names` checks that every
private name the compat modules use is listed here.
"""

from __future__ import annotations

import importlib
import inspect
from dataclasses import dataclass
from importlib.metadata import version
from typing import Any

import pytest
import rich
import textual
import textual.app
from textual._compositor import ChopsUpdate, Compositor
from textual.strip import Strip

from server.render import chops, strips
from server.ssh import compat


@dataclass(frozen=True)
class Symbol:
    """`path` is a module, then attributes; a `()` after one means "on an instance made with
    no arguments". `params` are the parameter names a callable must take, if checked."""

    user: str
    path: str
    params: tuple[str, ...] | None = None

    @property
    def name(self) -> str:
        """The last private part of the path: what the compat module reads."""
        return next(p for p in reversed(self.path.replace("()", "").split(".")) if p[0] == "_")


SERVER, APP = "server/ssh/compat.py", "lovelet_tui/compat.py"
SUPPORT = "tests/test_tui_support.py"
SYMBOLS = (
    Symbol(SERVER, "textual._xterm_parser.XTermParser", ("debug",)),
    Symbol(SERVER, "textual._xterm_parser.XTermParser().feed", ("data",)),
    Symbol(SERVER, "textual._xterm_parser.XTermParser().tick", ()),
    Symbol(SERVER, "textual._xterm_parser.XTermParser()._gen.close"),
    Symbol(SERVER, "textual.app.App._handle_exception", ("self", "error")),
    Symbol(SERVER, "textual.cache.LRUCache._cache"),
    Symbol(SERVER, "textual.cache.LRUCache.clear", ("self",)),
    Symbol(SERVER, "textual.app.redirect_stdout"),
    Symbol(SERVER, "textual.app.redirect_stderr"),
    Symbol(
        SERVER,
        "textual._styles_cache.StylesCache.get_inner_outer",
        ("cls", "base_background", "background"),
    ),
    Symbol("server/render/strips.py", "textual.strip.Strip.divide", ("self", "cuts")),
    Symbol(
        "server/render/strips.py",
        "textual.strip.Strip.crop_extend",
        ("self", "start", "end", "style"),
    ),
    Symbol(
        SERVER,
        "textual._compositor.Compositor._render_chops",
        ("self", "crop", "is_rendered_line"),
    ),
    Symbol(SERVER, "textual._compositor.ChopsUpdate.render_segments", ("self", "console")),
    Symbol("server/render/chops.py", "textual._compositor.Compositor.cuts"),
    Symbol("server/render/chops.py", "textual._compositor.Compositor.visible_widgets"),
    Symbol(APP, "textual.widget.Widget._set_dirty", ("self", "regions")),
    Symbol(APP, "textual.messages.Update", ("widget",)),
    Symbol(APP, "textual.app.App()._batch_count"),
    Symbol(APP, "textual.screen.Screen()._dirty_widgets"),
    Symbol(APP, "textual.screen.Screen._update_timer"),
    Symbol(APP, "textual.screen.Screen()._compositor.__contains__", ("widget",)),
    Symbol(
        APP,
        "textual.css.stylesheet.Stylesheet._parse_rules",
        ("self", "css", "read_from", "is_default_rules", "tie_breaker", "scope"),
    ),
    Symbol(SUPPORT, "textual.screen.Screen()._compositor.render_update"),
    Symbol(SUPPORT, "textual.app.App()._background_screens"),
)
PATCHED = {"divide", "crop_extend", "clear", "redirect_stdout", "redirect_stderr"}
"""Public names the server replaces: listed for their place and signature, not privacy."""


def resolve(path: str) -> Any:
    """The object at `path`; AttributeError or ImportError saying which part is missing."""
    parts = path.split(".")
    for split in range(len(parts), 0, -1):
        try:
            found: Any = importlib.import_module(".".join(parts[:split]))
            break
        except ImportError:
            continue
    else:
        raise ImportError(f"no module for {path}")
    for part in parts[split:]:
        call = part.endswith("()")
        name = part.removesuffix("()")
        if not hasattr(found, name):
            raise AttributeError(f"{name} is gone from {found!r}")
        found = getattr(found, name)
        found = found() if call else found
    return found


@pytest.fixture(autouse=True)
def _the_libraries_own_code():
    """Check the libraries as released, not as patched by another test or the server."""
    was = strips.installed(), compat.patches_installed()
    redirects = textual.app.redirect_stdout, textual.app.redirect_stderr
    compat.uninstall_patches()
    compat.uninstall_stdio_guard()
    yield
    if was[0]:
        strips.install()
    if was[1]:
        compat.install_patches(was[1])
    textual.app.redirect_stdout, textual.app.redirect_stderr = redirects


def problem(symbol: Symbol) -> str | None:
    """What is wrong with `symbol` in the installed libraries, said for whoever upgrades."""
    versions = f"textual {textual.__version__}, rich {version(rich.__name__)}"
    try:
        found = resolve(symbol.path)
    except (AttributeError, ImportError) as err:
        return f"{symbol.path} moved in {versions} ({err}): {symbol.user} relies on it"
    if symbol.params is not None:
        params = tuple(inspect.signature(found).parameters)
        if params != symbol.params:
            return (
                f"{symbol.path} now takes {params} in {versions}, not {symbol.params}: "
                f"{symbol.user} relies on it"
            )
    return None


@pytest.mark.parametrize("symbol", SYMBOLS, ids=lambda s: s.path)
def test_a_library_symbol_lovelet_relies_on_is_still_there(symbol: Symbol) -> None:
    assert problem(symbol) is None, problem(symbol)


def test_a_moved_or_changed_symbol_is_named_with_who_relies_on_it() -> None:
    gone = problem(Symbol(SERVER, "textual._xterm_parser.XTermParser()._timeout_at"))
    assert gone is not None and "_timeout_at is gone" in gone and SERVER in gone
    module = problem(Symbol(SERVER, "textual._xterm.XTermParser"))
    assert module is not None and "_xterm is gone from <module 'textual'" in module
    changed = problem(Symbol(APP, "textual.widget.Widget._set_dirty", ("self", "region")))
    assert changed is not None and "now takes ('self', 'regions')" in changed and APP in changed


def test_the_patches_are_undone() -> None:
    divide, crop = Strip.divide, Strip.crop_extend
    compat.install_patches()
    assert strips.installed()
    assert Compositor._render_chops is chops.render_repainted_lines
    assert Strip.divide is not divide
    compat.uninstall_patches()
    assert not strips.installed()
    assert Compositor._render_chops is compat._render_chops
    assert ChopsUpdate.render_segments is compat._render_segments
    assert (Strip.divide, Strip.crop_extend) == (divide, crop)


def test_the_stdio_guard_is_undone() -> None:
    redirect = textual.app.redirect_stdout
    compat.install_stdio_guard()
    assert textual.app.redirect_stdout is not redirect
    compat.uninstall_stdio_guard()
    assert textual.app.redirect_stdout is redirect
