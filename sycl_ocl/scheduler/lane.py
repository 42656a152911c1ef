"""A lane: the in-order OpenCL command queue behind one SYCL queue."""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING, Any

from .op import DONE
from .state import LOCK

if TYPE_CHECKING:
    import pyopencl as cl

    from .._async_errors import AsyncErrors
    from ..device import device
    from .op import Op


class Lane:
    """The commands of one SYCL queue that may still be running.

    ``ops`` holds every op not yet known complete, in submission order; it is trimmed from
    the front at each submit (a couple of status queries), so its length follows the
    device's backlog, never the number of commands ever submitted.
    """

    __slots__ = ("__weakref__", "cl_queue", "ctx", "device", "errors", "in_order", "last",
                 "ops", "profiling", "serial", "unflushed")

    def __init__(
        self, cl_queue: cl.CommandQueue, ctx: int, device: device, errors: AsyncErrors,
        in_order: bool, profiling: bool,
    ) -> None:
        self.cl_queue = cl_queue
        self.ctx = ctx
        self.device = device
        self.errors = errors
        self.in_order = in_order
        self.profiling = profiling
        self.last: Op | None = None
        self.ops: deque[Op] = deque()
        self.unflushed = False
        self.serial: Any = None  # see ContextFacts.serial

    def add(self, op: Op) -> None:
        """Record a newly submitted op (under the scheduler lock)."""
        ops = self.ops
        for _ in range(2):
            if ops and ops[0].poll():
                ops.popleft()
            else:
                break
        ops.append(op)
        self.last = op

    def flush(self) -> None:
        """Flush the OpenCL queue so commands of other queues may wait on its events."""
        if self.unflushed:
            self.unflushed = False
            self.cl_queue.flush()

    def wait_all(self) -> None:
        """Block until every op submitted so far completed."""
        with LOCK:
            ops = list(self.ops)
        for op in reversed(ops):
            if op.state != DONE:
                op.wait()
        for op in ops:
            op.poll()
        with LOCK:
            while self.ops and self.ops[0].state == DONE:
                self.ops.popleft()
