"""Interoperability with PyOpenCL (SYCL 2020 §4.5.1, OpenCL backend).

``get_native`` returns the PyOpenCL object a SYCL object wraps; ``make_*`` wraps a PyOpenCL
object. Wrapping is one to one: ``get_native(make_device(d)) is d``.
"""

from __future__ import annotations

from typing import Any

import pyopencl as cl

from ._accessor import accessor
from ._backend import backend
from ._buffer import buffer
from ._context import AsyncHandler, _wrap_device, context
from ._device import device
from ._event import event, event_of
from ._exception import errc, exception
from ._image import _image
from ._image_accessor import join_whole
from ._interop_handle import require_opencl
from ._platform import platform
from ._queue import queue
from .property import buffer as buffer_props
from .property import image as image_props
from .scheduler import RUNTIME


def get_native(obj: Any, backend: backend = backend.opencl) -> Any:
    """The PyOpenCL object behind a SYCL object (§4.5.1.2).

    ``errc.backend_mismatch`` when ``backend`` is not ``sycl.backend.opencl``, the only
    backend of sycl_ocl, or when the object has no OpenCL object.
    """
    require_opencl(backend)
    if isinstance(obj, buffer):
        return _buffer_memory(obj)
    if isinstance(obj, _image):
        return _image_memory(obj)
    native = getattr(obj, "_get_native", None)
    if native is not None:
        return native()
    if isinstance(obj, event):
        return obj._cmd.cl_event()
    if hasattr(obj, "_native"):
        return obj._native
    raise exception(errc.backend_mismatch, f"{obj!r} has no OpenCL object to return")


def _buffer_memory(buf: buffer) -> list[cl.Buffer]:
    """The ``pyopencl.Buffer`` of every context the buffer lives in.

    A buffer not used yet lives nowhere: it is first made current, read-write, in its
    ``context_bound`` context or else the default context (the one ``sycl.queue()`` uses), so
    the memory holds the buffer's data and what native code writes there is seen afterwards.
    """
    if not buf._get_native() and buf.byte_size():
        bound = buffer_props.context_bound
        ctx = (buf.get_property(bound).get_context() if buf.has_property(bound)
               else context._default_for(device().get_platform()))
        queue(ctx, ctx.get_devices()[0]).submit(lambda h: h.require(accessor(buf, h))).wait()
    return buf._get_native()


def _image_memory(img: _image) -> cl.Image:
    """The ``pyopencl.Image`` of an image (one ``cl_mem``, as SYCL 2020's OpenCL backend gives):
    the last context's it was made in. An image not used yet is first made current, as a buffer
    is (``_buffer_memory``)."""
    if not img._get_native():
        bound = image_props.context_bound
        ctx = (img.get_property(bound).get_context() if img.has_property(bound)
               else context._default_for(device().get_platform()))
        queue(ctx, ctx.get_devices()[0]).submit(lambda h: join_whole(img, h)).wait()
    return img._get_native()[-1]


def _expect(native: Any, cls: type, what: str) -> None:
    if not isinstance(native, cls):
        raise exception(errc.invalid, f"{what} takes a {cls.__module__}.{cls.__name__}, got {native!r}")


def make_platform(native: cl.Platform) -> platform:
    """Wrap a ``pyopencl.Platform`` (§4.5.1.3)."""
    _expect(native, cl.Platform, "make_platform")
    return platform._from_native(native)


def make_device(native: cl.Device) -> device:
    """Wrap a ``pyopencl.Device`` (§4.5.1.3)."""
    _expect(native, cl.Device, "make_device")
    dev = _wrap_device(native)
    return dev if dev._native is native else device._from_native(native)


def make_context(native: cl.Context, async_handler: AsyncHandler | None = None) -> context:
    """Wrap a ``pyopencl.Context``; ``async_handler`` receives its asynchronous errors (§4.5.1.3)."""
    _expect(native, cl.Context, "make_context")
    ctx = context._from_native(native)
    if async_handler is not None:
        ctx._async_errors.handler = async_handler
    return ctx


def make_queue(native: cl.CommandQueue, ctx: context, async_handler: AsyncHandler | None = None) -> queue:
    """Wrap a ``pyopencl.CommandQueue`` of ``ctx`` (§4.5.1.3)."""
    _expect(native, cl.CommandQueue, "make_queue")
    _expect(ctx, context, "make_queue's second argument")
    if native.context != ctx._native:
        raise exception(
            errc.invalid, "make_queue: the queue belongs to another context; pass the queue's own", ctx)
    q = queue._from_native(native, ctx)
    if async_handler is not None:
        q._async_errors.handler = async_handler
    return q


def make_event(native: cl.Event, ctx: context) -> event:
    """Wrap a ``pyopencl.Event`` of ``ctx`` (§4.5.1.3)."""
    _expect(native, cl.Event, "make_event")
    _expect(ctx, context, "make_event's second argument")
    if native.get_info(cl.event_info.CONTEXT) != ctx._native:
        raise exception(errc.invalid, "make_event: the event does not belong to the given context", ctx)
    return event_of(RUNTIME.native_command(native), ctx)
