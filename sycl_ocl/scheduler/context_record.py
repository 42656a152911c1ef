"""What the scheduler knows about one OpenCL context, found out once (``Runtime.context``)."""

from __future__ import annotations

import weakref
from contextlib import AbstractContextManager
from typing import Any

import pyopencl as cl


class ContextRecord:
    """One OpenCL context as the scheduler sees it: where copies of memory objects live.

    It holds the ``cl_context`` and, weakly, the user's context (only to name it in errors),
    so the context and its device memory go when the last queue and allocation using it do.
    """

    __slots__ = (
        "__weakref__", "align", "device", "handle", "host_unified", "native", "owner", "queue", "serial",
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

    def user_context(self) -> Any:
        """The user's context, for errors about this one (None once it is gone)."""
        return self.owner() if self.owner is not None else None

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
