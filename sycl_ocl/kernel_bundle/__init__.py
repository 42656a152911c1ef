"""Kernel bundles (SYCL 2020 §4.11) on OpenCL programs.

Modules: ``registry`` (application kernels), ``kernel_id``, ``state``, ``compat``,
``device_image``, ``bundle``, ``api`` (the free functions), ``builtin`` (device built-in
kernels), ``spec_constants``, ``resolve`` (the submit path), ``interop``, and the build
machinery ``_program`` / ``_images`` / ``_memo`` (in memory) / ``_disk`` (on disk).
"""

from .api import (
    build,
    compile,
    get_kernel_bundle,
    get_kernel_id,
    get_kernel_ids,
    has_kernel_bundle,
    is_compatible,
    join,
    link,
)
from .bundle import kernel_bundle
from .cache import build_cache_stats
from .device_image import device_image
from .interop import make_kernel, make_kernel_bundle
from .kernel_id import kernel_id
from .library import register_library
from .registry import register_kernel_file, register_kernel_source
from .resolve import resolve_kernel
from .spec_constants import specialization_id
from .state import bundle_state

__all__ = [
    "build",
    "build_cache_stats",
    "bundle_state",
    "compile",
    "device_image",
    "get_kernel_bundle",
    "get_kernel_id",
    "get_kernel_ids",
    "has_kernel_bundle",
    "is_compatible",
    "join",
    "kernel_bundle",
    "kernel_id",
    "link",
    "make_kernel",
    "make_kernel_bundle",
    "register_kernel_file",
    "register_kernel_source",
    "resolve_kernel",
    "specialization_id",
]

register_library()
