"""Memory objects: the coherence record of a buffer, its host copy and its allocations.

A buffer, its sub-buffers and its ``reinterpret`` views are byte windows of one memory
object. Validity is tracked per copy ("location": ``HOST`` or a context handle) as byte
intervals (docs/scheduler.md rule S5).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any

import numpy as np

from .._exception import errc, exception
from .._native import cl, translate
from .context_record import ContextRecord
from .intervals import Piece

if TYPE_CHECKING:
    from .op import Op
    from .replay.plans import Layout

HOST = 0

# An entry of a memory object's frontier: (op, view_lo, view_hi, access kind).
Access = tuple["Op", int, int, int]
MISALIGNED = object()  # ``Allocation.bound`` of a window that cannot be a sub-buffer
# What planning changes, restored when a command cannot be enqueued.
Snapshot = tuple[dict[int, list[Piece]], list[Access], bool]


@dataclass
class TransferCounters:
    """Bytes and commands that moved one buffer's data (see docs/scheduler.md)."""

    h2d_bytes: int = 0
    h2d_copies: int = 0
    d2h_bytes: int = 0
    d2h_copies: int = 0
    staged_bytes: int = 0  # bytes read back to the host to reach another context
    d2d_bytes: int = 0  # copies between buffers on one device (handler.copy)

    def snapshot(self) -> TransferCounters:
        """A copy of the current values."""
        return TransferCounters(**{f.name: getattr(self, f.name) for f in fields(self)})


class Allocation:
    """A memory object's ``cl_mem`` in one context; ``linked`` when it is the host copy
    (``CL_MEM_USE_HOST_PTR``)."""

    __slots__ = ("buf", "context", "linked", "loc", "size", "subs")

    def __init__(self, buf: cl.Buffer | None, context: ContextRecord, linked: bool) -> None:
        self.buf = buf
        self.size = buf.size if buf is not None else 0  # a query each time otherwise
        self.context = context
        self.linked = linked
        self.loc = HOST if linked else context.handle
        self.subs: dict[tuple[int, int], cl.Buffer] = {}

    def bound(self, lo: int, hi: int) -> Any:
        """The ``cl_mem`` a kernel gets for bytes ``[lo, hi)``: the allocation itself when the
        window is all of it (None for zero bytes), a sub-buffer when ``lo`` meets the base
        alignment, else ``MISALIGNED`` (the kernel runs on a scratch copy: ``KernelLaunch``).
        The answer never changes: an allocation stays for its memory object's life."""
        if (lo == 0 and hi >= self.size) or self.buf is None:
            return self.buf
        if lo % self.context.align == 0:
            return self.window(lo, hi)
        return MISALIGNED

    def window(self, lo: int, hi: int) -> cl.Buffer:
        """A sub-buffer of bytes ``[lo, hi)`` (``lo`` meets the base alignment), made once; the
        caller passes the allocation itself when the window is all of it."""
        assert self.buf is not None
        key = (lo, max(hi - lo, 1))
        sub = self.subs.get(key)
        if sub is None:
            try:
                sub = self.subs[key] = self.buf.get_sub_region(*key)
            except cl.Error as error:
                raise translate(error, f"creating a sub-buffer at byte {lo}") from error
        return sub

    def holder(self, lo: int, hi: int) -> tuple[cl.Buffer, int]:
        """The ``cl_mem`` to move bytes ``[lo, hi)`` through, and their offset in it: a sub-buffer
        made for a window that contains them, else the allocation itself. NVIDIA orders the
        commands on one ``cl_mem`` across the devices of a context: a transfer into the whole
        allocation waits for a kernel on another device's sub-buffer of it (docs/data-movement.md)."""
        for (start, size), sub in list(self.subs.items()):  # a copy: another thread may add one
            if start <= lo and hi <= start + size:
                return sub, lo - start
        assert self.buf is not None  # a move has bytes, so the allocation exists
        return self.buf, lo

    def upload(self, queue: cl.CommandQueue, host: np.ndarray, lo: int, hi: int,
               wait_for: list[cl.Event] | None, blocking: bool = False) -> cl.Event:
        """Enqueue the copy of host bytes ``[lo, hi)`` (of the flat host copy ``host``) into this
        allocation after ``wait_for``; its event."""
        dst, offset = self.holder(lo, hi)
        return cl.enqueue_copy(queue, dst, host[lo:hi], dst_offset=offset, is_blocking=blocking,
                               wait_for=wait_for)

    def download(self, queue: cl.CommandQueue, host: np.ndarray, lo: int, hi: int) -> None:
        """Blocking copy of bytes ``[lo, hi)`` of this allocation into the flat host copy ``host``."""
        src, offset = self.holder(lo, hi)
        # the call enqueue_copy makes, without its dispatch on the arguments' types (a host
        # accessor's read-back: docs/performance.md)
        cl._enqueue_read_buffer(queue, src, host[lo:hi], offset, None, True)


class MemoryObject:
    """The coherence record of one buffer and all its sub-buffers and reinterpretations."""

    __slots__ = (
        "__weakref__", "adopted", "allocs", "blocking", "bound_to", "counters", "dtype", "exposed",
        "frontier", "handles", "holds", "host", "layout", "layouts", "locked", "mutex", "size", "target",
        "use_host_ptr", "user", "valid", "write_back", "written",
    )

    def __init__(self, size: int, host: np.ndarray | None, user: Any, use_host_ptr: bool) -> None:
        self.size = size
        self.host = host  # flat uint8 host copy (the user's memory when possible)
        self.user = user  # where write-back goes when the host copy is private
        self.use_host_ptr = use_host_ptr
        self.valid: dict[int, list[Piece]] = {HOST: [(0, size, None)]} if host is not None else {}
        self.frontier: list[Access] = []
        self.allocs: dict[int, Allocation] = {}
        self.counters = TransferCounters()
        self.handles = 0
        self.holds: set[Op] = set()  # unreleased host accessors' ops
        self.write_back = host is not None and user is not None
        self.target: Any = None  # set_final_data destination
        self.written = False
        self.bound_to: int | None = None  # the context handle of a context_bound buffer
        self.mutex: Any = None
        self.locked: np.ndarray | None = None  # the user's array, read-only while owned (``lifetime.own``)
        self.blocking = host is not None  # the destructor waits (host memory attached)
        self.dtype = np.dtype(np.uint8)
        # The layout it is in, while that is known (rule S17): planning anything else forgets it.
        self.layout: Layout | None = None
        self.layouts: list[Layout] = []  # those seen, a few
        self.adopted: Allocation | None = None  # the cl_mem of an interop buffer (``adopt``)
        # A released host accessor's writable view may outlive it: the host copy it points
        # into is to be the buffer's no more (``disown_host_copy``, docs/scheduler.md rule S30).
        self.exposed = False

    def host_copy(self) -> np.ndarray:
        """The host copy, made on first use."""
        if self.host is None:
            self.host = np.empty(self.size, dtype=np.uint8)
        return self.host

    def disown_host_copy(self) -> None:
        """Where a released host accessor's view may outlive it (``exposed``), give the memory
        object a host copy of its own, so that the view's memory is the buffer's no more: a
        write through it reaches neither a later command nor the write-back (rule S30). Done
        once nothing else may be using the host copy: no host accessor open, no host command
        on it running (a host task's view, a read back); until then ``exposed`` stays set and
        later planning tries again. A host copy a device uses in place (``use_host_ptr``) is
        the user's memory by request, and stays."""
        if self.holds or self.host is None:
            return
        if not any(alloc.linked for alloc in self.allocs.values()):
            if any(entry[0].host and not entry[0].poll() for entry in self.frontier):
                return
            self.host = self.host.copy()
        self.exposed = False

    def allocation(self, context: ContextRecord) -> Allocation:
        """The allocation in ``context``, created on first use (none for zero bytes)."""
        found = self.allocs.get(context.handle)
        if found is not None:
            return found
        linked = self.use_host_ptr and context.host_unified and self.host is not None and self.size > 0
        try:
            buf = self.create(context.native, linked)
        except cl.Error as error:
            raise translate(error, f"allocating {self.size} bytes", context.user_context()) from error
        except MemoryError:  # PyOpenCL's for a driver's std::bad_alloc (Oclgrind's for its host memory)
            raise exception(errc.memory_allocation, f"allocating {self.size} bytes failed: the driver ran "
                                                    "out of host memory", context.user_context()) from None
        found = self.allocs[context.handle] = self.wrap(buf, context, linked)
        return found

    def create(self, native: cl.Context, linked: bool) -> Any:
        """A new ``cl_mem`` for this memory object in ``native`` (none for zero bytes); ``linked``:
        over the host copy (``CL_MEM_USE_HOST_PTR``). An image's memory object makes an image."""
        if linked:
            return cl.Buffer(native, cl.mem_flags.READ_WRITE | cl.mem_flags.USE_HOST_PTR, hostbuf=self.host)
        return cl.Buffer(native, cl.mem_flags.READ_WRITE, self.size) if self.size else None

    def wrap(self, buf: Any, context: ContextRecord, linked: bool) -> Allocation:
        """``buf`` as this memory object's allocation in ``context``."""
        return Allocation(buf, context, linked)

    def adopt(self, buf: cl.Buffer, context: ContextRecord) -> None:
        """Take ``buf`` of ``context`` as the allocation holding the current contents (interop: a
        new memory object, not used yet, so no allocation is replaced)."""
        assert context.handle not in self.allocs
        self.adopted = self.allocs[context.handle] = self.wrap(buf, context, False)
        self.valid[context.handle] = [(0, self.size, None)]
        self.layout = None
        self.blocking = True  # its destruction gives the data back into ``buf`` (rule S23)

    def holds_all(self, loc: int) -> bool:
        """Whether location ``loc`` (a context handle, or HOST) holds every current byte."""
        end = 0
        for lo, hi, _ in sorted(self.valid.get(loc, ())):
            if lo > end:
                return False
            end = max(end, hi)
        return end >= self.size

    def restore(self, saved: Snapshot) -> None:
        """Undo the planning of a command that could not be enqueued: ``saved`` is
        ``(dict(valid), frontier, written)`` from before it (the lists are never changed in
        place, so copying the dict is enough)."""
        self.valid, self.frontier, self.written = saved
        self.layout = None

    def invalidate(self) -> None:
        """Forget the layout (``set_final_data``, ``set_write_back``: no plan replays until
        the next full planning)."""
        self.layout = None
