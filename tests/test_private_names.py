"""Private Textual and Rich names are used only in the modules that adapt those libraries.

import-linter sees modules, not names (and folds each library into one node), so this reads
the source instead. A module uses a library's private name when it
- imports a private module or name of it (`from textual._time import get_time`),
- reads or writes an attribute with a leading underscore that the library defines and this
  project never does (`app._display`, `console._color_system`, `self._set_dirty`),
- overrides a private method of the library in a class derived from one of its classes
  (`async def _on_key` in an `Input`).
"""

from __future__ import annotations

import ast
import importlib.util
import inspect
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path

from test_library_canary import SYMBOLS

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("server", "protocol", "lovelet_tui")
LIBRARIES = ("textual", "rich")
ADAPTERS = frozenset({"server/ssh/compat.py", "lovelet_tui/compat.py"})
"""One compat module per side: the only places the libraries' internals are used."""


NAMEDTUPLE = frozenset({"_asdict", "_replace", "_fields", "_field_defaults", "_make"})
"""Public API of named tuples despite the underscore."""


def private(name: str) -> bool:
    """A leading underscore, not a dunder, not a named tuple's method."""
    return name.startswith("_") and not name.endswith("__") and name not in NAMEDTUPLE


def sources(roots: list[Path]) -> Iterator[tuple[Path, ast.Module]]:
    for root in roots:
        for path in sorted(root.rglob("*.py")):
            yield path, ast.parse(path.read_text(encoding="utf-8"), str(path))


LIBRARY_NAME = re.compile(r"(?:\.|\bdef )(_[A-Za-z]\w*)")
"""An attribute or a method with a leading underscore, in a library's source (a regular
expression: parsing both libraries would take seconds)."""


@cache
def library_private() -> frozenset[str]:
    """Every private attribute and method name the libraries define or use."""
    names: set[str] = set()
    for library in LIBRARIES:
        spec = importlib.util.find_spec(library)
        assert spec is not None and spec.submodule_search_locations
        for location in spec.submodule_search_locations:
            for path in Path(location).rglob("*.py"):
                names.update(LIBRARY_NAME.findall(path.read_text(encoding="utf-8")))
    return frozenset(name for name in names if private(name))


@cache
def project_trees() -> dict[str, ast.Module]:
    return {
        str(path.relative_to(ROOT)): tree for path, tree in sources([ROOT / p for p in PACKAGES])
    }


@cache
def project_private() -> frozenset[str]:
    """Private names the project defines itself: its methods, class attributes and the
    attributes it assigns on `self` (not those it sets on library objects)."""
    names: set[str] = set()
    for tree in project_trees().values():
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and private(node.name):
                names.add(node.name)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
                    names.add(node.attr)
            elif isinstance(node, ast.ClassDef):
                names |= {t.id for t in class_targets(node)}
    return frozenset(name for name in names if private(name))


def class_targets(node: ast.ClassDef) -> Iterator[ast.Name]:
    for item in node.body:
        if isinstance(item, ast.Assign | ast.AnnAssign):
            targets = item.targets if isinstance(item, ast.Assign) else [item.target]
            yield from (t for t in targets if isinstance(t, ast.Name))


def from_library(module: str | None) -> bool:
    return module is not None and module.split(".")[0] in LIBRARIES


def library_imports(tree: ast.Module) -> tuple[set[str], set[str]]:
    """(private names imported from the libraries, local names bound to library objects)."""
    used: set[str] = set()
    bound: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if from_library(alias.name):
                    bound.add((alias.asname or alias.name).split(".")[0])
                    used |= {part for part in alias.name.split(".") if private(part)}
        elif isinstance(node, ast.ImportFrom) and from_library(node.module):
            assert node.module is not None
            used |= {part for part in node.module.split(".") if private(part)}
            for alias in node.names:
                bound.add(alias.asname or alias.name)
                if private(alias.name):
                    used.add(alias.name)
    return used, bound


def private_uses(tree: ast.Module, namespace: dict[str, object]) -> set[str]:
    """The libraries' private names a module relies on: `tree` is its source, `namespace`
    what it defines once run (for the classes and what they override)."""
    used, _ = library_imports(tree)
    own = project_private()
    attributes = {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    used |= {name for name in attributes if private(name) and name not in own} & library_private()
    return used | overrides(namespace)


def overrides(namespace: dict[str, object]) -> set[str]:
    """Private methods of library classes that methods of classes in `namespace` replace."""
    used = set()
    for cls in namespace.values():
        if not isinstance(cls, type) or cls.__module__ != namespace["__name__"]:
            continue
        bases = [b for b in cls.__mro__[1:] if b.__module__.split(".")[0] in LIBRARIES]
        used |= {
            name
            for name, value in vars(cls).items()
            if private(name)
            and inspect.isfunction(value)
            and value.__qualname__ == f"{cls.__qualname__}.{name}"
            and any(name in vars(base) for base in bases)
        }
    return used


def module_name(path: str) -> str:
    return path.removesuffix(".py").removesuffix("/__init__").replace("/", ".")


def uses_by_module() -> dict[str, set[str]]:
    found = {
        path: private_uses(tree, vars(importlib.import_module(module_name(path))))
        for path, tree in project_trees().items()
    }
    return {module: names for module, names in found.items() if names}


def test_private_library_names_stay_in_the_compat_modules() -> None:
    outside = {m: sorted(names) for m, names in uses_by_module().items() if m not in ADAPTERS}
    assert not outside, (
        "private Textual/Rich names outside server/ssh/compat.py and lovelet_tui/compat.py: "
        "use public API, or move the use behind the compat module"
    )


def test_the_scan_finds_the_private_uses_it_is_meant_to() -> None:
    """The compat modules' known internals are found: the scan is not blind."""
    server = uses_by_module()["server/ssh/compat.py"]
    expected = {"_xterm_parser", "_compositor", "_gen", "_handle_exception"}
    assert expected <= server, sorted(server)
    assert {"_set_dirty"} <= uses_by_module()["lovelet_tui/compat.py"]


def test_the_upgrade_canary_names_every_private_use() -> None:
    """Each private name a compat module uses is checked by tests/test_library_canary.py."""
    named = {part for s in SYMBOLS for part in s.path.replace("()", "").split(".")}
    for module in ADAPTERS:
        unchecked = uses_by_module().get(module, set()) - named
        assert not unchecked, f"{module} uses {sorted(unchecked)}: add them to the canary"


def test_the_upgrade_canary_names_no_private_use_that_is_gone() -> None:
    """Each private name the canary checks for a compat module is still used there."""
    uses = uses_by_module()
    for symbol in SYMBOLS:
        names = [part for part in symbol.path.replace("()", "").split(".") if private(part)]
        if symbol.user in ADAPTERS and names:
            assert names[-1] in uses.get(symbol.user, set()), symbol


def test_the_private_names_are_at_most_half_of_those_issue_35_found() -> None:
    """Issue 35 found about 26 private names of Textual, Rich and asyncssh; at most half stay
    (13: 12 of Textual and Rich, and asyncssh's `_packet_handlers`)."""
    names = set().union(*uses_by_module().values())
    assert len(names) <= 12, sorted(names)


def test_a_private_use_outside_the_adapters_is_reported() -> None:
    source = """
from textual.widgets import Input
from textual import _time


class Field(Input):
    async def _on_key(self, event):
        self.app._display(None, None)
"""
    namespace: dict[str, object] = {"__name__": "an_app"}
    exec(compile(source, "an_app.py", "exec"), namespace)
    assert private_uses(ast.parse(source), namespace) == {"_time", "_on_key", "_display"}
