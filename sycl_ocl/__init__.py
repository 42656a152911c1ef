"""sycl_ocl: the SYCL 2020 runtime in Python, on any OpenCL device, through PyOpenCL.

``import sycl_ocl as sycl``; the names follow the SYCL 2020 specification (see API.md).
"""

from . import info, property
from .aspect import aspect
from .backend import backend
from .context import context
from .device import device
from .event import event
from .exception import async_handler, errc, exception, exception_list
from .handler import handler
from .interop import get_native, make_context, make_device, make_event, make_platform, make_queue
from .platform import platform
from .property import property_list
from .queue import queue
from .range import id, nd_range, range
from .selector import (
    accelerator_selector,
    accelerator_selector_v,
    aspect_selector,
    cpu_selector,
    cpu_selector_v,
    default_selector,
    default_selector_v,
    gpu_selector,
    gpu_selector_v,
)

__all__ = [
    "accelerator_selector",
    "accelerator_selector_v",
    "aspect",
    "aspect_selector",
    "async_handler",
    "backend",
    "context",
    "cpu_selector",
    "cpu_selector_v",
    "default_selector",
    "default_selector_v",
    "device",
    "errc",
    "event",
    "exception",
    "exception_list",
    "get_native",
    "gpu_selector",
    "gpu_selector_v",
    "handler",
    "id",
    "info",
    "make_context",
    "make_device",
    "make_event",
    "make_platform",
    "make_queue",
    "nd_range",
    "platform",
    "property",
    "property_list",
    "queue",
    "range",
]
