"""USM allocations and the table that finds one from any address inside it (SYCL 2020 §4.8).

An allocation owns a PyOpenCL ``SVMAllocation``. Freeing it drops the runtime's references
only: the SVM memory goes back to the driver when nothing else refers to it, so a command
still running, or a numpy view the user kept, never sees freed memory. The table refers to
allocations weakly: one that no pointer refers to any more is released by the garbage
collector, and with it the context it kept alive.
"""

from __future__ import annotations

import bisect
import threading
import weakref
from typing import TYPE_CHECKING, Any

import numpy as np

from .._native import cl

if TYPE_CHECKING:
    from .._context import context
    from .._device import device
    from .kinds import alloc


class Allocation:
    """One USM allocation: ``size`` bytes at ``address`` of ``context``, of kind ``kind``.

    ``bytes`` is a uint8 array over the memory (never read for device memory: it only
    makes pointers into it); ``native`` is the SVM pointer to its first byte.
    ``native`` is None once freed.
    """

    __slots__ = ("__weakref__", "address", "bytes", "context", "ctx_handle", "device", "kind",
                 "native", "size")

    def __init__(self, owner: cl.SVMAllocation, pad: int, size: int, kind: alloc,
                 ctx: context, dev: device) -> None:
        self.bytes: np.ndarray | None = np.asarray(owner.buf)[pad:pad + size]
        self.native: Any = owner if pad == 0 else cl.SVM(self.bytes)
        self.address = int(owner.svm_ptr) + pad
        self.size = size
        self.kind = kind
        self.context = ctx
        self.ctx_handle = ctx._handle
        self.device = dev

    def release(self) -> None:
        """Forget the memory (``sycl.free``, under ``_lock``); see the module docstring.
        The caches of native pointers (``forget_at_free``) forget theirs too."""
        global RELEASES
        self.native = None
        self.bytes = None
        RELEASES += 1
        for holder in _holders:
            holder.forget()


class _Table:
    """The allocations of one context, sorted by address (weak references)."""

    __slots__ = ("allocs", "starts")

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.allocs: list[weakref.ref[Allocation]] = []

    def prune(self) -> None:
        """Drop the entries of allocations that were garbage collected."""
        live = [i for i, ref in enumerate(self.allocs) if ref() is not None]
        if len(live) < len(self.allocs):
            self.starts = [self.starts[i] for i in live]
            self.allocs = [self.allocs[i] for i in live]


_lock = threading.Lock()
_tables: dict[int, _Table] = {}
RELEASES = 0  # the allocations freed so far
_holders: weakref.WeakSet[Any] = weakref.WeakSet()


def forget_at_free(holder: Any) -> None:
    """Make every free call ``holder.forget()``: ``holder`` caches native pointers of
    allocations (the queue shortcuts', ``usm.launch``), which must never keep freed memory
    from the driver."""
    with _lock:
        _holders.add(holder)


def hold(holder: Any, last: Any, seen: int) -> None:
    """``holder.last = last`` (``forget_at_free``), unless an allocation was freed since
    ``RELEASES`` was ``seen`` (read before the pointers in ``last`` were)."""
    with _lock:
        if seen == RELEASES:
            holder.last = last


def add(a: Allocation) -> None:
    """Record a new allocation."""
    with _lock:
        table = _tables.get(a.ctx_handle)
        if table is None:
            table = _tables[a.ctx_handle] = _Table()
        table.prune()
        i = bisect.bisect_right(table.starts, a.address)
        table.starts.insert(i, a.address)
        table.allocs.insert(i, weakref.ref(a))


def remove(a: Allocation) -> bool:
    """Forget an allocation; False when it was not live (freed already)."""
    with _lock:
        table = _tables.get(a.ctx_handle)
        if table is None or a.native is None:
            return False
        i = [ref() for ref in table.allocs].index(a)
        del table.starts[i], table.allocs[i]
        table.prune()
        if not table.allocs:
            del _tables[a.ctx_handle]
        a.release()
        return True


def find(ctx_handle: int, address: int) -> Allocation | None:
    """The live allocation of the context that contains ``address``, if any."""
    with _lock:
        table = _tables.get(ctx_handle)
        if table is None:
            return None
        i = bisect.bisect_right(table.starts, address) - 1
        a = table.allocs[i]() if i >= 0 else None
        if a is not None and address < a.address + a.size:
            return a
    return None
