"""USM allocations and the table that finds one from any address inside it (SYCL 2020 §4.8).

An allocation owns a PyOpenCL ``SVMAllocation``. Freeing it drops the runtime's references
only: the SVM memory goes back to the driver when nothing else refers to it, so a command
still running, or a numpy view the user kept, never sees freed memory.
"""

from __future__ import annotations

import bisect
import threading
from typing import TYPE_CHECKING, Any

import numpy as np
import pyopencl as cl

if TYPE_CHECKING:
    from ..context import context
    from ..device import device
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
        """Forget the memory (``sycl.free``); see the module docstring."""
        self.native = None
        self.bytes = None


class _Table:
    """The live allocations of one context, sorted by address."""

    __slots__ = ("allocs", "starts")

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.allocs: list[Allocation] = []


_lock = threading.Lock()
_tables: dict[int, _Table] = {}


def add(a: Allocation) -> None:
    """Record a new allocation."""
    with _lock:
        table = _tables.get(a.ctx_handle)
        if table is None:
            table = _tables[a.ctx_handle] = _Table()
        i = bisect.bisect_right(table.starts, a.address)
        table.starts.insert(i, a.address)
        table.allocs.insert(i, a)


def remove(a: Allocation) -> bool:
    """Forget an allocation; False when it was not live (freed already)."""
    with _lock:
        table = _tables.get(a.ctx_handle)
        if table is None or a.native is None:
            return False
        i = table.allocs.index(a)
        del table.starts[i], table.allocs[i]
        if not table.allocs:
            del _tables[a.ctx_handle]  # the table keeps no context alive once empty
        a.release()
        return True


def find(ctx_handle: int, address: int) -> Allocation | None:
    """The live allocation of the context that contains ``address``, if any."""
    with _lock:
        table = _tables.get(ctx_handle)
        if table is None:
            return None
        i = bisect.bisect_right(table.starts, address) - 1
        if i >= 0:
            a = table.allocs[i]
            if address < a.address + a.size:
                return a
    return None
