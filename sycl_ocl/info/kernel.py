"""``sycl::info::kernel`` descriptors (SYCL 2020 §4.11.13.2), from ``clGetKernelInfo``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pyopencl as cl

from .._native import cl_call
from ._descriptor import descriptor

if TYPE_CHECKING:
    from .._kernel_bundle._kernel import kernel as _kernel


def _info(k: _kernel, param: Any) -> Any:
    return cl_call("querying kernel information", k._native.get_info, param)


num_args = descriptor("kernel", "num_args", int, lambda k: int(_info(k, cl.kernel_info.NUM_ARGS)))
def _attributes(k: _kernel) -> str:
    try:
        return str(_info(k, cl.kernel_info.ATTRIBUTES)).strip()
    except UnicodeDecodeError:  # Oclgrind 21.10 answers with uninitialised bytes
        return ""


attributes = descriptor("kernel", "attributes", str, _attributes)
