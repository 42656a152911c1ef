"""The enumerations of the ``sycl::info`` namespace (SYCL 2020 §4.6.4, §4.6.6)."""

from __future__ import annotations

import enum

import pyopencl as cl


class device_type(enum.Enum):
    """``info::device_type`` (§4.6.4.2), valued by the OpenCL ``CL_DEVICE_TYPE_*`` bits."""

    cpu = cl.device_type.CPU
    gpu = cl.device_type.GPU
    accelerator = cl.device_type.ACCELERATOR
    custom = cl.device_type.CUSTOM
    automatic = cl.device_type.DEFAULT
    host = 0
    all = cl.device_type.ALL


class partition_property(enum.Enum):
    """``info::partition_property`` (§4.6.4.2), valued by ``CL_DEVICE_PARTITION_*``."""

    no_partition = 0
    partition_equally = cl.device_partition_property.EQUALLY
    partition_by_counts = cl.device_partition_property.BY_COUNTS
    partition_by_affinity_domain = cl.device_partition_property.BY_AFFINITY_DOMAIN


class partition_affinity_domain(enum.Enum):
    """``info::partition_affinity_domain`` (§4.6.4.2), valued by ``CL_DEVICE_AFFINITY_DOMAIN_*``."""

    not_applicable = 0
    numa = cl.device_affinity_domain.NUMA
    L4_cache = cl.device_affinity_domain.L4_CACHE
    L3_cache = cl.device_affinity_domain.L3_CACHE
    L2_cache = cl.device_affinity_domain.L2_CACHE
    L1_cache = cl.device_affinity_domain.L1_CACHE
    next_partitionable = cl.device_affinity_domain.NEXT_PARTITIONABLE


class local_mem_type(enum.Enum):
    """``info::local_mem_type`` (§4.6.4.2)."""

    none = 0
    local = cl.device_local_mem_type.LOCAL
    global_ = cl.device_local_mem_type.GLOBAL


class fp_config(enum.Enum):
    """``info::fp_config`` (§4.6.4.2), valued by ``CL_FP_*``."""

    denorm = cl.device_fp_config.DENORM
    inf_nan = cl.device_fp_config.INF_NAN
    round_to_nearest = cl.device_fp_config.ROUND_TO_NEAREST
    round_to_zero = cl.device_fp_config.ROUND_TO_ZERO
    round_to_inf = cl.device_fp_config.ROUND_TO_INF
    fma = cl.device_fp_config.FMA
    correctly_rounded_divide_sqrt = cl.device_fp_config.CORRECTLY_ROUNDED_DIVIDE_SQRT
    soft_float = cl.device_fp_config.SOFT_FLOAT


class global_mem_cache_type(enum.Enum):
    """``info::global_mem_cache_type`` (§4.6.4.2)."""

    none = 0
    read_only = cl.device_mem_cache_type.READ_ONLY_CACHE
    read_write = cl.device_mem_cache_type.READ_WRITE_CACHE


class execution_capability(enum.Enum):
    """``info::execution_capability`` (§4.6.4.2)."""

    exec_kernel = cl.device_exec_capabilities.KERNEL
    exec_native_kernel = cl.device_exec_capabilities.NATIVE_KERNEL


class event_command_status(enum.Enum):
    """``info::event_command_status`` (§4.6.6.1)."""

    submitted = 0
    running = 1
    complete = 2


_SINGLE_TYPES = (device_type.cpu, device_type.gpu, device_type.accelerator, device_type.custom)


def primary_device_type(bits: int) -> device_type:
    """The one SYCL device type of a ``CL_DEVICE_TYPE`` bitfield (§4.6.4.2).

    SYCL gives a device exactly one type; a driver setting several bits (Oclgrind sets them
    all) gets the first of cpu, gpu, accelerator, custom.
    """
    for kind in _SINGLE_TYPES:
        if bits & kind.value:
            return kind
    return device_type.custom
