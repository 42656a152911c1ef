"""sycl_ocl: the SYCL 2020 runtime in Python, on any OpenCL device, through PyOpenCL.

``import sycl_ocl as sycl``; the names follow the SYCL 2020 specification (the rules:
docs/api-conventions.md). Kernels are
OpenCL C: ``sycl.register_kernel_source(source)`` makes its ``__kernel`` functions launchable
by name, and ``help(sycl.handler.parallel_for)`` says how arguments reach them. The
documentation (``docs/``, built by ``make docs``) starts with docs/getting-started.md.
"""

from typing import TYPE_CHECKING

from . import info, property
from ._aspect import aspect
from ._backend import backend
from ._context import context
from ._device import device
from ._exception import async_handler, errc, exception, exception_list
from ._platform import platform
from ._range import id, nd_range, range
from .access import access_mode, read_only, read_write, target, write_only
from .memory_model import (
    memory_order,
    memory_order_acq_rel,
    memory_order_acquire,
    memory_order_relaxed,
    memory_order_release,
    memory_order_seq_cst,
    memory_scope,
    memory_scope_device,
    memory_scope_sub_group,
    memory_scope_system,
    memory_scope_work_group,
    memory_scope_work_item,
)
from .property import is_property, is_property_of, property_list
from .property.accessor import NO_INIT as no_init
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

if TYPE_CHECKING:
    from . import ext, library, tools, usm
    from ._accessor import accessor, host_accessor, local_accessor
    from ._buffer import buffer, make_buffer
    from ._event import event
    from ._handler import handler
    from ._interop_handle import interop_handle
    from ._kernel_bundle import (
        build,
        bundle_state,
        compile,
        get_kernel_bundle,
        get_kernel_id,
        get_kernel_ids,
        has_kernel_bundle,
        is_compatible,
        join,
        kernel_bundle,
        link,
        make_kernel,
        make_kernel_bundle,
        register_kernel_file,
        register_kernel_il,
        register_kernel_source,
        specialization_id,
    )
    from ._kernel_bundle._device_image import device_image
    from ._kernel_bundle._kernel import kernel
    from ._kernel_bundle._kernel_id import kernel_id
    from ._queue import queue
    from ._reduction import reduction, span
    from .functional import (
        bit_and,
        bit_or,
        bit_xor,
        has_known_identity,
        known_identity,
        logical_and,
        logical_or,
        maximum,
        minimum,
        multiplies,
        plus,
    )
    from .interop import get_native, make_context, make_device, make_event, make_platform, make_queue
    from .usm.allocate import (
        aligned_alloc,
        aligned_alloc_device,
        aligned_alloc_host,
        aligned_alloc_shared,
        free,
        get_pointer_device,
        get_pointer_type,
        malloc,
        malloc_device,
        malloc_host,
        malloc_shared,
    )
    from .usm.pointer import usm_ptr

__all__ = [
    "accelerator_selector",
    "accelerator_selector_v",
    "access_mode",
    "accessor",
    "aligned_alloc",
    "aligned_alloc_device",
    "aligned_alloc_host",
    "aligned_alloc_shared",
    "aspect",
    "aspect_selector",
    "async_handler",
    "backend",
    "bit_and",
    "bit_or",
    "bit_xor",
    "buffer",
    "build",
    "bundle_state",
    "compile",
    "context",
    "cpu_selector",
    "cpu_selector_v",
    "default_selector",
    "default_selector_v",
    "device",
    "device_image",
    "errc",
    "event",
    "exception",
    "exception_list",
    "ext",
    "free",
    "get_kernel_bundle",
    "get_kernel_id",
    "get_kernel_ids",
    "get_native",
    "get_pointer_device",
    "get_pointer_type",
    "gpu_selector",
    "gpu_selector_v",
    "handler",
    "has_kernel_bundle",
    "has_known_identity",
    "host_accessor",
    "id",
    "info",
    "interop_handle",
    "is_compatible",
    "is_property",
    "is_property_of",
    "join",
    "kernel",
    "kernel_bundle",
    "kernel_id",
    "known_identity",
    "library",
    "link",
    "local_accessor",
    "logical_and",
    "logical_or",
    "make_buffer",
    "make_context",
    "make_device",
    "make_event",
    "make_kernel",
    "make_kernel_bundle",
    "make_platform",
    "make_queue",
    "malloc",
    "malloc_device",
    "malloc_host",
    "malloc_shared",
    "maximum",
    "memory_order",
    "memory_order_acq_rel",
    "memory_order_acquire",
    "memory_order_relaxed",
    "memory_order_release",
    "memory_order_seq_cst",
    "memory_scope",
    "memory_scope_device",
    "memory_scope_sub_group",
    "memory_scope_system",
    "memory_scope_work_group",
    "memory_scope_work_item",
    "minimum",
    "multiplies",
    "nd_range",
    "no_init",
    "platform",
    "plus",
    "property",
    "property_list",
    "queue",
    "range",
    "read_only",
    "read_write",
    "reduction",
    "register_kernel_file",
    "register_kernel_il",
    "register_kernel_source",
    "span",
    "specialization_id",
    "target",
    "tools",
    "usm",
    "usm_ptr",
    "write_only",
]

# Loaded on first access (docs/performance.md, "Import time"): public name -> its module.
_LAZY = {
    "accessor": "._accessor",
    "aligned_alloc": ".usm.allocate",
    "aligned_alloc_device": ".usm.allocate",
    "aligned_alloc_host": ".usm.allocate",
    "aligned_alloc_shared": ".usm.allocate",
    "bit_and": ".functional",
    "bit_or": ".functional",
    "bit_xor": ".functional",
    "buffer": "._buffer",
    "build": "._kernel_bundle",
    "bundle_state": "._kernel_bundle",
    "compile": "._kernel_bundle",
    "device_image": "._kernel_bundle._device_image",
    "event": "._event",
    "ext": ".",
    "free": ".usm.allocate",
    "get_kernel_bundle": "._kernel_bundle",
    "get_kernel_id": "._kernel_bundle",
    "get_kernel_ids": "._kernel_bundle",
    "get_native": ".interop",
    "get_pointer_device": ".usm.allocate",
    "get_pointer_type": ".usm.allocate",
    "handler": "._handler",
    "has_kernel_bundle": "._kernel_bundle",
    "has_known_identity": ".functional",
    "host_accessor": "._accessor",
    "interop_handle": "._interop_handle",
    "is_compatible": "._kernel_bundle",
    "join": "._kernel_bundle",
    "kernel": "._kernel_bundle._kernel",
    "kernel_bundle": "._kernel_bundle",
    "kernel_id": "._kernel_bundle._kernel_id",
    "known_identity": ".functional",
    "library": ".",
    "link": "._kernel_bundle",
    "local_accessor": "._accessor",
    "logical_and": ".functional",
    "logical_or": ".functional",
    "make_buffer": "._buffer",
    "make_context": ".interop",
    "make_device": ".interop",
    "make_event": ".interop",
    "make_kernel": "._kernel_bundle",
    "make_kernel_bundle": "._kernel_bundle",
    "make_platform": ".interop",
    "make_queue": ".interop",
    "malloc": ".usm.allocate",
    "malloc_device": ".usm.allocate",
    "malloc_host": ".usm.allocate",
    "malloc_shared": ".usm.allocate",
    "maximum": ".functional",
    "minimum": ".functional",
    "multiplies": ".functional",
    "plus": ".functional",
    "queue": "._queue",
    "reduction": "._reduction",
    "register_kernel_file": "._kernel_bundle",
    "register_kernel_il": "._kernel_bundle",
    "register_kernel_source": "._kernel_bundle",
    "span": "._reduction",
    "specialization_id": "._kernel_bundle",
    "tools": ".",
    "usm": ".",
    "usm_ptr": ".usm.pointer",
}

if not TYPE_CHECKING:
    from ._lazy import load_on_first_access

    __getattr__, __dir__ = load_on_first_access(__name__, _LAZY, __all__)
