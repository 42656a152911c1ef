"""The in-memory build cache: one table per context, one build per key (SYCL 2020 §4.11).

Keys name everything a build depends on (stage, images, devices, options, specialization
constant values). The first thread to ask for a key builds it while later ones wait; a
failure is replayed to every waiter. A context's table goes when its wrapper is collected.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from ..context import context

T = TypeVar("T")

_lock = threading.Lock()
_tables: dict[int, _Table] = {}
counters = {"builds": 0, "hits": 0}


class _Slot:
    __slots__ = ("done", "error", "value")

    def __init__(self) -> None:
        self.done = threading.Event()
        self.value: Any = None
        self.error: BaseException | None = None


class _Table:
    """One context's builds (``slots``) and its launch lookups (``fast``: (spec, device) -> kernel)."""

    __slots__ = ("fast", "lock", "slots")

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.slots: dict[Hashable, _Slot] = {}
        self.fast: dict[Hashable, Any] = {}


def table(ctx: context) -> _Table:
    """The cache table of ``ctx``, created on first use and dropped with the context."""
    tab = _tables.get(ctx._handle)
    if tab is not None:
        return tab
    with _lock:
        tab = _tables.get(ctx._handle)
        if tab is None:
            tab = _tables[ctx._handle] = _Table()
            weakref.finalize(ctx, _tables.pop, ctx._handle, None)
    return tab


def cached(ctx: context, key: Hashable, make: Callable[[], T]) -> T:
    """``make()``'s result for ``key`` in ``ctx``'s table, computed once."""
    tab = table(ctx)
    slot = tab.slots.get(key)
    if slot is not None and slot.done.is_set() and slot.error is None:
        counters["hits"] += 1
        return slot.value
    with tab.lock:
        slot = tab.slots.get(key)
        owner = slot is None
        if slot is None:
            slot = tab.slots[key] = _Slot()
    if not owner:
        slot.done.wait()
        if slot.error is not None:
            raise slot.error
        counters["hits"] += 1
        return slot.value
    try:
        slot.value = make()
        counters["builds"] += 1
    except BaseException as error:
        slot.error = error
        with tab.lock:
            tab.slots.pop(key, None)  # a later call retries (the source may be fixed)
        raise
    finally:
        slot.done.set()
    return slot.value


def clear() -> None:
    """Forget every cached build (the disk cache is untouched)."""
    with _lock:
        for tab in _tables.values():
            with tab.lock:
                tab.slots.clear()
                tab.fast.clear()
