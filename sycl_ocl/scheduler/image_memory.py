"""Images as memory objects (SYCL 2020 §4.7.3): the coherence record of a buffer, over ``cl_mem``
images.

An image's memory object is a buffer's (``MemoryObject``): its host copy holds the pixels packed,
row after row with no pitch, and its bytes are planned, ordered and moved as a buffer's are
(docs/scheduler.md rules S1-S26). What differs is the allocation: an OpenCL image, which a
transfer reaches by pixel boxes (``clEnqueueWriteImage``/``clEnqueueReadImage``), not by
byte offsets, and which has no sub-buffers. Every image access covers the whole image.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._native import cl
from .context_record import ContextRecord
from .memory_object import Allocation, MemoryObject

# A pixel box of a transfer: (origin, region) in pixels, OpenCL order (x first), and the byte
# span it fills in the packed host copy.
Box = tuple[tuple[int, ...], tuple[int, ...], int, int]


class ImageAllocation(Allocation):
    """An image's ``cl_mem`` image in one context; transfers go by pixel boxes."""

    __slots__ = ("extent", "image", "pixel")

    def __init__(self, image: cl.Image, context: ContextRecord, memory: ImageMemory) -> None:
        self.image = image
        self.buf = image  # type: ignore[assignment]  # what kernels and native access get, as a buffer's
        self.size = memory.size  # the packed bytes, whatever the driver's row pitch
        self.context = context
        self.linked = False
        self.loc = context.handle
        self.subs = {}
        self.extent = memory.extent
        self.pixel = memory.pixel

    def bound(self, lo: int, hi: int) -> Any:
        """The image itself: an image access covers it whole."""
        return self.buf

    def window(self, lo: int, hi: int) -> Any:
        """The image itself (images have no sub-buffers)."""
        return self.buf

    def upload(self, queue: cl.CommandQueue, host: np.ndarray, lo: int, hi: int,
               wait_for: list[cl.Event] | None, blocking: bool = False) -> cl.Event:
        """Enqueue the writes of packed host bytes ``[lo, hi)`` into the image (one per box)."""
        events = [
            # clEnqueueWriteImage (PyOpenCL's enqueue_copy takes no 1-D image)
            cl._enqueue_write_image(queue, self.image, origin, region, host[a:b],
                                    wait_for=wait_for, is_blocking=blocking)
            for origin, region, a, b in boxes(lo, hi, self.extent, self.pixel)
        ]
        if len(events) == 1:
            return events[0]
        return cl.enqueue_marker(queue, wait_for=events)

    def download(self, queue: cl.CommandQueue, host: np.ndarray, lo: int, hi: int) -> None:
        """Blocking reads of the image's pixels of packed bytes ``[lo, hi)`` into ``host``."""
        for origin, region, a, b in boxes(lo, hi, self.extent, self.pixel):
            cl._enqueue_read_image(queue, self.image, origin, region, host[a:b],
                                   is_blocking=True)


class ImageMemory(MemoryObject):
    """The memory object of an image: ``extent`` its size in pixels in OpenCL order (width
    first), ``pixel`` the bytes of one pixel, ``cl_format`` its ``pyopencl.ImageFormat``."""

    __slots__ = ("cl_format", "extent", "pixel")

    def __init__(self, host: np.ndarray | None, user: Any, cl_format: cl.ImageFormat,
                 extent: tuple[int, ...], pixel: int) -> None:
        # Never linked (CL_MEM_USE_HOST_PTR): a driver may keep an image in a layout of its own.
        super().__init__(int(np.prod(extent)) * pixel, host, user, False)
        self.cl_format = cl_format
        self.extent = extent
        self.pixel = pixel

    def create(self, native: cl.Context, linked: bool) -> Any:
        return cl.create_image(native, cl.mem_flags.READ_WRITE, self.cl_format, shape=self.extent)

    def wrap(self, buf: Any, context: ContextRecord, linked: bool) -> Allocation:
        return ImageAllocation(buf, context, self)


def boxes(lo: int, hi: int, extent: tuple[int, ...], pixel: int) -> list[Box]:
    """The pixel boxes of packed bytes ``[lo, hi)`` (whole pixels) of an image of ``extent``:
    a partial row, whole rows, whole slices, whole rows, a partial row (as far as the span
    reaches), each contiguous in the host copy."""
    width = extent[0]
    height = extent[1] if len(extent) > 1 else 1
    plane = width * height
    out: list[Box] = []
    p, end = lo // pixel, hi // pixel
    while p < end:
        x, y, z = p % width, p // width % height, p // plane
        left = end - p
        if x or left < width:
            region = (min(width - x, left), 1, 1)
        elif y or left < plane:
            region = (width, min(height - y, left // width), 1)
        else:
            region = (width, height, left // plane)
        n = region[0] * region[1] * region[2]
        dims = len(extent)
        out.append(((x, y, z)[:dims], region[:dims], p * pixel, (p + n) * pixel))
        p += n
    return out
