"""Command graphs in the DAG: a finalized graph is one device action, replayed as one operation
(docs/scheduler.md rule S18; the user's side is ``sycl_ocl/graph.py``).

Finalizing resolves the graph once: the memory of every node in the graph's context, each
kernel's arguments set on a ``cl_kernel`` of the node's own, and, where the device offers
``cl_khr_command_buffer``, a native command buffer recording the nodes with their edges. A
replay is then one ``clEnqueueCommandBufferKHR``, or the prepared commands enqueued one after
the other on the queue's in-order OpenCL queue, with no planning per node. The replay's
requirements are the union of its nodes' requirements on each memory object, so the scheduler
orders it with the eager commands before and after it, and moves the data it needs.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .. import _command_buffer as cbuf
from .._native import cl
from .actions import Barrier, DeviceAction, DeviceCopy, DeviceFill, KernelLaunch
from .coherence import merge
from .memory_object import MemoryObject
from .replay.prepared import PreparedKernel, bind
from .requirement import Requirement

if TYPE_CHECKING:
    from .context_record import ContextRecord
    from .lane import Lane

NATIVE_ENV = "SYCL_OCL_GRAPH_NATIVE"  # "0": prepared kernels; "1": command buffers wherever usable

# Drivers whose command buffers replay slower than the same commands enqueued one by one
# (platform name, driver version prefix; docs/performance.md): there graphs replay prepared
# kernels unless SYCL_OCL_GRAPH_NATIVE=1 asks for command buffers.
SLOWER_COMMAND_BUFFERS = (("Portable Computing Language", "3.1"), ("Portable Computing Language", "5.0"))


def native_by_default(device: cl.Device) -> bool:
    """Whether graphs on ``device`` replay as command buffers when ``SYCL_OCL_GRAPH_NATIVE`` is
    unset (where the device has usable ones): everywhere but on :data:`SLOWER_COMMAND_BUFFERS`."""
    platform = device.platform.name
    return not any(name in platform and device.driver_version.startswith(version)
                   for name, version in SLOWER_COMMAND_BUFFERS)


@contextmanager
def native_command_buffers(enabled: bool) -> Iterator[None]:
    """Graphs finalized meanwhile record native command buffers where they can (``enabled``),
    or replay prepared kernels: ``SYCL_OCL_GRAPH_NATIVE`` for the duration (tests and benchmarks
    compare the two ways; not thread safe, as the environment is not)."""
    before = os.environ.get(NATIVE_ENV)
    os.environ[NATIVE_ENV] = "1" if enabled else "0"
    try:
        yield
    finally:
        if before is None:
            del os.environ[NATIVE_ENV]
        else:
            os.environ[NATIVE_ENV] = before


@dataclass(frozen=True, slots=True)
class Step:
    """One node of a finalized graph, in an order that puts every node after its predecessors.

    ``after`` holds the indices of the steps it waits for.
    """

    action: DeviceAction
    requirements: tuple[Requirement, ...]
    after: tuple[int, ...]


def _prepared(action: DeviceAction, requirements: Sequence[Requirement], context: ContextRecord) -> Any:
    """What a replay without a command buffer enqueues for one node (None: nothing)."""
    if isinstance(action, KernelLaunch):
        if 0 in action.global_size:
            return None
        args, windows = bind(action.args, action.bindings, context)
        sizes = (action.global_size, action.local_size, action.offset)
        return PreparedKernel(action.kernel, args, windows, sizes)
    if isinstance(action, Barrier):
        return None
    for req in requirements:  # a copy's or fill's windows (USM commands have none)
        req.memory.allocation(context)  # the replay finds it in the lane's context
    return action  # USM commands, copies and fills enqueue themselves


def recordable(action: DeviceAction) -> bool:
    """Whether a native command buffer can hold the node (USM commands cannot, before
    revision 0.9.3 of the extension, nor copies to or from host memory: such graphs replay
    their prepared commands)."""
    return isinstance(action, KernelLaunch | Barrier | DeviceCopy | DeviceFill)


class GraphReplay:
    """The device action of a finalized graph (rule S18).

    ``requirements`` is the union, per memory object, of the nodes' requirements, made once:
    the op of each replay plans it (the plan cache replays it while nothing else touched the
    memory). ``memories`` are the nodes' memory objects; ``native`` tells whether replays
    use a command buffer.
    """

    __slots__ = ("_buffers", "_context", "_device", "_prepared", "_steps", "memories", "native",
                 "requirements")

    def __init__(self, steps: Sequence[Step], context: ContextRecord, device: cl.Device) -> None:
        self._steps = tuple(steps)
        self._context = context
        self._device = device
        # One replay of a graph at a time (the extension's rule): each replay also writes a
        # memory object of no bytes of its own, so the DAG orders it after the previous one.
        token = MemoryObject(0, None, None, False)
        self.requirements = (*union(steps), Requirement(token, 0, 0, True, False, 0, 1))
        self.memories = tuple(dict.fromkeys(r.memory for step in steps for r in step.requirements))
        self._prepared = [p for p in (_prepared(step.action, step.requirements, context) for step in steps)
                          if p is not None]
        self._buffers: dict[int, cbuf.CommandBuffer] = {}  # by the properties of the queues they suit
        setting = os.environ.get(NATIVE_ENV, "")
        wanted = setting == "1" or (setting != "0" and native_by_default(device))
        self.native = wanted and cbuf.supported(device) and all(recordable(step.action) for step in steps)
        if self.native:
            self._command_buffer(0)  # recorded now, so that what the driver refuses fails finalize

    def enqueue(self, lane: Lane, wait_for: list[cl.Event] | None, keep: list[Any]) -> cl.Event:
        if self.native:
            commands = self._command_buffer(lane.cl_queue.properties)
            if commands is not None and not commands.busy():
                return commands.enqueue(wait_for or (), lane.cl_queue)
        ev = None
        for command in self._prepared:
            ev = command.enqueue(lane, wait_for, keep)
            wait_for = lane.after(ev)
        return ev if ev is not None else cl.enqueue_marker(lane.cl_queue, wait_for=wait_for)

    def _command_buffer(self, properties: int) -> cbuf.CommandBuffer | None:
        """The command buffer for queues with ``properties`` (recorded on first use, on a queue of
        its own; replays pass the lane's queue, which the extension accepts when its device and
        properties match); None when the device cannot record for such queues."""
        found = self._buffers.get(properties)
        if found is None and properties not in self._buffers:
            support = cbuf.support(self._device)
            if support is None or support.queue_problem(properties):
                self._buffers[properties] = None  # type: ignore[assignment]
                return None
            found = self._buffers[properties] = self._record(
                cl.CommandQueue(self._context.native, self._device, properties=properties))  # type: ignore[arg-type]
        return found

    def _record(self, queue: cl.CommandQueue) -> cbuf.CommandBuffer:
        commands = cbuf.CommandBuffer(queue)
        points: list[tuple[int, ...]] = []  # the sync points that stand for each step
        for step in self._steps:
            after = tuple(p for i in step.after for p in points[i])
            points.append(_record_step(commands, step.action, after, self._context))
        commands.finalize()
        return commands


def _record_step(commands: cbuf.CommandBuffer, action: DeviceAction, after: tuple[int, ...],
                 context: ContextRecord) -> tuple[int, ...]:
    """Record one node; returns the sync points a successor waits for."""
    if isinstance(action, KernelLaunch):
        args, windows = bind(action.args, action.bindings, context)
        prepared = PreparedKernel(action.kernel, args, windows)
        for w in windows:
            if w.scratch is not None and w.copy_in:
                after = (commands.record_copy(w.buf(), w.scratch, w.size, src_offset=w.lo, after=after),)
        point = commands.record_kernel(prepared.native, action.kernel._all_args(args), action.global_size,
                                       action.local_size, action.offset, after=after)
        for w in windows:
            if w.scratch is not None and w.copy_out:
                point = commands.record_copy(w.scratch, w.buf(), w.size, dst_offset=w.lo, after=(point,))
        return (point,)
    if isinstance(action, DeviceCopy):
        n = action.src.hi - action.src.lo
        src, dst = action.src.memory.allocation(context).buf, action.dst.memory.allocation(context).buf
        if n == 0 or src is None or dst is None:
            return after
        return (commands.record_copy(src, dst, n, action.src.lo, action.dst.lo, after=after),)
    if isinstance(action, DeviceFill):
        lo, hi = action.dst.lo, action.dst.hi
        buf = action.dst.memory.allocation(context).buf
        if hi == lo or buf is None:
            return after
        return (commands.record_fill(buf, action.pattern, hi - lo, lo, after=after),)
    return after  # an empty node: its successors wait for what it waits for


def union(steps: Sequence[Step]) -> tuple[Requirement, ...]:
    """What a replay requires: one requirement per memory object, the window from the first
    byte any node accesses to the last (rule S18), so that the replay's plans are cached as a
    kernel's are (rule S17: one window per memory object). A window needs its old contents if
    any node's access does, or if the nodes leave bytes of it unaccessed (those keep theirs)."""
    groups: dict[MemoryObject, list[Requirement]] = {}
    for step in steps:
        for req in step.requirements:
            groups.setdefault(req.memory, []).append(req)
    return tuple(_covering(merge(group)) for group in groups.values())


def _covering(windows: list[Requirement]) -> Requirement:
    """One requirement over ``windows`` (merged: disjoint, in order) and the bytes between them."""
    first, last = windows[0], windows[-1]
    if len(windows) == 1:
        return first
    return first._replace(
        hi=last.hi, writes=any(w.writes for w in windows), needs_old=True,
        view_lo=min(w.view_lo for w in windows), view_hi=max(w.view_hi for w in windows))
