"""What the scheduler knows about one OpenCL context, found out once (``Runtime.context``)."""

from __future__ import annotations

import weakref
from contextlib import AbstractContextManager, nullcontext
from time import monotonic_ns
from typing import Any

from .._native import cl, queued_time


class ContextRecord:
    """One OpenCL context as the scheduler sees it: where copies of memory objects live.

    It holds the ``cl_context`` and, weakly, the user's context (only to name it in errors),
    so the context and its device memory go when the last queue and allocation using it do.
    """

    __slots__ = (
        "__weakref__", "align", "clock_offsets", "device", "handle", "host_unified", "native", "owner",
        "queue", "serial",
    )

    def __init__(self, native: cl.Context, owner: Any, serial: AbstractContextManager[Any] | None) -> None:
        devs = list(native.devices)
        self.native = native
        self.handle: int = native.int_ptr
        self.owner = weakref.ref(owner) if owner is not None else None
        self.device = devs[0]
        self.host_unified = all(_host_unified(d) for d in devs)
        self.align = max(d.mem_base_addr_align for d in devs) // 8
        self.queue: cl.CommandQueue | None = None
        # Oclgrind is not thread safe (it runs commands on the thread that waits, and asserts
        # when two threads do): its blocking calls take the scheduler lock, like its enqueues.
        # That cannot deadlock: an enqueued command never waits for Python.
        self.serial = serial if "Oclgrind" in self.device.platform.name else None
        self.clock_offsets: dict[int, int] = {}  # device handle -> clock_offset

    def user_context(self) -> Any:
        """The user's context, for errors about this one (None once it is gone)."""
        return self.owner() if self.owner is not None else None

    def clock_offset(self, device: cl.Device) -> int:
        """What to add to ``time.monotonic_ns()`` to read ``device``'s profiling clock, so that
        the timestamps of host commands compare with those of its commands (§4.6.6.2).

        Measured once per device: a marker's ``CL_PROFILING_COMMAND_QUEUED``, stamped by the
        driver during ``clEnqueueMarker`` (or the flush after it), against the host clock around
        those calls (the quickest of a few tries). 0 when the device has no profiling queue.
        """
        offset = self.clock_offsets.get(device.int_ptr)
        if offset is None:
            with self.serial or nullcontext():
                offset = self.clock_offsets[device.int_ptr] = _clock_offset(self.native, device)
        return offset

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


def _clock_offset(native: cl.Context, device: cl.Device, tries: int = 5) -> int:
    try:
        queue = cl.CommandQueue(native, device, cl.command_queue_properties.PROFILING_ENABLE)
        best = (0, 0)
        for _ in range(tries):
            before = monotonic_ns()
            marker = cl.enqueue_marker(queue)
            queue.flush()  # a driver may stamp it when submitting it to the device
            after = monotonic_ns()
            marker.wait()
            if not best[0] or after - before < best[0]:
                best = (max(after - before, 1), queued_time(marker) - (before + after) // 2)
        return best[1]
    except cl.Error:
        return 0
