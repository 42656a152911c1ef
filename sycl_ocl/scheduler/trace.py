"""The trace recorder: what the scheduler did, kept for pictures (``sycl_ocl.tools``,
docs/tracing.md).

Off unless started: ``RECORDER`` is None, and each hook of the scheduler is one test of it
(``op.new_op``, ``op.add_edge``, ``Op.issued``, ``Op.finish``, ``hostops.prepare``). A
recorder keeps the records of the most recent ops in a ring, each with a serial number, its
queue, what it does, the bytes it moves, the edges that entered the DAG with their reason
(docs/scheduler.md rule S6), host timestamps (``time.perf_counter_ns``) and the OpenCL events
that carry its device timestamps. Records are plain data: reading them never touches an op.
"""

from __future__ import annotations

import threading
import weakref
from collections import deque
from dataclasses import dataclass, field
from itertools import count
from time import perf_counter_ns
from typing import TYPE_CHECKING, Any

import pyopencl as cl

from .._native import queued_time
from .actions import Barrier, DeviceCopy, DeviceFill, HostCopy, HostTask, KernelLaunch
from .command import NativeCommand
from .usm_actions import SvmCopy, SvmFill, SvmMigrate

if TYPE_CHECKING:
    from .command import Command
    from .lane import Lane
    from .memory_object import MemoryObject
    from .op import Op

# Why an edge entered the DAG.
RAW, WAR, WAW, HOLD, IN_ORDER, DEPENDS_ON, ORDER = range(7)
REASONS = ("RAW", "WAR", "WAW", "host accessor", "in-order queue", "depends_on", "ordered")
# What became of an edge: it entered the DAG, the in-order OpenCL queue implies it, or the
# command waited for had completed already (docs/scheduler.md rule S6).
WAITED, IMPLIED, COMPLETED = range(3)
# The reason of an edge between two accesses of one memory object, by (the new access's kind,
# the earlier one's): requirement.READ, WRITE, HOST_READ. Reads never wait for reads.
HAZARD = ((ORDER, RAW, HOLD), (WAR, WAW, HOLD), (ORDER, RAW, ORDER))

DEFAULT_CAPACITY = 10_000

RECORDER: Recorder | None = None


@dataclass(slots=True, eq=False)
class LaneRecord:
    """A queue as the trace names it: ``queue 2`` on a device."""

    serial: int
    device: str
    in_order: bool
    profiled: bool  # its OpenCL queue records device timestamps


@dataclass(slots=True, eq=False)
class MemoryRecord:
    """A buffer (a memory object) as the trace names it: ``buffer 3``."""

    serial: int
    size: int
    dtype: str


@dataclass(slots=True, eq=False)
class Edge:
    """``op`` comes after ``other`` (serials), for ``reason`` (an index of ``REASONS``), on a
    memory object when the reason is an access; ``state``: ``WAITED``, ``IMPLIED`` or
    ``COMPLETED``."""

    op: int
    other: int
    reason: int
    memory: MemoryRecord | None
    state: int


@dataclass(slots=True, eq=False)
class OpRecord:
    """One op of the DAG: what it does, where, what it moved and when.

    ``what``: ``kernel``, ``copy``, ``fill``, ``barrier``, ``usm copy``, ``usm fill``,
    ``prefetch``, ``host task``, ``update_host``, ``host accessor``, ``write-back``,
    ``staging read-back`` or ``event`` (a command known only by its OpenCL event); empty while
    the op waits in the DAG. Host times are ``perf_counter_ns``; ``started`` is when a device op
    was enqueued or a host op's dependencies were met, ``moved`` when a host op's read-backs
    ended. ``events`` are a device op's OpenCL events: its transfers' (one per entry of
    ``transfers``), then its action's; once it completed, ``times`` holds their profiling
    times instead (``profile``), so that a record keeps no OpenCL object (nor the host memory
    a transfer's event holds) alive.
    """

    serial: int
    lane: LaneRecord | None
    host: bool
    submitted: int
    what: str = ""
    name: str = ""
    nbytes: int = 0  # the bytes its action copies or fills
    transfers: list[tuple[MemoryRecord, int]] = field(default_factory=list)  # (buffer, bytes)
    edges: list[Edge] = field(default_factory=list)
    started: int | None = None
    moved: int | None = None
    finished: int | None = None
    failed: bool = False
    events: tuple[cl.Event, ...] = ()
    times: tuple[tuple[int, int, int] | None, ...] = ()

    def device_times(self) -> tuple[tuple[int, int, int] | None, ...]:
        """``profile`` of each of ``events``: ``(queued, start, end)`` or None."""
        return self.times if not self.events else tuple(profile(ev) for ev in self.events)


@dataclass(slots=True)
class Snapshot:
    """The records of a recorder at one moment, oldest first."""

    ops: list[OpRecord]
    lanes: list[LaneRecord]
    memories: list[MemoryRecord]


class Recorder:
    """Keeps the records of the last ``capacity`` ops; every method runs inside a hook."""

    def __init__(self, capacity: int = DEFAULT_CAPACITY) -> None:
        self.ring: deque[OpRecord] = deque(maxlen=capacity)
        self.lock = threading.Lock()
        self.serials = count(1)
        self.ops: weakref.WeakKeyDictionary[Any, OpRecord] = weakref.WeakKeyDictionary()
        self.lanes: weakref.WeakKeyDictionary[Lane, LaneRecord] = weakref.WeakKeyDictionary()
        self.memories: weakref.WeakKeyDictionary[MemoryObject, MemoryRecord] = weakref.WeakKeyDictionary()
        self.lane_serials = count(1)
        self.memory_serials = count(1)
        self.title = "sycl_ocl trace"  # what the pictures are called

    # --- hooks ----------------------------------------------------------------------------

    def created(self, op: Op) -> None:
        """A new op (``op.new_op``)."""
        lane = self._lane(op.lane) if op.lane is not None else None
        self._add(op, OpRecord(next(self.serials), lane, op.host, perf_counter_ns()))

    def edge(
        self, op: Op, other: Command, reason: int, memory: MemoryObject | None, state: int = WAITED
    ) -> None:
        """``op`` comes after ``other`` (``op.add_edge``; ``op.depend`` for the edges it drops)."""
        record = self.ops.get(op)
        if record is None:
            return  # made before the recording started
        target = self.ops.get(other)
        if target is None:
            if not isinstance(other, NativeCommand):
                return  # an op made before the recording started
            target = OpRecord(next(self.serials), None, False, perf_counter_ns(), what="event")
            self._add(other, target)
        mem = self._memory(memory) if memory is not None else None
        record.edges.append(Edge(record.serial, target.serial, reason, mem, state))

    def issued(self, op: Op, ev: cl.Event | None, keep: list[Any] | None) -> None:
        """A device op was enqueued (``Op.issued``): its transfers' events then its action's."""
        record = self.ops.get(op)
        if record is None:
            return
        record.started = perf_counter_ns()
        self._describe(record, op)
        events = [k for k in keep or () if isinstance(k, cl.Event)][:len(op.moves)]
        record.events = (*events, ev) if ev is not None else tuple(events)

    def started(self, op: Op) -> None:
        """A host op's dependencies completed (``hostops.prepare``)."""
        record = self.ops.get(op)
        if record is not None:
            record.started = perf_counter_ns()
            self._describe(record, op)

    def moved(self, op: Op) -> None:
        """A host op read back what it needed (``hostops.prepare``)."""
        record = self.ops.get(op)
        if record is not None:
            record.moved = perf_counter_ns()

    def finished(self, op: Op) -> None:
        """An op completed, or failed (``Op.finish``)."""
        record = self.ops.get(op)
        if record is not None and record.finished is None:
            record.finished = perf_counter_ns()
            record.failed = op.failed
            if not record.what:
                self._describe(record, op)
            if record.events:
                record.times = record.device_times()
                record.events = ()

    def snapshot(self) -> Snapshot:
        """The records so far, with the queues and buffers they name (the op records are
        shared, not copied)."""
        with self.lock:
            ops = list(self.ring)
        lanes = {op.lane.serial: op.lane for op in ops if op.lane is not None}
        memories = {m.serial: m for op in ops for m, _ in op.transfers}
        memories.update((e.memory.serial, e.memory) for op in ops for e in op.edges if e.memory is not None)
        return Snapshot(ops, [lanes[k] for k in sorted(lanes)], [memories[k] for k in sorted(memories)])

    # --- records ---------------------------------------------------------------------------

    def _add(self, key: Any, record: OpRecord) -> None:
        with self.lock:
            self.ring.append(record)
            self.ops[key] = record

    def _lane(self, lane: Lane) -> LaneRecord:
        found = self.lanes.get(lane)
        if found is None:
            with self.lock:  # two threads may meet a new lane at once: one record
                found = self.lanes.get(lane)
                if found is None:
                    profiled = bool(lane.cl_queue.properties & cl.command_queue_properties.PROFILING_ENABLE)
                    device = str(lane.cl_queue.device.name).strip()
                    serial = next(self.lane_serials)
                    found = self.lanes[lane] = LaneRecord(serial, device, lane.in_order, profiled)
        return found

    def _memory(self, memory: MemoryObject) -> MemoryRecord:
        found = self.memories.get(memory)
        if found is None:
            with self.lock:
                found = self.memories.get(memory)
                if found is None:
                    found = self.memories[memory] = MemoryRecord(
                        next(self.memory_serials), memory.size, str(memory.dtype))
        return found

    def _describe(self, record: OpRecord, op: Op) -> None:
        """What the op does and what it moves, read while its action and moves are there."""
        if record.what:
            return
        record.transfers = [(self._memory(memory), hi - lo) for memory, _, lo, hi, _ in op.moves]
        record.what, record.name, record.nbytes = describe(op.work, op.lane is not None)


def describe(work: Any, on_queue: bool) -> tuple[str, str, int]:
    """``(what, name, bytes)`` of an action (see ``OpRecord``)."""
    kind = type(work)
    if kind is KernelLaunch:
        return "kernel", work.kernel._name, 0
    if kind is DeviceCopy:
        return "copy", "", work.src.hi - work.src.lo
    if kind is DeviceFill:
        return "fill", "", work.dst.hi - work.dst.lo
    if kind is HostCopy:
        return ("copy to host" if work.to_host else "copy from host"), "", work.host.nbytes
    if kind is SvmCopy:
        return "usm copy", "", work.nbytes
    if kind is SvmFill:
        return "usm fill", "", work.nbytes
    if kind is SvmMigrate:
        return "prefetch", "", 0
    if kind is Barrier:
        return "barrier", "", 0
    if kind is HostTask:
        if work.fn is not None:
            return "host task", getattr(work.fn, "__name__", ""), 0
        if work.staging:
            return "staging read-back", "", 0
        return ("update_host" if on_queue else work.what), "", 0
    return kind.__name__, "", 0


def profile(ev: cl.Event) -> tuple[int, int, int] | None:
    """``(queued, start, end)`` device times of a completed, profiled event; None otherwise."""
    try:
        if ev.command_execution_status != cl.command_execution_status.COMPLETE:
            return None
        times = ev.profile
        return queued_time(ev), int(times.start), int(times.end)
    except cl.Error:
        return None


def start(capacity: int = DEFAULT_CAPACITY) -> Recorder:
    """Start recording (replacing a running recorder); queues made from now on profile."""
    global RECORDER
    RECORDER = Recorder(capacity)
    return RECORDER


def stop() -> Recorder | None:
    """Stop recording; returns the recorder that ran (None when none did)."""
    global RECORDER
    recorder, RECORDER = RECORDER, None
    return recorder


def recorder() -> Recorder | None:
    """The recorder that runs (None when none does)."""
    return RECORDER


def recording() -> bool:
    """Whether a recorder runs: a queue made now gets an OpenCL profiling queue."""
    return RECORDER is not None
