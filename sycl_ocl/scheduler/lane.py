"""A lane: the in-order OpenCL command queue behind one SYCL queue."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..queue import queue
    from .op import Op


class Lane:
    """The commands submitted to one SYCL queue that may still be running."""

    __slots__ = ("_lock", "in_flight", "last", "queue")

    def __init__(self, q: queue) -> None:
        self.queue = q
        self.last: Op | None = None
        self.in_flight: list[Op] = []
        self._lock = threading.Lock()

    def add(self, op: Op) -> None:
        """Record a newly submitted op."""
        with self._lock:
            self.last = op
            self.in_flight.append(op)

    def wait_all(self) -> None:
        """Block until every op submitted so far completed."""
        with self._lock:
            ops, self.in_flight = self.in_flight, []
        for op in ops:
            op.wait()
