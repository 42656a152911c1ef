"""Device built-in kernels (SYCL 2020 §4.11.4, §4.11.6): ``clCreateProgramWithBuiltInKernels``.

Driver defects handled here: PyOpenCL joins a list of names with ':' (OpenCL wants ';'), so
a ';'-joined string is passed; PoCL needs ``clBuildProgram`` before ``clCreateKernel``.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

import pyopencl as cl

from .._native import translate
from . import _program, cache
from ._device_image import device_image
from ._kernel_id import kernel_id
from .state import bundle_state

if TYPE_CHECKING:
    from .._context import context
    from .._device import device

_lock = threading.Lock()
_ids: dict[tuple[int, str], kernel_id] = {}


def built_in_kernel_ids(dev: device) -> list[kernel_id]:
    """The ids of ``dev``'s built-in kernels (``CL_DEVICE_BUILT_IN_KERNELS``), one object each."""
    names = [n.strip() for n in str(dev._cl_info("BUILT_IN_KERNELS") or "").split(";") if n.strip()]
    with _lock:
        return [
            _ids.setdefault((dev._handle, n), kernel_id._make(n, None, dev)) for n in names
        ]


def builtin_image(ctx: context, dev: device, ids: Sequence[kernel_id]) -> device_image:
    """An executable image of built-in kernels of ``dev`` (one program per name set)."""
    names = tuple(sorted({k.get_name() for k in ids}))
    key = ("builtin", dev._handle, names)

    def make() -> device_image:
        try:
            prg = cl.create_program_with_built_in_kernels(ctx._native, [dev._native], ";".join(names))
        except cl.Error as error:
            raise translate(error, f"creating built-in kernels {list(names)} on {dev!r}", ctx) from error
        _program.build(prg, ctx, (dev,), (), f"built-in kernels {list(names)}")
        ordered = tuple(k for k in built_in_kernel_ids(dev) if k.get_name() in names)
        return device_image._make(bundle_state.executable, (dev,), prg, (), ordered, {}, key)

    return cache.cached(ctx, key, make)
