"""``sycl::interop_handle`` (SYCL 2020 §4.10.2): native access inside a host task.

``h.host_task(fn)`` passes one to ``fn`` when ``fn`` takes one parameter. The command's
accessors then have their memory current in the queue's context (not on the host), and what
the task enqueues on the native queue is part of the task: later commands see its results
(docs/programming-model.md, "Host tasks with native access").
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pyopencl as cl

from ._accessor import accessor
from ._backend import backend
from ._exception import errc, exception
from ._image_accessor import IMAGE_ACCESSORS
from .scheduler import NativeScope


class interop_handle:
    """The OpenCL objects of a host task's queue, and its accessors' memory (§4.10.2).

    Made by the runtime for a host task that takes one parameter; valid while the task runs.
    Native work enqueued on :meth:`get_native_queue` is part of the host task: commands
    submitted later that depend on it (through accessors, events or an in-order queue) run
    after that work completed, and see what it wrote.

    Example::

        def cgf(h):
            acc = sycl.accessor(buf, h)

            def body(ih):
                (mem,) = ih.get_native_mem(acc)
                cl.enqueue_fill_buffer(ih.get_native_queue(), mem, numpy.float32(1), 0, mem.size)

            h.host_task(body)
    """

    __slots__ = ("_accessors", "_scope")

    _accessors: Sequence[accessor]
    _scope: NativeScope

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError("sycl.interop_handle cannot be constructed: a host task taking one "
                        "parameter receives one (§4.10.2)")

    @classmethod
    def _make(cls, scope: NativeScope, accessors: Sequence[accessor]) -> interop_handle:
        self = object.__new__(cls)
        self._scope = scope
        self._accessors = accessors
        return self

    def get_backend(self) -> backend:
        """Always ``backend.opencl`` (§4.10.2)."""
        return backend.opencl

    def get_native_queue(self, backend: backend = backend.opencl) -> cl.CommandQueue:
        """The ``pyopencl.CommandQueue`` of the host task's queue (§4.10.2).

        Work enqueued on it is part of the host task. It runs in order after the task's
        transfers unless the queue was made from an out-of-order PyOpenCL queue.
        """
        require_opencl(backend)
        return self._scope.lane.cl_queue

    def get_native_device(self, backend: backend = backend.opencl) -> cl.Device:
        """The ``pyopencl.Device`` of the host task's queue (§4.10.2)."""
        require_opencl(backend)
        return self._scope.lane.cl_queue.device

    def get_native_context(self, backend: backend = backend.opencl) -> cl.Context:
        """The ``pyopencl.Context`` of the host task's queue (§4.10.2)."""
        require_opencl(backend)
        return self._scope.lane.context.native

    def get_native_mem(self, acc: Any, backend: backend = backend.opencl) -> Any:
        """The memory of the accessor's buffer in the queue's context, holding its current
        contents (§4.10.2); for an image accessor, the ``pyopencl.Image`` (one ``cl_mem``, as
        SYCL 2020's OpenCL backend gives for images).

        As in SYCL 2020, this is the memory of the accessor's buffer: the whole buffer's
        ``pyopencl.Buffer`` (a ranged accessor's offset is the caller's to apply:
        ``acc.get_offset()``), or the sub-buffer's for an accessor of a sub-buffer. Only the
        accessed range is current and may be written; use it on :meth:`get_native_queue`.
        A zero-byte buffer has no memory: the list is empty.

        Raises:
            sycl.exception: ``errc.invalid`` for anything but a ``sycl.accessor`` of this
                command group; ``errc.backend_mismatch`` for a backend other than OpenCL.
        """
        require_opencl(backend)
        image = isinstance(acc, IMAGE_ACCESSORS)
        if not (image or isinstance(acc, accessor)) or not any(acc is mine for mine in self._accessors):
            raise exception(
                errc.invalid,
                f"get_native_mem takes a sycl.accessor of this host task's command group, got "
                f"{acc!r}; make the accessor with the command group's handler (or require it)",
            )
        memory = self._scope.memory(acc._win.req)
        return memory[0] if image else memory

    def __repr__(self) -> str:
        return f"<sycl.interop_handle of {self._scope.lane.cl_queue!r}>"


def require_opencl(wanted: backend) -> None:
    """``errc.backend_mismatch`` unless ``wanted`` is ``backend.opencl``, sycl_ocl's only one."""
    if wanted is not backend.opencl:
        raise exception(
            errc.backend_mismatch, f"sycl_ocl objects belong to sycl.backend.opencl, not {wanted!r}"
        )
