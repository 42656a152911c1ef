"""``sycl::info::device`` descriptors (SYCL 2020 §4.6.4.2, Table 25).

Each descriptor reads the OpenCL device (``clGetDeviceInfo``, cached per device) and
converts the answer to the spec's return type. Where a driver cannot answer, the value is
the one the spec (or OpenCL, for the version it implements) guarantees, as noted per
descriptor; ``docs/deviations.md`` lists them. ``max_work_item_sizes<N>`` is written
``max_work_item_sizes[N]`` and is in SYCL dimension order (OpenCL order reversed).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pyopencl as cl

from .._aspect import aspect as _aspect
from .._context import _wrap_device
from .._device import device as _dev
from .._exception import errc, exception
from .._native import compiler_warnings_off
from .._platform import platform as _platform
from .._range import range as _range
from ..memory_model import memory_order, memory_scope
from . import _decode
from ._descriptor import descriptor, sized_descriptor
from .enums import device_type as _device_type
from .enums import (
    execution_capability,
    fp_config,
    partition_affinity_domain,
    partition_property,
    primary_device_type,
)
from .enums import global_mem_cache_type as _global_mem_cache_type
from .enums import local_mem_type as _local_mem_type

if TYPE_CHECKING:
    from .._kernel_bundle._kernel_id import kernel_id


def _desc(name: str, return_type: Any, query: Callable[[_dev], Any]) -> descriptor:
    return descriptor("device", name, return_type, query)


def _int(name: str, cl_name: str) -> descriptor:
    return _desc(name, int, lambda d: int(d._cl_info(cl_name)))


def _bool(name: str, cl_name: str) -> descriptor:
    return _desc(name, bool, lambda d: bool(d._cl_info(cl_name)))


def _text(name: str, cl_name: str) -> descriptor:
    return _desc(name, str, lambda d: str(d._cl_info(cl_name)).strip())


def _has(dev: _dev, name: str) -> bool:
    return dev.has(_aspect[name])


def _width(name: str, cl_name: str, needs: str | None = None) -> descriptor:
    """A vector width; 0 when the element type needs an aspect the device lacks (§4.6.4.2)."""
    return _desc(
        name, int, lambda d: int(d._cl_info(cl_name)) if needs is None or _has(d, needs) else 0
    )


# --- identity and type ------------------------------------------------------------------

device_type = _desc("device_type", _device_type, lambda d: primary_device_type(d._native.type))
vendor_id = _int("vendor_id", "VENDOR_ID")
platform = _desc("platform", _platform, lambda d: d.get_platform())
name = _text("name", "NAME")
vendor = _text("vendor", "VENDOR")
driver_version = _text("driver_version", "DRIVER_VERSION")
profile = _text("profile", "PROFILE")
version = _text("version", "VERSION")


def _backend_version(d: _dev) -> str:
    major, minor = _decode.device_cl_version(d)
    return f"{major}.{minor}"


backend_version = _desc("backend_version", str, _backend_version)

# --- compute ------------------------------------------------------------------------------

max_compute_units = _int("max_compute_units", "MAX_COMPUTE_UNITS")
max_work_item_dimensions = _int("max_work_item_dimensions", "MAX_WORK_ITEM_DIMENSIONS")


def _sizes_query(dims: int) -> Callable[[_dev], _range]:
    # The first ``dims`` OpenCL dimensions, reversed into SYCL order.
    return lambda d: _range(*[int(s) for s in d._cl_info("MAX_WORK_ITEM_SIZES")][:dims][::-1])


max_work_item_sizes = sized_descriptor("device", "max_work_item_sizes", _range, _sizes_query)
max_work_group_size = _int("max_work_group_size", "MAX_WORK_GROUP_SIZE")


def _max_num_sub_groups(d: _dev) -> int:
    # Without sub-group support (OpenCL < 2.1, or 0 reported) a work-group is one sub-group.
    return max(1, d._int_info("MAX_NUM_SUB_GROUPS", 1))


max_num_sub_groups = _desc("max_num_sub_groups", int, _max_num_sub_groups)


def _sub_group_sizes(d: _dev) -> list[int]:
    # Without OpenCL sub-groups (0 reported, or OpenCL < 2.1) a kernel has sub-groups of one.
    if d._int_info("MAX_NUM_SUB_GROUPS", 0) <= 1:
        return [1]
    if "cl_nv_device_attribute_query" in d._extensions():
        return [int(d._cl_info("WARP_SIZE_NV"))]
    found = d._raw.get("sycl_ocl.sub_group_sizes")  # the probe builds a program: once per device
    if found is None:
        found = d._raw["sycl_ocl.sub_group_sizes"] = _probed_sub_group_sizes(d)
    return list(found)


def _probed_sub_group_sizes(d: _dev) -> list[int]:
    """Ask the driver which sub-group size it picks for a trivial kernel at each power-of-two
    work-group size (``clGetKernelSubGroupInfo``): OpenCL has no device-level query."""
    try:
        ctx = cl.Context([d._native])
        with compiler_warnings_off:
            probe = cl.Program(ctx, "__kernel void sycl_ocl_probe(void) {}").build().sycl_ocl_probe
        query = cl.kernel_sub_group_info.MAX_SUB_GROUP_SIZE_FOR_NDRANGE
        local, limit, sizes = 1, int(d._cl_info("MAX_WORK_GROUP_SIZE")), set()
        while local <= limit:
            sizes.add(int(probe.get_sub_group_info(d._native, query, (local,))))
            local *= 2
    except (cl.Error, AttributeError) as error:
        raise exception(
            errc.feature_not_supported,
            f"{d!r} has sub-groups but did not report their sizes ({error})",
        ) from error
    return sorted(sizes)


sub_group_sizes = _desc("sub_group_sizes", list[int], _sub_group_sizes)

preferred_vector_width_char = _width("preferred_vector_width_char", "PREFERRED_VECTOR_WIDTH_CHAR")
preferred_vector_width_short = _width("preferred_vector_width_short", "PREFERRED_VECTOR_WIDTH_SHORT")
preferred_vector_width_int = _width("preferred_vector_width_int", "PREFERRED_VECTOR_WIDTH_INT")
preferred_vector_width_long = _width("preferred_vector_width_long", "PREFERRED_VECTOR_WIDTH_LONG")
preferred_vector_width_float = _width("preferred_vector_width_float", "PREFERRED_VECTOR_WIDTH_FLOAT")
preferred_vector_width_double = _width(
    "preferred_vector_width_double", "PREFERRED_VECTOR_WIDTH_DOUBLE", "fp64"
)
preferred_vector_width_half = _width("preferred_vector_width_half", "PREFERRED_VECTOR_WIDTH_HALF", "fp16")
native_vector_width_char = _width("native_vector_width_char", "NATIVE_VECTOR_WIDTH_CHAR")
native_vector_width_short = _width("native_vector_width_short", "NATIVE_VECTOR_WIDTH_SHORT")
native_vector_width_int = _width("native_vector_width_int", "NATIVE_VECTOR_WIDTH_INT")
native_vector_width_long = _width("native_vector_width_long", "NATIVE_VECTOR_WIDTH_LONG")
native_vector_width_float = _width("native_vector_width_float", "NATIVE_VECTOR_WIDTH_FLOAT")
native_vector_width_double = _width("native_vector_width_double", "NATIVE_VECTOR_WIDTH_DOUBLE", "fp64")
native_vector_width_half = _width("native_vector_width_half", "NATIVE_VECTOR_WIDTH_HALF", "fp16")
max_clock_frequency = _int("max_clock_frequency", "MAX_CLOCK_FREQUENCY")
address_bits = _int("address_bits", "ADDRESS_BITS")
max_parameter_size = _int("max_parameter_size", "MAX_PARAMETER_SIZE")
profiling_timer_resolution = _int("profiling_timer_resolution", "PROFILING_TIMER_RESOLUTION")

# --- memory -------------------------------------------------------------------------------

max_mem_alloc_size = _int("max_mem_alloc_size", "MAX_MEM_ALLOC_SIZE")
mem_base_addr_align = _int("mem_base_addr_align", "MEM_BASE_ADDR_ALIGN")
global_mem_cache_type = _desc(
    "global_mem_cache_type",
    _global_mem_cache_type,
    lambda d: _global_mem_cache_type(int(d._cl_info("GLOBAL_MEM_CACHE_TYPE"))),
)
global_mem_cache_line_size = _int("global_mem_cache_line_size", "GLOBAL_MEM_CACHELINE_SIZE")
global_mem_cache_size = _int("global_mem_cache_size", "GLOBAL_MEM_CACHE_SIZE")
global_mem_size = _int("global_mem_size", "GLOBAL_MEM_SIZE")
max_constant_buffer_size = _int("max_constant_buffer_size", "MAX_CONSTANT_BUFFER_SIZE")
max_constant_args = _int("max_constant_args", "MAX_CONSTANT_ARGS")
local_mem_type = _desc(
    "local_mem_type", _local_mem_type, lambda d: _local_mem_type(int(d._cl_info("LOCAL_MEM_TYPE")))
)
local_mem_size = _int("local_mem_size", "LOCAL_MEM_SIZE")
error_correction_support = _bool("error_correction_support", "ERROR_CORRECTION_SUPPORT")
# Deprecated in OpenCL 2.0; a driver that no longer answers has no host-unified memory to report.
host_unified_memory = _desc(
    "host_unified_memory", bool, lambda d: bool(d._int_info("HOST_UNIFIED_MEMORY", 0))
)

# --- images -------------------------------------------------------------------------------

image_support = _desc("image_support", bool, lambda d: _has(d, "image"))
max_read_image_args = _int("max_read_image_args", "MAX_READ_IMAGE_ARGS")
max_write_image_args = _int("max_write_image_args", "MAX_WRITE_IMAGE_ARGS")
image2d_max_width = _int("image2d_max_width", "IMAGE2D_MAX_WIDTH")
image2d_max_height = _int("image2d_max_height", "IMAGE2D_MAX_HEIGHT")
image3d_max_width = _int("image3d_max_width", "IMAGE3D_MAX_WIDTH")
image3d_max_height = _int("image3d_max_height", "IMAGE3D_MAX_HEIGHT")
image3d_max_depth = _int("image3d_max_depth", "IMAGE3D_MAX_DEPTH")
image_max_buffer_size = _int("image_max_buffer_size", "IMAGE_MAX_BUFFER_SIZE")
max_samplers = _int("max_samplers", "MAX_SAMPLERS")

# --- floating point -----------------------------------------------------------------------


def _fp_config(
    cl_name: str, needs: str | None, listed: frozenset[fp_config] = frozenset(fp_config)
) -> Callable[[_dev], list[fp_config]]:
    """The query of an ``*_fp_config`` descriptor: the values its entry of Table 25 ``listed``."""
    def query(d: _dev) -> list[fp_config]:
        if needs is not None and not _has(d, needs):
            return []  # the CL query is only defined when the type is supported
        return [m for m in _decode.bitfield(d._cl_info(cl_name), fp_config) if m in listed]

    return query


half_fp_config = _desc("half_fp_config", list[fp_config], _fp_config("HALF_FP_CONFIG", "fp16"))
single_fp_config = _desc("single_fp_config", list[fp_config], _fp_config("SINGLE_FP_CONFIG", None))
# Table 25 lists no correctly_rounded_divide_sqrt for double (PoCL reports the CL bit there).
double_fp_config = _desc("double_fp_config", list[fp_config], _fp_config(
    "DOUBLE_FP_CONFIG", "fp64", frozenset(fp_config) - {fp_config.correctly_rounded_divide_sqrt}))

# --- atomics (OpenCL 3.0 capability queries; the guarantees of earlier versions otherwise) --


def _capabilities(
    cl_name: str, before_30: list[Any], decode: Callable[[int], list[Any]]
) -> Callable[[_dev], list[Any]]:
    def query(d: _dev) -> list[Any]:
        if _decode.device_cl_version(d) < (3, 0):
            return list(before_30)
        return decode(int(d._cl_info(cl_name)))

    return query


atomic_memory_order_capabilities = _desc(
    "atomic_memory_order_capabilities",
    list[memory_order],
    _capabilities("ATOMIC_MEMORY_CAPABILITIES", _decode.PRE_30_MEMORY_ORDERS, _decode.orders_up_to),
)
atomic_fence_order_capabilities = _desc(
    "atomic_fence_order_capabilities",
    list[memory_order],
    _capabilities("ATOMIC_FENCE_CAPABILITIES", _decode.PRE_30_FENCE_ORDERS, _decode.orders_up_to),
)
atomic_memory_scope_capabilities = _desc(
    "atomic_memory_scope_capabilities",
    list[memory_scope],
    _capabilities("ATOMIC_MEMORY_CAPABILITIES", _decode.PRE_30_SCOPES, _decode.scopes_up_to),
)
atomic_fence_scope_capabilities = _desc(
    "atomic_fence_scope_capabilities",
    list[memory_scope],
    _capabilities("ATOMIC_FENCE_CAPABILITIES", _decode.PRE_30_SCOPES, _decode.scopes_up_to),
)

# --- features -----------------------------------------------------------------------------

is_endian_little = _bool("is_endian_little", "ENDIAN_LITTLE")
is_available = _bool("is_available", "AVAILABLE")
is_compiler_available = _desc("is_compiler_available", bool, lambda d: _has(d, "online_compiler"))
is_linker_available = _desc("is_linker_available", bool, lambda d: _has(d, "online_linker"))
queue_profiling = _desc("queue_profiling", bool, lambda d: _has(d, "queue_profiling"))
execution_capabilities = _desc(
    "execution_capabilities",
    list[execution_capability],
    lambda d: _decode.bitfield(d._cl_info("EXECUTION_CAPABILITIES"), execution_capability),
)
built_in_kernels = _desc(
    "built_in_kernels",
    list[str],
    lambda d: [k.strip() for k in str(d._cl_info("BUILT_IN_KERNELS")).split(";") if k.strip()],
)
aspects = _desc("aspects", list[_aspect], lambda d: d._aspect_list())

# OpenCL C 1.2 makes these core; SYCL still requires them in the list (§4.6.4.2).
_OPENCL_C_12_EXTENSIONS = (
    "cl_khr_global_int32_base_atomics",
    "cl_khr_global_int32_extended_atomics",
    "cl_khr_local_int32_base_atomics",
    "cl_khr_local_int32_extended_atomics",
    "cl_khr_byte_addressable_store",
)


def _extension_list(d: _dev) -> list[str]:
    names = list(dict.fromkeys(str(d._cl_info("EXTENSIONS")).split()))
    required: list[str] = []
    if _decode.cl_version(str(d._cl_info("OPENCL_C_VERSION"))) >= (1, 2):
        required += _OPENCL_C_12_EXTENSIONS
        if _has(d, "fp64"):
            required.append("cl_khr_fp64")
    return names + [n for n in required if n not in names]


extensions = _desc("extensions", list[str], _extension_list)


def _printf_buffer_size(d: _dev) -> int:
    try:
        return int(d._cl_info("PRINTF_BUFFER_SIZE"))
    except exception:
        # Drivers that do not answer (PoCL 3.1, Oclgrind) get the size OpenCL guarantees.
        return 1024 * 1024 if str(d._cl_info("PROFILE")).strip() == "FULL_PROFILE" else 1024


printf_buffer_size = _desc("printf_buffer_size", int, _printf_buffer_size)
preferred_interop_user_sync = _bool("preferred_interop_user_sync", "PREFERRED_INTEROP_USER_SYNC")

# --- partitioning -------------------------------------------------------------------------


def _parent_device(d: _dev) -> _dev:
    parent = d._cl_info("PARENT_DEVICE")
    if parent is None:
        raise exception(
            errc.invalid,
            f"{d!r} is a root device and has no parent; parent_device is only defined for "
            "sub-devices made by create_sub_devices",
        )
    return _wrap_device(parent)


parent_device = _desc("parent_device", _dev, _parent_device)
partition_max_sub_devices = _int("partition_max_sub_devices", "PARTITION_MAX_SUB_DEVICES")


def _partition_properties(d: _dev) -> list[partition_property]:
    # A property is listed only if it can yield at least two sub-devices (§4.6.4.2).
    if int(d._cl_info("MAX_COMPUTE_UNITS")) < 2 or d._int_info("PARTITION_MAX_SUB_DEVICES") < 2:
        return []
    raw = {int(v) for v in d._cl_info("PARTITION_PROPERTIES") or []}
    return [p for p in partition_property if p.value and p.value in raw]


partition_properties = _desc("partition_properties", list[partition_property], _partition_properties)


def _affinity_domains(d: _dev) -> list[partition_affinity_domain]:
    if partition_property.partition_by_affinity_domain not in _partition_properties(d):
        return []
    return _decode.bitfield(d._cl_info("PARTITION_AFFINITY_DOMAIN"), partition_affinity_domain)


partition_affinity_domains = _desc(
    "partition_affinity_domains", list[partition_affinity_domain], _affinity_domains
)


def _partition_type(d: _dev) -> list[int]:
    return [int(v) for v in d._cl_info("PARTITION_TYPE") or []]


def _partition_type_property(d: _dev) -> partition_property:
    kind = _partition_type(d)
    return partition_property(kind[0]) if kind and kind[0] else partition_property.no_partition


partition_type_property = _desc("partition_type_property", partition_property, _partition_type_property)

_CONCRETE_DOMAINS = (
    partition_affinity_domain.numa,
    partition_affinity_domain.L4_cache,
    partition_affinity_domain.L3_cache,
    partition_affinity_domain.L2_cache,
    partition_affinity_domain.L1_cache,
)


def _partition_type_affinity_domain(d: _dev) -> partition_affinity_domain:
    kind = _partition_type(d)
    if len(kind) < 2 or kind[0] != cl.device_partition_property.BY_AFFINITY_DOMAIN:
        return partition_affinity_domain.not_applicable
    domain = partition_affinity_domain(kind[1])
    if domain is not partition_affinity_domain.next_partitionable:
        return domain
    # SYCL names the level that was used: the first the parent supports, widest first.
    offered = set(_affinity_domains(_parent_device(d)))
    return next((dom for dom in _CONCRETE_DOMAINS if dom in offered), domain)


partition_type_affinity_domain = _desc(
    "partition_type_affinity_domain", partition_affinity_domain, _partition_type_affinity_domain
)


def _built_in_kernel_ids(d: _dev) -> list[Any]:
    # Device information names kernel ids, and kernel bundles query devices (§4.6.4.2, §4.11).
    from .._kernel_bundle.builtin import built_in_kernel_ids

    return built_in_kernel_ids(d)


built_in_kernel_ids = _desc("built_in_kernel_ids", list["kernel_id"], _built_in_kernel_ids)
