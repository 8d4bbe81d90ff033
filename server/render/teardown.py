"""Free what a removed Textual screen leaves in reference cycles, without a whole collection.

A Textual screen is full of reference cycles (a node and its styles, its signals, its caches),
so a dismissed screen (a form, a dialog) is freed only by a cyclic garbage collection. Under
the server's paced collector (`server.render.collector`) its objects are already frozen: they
would wait for a whole collection, which walks every object of every session (seconds with
500 sessions in a process).

`free_cycles` runs the cycle collector's own test on the objects reachable from one root
alone: each object's references from inside that set are subtracted from its reference count;
those with references left are held from outside, and so is all they reach; the rest is
garbage, and clearing its containers and attributes breaks its cycles, so reference counting
frees it. The walk stops at types, modules, functions' globals and objects of the event loop,
SSH, the game server and the protocol: what it does not walk only counts as a reference from
outside, so a shorter walk can free less, never something alive.

The server calls `later` for every screen Textual removes and every virtual node a restyle
replaces (`server.ssh.compat` hooks both in), and `free_due` at each step of its paced
collector. An ended session is not freed this way:
its app stays held by the SSH session's own cycles (and by the loop's cancelled timers) for a
while, so a walk from it finds nothing to free.
"""

from __future__ import annotations

import collections
import contextlib
import gc
import sys
import time
import types
import weakref
from collections.abc import Iterator
from dataclasses import dataclass

LIMIT = 200_000  # objects walked from one root at most; past it nothing is freed
BOUNDARY = frozenset(
    {"asyncio", "_asyncio", "uvloop", "asyncssh", "server", "protocol", "logging", "threading"}
)
"""Top-level packages whose objects are shared by every session: never walked into."""
WEAK_CONTAINERS = frozenset({"weakref", "_weakrefset"})
"""Modules of containers whose weakref callbacks use their attributes: those stay whole (their
contents are plain containers, cleared as such)."""


@dataclass(frozen=True, slots=True)
class Freed:
    """What one `free_cycles` did: objects walked, garbage cleared, and garbage still alive
    after its cycles were broken (held by a cycle it could not clear)."""

    walked: int
    cleared: int
    survivors: int


def free_cycles(
    root: weakref.ref[object], limit: int = LIMIT, keep: frozenset[int] = frozenset()
) -> Freed:
    """Free the objects reachable from `root` that nothing outside them holds.

    Takes a weak reference, so that the caller's own reference does not count as one from
    outside; the objects whose ids are in `keep` are not walked into (outside, like the
    boundary). Runs with the cycle collector paused (its weakref callbacks would change
    reference counts under the count).
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        objects = _reachable(root, limit, keep)
        if objects is None:
            return Freed(limit, 0, 0)
        walked, garbage = len(objects), _unreachable(objects)
        del objects
        return Freed(walked, *_clear(garbage))
    finally:
        if enabled:
            gc.enable()


def _reachable(root: weakref.ref[object], limit: int, keep: frozenset[int]) -> list[object] | None:
    """Every object the walk reaches from `root` (itself first); None past `limit`."""
    start = root()
    if start is None:
        return []
    objects = [start]
    seen = {id(start), *keep}
    del start
    for obj in objects:  # grows while it is read: a breadth-first walk
        for ref in _referents(obj):
            if id(ref) not in seen:
                seen.add(id(ref))
                objects.append(ref)
                if len(objects) > limit:
                    return None
    return objects


def _referents(obj: object) -> Iterator[object]:
    """What `obj` refers to that the walk follows."""
    if isinstance(obj, types.FunctionType):
        refs: list[object] = list(obj.__closure__ or ())
    else:
        refs = gc.get_referents(obj)
    for ref in refs:
        if gc.is_tracked(ref) and not _boundary(ref):
            yield ref


def _boundary(obj: object) -> bool:
    if isinstance(obj, type | types.ModuleType | types.FrameType):
        return True
    kind = type(obj)
    return kind.__module__.partition(".")[0] in BOUNDARY


def _unreachable(objects: list[object]) -> list[object]:
    """The objects of `objects` that no reference from outside them reaches."""
    position = {id(obj): index for index, obj in enumerate(objects)}
    inside = [0] * len(objects)
    for index in range(len(objects)):
        for found in _inside(objects[index], position):
            inside[found] += 1
    # Two references are the count's own: the list `objects` and the call's argument.
    held = collections.deque(
        index
        for index in range(len(objects))
        if sys.getrefcount(objects[index]) - 2 > inside[index]
    )
    alive = set(held)
    while held:
        for index in _inside(objects[held.popleft()], position):
            if index not in alive:
                alive.add(index)
                held.append(index)
    return [obj for index, obj in enumerate(objects) if index not in alive]


def _inside(obj: object, position: dict[int, int]) -> Iterator[int]:
    """The positions in the walk of what `obj` refers to (holding none of it once done)."""
    for ref in _referents(obj):
        index = position.get(id(ref))
        if index is not None:
            yield index


def _clear(garbage: list[object]) -> tuple[int, int]:
    """Break every reference cycle through `garbage`; (cleared, still alive)."""
    watched = [ref for obj in garbage if (ref := _weak(obj)) is not None]
    cleared = sum(1 for obj in garbage if _break(obj))
    garbage.clear()  # the last strong references: what is not in a cycle left goes now
    return cleared, sum(1 for ref in watched if ref() is not None)


def _weak(obj: object) -> weakref.ref[object] | None:
    try:
        return weakref.ref(obj)
    except TypeError:
        return None


def _break(obj: object) -> bool:
    """Drop what `obj` refers to, where Python can (containers, attributes, cells)."""
    kind = type(obj)
    if hasattr(kind, "__del__") or kind.__module__ in WEAK_CONTAINERS:
        return False  # a finalizer or a weakref callback runs later, with the attributes whole
    if isinstance(obj, dict | list | set | collections.deque):
        obj.clear()
        return True
    if isinstance(obj, types.CellType):
        with contextlib.suppress(ValueError):  # an empty cell
            del obj.cell_contents
        return True
    broke = False
    if hasattr(obj, "__dict__") and not isinstance(obj, types.FunctionType | types.MethodType):
        vars(obj).clear()
        broke = True
    for name in _slots(type(obj)):
        try:
            delattr(obj, name)
            broke = True
        except (AttributeError, TypeError):
            pass
    return broke


def _slots(kind: type) -> Iterator[str]:
    for klass in kind.__mro__:
        slots = klass.__dict__.get("__slots__", ())
        for name in (slots,) if isinstance(slots, str) else slots:
            if name not in ("__dict__", "__weakref__"):
                yield name


# ---------------------------------------------------------------- when to free

DELAY = 1.0  # seconds after a screen is removed: its last tasks and messages are done
_due: collections.deque[tuple[float, weakref.ref[object], frozenset[int]]] = collections.deque()


def later(root: object, keep: tuple[object, ...] = (), now: float | None = None) -> None:
    """Free `root`'s cycles `DELAY` seconds from `now`, at the first `free_due` after,
    without walking into `keep` (objects alive anyway, such as the node `root` belonged to)."""
    start = time.monotonic() if now is None else now
    _due.append((start + DELAY, weakref.ref(root), frozenset(map(id, keep))))


def free_due(now: float | None = None) -> list[Freed]:
    """Free the cycles of every root whose time came and that is still alive."""
    moment = time.monotonic() if now is None else now
    done: list[Freed] = []
    while _due and _due[0][0] <= moment:
        _, root, keep = _due.popleft()
        if root() is not None:
            done.append(free_cycles(root, keep=keep))
    return done


def forget() -> None:
    """Nothing left to free."""
    _due.clear()
