"""Actions: what an operation does once its requirements are met.

A device action enqueues itself on a lane (``enqueue(lane, wait_for, keep)``), finding its
memory through requirements, never through user objects; a host action is a callable run on
a host thread after its requirements are current on the host. A new kind of command (a USM
copy, a recorded graph) is a new action class.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from .._native import cl
from .replay.prepared import bind, copy_in, copy_out

if TYPE_CHECKING:
    from .context_record import ContextRecord
    from .lane import Lane
    from .memory_object import Allocation, MemoryObject
    from .requirement import Requirement


class Kernel(Protocol):
    """What a kernel launch needs of a kernel (``sycl.kernel`` implements it)."""

    _name: str  # the kernel's function name (traces name launches by it)

    def _enqueue(self, cl_queue: cl.CommandQueue, global_size: tuple[int, ...],
                 local_size: tuple[int, ...] | None, offset: tuple[int, ...] | None,
                 args: Sequence[Any], wait_for: list[cl.Event] | None) -> cl.Event:
        """Set ``args`` and enqueue (sizes in OpenCL dimension order); the OpenCL event."""

    def _private(self, args: Sequence[Any] | None) -> cl.Kernel:
        """A ``cl_kernel`` of its own with ``args`` set (None: none yet), that nothing else
        changes (``PreparedKernel``)."""

    def _set_on(self, native: cl.Kernel, args: Sequence[Any]) -> None:
        """Set ``args`` on ``native``, a ``cl_kernel`` of this kernel's function."""

    def _all_args(self, args: Sequence[Any]) -> Sequence[Any]:
        """``args`` as the ``cl_kernel`` takes them: with the hidden arguments of a guarded
        range launch (``range_launch.Guarded``) after them."""


def _alloc(req: Requirement, lane: Lane) -> Allocation:
    return req.memory.allocs[lane.ctx]


@dataclass(slots=True)
class KernelLaunch:
    """Enqueue a kernel; sizes in OpenCL dimension order.

    ``bindings`` holds the indices of the arguments that are requirements: each becomes the
    ``cl_mem`` of the requirement's window in the lane's context at the enqueue (``bind``; a
    misaligned window runs on a scratch copy of its own).
    """

    kernel: Kernel
    global_size: tuple[int, ...]
    local_size: tuple[int, ...] | None
    offset: tuple[int, ...] | None
    args: Sequence[Any]
    bindings: tuple[int, ...]

    def enqueue(self, lane: Lane, wait_for: list[cl.Event] | None, keep: list[Any]) -> cl.Event:
        if not self.bindings:
            return self.kernel._enqueue(lane.cl_queue, self.global_size, self.local_size, self.offset,
                                        self.args, wait_for)
        args, windows = bind(self.args, self.bindings, lane.context)
        wait_for = copy_in(lane, windows, wait_for, keep)
        ev = self.kernel._enqueue(
            lane.cl_queue, self.global_size, self.local_size, self.offset, args, wait_for)
        return copy_out(lane, windows, ev, keep)

    def bound(self, context: ContextRecord) -> None:
        """Make the sub-buffers of its windows in ``context`` (``Allocation.bound``) before its
        transfers, which go through them (``Allocation.holder``)."""
        for index in self.bindings:
            req: Requirement = self.args[index]
            req.memory.allocation(context).bound(req.lo, req.hi)


@dataclass(slots=True)
class DeviceCopy:
    """Copy between two contiguous windows in the queue's context (same size)."""

    src: Requirement
    dst: Requirement

    def enqueue(self, lane: Lane, wait_for: list[cl.Event] | None, keep: list[Any]) -> cl.Event:
        src, dst = _alloc(self.src, lane), _alloc(self.dst, lane)
        n = self.src.hi - self.src.lo
        if n == 0 or src.buf is None or dst.buf is None:
            return cl.enqueue_marker(lane.cl_queue, wait_for=wait_for)
        ev = cl.enqueue_copy(
            lane.cl_queue, dst.buf, src.buf, byte_count=n, src_offset=self.src.lo,
            dst_offset=self.dst.lo, wait_for=wait_for,
        )
        self.dst.memory.counters.d2d_bytes += n  # once enqueued: a refused copy moved nothing
        return ev


@dataclass(slots=True)
class HostCopy:
    """Copy between a contiguous window in the queue's context and user host memory
    (``handler.copy`` with a numpy array at one end, §4.9.4.3): one non-blocking OpenCL
    transfer behind the commands before it, complete with its event (no host thread).

    ``host`` is a C-contiguous array of the window's element type, no longer than the window:
    its bytes go to or come from the window's start. It lives in ``keep`` until the transfer
    completed. The bytes count as the buffer's transfers (``d2h`` or ``h2d``).
    """

    req: Requirement
    host: np.ndarray
    to_host: bool
    shape: Any = None  # its ``replay.copies.CopyShape``, where it has one (the handler's)

    def enqueue(self, lane: Lane, wait_for: list[cl.Event] | None, keep: list[Any]) -> cl.Event:
        alloc, host = _alloc(self.req, lane), self.host
        if host.nbytes == 0 or alloc.buf is None:
            return cl.enqueue_marker(lane.cl_queue, wait_for=wait_for)
        keep.append(host)
        if self.to_host:
            ev = cl.enqueue_copy(lane.cl_queue, host, alloc.buf, src_offset=self.req.lo,
                                 wait_for=wait_for, is_blocking=False)
        else:
            ev = cl.enqueue_copy(lane.cl_queue, alloc.buf, host, dst_offset=self.req.lo,
                                 wait_for=wait_for, is_blocking=False)
        count_transfer(self.req.memory, host.nbytes, self.to_host)  # once enqueued, as rule S32's
        return ev


def count_transfer(memory: MemoryObject, nbytes: int, to_host: bool) -> None:
    """Count an explicit copy of ``nbytes`` between ``memory`` and host memory (``HostCopy``,
    ``replay.copies``) in its transfer counters, as ``d2h`` or ``h2d``."""
    counters = memory.counters
    if to_host:
        counters.d2h_bytes += nbytes
        counters.d2h_copies += 1
    else:
        counters.h2d_bytes += nbytes
        counters.h2d_copies += 1


@dataclass(slots=True)
class DeviceFill:
    """Fill a contiguous window with one value."""

    dst: Requirement
    pattern: np.ndarray

    def enqueue(self, lane: Lane, wait_for: list[cl.Event] | None, keep: list[Any]) -> cl.Event:
        alloc = _alloc(self.dst, lane)
        lo, hi = self.dst.lo, self.dst.hi
        if hi == lo or alloc.buf is None:
            return cl.enqueue_marker(lane.cl_queue, wait_for=wait_for)
        return cl.enqueue_fill_buffer(
            lane.cl_queue, alloc.buf, self.pattern, lo, hi - lo, wait_for=wait_for
        )


class Barrier:
    """A command group without an action: its requirements still order and move data."""

    __slots__ = ()

    def enqueue(self, lane: Lane, wait_for: list[cl.Event] | None, keep: list[Any]) -> cl.Event:
        return cl.enqueue_marker(lane.cl_queue, wait_for=wait_for)


@dataclass(frozen=True, slots=True)
class HostTask:
    """Run ``fn`` on a host thread (host tasks, host-side copies); ``fn`` None: only the
    transfers (host accessors, ``update_host``, destruction's write-back, staging)."""

    fn: Callable[[], Any] | None
    staging: bool = False  # a read-back on the way to another context (counted apart)
    what: str = ""  # a transfer op's kind, for traces: "host accessor", "write-back"


class NativeScope:
    """What the body of a host task with native access reaches (§4.10.2): the OpenCL queue,
    context and device of its lane, and the memory of its requirements in that context."""

    __slots__ = ("lane",)

    def __init__(self, lane: Lane) -> None:
        self.lane = lane

    def memory(self, req: Requirement) -> list[cl.Buffer]:
        """The ``cl_mem`` of the requirement's view in the lane's context: the buffer's
        allocation, or a sub-buffer of it for a sub-buffer's view; none for zero bytes."""
        alloc = req.memory.allocs.get(self.lane.ctx)
        if alloc is None or alloc.buf is None:
            return []
        if req.view_lo == 0 and req.view_hi >= alloc.size:
            return [alloc.buf]
        return [alloc.window(req.view_lo, req.view_hi)]


@dataclass(frozen=True, slots=True)
class NativeTask:
    """A host task with native access (§4.10.2): ``fn(scope)`` on a host thread, its
    requirements planned in the lane's context (their memory current there, not on the host);
    what it enqueues on the lane's OpenCL queue is part of it (``hostops``)."""

    fn: Callable[[NativeScope], Any]


class DeviceAction(Protocol):
    """What a device op does: enqueue itself on ``lane`` after ``wait_for``, appending to ``keep``
    what must live until it completed; returns the OpenCL event of its last command."""

    def enqueue(self, lane: Lane, wait_for: list[cl.Event] | None, keep: list[Any]) -> cl.Event:
        """Enqueue the action."""

