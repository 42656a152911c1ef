"""A lane: the OpenCL command queue behind one SYCL queue (in-order unless made by interop)."""

from __future__ import annotations

import threading
from collections import deque
from itertools import islice
from typing import TYPE_CHECKING, Any

from .._exception import errc, exception
from .._native import cl
from .latch import Latch
from .op import CL_COMPLETE, CL_STATUS, DONE, RUNNING
from .runtime import RUNTIME

if TYPE_CHECKING:
    from collections.abc import Callable

    from .._async_errors import AsyncErrors
    from .context_record import ContextRecord
    from .op import Op

TRIM_EVERY = 8
_ENDING_LOCK = threading.Lock()  # Lane.ending's: taken by any thread, never while calling out
# The lanes with ``deferred`` work, kept until it ran: a queue dropped meanwhile loses none of it
# (the exit's wait runs it).
_DEFERRING: set[Lane] = set()


class Lane:
    """The commands of one SYCL queue that may still be running.

    ``ops`` holds every op not yet known complete, in submission order; ``add`` trims it
    from the front, so its length follows the device's backlog, never the number of
    commands ever submitted (docs/scheduler.md rule S15).
    """

    __slots__ = ("__weakref__", "async_errors", "cl_queue", "context", "ctx", "deferred", "ending",
                 "in_order", "last", "ops", "ordered", "profiling", "serial", "trim_at", "unflushed")

    def __init__(
        self, cl_queue: cl.CommandQueue, context: ContextRecord, async_errors: AsyncErrors,
        in_order: bool, profiling: bool,
    ) -> None:
        self.cl_queue = cl_queue
        self.context = context
        self.ctx = context.handle
        self.async_errors = async_errors
        self.in_order = in_order  # the SYCL property: each command follows the previous one
        # The OpenCL queue runs commands in enqueue order (every queue sycl_ocl creates does).
        self.ordered = not cl_queue.properties & cl.command_queue_properties.OUT_OF_ORDER_EXEC_MODE_ENABLE
        self.profiling = profiling
        self.last: Op | None = None
        self.ops: deque[Op] = deque()
        # Set when each buffer that its commands' completion ended elsewhere is written back
        # (``lifetime.destroy``; docs/scheduler.md rule S29).
        self.ending: list[Latch] = []
        # Those buffers' ends that got no thread of their own: ``wait_ending`` runs them.
        self.deferred: deque[tuple[Callable[[], Any], Latch]] = deque()
        self.unflushed = False
        self.trim_at = TRIM_EVERY
        self.serial: Any = context.serial

    def add(self, op: Op) -> None:
        """Record a newly submitted op (under the scheduler lock); safe to run again, for an
        interrupted submit's handler (rule S26)."""
        ops = self.ops
        if not ops or ops[-1] is not op:  # ``trim`` keeps the last op
            ops.append(op)
        self.last = op
        if len(ops) >= self.trim_at:
            self.trim()

    def trim(self) -> None:
        """Drop the completed ops from the front of ``ops``, every ``TRIM_EVERY`` ops added: a
        status query each, so a busy device costs one query per ``TRIM_EVERY`` submits."""
        ops = self.ops
        last = ops[-1]
        while ops[0] is not last and ops[0].poll():
            ops.popleft()
        self.trim_at = len(ops) + TRIM_EVERY

    def after(self, ev: cl.Event) -> list[cl.Event] | None:
        """The wait list of the next command of one op: none on an in-order queue."""
        return None if self.ordered else [ev]

    def flush(self) -> None:
        """Flush the OpenCL queue so commands of other queues may wait on its events."""
        if self.unflushed:
            self.unflushed = False
            self.cl_queue.flush()

    def unfinished(self) -> list[Op]:
        """The ops not known complete (under the scheduler lock)."""
        return [op for op in self.ops if op.state != DONE]

    def wait_all(self) -> None:
        """Block until every op submitted so far completed; refused in a host task of this
        lane, which would wait for itself (rule S24)."""
        running = getattr(RUNNING, "op", None)
        if running is not None and running.lane is self:
            raise exception(errc.invalid, "q.wait() inside a host task of the same queue waits for the "
                                          "task itself, for good; wait for the events the task needs instead")
        with RUNTIME: ops = list(self.ops)  # noqa: E701  # one line: see holds.acquire
        for op in reversed(ops):  # once the last completed, a poll finds the earlier ones complete
            if op.state == DONE:
                continue
            ev = op.event
            try:  # op.poll(), in place for an op complete on the device: one call less per op
                done = ev is not None and ev.get_info(CL_STATUS) == CL_COMPLETE
            except cl.Error:
                done = False
            if done:
                op.complete()
            elif not op.poll():
                op.wait()
        with RUNTIME: self._drop(ops)  # noqa: E701  # one line: see holds.acquire
        self.wait_ending()

    def wait_ending(self) -> None:
        """Block until the buffers that the completion of this lane's ops ended are written
        back (rule S29); those that got no thread of their own end here (``defer``)."""
        while pending := self.ending_left():
            self.run_deferred()
            for flag in pending:
                flag.wait()

    def defer(self, work: Callable[[], Any]) -> None:
        """Have ``wait_ending`` (``queue.wait()``, the exit's wait) run ``work``, a buffer's end
        that no thread could be started for, on the waiting thread, where it may block; its
        flag is raised before the caller sets the flag of the failed start (rule S29)."""
        flag = self.ending_begins()
        with _ENDING_LOCK: self.deferred.append((work, flag)); _DEFERRING.add(self)  # noqa: E701, E702  # rule S26

    def run_deferred(self) -> None:
        """Run the work of ``defer``, each once, on the calling thread."""
        while True:
            with _ENDING_LOCK: item = self._take()  # noqa: E701  # rule S26
            if item is None:
                return
            work, flag = item
            try:
                work()
            finally:
                flag.set()

    def ending_begins(self) -> Latch:
        """A flag for ``wait_all`` to wait for, to be set once a buffer that an op of this lane
        ended is written back (on a thread of its own) or once an op's owners went (rule S29)."""
        flag = Latch()
        with _ENDING_LOCK: self.ending = [*(f for f in self.ending if not f.is_set()), flag]  # noqa: E701  # rule S26
        return flag

    def _take(self) -> tuple[Callable[[], Any], Latch] | None:
        """The next work of ``defer``, if any (under ``_ENDING_LOCK``)."""
        if self.deferred:
            return self.deferred.popleft()
        _DEFERRING.discard(self)
        return None

    def ending_left(self) -> list[Latch]:
        """The flags of ``ending_begins`` not set yet."""
        with _ENDING_LOCK: return [flag for flag in self.ending if not flag.is_set()]  # noqa: E701  # rule S26

    def _drop(self, ops: list[Op]) -> None:
        """Drop ``ops``, all complete, and the completed ops after them (under the lock)."""
        live = self.ops
        count = len(ops)
        if count and len(live) >= count and live[count - 1] is ops[-1]:
            # Nothing left the front since: the first ``count`` ops are those, all complete.
            self.ops = live = deque(islice(live, count, None))
        while live and live[0].state == DONE:
            live.popleft()
        self.trim_at = len(live) + TRIM_EVERY
