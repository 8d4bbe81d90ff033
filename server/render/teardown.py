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
frees it. The walk stops at types, modules, frames, functions' globals and objects of the
event loop, SSH, the game server and the protocol: what it does not walk only counts as a
reference from outside, so a shorter walk can free less, never something alive. Garbage with
a finalizer is left to the collector, which runs finalizers before it clears anything.

The server calls `later` for every screen Textual removes (`server.ssh.compat` hooks it in),
and `free_due` at each step of its paced collector, which frees for a few milliseconds at
most; a queue longer than `MAX_DUE` drops its oldest (they wait for a whole collection).

An ended session is not freed this way: its app stays held by the SSH session's own cycles
(and by the loop's cancelled timers) for a while, so a walk from it finds nothing to free.
"""

from __future__ import annotations

import collections
import contextlib
import gc
import logging
import operator
import sys
import time
import types
import weakref
from collections.abc import Iterator
from dataclasses import dataclass

log = logging.getLogger(__name__)

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


def free_cycles(root: weakref.ref[object], limit: int = LIMIT) -> Freed:
    """Free the objects reachable from `root` that nothing outside them holds.

    Takes a weak reference, so that the caller's own reference does not count as one from
    outside. Runs with the cycle collector paused (its weakref callbacks would change
    reference counts under the count).
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        objects = _reachable(root, limit)
        if objects is None:
            return Freed(limit, 0, 0)
        walked, garbage = len(objects), _unreachable(objects)
        del objects
        if any(hasattr(type(obj), "__del__") for obj in garbage):
            return Freed(walked, 0, 0)  # the collector runs finalizers first: left to it
        return Freed(walked, *_clear(garbage))
    finally:
        if enabled:
            gc.enable()


def _reachable(root: weakref.ref[object], limit: int) -> list[object] | None:
    """Every object the walk reaches from `root` (itself first); None past `limit`."""
    start = root()
    if start is None:
        return []
    objects = [start]
    seen = {id(start)}
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
    """What `obj` refers to that the walk follows (types are tested exactly: `isinstance`
    would ask a weakref proxy, which forwards it, or raises once its object is gone)."""
    if type(obj) is types.FunctionType:
        closure = obj.__closure__  # its own reference, shared by functions made alike
        refs: list[object] = [closure] if closure is not None else []
    else:
        refs = gc.get_referents(obj)
    for ref in refs:
        if gc.is_tracked(ref) and not _boundary(type(ref)):
            yield ref


def _boundary(kind: type) -> bool:
    if issubclass(kind, type | types.ModuleType | types.FrameType):
        return True
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


CONTAINERS = (dict, list, set, collections.deque)


def _break(obj: object) -> bool:
    """Drop what `obj` refers to, where Python can (containers, attributes, cells), through
    the base types' own methods (no subclass's `clear` or `__setattr__` runs)."""
    kind = type(obj)
    if kind.__module__ in WEAK_CONTAINERS:
        return False  # their weakref callbacks run later and use the attributes
    for container in CONTAINERS:
        if issubclass(kind, container):
            container.clear(obj)  # type: ignore[attr-defined]
            return True
    if kind is types.CellType:
        with contextlib.suppress(ValueError):  # an empty cell
            del obj.cell_contents  # type: ignore[attr-defined]
        return True
    if kind in (types.FunctionType, types.MethodType):
        return False
    broke = False
    if kind.__dictoffset__:  # its instances have a `__dict__`
        with contextlib.suppress(AttributeError, TypeError):
            object.__setattr__(obj, "__dict__", {})  # a new one: a shared dict stays whole
            broke = True
    for slot in _slots(kind):
        with contextlib.suppress(AttributeError, TypeError):
            slot.__delete__(obj)
            broke = True
    return broke


def _slots(kind: type) -> Iterator[types.MemberDescriptorType]:
    for klass in kind.__mro__:
        for value in vars(klass).values():
            if type(value) is types.MemberDescriptorType:
                yield value


# ---------------------------------------------------------------- when to free

DELAY = 1.0  # seconds after a screen is removed: its last tasks and messages are done
BUDGET = 0.005  # seconds of freeing at most per `free_due`; the rest waits for the next
MAX_DUE = 1000  # roots waiting at most
_due: collections.deque[tuple[float, weakref.ref[object]]] = collections.deque()


def later(root: object) -> None:
    """Free `root`'s cycles `DELAY` seconds from now, at a `free_due` after (nothing where
    the reference counts do not read as expected: see `SOUND`)."""
    if not SOUND:
        return
    if len(_due) >= MAX_DUE:
        _due.popleft()
    _due.append((time.monotonic() + DELAY, weakref.ref(root)))


def free_due(now: float | None = None, budget: float = BUDGET) -> list[Freed]:
    """Free the cycles of the roots whose time came and that are still alive, for about
    `budget` seconds. A root that fails is logged and dropped (nothing of it was cleared
    unless the failure came while clearing)."""
    moment = time.monotonic() if now is None else now
    until = time.perf_counter() + budget
    done: list[Freed] = []
    while _due and _due[0][0] <= moment and time.perf_counter() < until:
        _, root = _due.popleft()
        if root() is None:
            continue
        try:
            done.append(free_cycles(root))
        except Exception:
            log.exception("freeing the cycles of a removed screen failed")
    return done


def forget() -> None:
    """Nothing left to free."""
    _due.clear()


def _sound() -> bool:
    """Whether this interpreter's reference counts read as the walk expects: a cycle that
    nothing else holds is garbage, and one held from outside is not. (An interpreter that
    borrows references on its stack could read lower counts: then nothing is ever freed.)"""
    objects = _two_in_a_cycle() + _two_in_a_cycle()
    outside = [objects[2]]  # the second cycle is held from here
    found = _unreachable(objects)
    del outside
    return len(found) == 2 and all(map(operator.is_, found, objects))


def _two_in_a_cycle() -> list[object]:
    first: list[object] = []
    second: list[object] = [first]
    first.append(second)
    return [first, second]


SOUND = _sound()
"""Checked once at import; without it `later` queues nothing."""
