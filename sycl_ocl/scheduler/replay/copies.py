"""Copy shapes: an explicit copy between a window and host memory, checked once, to copy again
(docs/scheduler.md rule S32).

``handler.copy`` between a contiguous accessor window and a C-contiguous numpy array of its
element type is one non-blocking transfer (``actions.HostCopy``, SYCL 2020 §4.9.4.3). Its
shape is the window's requirement, the direction, the lane and the element count and type;
the handler keeps it on the accessor's window (``accessor._Window.shapes``, beside the
launches' shapes) once a copy of that shape passed its checks in full. A later copy of the
same shape with an array of that count and type (any pointer: the array is checked, not
kept) goes through ``copy``, which, with nothing to wait for and the cached plan of the
requirement holding (rule S17), enqueues the transfer at once and replays the plan, as
``shape.launch`` does for a kernel: what ``submit`` would do, with nothing to decide.
"""

from __future__ import annotations

from collections.abc import Sequence
from time import monotonic_ns
from typing import TYPE_CHECKING, Any

import numpy as np

from ..._native import cl, translate
from ..._process import STATE as PROCESS
from .. import trace
from ..actions import HostCopy, count_transfer
from ..command_group import submit
from ..op import DEFERRED, new_op
from ..runtime import RUNTIME
from .plans import apply, blocked, crossing, finished, following

if TYPE_CHECKING:
    from ..command import Command
    from ..lane import Lane
    from ..op import Op
    from ..requirement import Requirement
    from .plans import Plan


class CopyShape:
    """A copy of ``count`` elements of ``dtype`` between the window of ``req`` and host memory
    (``to_host``: into it) on ``lane``, an in-order OpenCL queue; ``req`` is the requirement
    its command group makes (a copy that fills the window discards it). ``mem``: the window's
    ``cl_mem`` in the lane's context once bound (its allocation stays for its memory
    object's life), ``lo`` the window's first byte there; ``plan`` the cached plan (rule S17)
    a copy replayed last."""

    __slots__ = ("count", "dtype", "lane", "lo", "mem", "nbytes", "plan", "req", "to_host")

    def __init__(self, lane: Lane, req: Requirement, to_host: bool, count: int, dtype: np.dtype[Any]) -> None:
        self.lane = lane
        self.req = req
        self.to_host = to_host
        self.count = count
        self.dtype = dtype
        self.nbytes = count * dtype.itemsize
        self.lo = req.lo
        self.mem: Any = None
        self.plan: Plan | None = None

    def matches(self, host: Any) -> bool:
        """Whether ``host`` is an array this copy takes as it is: a C-contiguous numpy array of
        the shape's element type and count, writable for a copy into it."""
        if type(host) is not np.ndarray or host.size != self.count:
            return False
        dtype = host.dtype
        flags = host.flags
        return ((dtype is self.dtype or dtype == self.dtype) and flags.c_contiguous
                and (flags.writeable or not self.to_host))


def key(lane: Lane | None, to_host: bool) -> tuple[Any, ...]:
    """The key a window keeps the copy shape of ``lane`` and direction under, beside the
    launches' shapes (kept by kernel; no kernel is the class ``HostCopy``)."""
    return (HostCopy, to_host, lane)


def copy(shape: CopyShape, host: np.ndarray, depends_on: Sequence[Command] = (), owners: Any = None) -> Op:
    """Schedule the copy of ``host`` (an array the shape ``matches``) in the shape's direction
    (docs/scheduler.md rule S32): with nothing to wait for, the window bound, no trace
    recording, the lane's last command not waiting in the DAG and the cached plan of its
    requirement holding with no edge, the transfer is enqueued at once and the plan replayed;
    otherwise ``submit`` plans it in full. ``owners``: what the op keeps alive until it
    completes (rule S29)."""
    with RUNTIME: return _copy(shape, host, depends_on, owners)  # noqa: E701  # rule S26


def _copy(shape: CopyShape, host: np.ndarray, depends_on: Sequence[Command], owners: Any) -> Op:
    """``copy`` under the lock."""
    lane = shape.lane
    mem = shape.mem
    if (depends_on or mem is None or trace.RECORDER is not None or PROCESS.forked
            or (lane.in_order and (last := lane.last) is not None and last.state == DEFERRED)):
        return _in_full(shape, host, depends_on, owners)
    found = shape.plan
    if found is None or found.memory.layout is not found.after or (found.gone and not finished(found)):
        found = following(shape.req, lane)
        if found is None or (found.gone and not finished(found)):
            return _in_full(shape, host, depends_on, owners)
        shape.plan = found
    if RUNTIME.deferred and blocked((found,)):
        return _in_full(shape, host, depends_on, owners)
    edges = events = None
    if found.foreign:  # it waits for other lanes' commands: their events in its wait list (rule S7)
        crossed = crossing((found,))
        if crossed is None:
            return _in_full(shape, host, depends_on, owners)
        edges, events = crossed
    submitted = monotonic_ns() if lane.profiling else 0  # its command_submit
    try:  # the calls enqueue_copy makes, without its dispatch on the arguments' types
        if shape.to_host:
            ev = cl._enqueue_read_buffer(lane.cl_queue, mem, host, shape.lo, events, False)
        else:
            ev = cl._enqueue_write_buffer(lane.cl_queue, mem, host, shape.lo, events, False)
    except cl.Error as error:
        raise translate(error, "enqueueing a command") from error
    op = new_op(lane, lane.ctx, False, lane.async_errors, ev, [host], submitted)  # the array lives until done
    op.owners = owners
    count_transfer(shape.req.memory, shape.nbytes, shape.to_host)
    apply((found,), op, edges)
    return op


def _in_full(shape: CopyShape, host: np.ndarray, depends_on: Sequence[Command], owners: Any) -> Op:
    """``submit`` of the copy, planned in full; the shape binds its window after the first."""
    req = shape.req
    op = submit(shape.lane, HostCopy(req, host, shape.to_host), (req,), depends_on, owners)
    if shape.mem is None:
        alloc = req.memory.allocs.get(shape.lane.ctx)
        if alloc is not None:
            shape.mem = alloc.buf  # the allocation stays for its memory object's life
    return op
