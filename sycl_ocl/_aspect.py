"""``sycl::aspect`` (SYCL 2020 §4.6.4.3), computed truthfully from the OpenCL device."""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import TYPE_CHECKING

import pyopencl as cl

from .info.enums import device_type, primary_device_type

if TYPE_CHECKING:
    from ._device import device


class aspect(enum.Enum):
    """Optional device features (§4.6.4.3)."""

    cpu = "cpu"
    gpu = "gpu"
    accelerator = "accelerator"
    custom = "custom"
    emulated = "emulated"
    host_debuggable = "host_debuggable"
    fp16 = "fp16"
    fp64 = "fp64"
    atomic64 = "atomic64"
    image = "image"
    online_compiler = "online_compiler"
    online_linker = "online_linker"
    queue_profiling = "queue_profiling"
    usm_device_allocations = "usm_device_allocations"
    usm_host_allocations = "usm_host_allocations"
    usm_atomic_host_allocations = "usm_atomic_host_allocations"
    usm_shared_allocations = "usm_shared_allocations"
    usm_atomic_shared_allocations = "usm_atomic_shared_allocations"
    usm_system_allocations = "usm_system_allocations"


def _type_is(kind: device_type) -> Callable[[device], bool]:
    # From the one SYCL device type, so a device has exactly one of cpu/gpu/accelerator/custom.
    return lambda d: primary_device_type(d._native.type) is kind


def _has_extension(*names: str) -> Callable[[device], bool]:
    return lambda d: all(n in d._extensions() for n in names)


def _svm(bit: int) -> Callable[[device], bool]:
    return lambda d: d._svm_capabilities() & bit == bit


_SVM = cl.device_svm_capabilities
_EMULATORS = ("Oclgrind",)

# How each aspect is read from the OpenCL device. USM maps to OpenCL 2.0 SVM: coarse-grain
# buffers give device allocations, fine-grain buffers give host and shared allocations,
# fine-grain system SVM gives system allocations and SVM atomics give the atomic forms.
_QUERIES: dict[aspect, Callable[[device], bool]] = {
    aspect.cpu: _type_is(device_type.cpu),
    aspect.gpu: _type_is(device_type.gpu),
    aspect.accelerator: _type_is(device_type.accelerator),
    aspect.custom: _type_is(device_type.custom),
    aspect.emulated: lambda d: d._native.platform.name.strip() in _EMULATORS,
    # No OpenCL driver lets a host debugger step through kernels.
    aspect.host_debuggable: lambda d: False,
    aspect.fp16: lambda d: "cl_khr_fp16" in d._extensions()
    or "__opencl_c_fp16" in d._c_features(),
    aspect.fp64: lambda d: d._int_info("DOUBLE_FP_CONFIG") != 0,
    aspect.atomic64: _has_extension("cl_khr_int64_base_atomics", "cl_khr_int64_extended_atomics"),
    aspect.image: lambda d: bool(d._int_info("IMAGE_SUPPORT")),
    aspect.online_compiler: lambda d: bool(d._int_info("COMPILER_AVAILABLE")),
    aspect.online_linker: lambda d: bool(
        d._int_info("COMPILER_AVAILABLE") and d._int_info("LINKER_AVAILABLE")
    ),
    aspect.queue_profiling: lambda d: bool(
        d._int_info("QUEUE_PROPERTIES") & cl.command_queue_properties.PROFILING_ENABLE
    ),
    aspect.usm_device_allocations: _svm(_SVM.COARSE_GRAIN_BUFFER),
    aspect.usm_host_allocations: _svm(_SVM.FINE_GRAIN_BUFFER),
    aspect.usm_atomic_host_allocations: _svm(_SVM.FINE_GRAIN_BUFFER | _SVM.ATOMICS),
    aspect.usm_shared_allocations: _svm(_SVM.FINE_GRAIN_BUFFER),
    aspect.usm_atomic_shared_allocations: _svm(_SVM.FINE_GRAIN_BUFFER | _SVM.ATOMICS),
    aspect.usm_system_allocations: _svm(_SVM.FINE_GRAIN_SYSTEM),
}


def device_aspects(dev: device) -> list[aspect]:
    """The aspects the device has, in declaration order."""
    return [a for a, query in _QUERIES.items() if query(dev)]
