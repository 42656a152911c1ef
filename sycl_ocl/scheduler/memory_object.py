"""Memory objects: one record per root buffer, with its host copy and per-context allocations.

Sub-buffers and ``reinterpret`` views are byte windows of the root and share its record.
Validity is tracked per copy ("location": ``HOST`` or a context handle) as byte intervals.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any

import numpy as np
import pyopencl as cl

from .._native import translate
from .intervals import Piece
from .state import LOCK

if TYPE_CHECKING:
    from ..context import context

HOST = 0
# Frontier access kinds: read, write, read by a host accessor (holds back every later user).
READ, WRITE, HOST_READ = 0, 1, 2


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


class ContextRecord:
    """What the scheduler needs to know about one context, computed once.

    Kept on the context itself (never in a global table), holding only its OpenCL handles,
    so the context and its device memory go when the last user reference does.
    """

    __slots__ = ("align", "device", "handle", "host_unified", "native", "queue", "serial")

    def __init__(self, ctx: context) -> None:
        devs = [d._native for d in ctx._devices]
        self.native: cl.Context = ctx._native
        self.handle: int = ctx._handle
        self.device = devs[0]
        self.host_unified = all(_host_unified(d) for d in devs)
        self.align = max(d.mem_base_addr_align for d in devs) // 8
        self.queue: cl.CommandQueue | None = None
        # Oclgrind is not thread safe (it runs commands on the thread that waits, and asserts
        # when two threads do): its blocking calls take the scheduler lock, like its enqueues.
        # That cannot deadlock: an enqueued command never waits for Python.
        self.serial = LOCK if "Oclgrind" in self.device.platform.name else None

    def transfer_queue(self) -> cl.CommandQueue:
        """A queue of this context for host-side transfers (host accessors, write-back)."""
        if self.queue is None:
            self.queue = cl.CommandQueue(self.native, self.device)
        return self.queue


def _host_unified(dev: cl.Device) -> bool:
    try:
        return bool(dev.host_unified_memory)
    except cl.Error:
        return bool(dev.type & cl.device_type.CPU)


_records_lock = threading.Lock()


def context_record(ctx: context) -> ContextRecord:
    """The facts of a context, computed on first use."""
    found: ContextRecord | None = ctx._runtime_state
    if found is None:
        with _records_lock:
            found = ctx._runtime_state
            if found is None:
                found = ctx._runtime_state = ContextRecord(ctx)
    return found


class Allocation:
    """A root's ``cl_mem`` in one context; ``linked`` when it is the host copy (USE_HOST_PTR)."""

    __slots__ = ("buf", "ctx", "linked", "loc", "size", "subs")

    def __init__(self, buf: cl.Buffer | None, ctx: ContextRecord, linked: bool) -> None:
        self.buf = buf
        self.size = buf.size if buf is not None else 0  # a query each time otherwise
        self.ctx = ctx
        self.linked = linked
        self.loc = HOST if linked else ctx.handle
        self.subs: dict[tuple[int, int], cl.Buffer] = {}

    def window(self, lo: int, hi: int) -> cl.Buffer | None:
        """A ``cl_mem`` starting at byte ``lo`` (``lo`` meets the base alignment)."""
        if self.buf is None or (lo == 0 and hi >= self.size):
            return self.buf
        key = (lo, max(hi - lo, 1))
        sub = self.subs.get(key)
        if sub is None:
            try:
                sub = self.subs[key] = self.buf.get_sub_region(*key)
            except cl.Error as error:
                raise translate(error, f"creating a sub-buffer at byte {lo}") from error
        return sub


class MemoryObject:
    """The coherence record of one buffer and all its sub-buffers and reinterpretations."""

    __slots__ = (
        "__weakref__", "allocs", "blocking", "bound", "counters", "dtype", "frontier", "handles",
        "holds", "host", "mutex",
        "size", "target", "use_host_ptr", "user", "valid", "write_back", "written",
    )

    def __init__(self, size: int, host: np.ndarray | None, user: Any, use_host_ptr: bool) -> None:
        self.size = size
        self.host = host  # flat uint8 host copy (the user's memory when possible)
        self.user = user  # where write-back goes when the host copy is private
        self.use_host_ptr = use_host_ptr
        self.valid: dict[int, list[Piece]] = {HOST: [(0, size, None)]} if host is not None else {}
        self.frontier: list[tuple[Any, int, int, int]] = []
        self.allocs: dict[int, Allocation] = {}
        self.counters = TransferCounters()
        self.handles = 0
        self.holds: set[Any] = set()  # unreleased host accessors' ops
        self.write_back = host is not None and user is not None
        self.target: Any = None  # set_final_data destination
        self.written = False
        self.bound: context | None = None
        self.mutex: Any = None
        self.blocking = host is not None  # the destructor waits (host memory attached)
        self.dtype = np.dtype(np.uint8)

    def host_copy(self) -> np.ndarray:
        """The host copy, made on first use."""
        if self.host is None:
            self.host = np.empty(self.size, dtype=np.uint8)
        return self.host

    def alloc(self, ctx: context) -> Allocation:
        """The allocation in ``ctx``, created on first use (none for zero bytes)."""
        found = self.allocs.get(ctx._handle)
        if found is not None:
            return found
        info = context_record(ctx)
        linked = self.use_host_ptr and info.host_unified and self.host is not None and self.size > 0
        buf = None
        try:
            if linked:
                flags = cl.mem_flags.READ_WRITE | cl.mem_flags.USE_HOST_PTR
                buf = cl.Buffer(ctx._native, flags, hostbuf=self.host)
            elif self.size:
                buf = cl.Buffer(ctx._native, cl.mem_flags.READ_WRITE, self.size)
        except cl.Error as error:
            raise translate(error, f"allocating {self.size} bytes", ctx) from error
        found = self.allocs[ctx._handle] = Allocation(buf, info, linked)
        return found
