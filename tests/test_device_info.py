"""Device information descriptors (SYCL 2020 §4.6.4.2, Table 25) on every device under test.

Every descriptor returns its spec type, and the spec's minimums and consistency rules hold.
Values are compared with the raw OpenCL answers where the mapping is direct.
"""

from __future__ import annotations

import sys
import threading
from typing import Any

import pyopencl as cl
import pytest

import sycl_ocl as sycl
from sycl_ocl.info._descriptor import descriptor, descriptors_of

D = sycl.info.device
MO = sycl.memory_order
MS = sycl.memory_scope
ALL_DEVICE_DESCRIPTORS = descriptors_of(vars(D))


def test_the_sized_descriptors_are_listed() -> None:
    sized = [d for d in ALL_DEVICE_DESCRIPTORS if d.name.startswith("max_work_item_sizes")]
    assert [*D.max_work_item_sizes] == sized
    assert len(ALL_DEVICE_DESCRIPTORS) == 82


@pytest.mark.parametrize("desc", ALL_DEVICE_DESCRIPTORS, ids=lambda d: d.name)
def test_every_descriptor_returns_its_spec_type(device: sycl.device, desc: descriptor) -> None:
    if desc is D.parent_device:
        with pytest.raises(sycl.exception) as info:
            device.get_info(desc)
        assert info.value.code() is sycl.errc.invalid  # root device: the spec's error
        return
    value = device.get_info(desc)
    assert desc.accepts(value), f"{desc} returned {value!r}"
    assert device.get_info(desc) == value  # stable


def test_device_type_is_one_type_never_all(device: sycl.device) -> None:
    kind = device.get_info(D.device_type)
    assert kind not in (sycl.info.device_type.all, sycl.info.device_type.automatic)
    flags = {
        sycl.info.device_type.cpu: sycl.aspect.cpu,
        sycl.info.device_type.gpu: sycl.aspect.gpu,
        sycl.info.device_type.accelerator: sycl.aspect.accelerator,
        sycl.info.device_type.custom: sycl.aspect.custom,
    }
    assert [t for t, a in flags.items() if device.has(a)] == [kind]


def test_identity_strings_match_opencl(device: sycl.device) -> None:
    native = sycl.get_native(device)
    assert device.get_info(D.name) == native.name.strip()
    assert device.get_info(D.vendor) == native.vendor.strip()
    assert device.get_info(D.driver_version) == native.driver_version.strip()
    assert device.get_info(D.version) == native.version.strip()
    assert device.get_info(D.vendor_id) == native.vendor_id
    assert device.get_info(D.profile) in ("FULL_PROFILE", "EMBEDDED_PROFILE")
    major, minor = device.get_info(D.backend_version).split(".")
    assert device.get_info(D.version).startswith(f"OpenCL {major}.{minor}")
    assert device.get_info(D.platform) == device.get_platform()


def _skip_custom(device: sycl.device) -> None:
    if device.has(sycl.aspect.custom):
        pytest.skip("custom devices are exempt from these minimums (§4.6.4.2)")


def test_compute_minimums(device: sycl.device) -> None:
    _skip_custom(device)
    assert device.get_info(D.max_compute_units) >= 1
    assert device.get_info(D.max_work_item_dimensions) >= 3
    assert device.get_info(D.max_work_group_size) >= 1
    assert device.get_info(D.max_num_sub_groups) >= 1
    assert device.get_info(D.sub_group_sizes) and all(s >= 1 for s in device.get_info(D.sub_group_sizes))
    assert device.get_info(D.address_bits) in (32, 64)
    assert device.get_info(D.max_parameter_size) >= 1024
    assert device.get_info(D.max_constant_buffer_size) >= 64 * 1024
    assert device.get_info(D.max_constant_args) >= 8
    assert device.get_info(D.local_mem_size) >= 32 * 1024
    local = sycl.info.local_mem_type
    assert device.get_info(D.local_mem_type) in (local.local, local.global_)


def test_max_mem_alloc_size_minimum(device: sycl.device) -> None:
    _skip_custom(device)
    floor = max(device.get_info(D.global_mem_size) // 4, 128 * 1024 * 1024)
    assert device.get_info(D.max_mem_alloc_size) >= floor


def test_max_work_item_sizes_are_ranges_in_sycl_order(device: sycl.device) -> None:
    cl_sizes = sycl.get_native(device).max_work_item_sizes
    for dims in (1, 2, 3):
        sizes = device.get_info(D.max_work_item_sizes[dims])
        assert isinstance(sizes, sycl.range) and sizes.dimensions == dims
        assert sizes.to_cl() == tuple(cl_sizes[:dims])
        assert all(s >= 1 for s in sizes)


def test_max_work_item_sizes_needs_1_2_or_3() -> None:
    with pytest.raises(sycl.exception) as info:
        D.max_work_item_sizes[4]
    assert info.value.code() is sycl.errc.invalid


def test_vector_widths_are_zero_without_the_type(device: sycl.device) -> None:
    for asp, descs in (
        (sycl.aspect.fp64, (D.preferred_vector_width_double, D.native_vector_width_double)),
        (sycl.aspect.fp16, (D.preferred_vector_width_half, D.native_vector_width_half)),
    ):
        for desc in descs:
            value = device.get_info(desc)
            assert value >= 1 if device.has(asp) else value == 0


def test_fp_configs(device: sycl.device) -> None:
    _skip_custom(device)
    fp = sycl.info.fp_config
    assert {fp.round_to_nearest, fp.inf_nan} <= set(device.get_info(D.single_fp_config))
    double = set(device.get_info(D.double_fp_config))
    if device.has(sycl.aspect.fp64):
        required = {fp.fma, fp.round_to_nearest, fp.round_to_zero, fp.round_to_inf, fp.inf_nan, fp.denorm}
        assert required <= double
    else:
        assert double == set()
    if not device.has(sycl.aspect.fp16):
        assert device.get_info(D.half_fp_config) == []


def test_double_fp_config_holds_only_the_values_table_25_lists(device: sycl.device) -> None:
    """double_fp_config's entry of Table 25 has no correctly_rounded_divide_sqrt (PoCL sets
    the OpenCL bit for doubles), single_fp_config's has it."""
    assert sycl.info.fp_config.correctly_rounded_divide_sqrt not in device.get_info(D.double_fp_config)


def test_image_limits_when_images_are_supported(device: sycl.device) -> None:
    assert device.get_info(D.image_support) == device.has(sycl.aspect.image)
    if not device.has(sycl.aspect.image):
        pytest.skip("the device has no image support, so the image minimums do not apply")
    assert device.get_info(D.max_read_image_args) >= 128
    assert device.get_info(D.max_write_image_args) >= 8
    assert device.get_info(D.image2d_max_width) >= 8192
    assert device.get_info(D.image2d_max_height) >= 8192
    for desc in (D.image3d_max_width, D.image3d_max_height, D.image3d_max_depth):
        assert device.get_info(desc) >= 2048
    assert device.get_info(D.image_max_buffer_size) >= 65536
    assert device.get_info(D.max_samplers) >= 16


def _closed_downward(values: list[Any], enum_cls: Any) -> bool:
    widest = max(v.value for v in values)
    typed = all(isinstance(v, enum_cls) for v in values)
    return typed and {v.value for v in values} == set(range(widest + 1))


def test_atomic_capabilities(device: sycl.device) -> None:
    orders = device.get_info(D.atomic_memory_order_capabilities)
    assert MO.relaxed in orders and _closed_downward(orders, MO)
    fences = device.get_info(D.atomic_fence_order_capabilities)
    assert {MO.relaxed, MO.acquire, MO.release, MO.acq_rel} <= set(fences) and _closed_downward(fences, MO)
    for desc in (D.atomic_memory_scope_capabilities, D.atomic_fence_scope_capabilities):
        scopes = device.get_info(desc)
        assert {MS.work_item, MS.sub_group, MS.work_group} <= set(scopes) and _closed_downward(scopes, MS)


def test_atomic_capabilities_follow_opencl_3_bits(device: sycl.device) -> None:
    if tuple(map(int, device.get_info(D.backend_version).split("."))) < (3, 0):
        pytest.skip("an OpenCL < 3.0 device has no atomic capability query (the OpenCL 1.2 defaults apply)")
    caps = sycl.get_native(device).get_info(cl.device_info.ATOMIC_MEMORY_CAPABILITIES)
    orders = device.get_info(D.atomic_memory_order_capabilities)
    assert (MO.seq_cst in orders) == bool(caps & cl.device_atomic_capabilities.ORDER_SEQ_CST)
    assert (MO.acq_rel in orders) == bool(caps & 0b110)
    scopes = device.get_info(D.atomic_memory_scope_capabilities)
    assert (MS.device in scopes) == bool(caps & 0b1100000)


def test_deprecated_booleans_agree_with_aspects(device: sycl.device) -> None:
    assert device.get_info(D.is_compiler_available) == device.has(sycl.aspect.online_compiler)
    assert device.get_info(D.is_linker_available) == device.has(sycl.aspect.online_linker)
    assert device.get_info(D.queue_profiling) == device.has(sycl.aspect.queue_profiling)
    assert device.get_info(D.is_endian_little) == (sys.byteorder == "little")
    assert device.get_info(D.is_available) is True


def test_execution_capabilities_include_exec_kernel(device: sycl.device) -> None:
    assert sycl.info.execution_capability.exec_kernel in device.get_info(D.execution_capabilities)


def test_built_in_kernels_are_the_opencl_list(device: sycl.device) -> None:
    raw = sycl.get_native(device).built_in_kernels
    assert device.get_info(D.built_in_kernels) == [k.strip() for k in raw.split(";") if k.strip()]


def test_aspects_descriptor_lists_exactly_what_has_reports(device: sycl.device) -> None:
    assert set(device.get_info(D.aspects)) == {a for a in sycl.aspect if device.has(a)}
    assert device.has(sycl.aspect.online_compiler) or not device.has(sycl.aspect.online_linker)


def test_extensions_include_the_opencl_c_1_2_names(device: sycl.device) -> None:
    extensions = device.get_info(D.extensions)
    assert all(" " not in e for e in extensions)
    assert set(sycl.get_native(device).extensions.split()) <= set(extensions)
    required = {
        "cl_khr_global_int32_base_atomics",
        "cl_khr_global_int32_extended_atomics",
        "cl_khr_local_int32_base_atomics",
        "cl_khr_local_int32_extended_atomics",
        "cl_khr_byte_addressable_store",
    } | ({"cl_khr_fp64"} if device.has(sycl.aspect.fp64) else set())
    assert required <= set(extensions)
    assert all(device.has_extension(e) for e in extensions)
    assert not device.has_extension("cl_no_such_extension")


def test_printf_buffer_size_minimum(device: sycl.device) -> None:
    minimum = 1024 * 1024 if device.get_info(D.profile) == "FULL_PROFILE" else 1024
    assert device.get_info(D.printf_buffer_size) >= minimum


def test_root_device_partition_descriptors(device: sycl.device) -> None:
    assert device.get_info(D.partition_type_property) is sycl.info.partition_property.no_partition
    not_applicable = sycl.info.partition_affinity_domain.not_applicable
    assert device.get_info(D.partition_type_affinity_domain) is not_applicable
    assert device.get_info(D.partition_max_sub_devices) <= device.get_info(D.max_compute_units)
    assert sycl.info.partition_property.no_partition not in device.get_info(D.partition_properties)


def test_get_info_rejects_a_descriptor_of_another_class(device: sycl.device) -> None:
    for bad in (sycl.info.platform.name, "name", D.max_work_item_sizes):
        with pytest.raises(sycl.exception) as info:
            device.get_info(bad)
        assert info.value.code() is sycl.errc.invalid


def test_concurrent_queries_agree(device: sycl.device) -> None:
    # A fresh wrapper (a second PyOpenCL object of the device) starts with an empty cache.
    fresh = sycl.make_device(cl.Device.from_int_ptr(sycl.get_native(device).int_ptr))
    results: list[list[Any]] = []

    def query_all() -> None:
        results.append([fresh.get_info(d) for d in ALL_DEVICE_DESCRIPTORS if d is not D.parent_device])

    threads = [threading.Thread(target=query_all) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    expected = [device.get_info(d) for d in ALL_DEVICE_DESCRIPTORS if d is not D.parent_device]
    assert results == [expected] * 8


def test_returned_lists_are_the_callers_own(device: sycl.device) -> None:
    extensions = device.get_info(D.extensions)
    extensions.append("cl_not_really")
    assert "cl_not_really" not in device.get_info(D.extensions)
    plat_ext = device.get_platform().get_info(sycl.info.platform.extensions)
    plat_ext.clear()
    assert device.get_platform().get_info(sycl.info.platform.extensions) == sycl.get_native(
        device.get_platform()
    ).extensions.split()


def test_accepts_checks_list_elements_and_scalars() -> None:
    assert D.extensions.accepts(["cl_khr_fp64"]) and not D.extensions.accepts(["a", 1])
    assert D.max_compute_units.accepts(4) and not D.max_compute_units.accepts(True)
    assert D.max_work_item_sizes[2].accepts(sycl.range(1, 2)) and not D.max_work_item_sizes[2].accepts((1, 2))
    assert not D.aspects.accepts("fp64")
