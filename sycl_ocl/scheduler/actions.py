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
from .memory_object import MISALIGNED

if TYPE_CHECKING:
    from .lane import Lane
    from .memory_object import Allocation
    from .requirement import Requirement


class Kernel(Protocol):
    """What a kernel launch needs of a kernel (``sycl.kernel`` implements it)."""

    _name: str  # the kernel's function name (traces name launches by it)

    def _enqueue(self, cl_queue: cl.CommandQueue, global_size: tuple[int, ...],
                 local_size: tuple[int, ...] | None, offset: tuple[int, ...] | None,
                 args: Sequence[Any], wait_for: list[cl.Event] | None) -> cl.Event:
        """Set ``args`` and enqueue (sizes in OpenCL dimension order); the OpenCL event."""

    def _private(self, args: Sequence[Any]) -> cl.Kernel:
        """A ``cl_kernel`` of its own with ``args`` set, that nothing else changes (graphs)."""


def _alloc(req: Requirement, lane: Lane) -> Allocation:
    return req.memory.allocs[lane.ctx]


@dataclass(slots=True)
class KernelLaunch:
    """Enqueue a kernel; sizes in OpenCL dimension order.

    ``bindings`` holds the indices of the arguments that are requirements: each becomes the
    ``cl_mem`` of the requirement's window in the lane's context, in ``args`` itself (a list
    then: an action is enqueued once).
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
        args: list[Any] = self.args  # type: ignore[assignment]  # a list when there are bindings
        post: list[tuple[Any, cl.Buffer, int, int]] = []
        ctx = lane.ctx
        for index in self.bindings:
            req: Requirement = args[index]
            alloc = req.memory.allocs[ctx]
            lo, hi = req.lo, req.hi
            mem = alloc.bound(lo, hi)
            if mem is not MISALIGNED:
                args[index] = mem
                continue
            # A misaligned window cannot be a sub-buffer: run on a scratch copy of it.
            assert alloc.buf is not None  # bound() gives a window of no bytes the allocation's None
            tmp = cl.Buffer(alloc.ctx.native, cl.mem_flags.READ_WRITE, hi - lo)
            keep.append(tmp)
            if req.needs_old:
                copied = cl.enqueue_copy(
                    lane.cl_queue, tmp, alloc.buf, byte_count=hi - lo, src_offset=lo, wait_for=wait_for)
                keep.append(copied)
                wait_for = lane.after(copied)
            if req.writes:
                post.append((alloc, tmp, lo, hi))
            args[index] = tmp
        ev = self.kernel._enqueue(
            lane.cl_queue, self.global_size, self.local_size, self.offset, args, wait_for)
        for alloc, tmp, lo, hi in post:
            keep.append(ev)
            ev = cl.enqueue_copy(
                lane.cl_queue, alloc.buf, tmp, byte_count=hi - lo, dst_offset=lo, wait_for=lane.after(ev))
        return ev


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
        self.dst.memory.counters.d2d_bytes += n
        return cl.enqueue_copy(
            lane.cl_queue, dst.buf, src.buf, byte_count=n, src_offset=self.src.lo,
            dst_offset=self.dst.lo, wait_for=wait_for,
        )


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

