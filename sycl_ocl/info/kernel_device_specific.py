"""``sycl::info::kernel_device_specific`` descriptors (SYCL 2020 §4.11.13.2).

Read with ``clGetKernelWorkGroupInfo`` and, where the driver has sub-groups,
``clGetKernelSubGroupInfo``. Ranges are in SYCL dimension order (OpenCL order reversed).
On a device without sub-groups each work-item is a sub-group of size 1, matching
``info.device.sub_group_sizes == [1]``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pyopencl as cl

from .._exception import errc, exception
from .._native import translate
from .._range import range as _range
from ._descriptor import descriptor

if TYPE_CHECKING:
    from .._device import device as _device
    from .._kernel_bundle._kernel import kernel as _kernel

_WG = cl.kernel_work_group_info
_SG = cl.kernel_sub_group_info


def _work_group_info(k: _kernel, d: _device, param: Any) -> Any:
    try:
        return k._native.get_work_group_info(param, d._native)
    except cl.Error as error:
        raise translate(error, f"querying {param} of kernel {k._name!r}") from error


def _desc(name: str, return_type: Any, query: Callable[[_kernel, _device], Any]) -> descriptor:
    return descriptor("kernel_device_specific", name, return_type, query)


def _global_work_size(k: _kernel, d: _device) -> _range:
    """Defined for built-in kernels and custom devices only (§4.11.13.2: errc.invalid otherwise).

    A driver that refuses the query (PoCL 3.1 answers CL_INVALID_VALUE for its built-in
    kernels) gets the bound every enqueue has: size_t's largest value in each dimension.
    """
    if not (k._is_builtin() or d._cl_info("TYPE") & cl.device_type.CUSTOM):
        raise exception(
            errc.invalid,
            f"global_work_size is defined only for built-in kernels and custom devices; "
            f"{k!r} on {d!r} has none",
        )
    try:
        sizes = k._native.get_work_group_info(_WG.GLOBAL_WORK_SIZE, d._native)
    except cl.Error:
        largest = 2 ** int(d._cl_info("ADDRESS_BITS")) - 1
        return _range(largest, largest, largest)
    return _range(*reversed([int(s) for s in sizes]))


def _sub_group_info(k: _kernel, d: _device, param: Any, fallback: int) -> int:
    """A sub-group query at the kernel's maximum work-group size, or ``fallback`` without sub-groups."""
    if d._int_info("MAX_NUM_SUB_GROUPS", 0) <= 1:
        return fallback
    size = int(_work_group_info(k, d, _WG.WORK_GROUP_SIZE))
    try:
        return int(k._native.get_sub_group_info(d._native, param, (size,)))
    except cl.Error:
        return fallback


global_work_size = _desc("global_work_size", _range, _global_work_size)
work_group_size = _desc(
    "work_group_size", int, lambda k, d: int(_work_group_info(k, d, _WG.WORK_GROUP_SIZE))
)
compile_work_group_size = _desc(
    "compile_work_group_size",
    _range,
    lambda k, d: _range(
        *reversed([int(s) for s in _work_group_info(k, d, _WG.COMPILE_WORK_GROUP_SIZE)])
    ),
)
preferred_work_group_size_multiple = _desc(
    "preferred_work_group_size_multiple",
    int,
    lambda k, d: int(_work_group_info(k, d, _WG.PREFERRED_WORK_GROUP_SIZE_MULTIPLE)),
)
private_mem_size = _desc(
    "private_mem_size", int, lambda k, d: int(_work_group_info(k, d, _WG.PRIVATE_MEM_SIZE))
)
def sub_group_count(driver_answer: int, device_max: int) -> int:
    """The driver's maximum number of sub-groups of a kernel, between 1 and ``device_max``.

    A work-group always holds at least one sub-group (§4.11.13.2), but a driver may answer 0
    (PoCL 5.0 does for a kernel that uses no sub-group function).
    """
    return min(max(1, driver_answer), max(1, device_max))


max_num_sub_groups = _desc(
    "max_num_sub_groups",
    int,
    lambda k, d: sub_group_count(
        _sub_group_info(k, d, _SG.MAX_NUM_SUB_GROUPS, 1), d._int_info("MAX_NUM_SUB_GROUPS", 1)
    ),
)
compile_num_sub_groups = _desc(
    "compile_num_sub_groups", int, lambda k, d: _sub_group_info(k, d, _SG.COMPILE_NUM_SUB_GROUPS, 0)
)
max_sub_group_size = _desc(
    "max_sub_group_size",
    int,
    lambda k, d: _sub_group_info(k, d, _SG.MAX_SUB_GROUP_SIZE_FOR_NDRANGE, 1),
)


def _compile_sub_group_size(k: _kernel, d: _device) -> int:
    """The kernel's ``intel_reqd_sub_group_size(N)`` (cl_intel_required_subgroup_size, the only
    OpenCL C attribute fixing a sub-group size), read from its registered source; else 0."""
    decl = k._image._declaration(k._name) if k._image is not None else None
    return (decl.reqd_sub_group_size or 0) if decl is not None else 0


compile_sub_group_size = _desc("compile_sub_group_size", int, _compile_sub_group_size)
