"""The kernel library shipped with sycl_ocl (``kernels_cl/``): a sycl_ocl extension.

Its kernels are not application kernels: they take no names from the application, are not in
``sycl.get_kernel_ids()`` and are not built by ``sycl.get_kernel_bundle(state, ctx)``. Each is
one call away, by its id::

    from sycl_ocl import library

    q.parallel_for(n, library.get_kernel_id("axpy_float32"), 2.0, x_acc, y_acc)
    kb = sycl.get_kernel_bundle(sycl.bundle_state.executable, ctx,
                                kernel_ids=[library.get_kernel_id("matmul_float32")])

Plain ``*.cl`` files are units as they are; each ``*.cl.mako`` template is rendered once per
element type (``T`` = the OpenCL C type, ``S`` = the numpy name used as the kernel suffix, e.g.
``axpy_float32``). Files starting with ``_`` are shared pieces, not units. The units are read
on the first call (a few milliseconds) and each is built only when used.
"""

from __future__ import annotations

import functools
import threading
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ._kernel_bundle._kernel_id import kernel_id
from ._kernel_bundle.registry import Registry

if TYPE_CHECKING:
    from mako.lookup import TemplateLookup

KERNELS_DIR = Path(__file__).resolve().parent / "kernels_cl"

_C_TYPES = {"int32": "int", "uint32": "uint", "int64": "long", "float32": "float", "float64": "double"}
_ARITHMETIC = ("int32", "uint32", "int64", "float32", "float64")
_FLOATS = ("float32", "float64")
# Element types each template is instantiated for.
DTYPES: dict[str, tuple[str, ...]] = {
    "fill.cl.mako": _ARITHMETIC,
    "copy.cl.mako": _ARITHMETIC,
    "axpy.cl.mako": ("int32", "int64", *_FLOATS),
    "reduce.cl.mako": ("int32", "int64", *_FLOATS),
    "scan.cl.mako": ("int32", "int64", *_FLOATS),
    "transpose.cl.mako": ("int32", *_FLOATS),
    "matmul.cl.mako": _FLOATS,
}

_lock = threading.Lock()
_registry: Registry | None = None


def get_kernel_id(name: str) -> kernel_id:
    """The id of the shipped kernel ``name`` (``axpy_float32``, ``reduce_sum_int64``, ...), a
    sycl_ocl extension; launch it or put it in a bundle like any ``kernel_id`` (§4.11.6).

    Example::

        from sycl_ocl import library
        q.parallel_for(n, library.get_kernel_id("axpy_float32"), 2.0, x_acc, y_acc)

    Raises:
        sycl.exception: ``errc.invalid`` if the library has no kernel of that name.
    """
    return _units().lookup(name)


def get_kernel_ids() -> list[kernel_id]:
    """Every shipped kernel's id, unit by unit (a sycl_ocl extension)."""
    return _units().ids()


def render(template: str, dtype: str) -> str:
    """The OpenCL C source of ``template`` for the numpy element type ``dtype`` (a sycl_ocl
    extension: how the library's ``*.cl.mako`` units are instantiated)."""
    name = np.dtype(dtype).name
    return str(_templates().get_template(template).render(T=_C_TYPES[name], S=name))


@functools.cache
def _templates() -> TemplateLookup:
    # Deferred: mako costs about 40 ms of `import sycl_ocl`, and most programs render nothing.
    from mako.lookup import TemplateLookup

    return TemplateLookup(directories=[str(KERNELS_DIR)], strict_undefined=True)


def _units() -> Registry:
    """The library's registry, filled on first use."""
    global _registry
    with _lock:
        if _registry is None:
            registry = Registry("sycl_ocl kernel library", "sycl_ocl.library.get_kernel_ids() lists them")
            for path in sorted(KERNELS_DIR.glob("*.cl")):
                registry.register(path.read_text(), (), (), f"kernels_cl/{path.name}")
            for template, dtypes in DTYPES.items():
                for dtype in dtypes:
                    registry.register(render(template, dtype), (), (), f"kernels_cl/{template}[{dtype}]")
            _registry = registry
    return _registry
