"""``sycl::usm::alloc`` and how each kind of USM allocation is backed by OpenCL SVM (SYCL 2020 §4.8.2).

- device: a coarse-grain SVM buffer (``CL_MEM_READ_WRITE``); the host reaches it through
  copies only (``clEnqueueSVMMemcpy``).
- host and shared: a fine-grain SVM buffer (``CL_MEM_SVM_FINE_GRAIN_BUFFER``, with
  ``CL_MEM_SVM_ATOMICS`` where the device has the atomic aspect); the host reads and writes
  it directly, coherent with the devices at synchronization points (events).

Coarse-grain memory would need ``clEnqueueSVMMap``/``Unmap`` around every host access; the host
never touches device allocations, so no map is ever needed. The aspects that permit each kind
are read from the same SVM capabilities (``_aspect.py``).
"""

from __future__ import annotations

import enum

import pyopencl as cl

from .._aspect import aspect


class alloc(enum.Enum):
    """The kinds of USM allocation (§4.8.2); ``unknown`` for memory that is none of them."""

    host = "host"
    device = "device"
    shared = "shared"
    unknown = "unknown"


# The aspect a device needs for each kind, and the one that adds SVM atomics.
NEEDS = {
    alloc.device: aspect.usm_device_allocations,
    alloc.host: aspect.usm_host_allocations,
    alloc.shared: aspect.usm_shared_allocations,
}
ATOMICS = {
    alloc.host: aspect.usm_atomic_host_allocations,
    alloc.shared: aspect.usm_atomic_shared_allocations,
}

_SVM = cl.svm_mem_flags


def svm_flags(kind: alloc, atomics: bool) -> int:
    """The ``clSVMAlloc`` flags that back ``kind``."""
    if kind is alloc.device:
        return int(_SVM.READ_WRITE)
    flags = _SVM.READ_WRITE | _SVM.SVM_FINE_GRAIN_BUFFER
    if atomics:
        flags |= _SVM.SVM_ATOMICS
    return int(flags)
