"""The implemented descriptors and aspects against the spec's lists.

The names and return types are copied from SYCL 2020 (§4.6.2.4 platform, §4.6.3.3 context,
§4.6.4.2 device, §4.6.5.2 queue, §4.6.6.1 event, §4.6.4.3 aspects) on purpose: a descriptor
missing from sycl_ocl, or declared with another type, fails here.
"""

from __future__ import annotations

import typing
from typing import Any

import pytest

import sycl_ocl as sycl
from sycl_ocl.info._descriptor import descriptor

# (name, C++ return type) for every device descriptor of Table 25, in spec order.
DEVICE_DESCRIPTORS = [
    ("device_type", "info::device_type"),
    ("vendor_id", "uint32_t"),
    ("max_compute_units", "uint32_t"),
    ("max_work_item_dimensions", "uint32_t"),
    ("max_work_item_sizes<1>", "range<1>"),
    ("max_work_item_sizes<2>", "range<2>"),
    ("max_work_item_sizes<3>", "range<3>"),
    ("max_work_group_size", "size_t"),
    ("max_num_sub_groups", "uint32_t"),
    ("sub_group_sizes", "std::vector<size_t>"),
    ("preferred_vector_width_char", "uint32_t"),
    ("preferred_vector_width_short", "uint32_t"),
    ("preferred_vector_width_int", "uint32_t"),
    ("preferred_vector_width_long", "uint32_t"),
    ("preferred_vector_width_float", "uint32_t"),
    ("preferred_vector_width_double", "uint32_t"),
    ("preferred_vector_width_half", "uint32_t"),
    ("native_vector_width_char", "uint32_t"),
    ("native_vector_width_short", "uint32_t"),
    ("native_vector_width_int", "uint32_t"),
    ("native_vector_width_long", "uint32_t"),
    ("native_vector_width_float", "uint32_t"),
    ("native_vector_width_double", "uint32_t"),
    ("native_vector_width_half", "uint32_t"),
    ("max_clock_frequency", "uint32_t"),
    ("address_bits", "uint32_t"),
    ("max_mem_alloc_size", "uint64_t"),
    ("image_support", "bool"),
    ("max_read_image_args", "uint32_t"),
    ("max_write_image_args", "uint32_t"),
    ("image2d_max_width", "size_t"),
    ("image2d_max_height", "size_t"),
    ("image3d_max_width", "size_t"),
    ("image3d_max_height", "size_t"),
    ("image3d_max_depth", "size_t"),
    ("image_max_buffer_size", "size_t"),
    ("max_samplers", "uint32_t"),
    ("max_parameter_size", "size_t"),
    ("mem_base_addr_align", "uint32_t"),
    ("half_fp_config", "std::vector<info::fp_config>"),
    ("single_fp_config", "std::vector<info::fp_config>"),
    ("double_fp_config", "std::vector<info::fp_config>"),
    ("global_mem_cache_type", "info::global_mem_cache_type"),
    ("global_mem_cache_line_size", "uint32_t"),
    ("global_mem_cache_size", "uint64_t"),
    ("global_mem_size", "uint64_t"),
    ("max_constant_buffer_size", "uint64_t"),
    ("max_constant_args", "uint32_t"),
    ("local_mem_type", "info::local_mem_type"),
    ("local_mem_size", "uint64_t"),
    ("error_correction_support", "bool"),
    ("host_unified_memory", "bool"),
    ("atomic_memory_order_capabilities", "std::vector<memory_order>"),
    ("atomic_fence_order_capabilities", "std::vector<memory_order>"),
    ("atomic_memory_scope_capabilities", "std::vector<memory_scope>"),
    ("atomic_fence_scope_capabilities", "std::vector<memory_scope>"),
    ("profiling_timer_resolution", "size_t"),
    ("is_endian_little", "bool"),
    ("is_available", "bool"),
    ("is_compiler_available", "bool"),
    ("is_linker_available", "bool"),
    ("execution_capabilities", "std::vector<info::execution_capability>"),
    ("queue_profiling", "bool"),
    ("built_in_kernel_ids", "std::vector<kernel_id>"),
    ("built_in_kernels", "std::vector<std::string>"),
    ("platform", "platform"),
    ("name", "std::string"),
    ("vendor", "std::string"),
    ("driver_version", "std::string"),
    ("profile", "std::string"),
    ("version", "std::string"),
    ("backend_version", "std::string"),
    ("aspects", "std::vector<aspect>"),
    ("extensions", "std::vector<std::string>"),
    ("printf_buffer_size", "size_t"),
    ("preferred_interop_user_sync", "bool"),
    ("parent_device", "device"),
    ("partition_max_sub_devices", "uint32_t"),
    ("partition_properties", "std::vector<info::partition_property>"),
    ("partition_affinity_domains", "std::vector<info::partition_affinity_domain>"),
    ("partition_type_property", "info::partition_property"),
    ("partition_type_affinity_domain", "info::partition_affinity_domain"),
]

PLATFORM_DESCRIPTORS = [
    ("version", "std::string"),
    ("name", "std::string"),
    ("vendor", "std::string"),
    ("extensions", "std::vector<std::string>"),
]
CONTEXT_DESCRIPTORS = [
    ("platform", "platform"),
    ("devices", "std::vector<device>"),
    ("atomic_memory_order_capabilities", "std::vector<memory_order>"),
    ("atomic_fence_order_capabilities", "std::vector<memory_order>"),
    ("atomic_memory_scope_capabilities", "std::vector<memory_scope>"),
    ("atomic_fence_scope_capabilities", "std::vector<memory_scope>"),
]
QUEUE_DESCRIPTORS = [("context", "context"), ("device", "device")]
EVENT_DESCRIPTORS = [("command_execution_status", "info::event_command_status")]
EVENT_PROFILING_DESCRIPTORS = [
    ("command_submit", "uint64_t"),
    ("command_start", "uint64_t"),
    ("command_end", "uint64_t"),
]
ASPECTS = [
    "cpu", "gpu", "accelerator", "custom", "emulated", "host_debuggable", "fp16", "fp64", "atomic64",
    "image", "online_compiler", "online_linker", "queue_profiling", "usm_device_allocations",
    "usm_host_allocations", "usm_atomic_host_allocations", "usm_shared_allocations",
    "usm_atomic_shared_allocations", "usm_system_allocations",
]  # fmt: skip
MEMORY_ORDERS = ["relaxed", "acquire", "release", "acq_rel", "seq_cst"]
MEMORY_SCOPES = ["work_item", "sub_group", "work_group", "device", "system"]

_SCALARS: dict[str, Any] = {"uint32_t": int, "uint64_t": int, "size_t": int, "bool": bool, "std::string": str}


def python_type(cpp: str) -> Any:
    """The Python type of a C++ return type (docs/api-conventions.md)."""
    if cpp.startswith("std::vector<"):
        return list[python_type(cpp[len("std::vector<") : -1])]  # type: ignore[misc]
    if cpp.startswith("range<"):
        return sycl.range
    if cpp in _SCALARS:
        return _SCALARS[cpp]
    path: Any = sycl
    for part in cpp.split("::"):
        if not hasattr(path, part):
            return cpp  # a class sycl_ocl names lazily (kernel_id)
        path = getattr(path, part)
    return path


def same_type(declared: Any, expected: Any) -> bool:
    if typing.get_origin(expected) is list:
        return typing.get_origin(declared) is list and same_type(
            typing.get_args(declared)[0], typing.get_args(expected)[0]
        )
    if isinstance(declared, typing.ForwardRef):
        declared = declared.__forward_arg__
    if isinstance(declared, str) or isinstance(expected, str):
        return getattr(declared, "__name__", declared) == getattr(expected, "__name__", expected)
    return declared is expected


def lookup(namespace: Any, name: str) -> descriptor:
    if name.startswith("max_work_item_sizes<"):
        return namespace.max_work_item_sizes[int(name[-2])]  # type: ignore[no-any-return]
    found = getattr(namespace, name, None)
    assert isinstance(found, descriptor), f"sycl.info.{namespace.__name__.split('.')[-1]}.{name} is missing"
    return found


@pytest.mark.parametrize(
    ("namespace", "table"),
    [
        ("device", DEVICE_DESCRIPTORS),
        ("platform", PLATFORM_DESCRIPTORS),
        ("context", CONTEXT_DESCRIPTORS),
        ("queue", QUEUE_DESCRIPTORS),
        ("event", EVENT_DESCRIPTORS),
        ("event_profiling", EVENT_PROFILING_DESCRIPTORS),
    ],
)
def test_every_spec_descriptor_exists_with_its_type(namespace: str, table: list[tuple[str, str]]) -> None:
    module = getattr(sycl.info, namespace)
    missing, wrong = [], []
    for name, cpp in table:
        try:
            desc = lookup(module, name)
        except AssertionError:
            missing.append(name)
            continue
        assert desc.namespace == namespace
        if not same_type(desc.return_type, python_type(cpp)):
            wrong.append(f"{name}: {desc.return_type!r} for {cpp}")
    assert missing == [], f"sycl.info.{namespace} lacks {missing}"
    assert wrong == []


def test_no_descriptor_beyond_the_spec() -> None:
    from sycl_ocl.info._descriptor import descriptors_of

    spec = {name for name, _ in DEVICE_DESCRIPTORS}
    assert {d.name for d in descriptors_of(vars(sycl.info.device))} == spec


def test_every_aspect_exists_in_spec_order() -> None:
    assert [a.name for a in sycl.aspect] == ASPECTS


def test_memory_order_and_scope() -> None:
    assert [m.name for m in sycl.memory_order] == MEMORY_ORDERS
    assert [m.name for m in sycl.memory_scope] == MEMORY_SCOPES
    for name in MEMORY_ORDERS:
        assert getattr(sycl, f"memory_order_{name}") is sycl.memory_order[name]
    for name in MEMORY_SCOPES:
        assert getattr(sycl, f"memory_scope_{name}") is sycl.memory_scope[name]
