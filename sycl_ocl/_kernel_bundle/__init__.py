"""Kernel bundles (SYCL 2020 §4.11) on OpenCL programs, and the kernels they hold (§4.11.13).

Modules:
    ``kernel_id``, ``state``, ``kernel``, ``device_image``, ``bundle``: the spec's classes.
    ``registry``: registered units (the application's kernels and library units).
    ``query``: ids, compatibility, getting bundles; ``operations``: join, compile, link, build.
    ``compat``: kernel/device compatibility; ``device_lists``: device list checks.
    ``builtin``: device built-in kernels; ``spec_constants``;
    ``pyopencl_programs``: bundles and kernels of PyOpenCL programs (interop).
    ``resolve``: the kernel of a launch (the submit path).
    ``cache``: the build caches (in memory and on disk) and their statistics.
    The build machinery: ``_preprocess`` / ``_signature`` (reading sources), ``_program``
    (OpenCL program operations), ``_images`` (images in each state).
"""

from ._device_image import device_image
from ._kernel import kernel
from ._kernel_id import kernel_id
from .bundle import kernel_bundle
from .cache import build_cache_stats
from .operations import build, compile, join, link
from .pyopencl_programs import make_kernel, make_kernel_bundle
from .query import get_kernel_bundle, get_kernel_id, get_kernel_ids, has_kernel_bundle, is_compatible
from .registry import register_kernel_file, register_kernel_il, register_kernel_source
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
    "kernel",
    "kernel_bundle",
    "kernel_id",
    "link",
    "make_kernel",
    "make_kernel_bundle",
    "register_kernel_file",
    "register_kernel_il",
    "register_kernel_source",
    "resolve_kernel",
    "specialization_id",
]
