"""One operation of the DAG: what ``submit`` returns, and what an ``event`` wraps (a
``command.Command``).

A device op becomes an OpenCL event when issued; a host op (host task, host accessor,
host-side copy, staging transfer) completes on a host thread. Ops keep alive what their
commands touch (``keep``: cl buffers, host arrays, NannyEvents) until they are known complete.
"""

from __future__ import annotations

import threading
from time import monotonic_ns
from typing import TYPE_CHECKING, Any

from .._exception import errc, exception
from .._native import cl, events
from .._process import STATE as PROCESS
from .._process import forked_error
from ..info.enums import event_command_status
from . import trace
from .command import cl_status
from .latch import Latch
from .pool import POOL
from .runtime import RUNTIME

if TYPE_CHECKING:
    from .._async_errors import AsyncErrors
    from .command import Command
    from .lane import Lane
    from .memory_object import Allocation, MemoryObject

DEFERRED, ISSUED, DONE = 0, 1, 2
SUBMIT, START, END = 0, 1, 2  # the host times of an op on a profiling queue (``Op.times``)
_TIME_FIELDS = {"queued": SUBMIT, "start": START, "end": END}  # named as in pyopencl's Event.profile
CL_COMPLETE = cl.command_execution_status.COMPLETE
CL_STATUS = cl.event_info.COMMAND_EXECUTION_STATUS

# A transfer: (memory object, allocation, lo, hi, producer); its direction follows from the op
# (device op: host to the allocation; host op: the allocation to the host). A read back names
# the command that produced its bytes (None: no pending one), whose failure cancels it.
Move = tuple["MemoryObject", "Allocation", int, int, "Op | None"]

# The host op the calling thread runs (``.op``; rule S24): it cannot wait for itself.
RUNNING = threading.local()

# .lane: the lane of the op whose completion ends buffers on this thread (``Op._end_owned``).
ENDING = threading.local()

# The deps and moves of an op that has none: one list shared by all such ops, never appended to
# (``add_edge`` and ``add_move`` give an op a list of its own), so that an op that waits for
# nothing and moves nothing keeps no lists alive (most of them, on the submit path).
NONE: list[Any] = []


class Op:
    """An operation: deferred, issued (or running on the host), or done.

    Made by ``new_op`` only.
    """

    __slots__ = (
        "__weakref__", "async_errors", "ctx", "deps", "event", "failed", "flag", "host", "keep", "lane",
        "moves", "owners", "state", "times", "work",
    )

    lane: Lane | None
    ctx: int
    host: bool
    async_errors: AsyncErrors | None
    state: int
    event: cl.Event | None
    deps: list[Command]
    work: Any  # a device action, or a hostops.HostWork
    moves: list[Move]  # the transfers it does before its work
    keep: list[Any] | None
    # What only this command keeps alive until it completes: buffers no one else holds (a
    # temporary buffer, one local to the command-group function), ended once it completed
    # (docs/scheduler.md rule S29).
    owners: Any
    flag: Latch | None
    failed: bool
    times: list[int] | None  # ops on a profiling queue: monotonic_ns() (a device op: its submit only)

    # --- state --------------------------------------------------------------------------

    def poll(self) -> bool:
        """Whether the op is known complete (one status query for an issued device op)."""
        if self.state == DONE:
            return True
        ev = self.event
        if ev is None:
            return False
        status: int
        try:
            status = ev.get_info(CL_STATUS)  # type: ignore[assignment]  # not the property: one call less
        except cl.Error as error:  # NVIDIA after a kernel fault: every event of the context
            self.fail(exception(
                errc.runtime, f"a command failed on the device; its status query failed: {error}"))
            return True
        if status == CL_COMPLETE:
            self.complete()
            return True
        if status < 0:
            self.fail(exception(errc.runtime, f"a command failed on the device (OpenCL status {status})"))
            return True
        return False

    def issued(self, ev: cl.Event | None, keep: list[Any] | None) -> None:
        """Record the OpenCL event of the enqueued command (None: nothing was enqueued)."""
        self.event = ev
        self.keep = keep
        if trace.RECORDER is not None:
            trace.RECORDER.issued(self, ev, keep)
        if ev is None:
            self.finish()
            return
        self.state = ISSUED
        if self.flag is not None:
            self.flag.set()

    def complete(self) -> None:
        """Finish an op whose event completed without error, or fail it where a transfer it
        enqueued before its work failed: some drivers (Oclgrind) run a command after a failed
        one of its in-order queue and report it complete."""
        if self.moves is not NONE:
            for kept in self.keep or ():
                if not isinstance(kept, cl.Event):
                    continue
                try:
                    status: Any = kept.get_info(CL_STATUS)
                except cl.Error as error:  # NVIDIA after a kernel fault: every event of the context
                    status = error
                if not isinstance(status, int) or status < 0:
                    detail = f"OpenCL status {status}" if isinstance(status, int) else str(status)
                    self.fail(exception(errc.runtime, f"a transfer to the device before a command failed "
                                                      f"({detail}); the command ran on what its memory "
                                                      "held before"))
                    return
        self.finish()

    def finish(self) -> None:
        """Mark complete and drop the keep-alive references; the buffers that only it kept
        end before anything waiting for it wakes, and ``queue.wait()`` waits for them
        (rule S29)."""
        if self.owners is None:
            self.state = DONE
            self.work = None
        else:
            self._end_owned()
        self.keep = None
        self.moves = NONE
        if self.flag is not None:
            self.flag.set()
        if trace.RECORDER is not None:
            trace.RECORDER.finished(self)

    def _end_owned(self) -> None:
        """Complete, and drop what only this op kept: its owners and a host task's body (which
        may hold a placeholder, and its buffer). A buffer that ends here and must wait or
        write back elsewhere does so for this op's lane, whose ``wait_all`` waits for it: the
        lane's flag is raised before the op is complete, and set once that is known (rule S29)."""
        lane = self.lane
        ending = None if lane is None else lane.ending_begins()
        self.state = DONE  # first: a buffer's end waits for this op
        owners, work = self.owners, self.work
        self.owners = self.work = None
        outer = getattr(ENDING, "lane", None)  # a buffer's end may finish ops of its own
        ENDING.lane = lane
        try:
            del owners, work
        finally:
            ENDING.lane = outer
            if ending is not None:
                ending.set()

    def fail(self, error: BaseException, after: cl.Event | None = None) -> None:
        """Complete with an error, reported once to the queue's (or context's) handler
        (docs/scheduler.md rule S10); with ``after`` (a marker behind what the op followed on
        its queue), complete once that completes, so that what waits for the op still waits
        for those (rule S25)."""
        if not self.failed and self.async_errors is not None:
            RUNTIME.report(self.async_errors, error)
        self.failed = True
        if after is not None:
            self.issued(after, None)
        else:
            self.finish()

    # --- the Command protocol -----------------------------------------------------------

    def cl_event(self) -> cl.Event | None:
        return self.event

    def wait(self) -> None:
        if self.state == DONE:
            return
        if PROCESS.forked:  # its threads are the parent's: it would never complete here
            raise forked_error("waiting for a command")
        if self.event is None:
            if getattr(RUNNING, "op", None) is self:
                raise exception(errc.invalid, "a host task waits for its own event: it would wait "
                                              "for good; wait for it outside the task")
            RUNTIME.kick()  # a host wait wakes the progress thread (docs/scheduler.md rule S9)
            assert self.flag is not None
            POOL.waiting(True)  # on a host thread, another may start meanwhile (rule S24)
            try:
                self.flag.wait()
            finally:
                POOL.waiting(False)
        ev = self.event
        if ev is not None and self.state != DONE:
            serial = self.lane.serial if self.lane is not None else None
            try:
                _wait_event(ev, serial)
            except cl.Error as error:
                # A failed wait is not a failed command: its status says (poll), else a second
                # wait does; a command that fails both fails.
                try:
                    if not self.poll():
                        _wait_event(ev, serial)
                except cl.Error:
                    self.fail(exception(errc.runtime, f"a command failed on the device: {error}"))
                    return
            # clWaitForEvents succeeds only for a command complete without error (OpenCL 3.0
            # §5.11: a negative status is CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST), so no
            # status query is needed.
            if self.state != DONE:
                self.complete()

    def status(self) -> event_command_status:
        if self.state == DONE:
            return event_command_status.complete
        if self.event is not None:
            return cl_status(self.event)
        return event_command_status.submitted

    def dependencies(self) -> list[Command]:
        return list(dict.fromkeys(self.deps))  # one entry per command, in the order added

    def profiled(self) -> bool:
        return self.lane is not None and self.lane.profiling

    def host_time(self, field: str) -> int | None:
        """``field`` ("queued", "start", "end") of an op on a profiling queue, on the device's
        profiling clock (``ContextRecord.device_time``); None where the OpenCL event has it:
        a device op's start and end, the submit time of one enqueued within its submit.

        "queued" never waits (§4.6.6.2: the submit time is known once ``submit`` returned);
        "start" of a host op waits until the op started, "end" until it completed. A native
        task ends when its native work does: at the later of its body's return and the end of
        its marker.
        """
        times = self.times
        if times is None or (field != "queued" and not self.host):
            return None
        if field == "start":
            self.wait_started()
        elif field == "end":
            self.wait()
        lane: Lane = self.lane  # type: ignore[assignment]  # only a lane's ops note times
        stamp = lane.context.device_time(lane.cl_queue.device, times[_TIME_FIELDS[field]])
        if field == "end" and self.event is not None:
            stamp = max(stamp, int(self.event.profile.end))
        return stamp

    def wait_started(self) -> None:
        """Block until a host op on a profiling queue started (or completed)."""
        times: list[int] = self.times  # type: ignore[assignment]
        flag: Latch = self.flag  # type: ignore[assignment]  # every host op has one
        RUNTIME.kick()  # a host wait wakes the progress thread (docs/scheduler.md rule S9)
        while not times[START] and not flag.wait(0.001):
            pass

    def stamp(self, which: int) -> None:
        """Note the host time of ``START`` or ``END`` (on a profiling queue only)."""
        times = self.times
        if times is not None:
            times[which] = now = monotonic_ns()
            if not times[START]:
                times[START] = now  # it failed before starting: it started as it ended


def _wait_event(ev: cl.Event, serial: Any) -> None:
    """Wait for ``ev`` (under ``serial``, Oclgrind's lock, where there is one)."""
    if serial is not None:
        with serial:
            events.wait(ev)
    else:
        events.wait(ev)


def new_op(lane: Lane | None, ctx: int, host: bool, async_errors: AsyncErrors | None,
           ev: cl.Event | None = None, keep: Any = None, submitted: int = 0) -> Op:
    """A deferred op of ``lane`` (None: of no queue) in context ``ctx`` (``HOST``: on the host);
    the one builder of an op.

    With ``ev``: the op of a device command enqueued on ``lane`` as ``ev`` with no dependency
    and no transfer (the fast paths, ``scheduler.replay``; the scheduler's lock held, no trace
    recording), keeping ``keep`` alive, added to the lane: what ``op.issued(ev, keep)`` and
    ``lane.add(op)`` would leave. ``submitted``: on a profiling lane, ``monotonic_ns()`` just
    before its enqueue (its ``command_submit``), else 0."""
    op = Op()
    op.lane = lane
    op.ctx = ctx
    op.host = host
    op.async_errors = async_errors
    op.deps = NONE
    op.work = None
    op.moves = NONE
    op.failed = False
    op.event = ev
    op.keep = keep
    op.owners = None
    if ev is not None:
        op.state = ISSUED
        op.flag = None
        op.times = [submitted, 0, 0] if submitted else None
        # lane.add(op), in place: the call would cost 1% of a launch on the fast paths
        lane.unflushed = True  # type: ignore[union-attr]  # a device op's
        ops = lane.ops  # type: ignore[union-attr]
        ops.append(op)
        lane.last = op  # type: ignore[union-attr]
        if len(ops) >= lane.trim_at:  # type: ignore[union-attr]
            lane.trim()  # type: ignore[union-attr]
        return op
    op.state = DEFERRED
    op.flag = Latch() if host else None
    # The submit time, taken before the op waits for anything (§4.6.6.2, Table 37)
    op.times = [monotonic_ns(), 0, 0] if lane is not None and lane.profiling else None
    if trace.RECORDER is not None:
        trace.RECORDER.created(op)
    return op


def depend(op: Op, other: Op, reason: int = trace.ORDER, memory: MemoryObject | None = None) -> None:
    """Make ``op`` wait for ``other``, unless that is complete or implied: a command already
    enqueued on ``op``'s own in-order OpenCL queue runs before ``op``'s enqueue does
    (docs/scheduler.md rule S6). ``reason`` (``trace.REASONS``) and ``memory`` say why, for
    traces."""
    if other.state == DONE:
        if trace.RECORDER is not None:
            trace.RECORDER.edge(op, other, reason, memory, trace.COMPLETED)
        return
    lane = op.lane
    if other.lane is lane and other.event is not None and not op.host and lane.ordered:  # type: ignore[union-attr]
        if trace.RECORDER is not None:
            trace.RECORDER.edge(op, other, reason, memory, trace.IMPLIED)
        return
    add_edge(op, other, reason, memory)


def add_edge(op: Op, other: Command, reason: int = trace.ORDER, memory: MemoryObject | None = None) -> None:
    """The one place where an edge enters the DAG: ``op`` runs after ``other`` (rule S6);
    a running trace recorder sees it here."""
    if op.deps is NONE:
        op.deps = [other]
    else:
        op.deps.append(other)
    if trace.RECORDER is not None:
        trace.RECORDER.edge(op, other, reason, memory)


def add_move(op: Op, move: Move) -> None:
    """Add a transfer that ``op`` does before its work."""
    if op.moves is NONE:
        op.moves = [move]
    else:
        op.moves.append(move)
