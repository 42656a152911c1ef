"""The kernel library shipped in ``kernels_cl/`` (registered when sycl_ocl is imported).

Plain ``*.cl`` files are registered as they are; each ``*.cl.mako`` template is rendered
once per element type (``T`` = the OpenCL C type, ``S`` = the numpy name used as the kernel
suffix, e.g. ``axpy_float32``). Files starting with ``_`` are shared pieces, not units.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from mako.lookup import TemplateLookup

from .registry import register_kernel_file, register_kernel_source

KERNELS_DIR = Path(__file__).resolve().parent.parent / "kernels_cl"

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


def render(template: str, dtype: str) -> str:
    """The OpenCL C source of ``template`` for the numpy element type ``dtype``."""
    lookup = TemplateLookup(directories=[str(KERNELS_DIR)], strict_undefined=True)
    name = np.dtype(dtype).name
    return str(lookup.get_template(template).render(T=_C_TYPES[name], S=name))


def register_library() -> None:
    """Register every unit of ``kernels_cl/`` (called once, on import)."""
    lookup = TemplateLookup(directories=[str(KERNELS_DIR)], strict_undefined=True)
    for path in sorted(KERNELS_DIR.glob("*.cl")):
        register_kernel_file(path)
    for template, dtypes in DTYPES.items():
        compiled = lookup.get_template(template)
        for dtype in dtypes:
            source = str(compiled.render(T=_C_TYPES[dtype], S=dtype))
            register_kernel_source(source, origin=f"kernels_cl/{template}[{dtype}]")
