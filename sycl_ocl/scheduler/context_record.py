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
        # device handle -> the first and the latest (host time, clock offset) measured (device_time)
        self.clock_offsets: dict[int, tuple[tuple[int, int], ...]] = {}

    def user_context(self) -> Any:
        """The user's context, for errors about this one (None once it is gone)."""
        return self.owner() if self.owner is not None else None

    def device_time(self, device: cl.Device, host_ns: int) -> int:
        """``host_ns``, a ``time.monotonic_ns()`` stamp, on ``device``'s profiling clock, so that
        the timestamps of host commands compare with those of its commands (§4.6.6.2).

        The offset between the clocks is measured (``_clock_offset``), and it drifts: an NVIDIA
        H100's clock lost 15.6 us a second against the host's, steadily
        (docs/devices/nvidia-h100.md). So it is measured again when the latest measurement is
        over a second old, and a stamp takes the offset of its own time, on the line through
        the first and the latest measurement (``offset_at``); a profiling queue measures it
        when it opens (``open_lane``), before its first stamp.
        """
        key = device.int_ptr
        measured = self.clock_offsets.get(key)
        if measured is None or monotonic_ns() - measured[-1][0] > CLOCK_REMEASURE_NS:
            with self.serial or nullcontext():
                latest = _clock_offset(self.native, device)
            if latest is not None:  # a failed measurement leaves the line as it was
                measured = self.clock_offsets[key] = (measured[0], latest) if measured else (latest,)
        return host_ns if measured is None else host_ns + offset_at(measured, host_ns)

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


CLOCK_REMEASURE_NS = 1_000_000_000


def offset_at(measured: tuple[tuple[int, int], ...], host_ns: int) -> int:
    """The clock offset at ``host_ns``: on the line through the first and the latest of the
    ``(host time, offset)`` pairs ``measured`` (a drift is steady), or the one measured."""
    (first_at, first), (latest_at, latest) = measured[0], measured[-1]
    if latest_at == first_at:
        return latest
    return latest + (latest - first) * (host_ns - latest_at) // (latest_at - first_at)


def _clock_offset(native: cl.Context, device: cl.Device, tries: int = 5) -> tuple[int, int] | None:
    """(host time, what to add to it to read ``device``'s profiling clock), measured: a
    marker's ``CL_PROFILING_COMMAND_QUEUED``, stamped by the driver during ``clEnqueueMarker``
    or the flush after it, against the host clock around those calls, on the quickest of
    ``tries`` markers after one that warms the queue up (NVIDIA stamps the first marker of a
    queue 0.75 ms late, the next ones within 1 us of each other). ``clGetDeviceAndHostTimer``
    would pair the clocks directly, but neither NVIDIA's driver nor PoCL nor Oclgrind has it
    (``CL_INVALID_OPERATION``). None where a call failed (no profiling queue, a driver short
    of resources): nothing is measured."""
    try:
        queue = cl.CommandQueue(native, device, cl.command_queue_properties.PROFILING_ENABLE)
        cl.enqueue_marker(queue).wait()
        best = (0, 0, 0)
        for _ in range(tries):
            before = monotonic_ns()
            marker = cl.enqueue_marker(queue)
            queue.flush()  # a driver may stamp it when submitting it to the device
            after = monotonic_ns()
            if not best[0] or after - before < best[0]:
                middle = (before + after) // 2
                marker.wait()
                best = (max(after - before, 1), middle, queued_time(marker) - middle)
        return best[1], best[2]
    except cl.Error:
        return None
