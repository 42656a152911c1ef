"""Category device (CTS tests/device): DV-01 .. DV-09."""

from __future__ import annotations

import pytest

import sycl_ocl as sycl
from sycl_ocl.info._descriptor import descriptors_of


def test_DV_01_api(device: sycl.device) -> None:
    """get_platform, is_cpu/gpu/accelerator, get_info(name), has(aspect)."""
    assert device in device.get_platform().get_devices()
    assert device.is_cpu() == device.has(sycl.aspect.cpu)
    assert device.is_gpu() == device.has(sycl.aspect.gpu)
    assert device.is_accelerator() == device.has(sycl.aspect.accelerator)
    assert device.get_info(sycl.info.device.name)


@pytest.mark.parametrize("prop, arg", [("partition_equally", 2), ("partition_by_counts", [1, 1])])
def test_DV_02_sub_devices(device: sycl.device, prop: str, arg: object) -> None:
    """create_sub_devices returns devices whose parent is the device, where supported."""
    kind = getattr(sycl.info.partition_property, prop)
    if kind not in device.get_info(sycl.info.device.partition_properties):
        with pytest.raises(sycl.exception) as info:
            device.create_sub_devices(kind, arg)
        assert info.value.code() is sycl.errc.feature_not_supported
        pytest.skip(f"the device does not support {prop}; checked that it raises feature_not_supported")
    units = device.get_info(sycl.info.device.max_compute_units)
    if device.get_info(sycl.info.device.partition_max_sub_devices) < 2 or units < 2:
        pytest.skip("the device cannot be split into two sub-devices")
    subs = device.create_sub_devices(kind, arg)
    # partition_equally(2) makes units // 2 devices of 2 units; by_counts([1, 1]) makes 2.
    assert len(subs) == (units // arg if isinstance(arg, int) else len(arg))
    assert all(s.get_info(sycl.info.device.parent_device) == device for s in subs)


def test_DV_03_get_devices(device: sycl.device) -> None:
    """device.get_devices() and get_devices(all) include the device."""
    assert device in sycl.device.get_devices()
    assert device in sycl.device.get_devices(sycl.info.device_type.all)


def test_DV_04_extensions(device: sycl.device) -> None:
    """Deprecated has_extension agrees with info.device.extensions."""
    assert not device.has_extension("Nonexistent ext")
    assert all(device.has_extension(e) for e in device.get_info(sycl.info.device.extensions))


def test_DV_05_default_constructor(device: sycl.device) -> None:
    """device() equals device(default_selector_v) and wraps the same cl_device_id."""
    assert sycl.device() == sycl.device(sycl.default_selector_v) == device
    assert sycl.get_native(sycl.device()).int_ptr == sycl.get_native(device).int_ptr


def test_DV_06_every_info_descriptor(device: sycl.device) -> None:
    """Every device descriptor answers with its declared return type (or raises errc.invalid)."""
    descriptors = descriptors_of(vars(sycl.info.device))
    assert len(descriptors) >= 80
    wrong = []
    for desc in descriptors:
        try:
            value = device.get_info(desc)
        except sycl.exception as error:
            if desc.name == "parent_device" and error.code() is sycl.errc.invalid:
                continue  # a root device has no parent: the spec's errc.invalid
            raise
        if not desc.accepts(value):
            wrong.append(f"{desc.name}={value!r} (expected {desc.return_type})")
    assert not wrong, wrong


def test_DV_07_atomic_capabilities(device: sycl.device) -> None:
    """Atomic order/scope capability lists hold the spec's minimums."""
    info = sycl.info.device
    assert sycl.memory_order.relaxed in device.get_info(info.atomic_memory_order_capabilities)
    assert {
        sycl.memory_order.relaxed,
        sycl.memory_order.acquire,
        sycl.memory_order.release,
        sycl.memory_order.acq_rel,
    } <= set(device.get_info(info.atomic_fence_order_capabilities))
    for desc in (info.atomic_memory_scope_capabilities, info.atomic_fence_scope_capabilities):
        assert sycl.memory_scope.work_group in device.get_info(desc)


def test_DV_08_parent_device_of_root_is_invalid(device: sycl.device) -> None:
    """parent_device of a root device raises errc.invalid."""
    with pytest.raises(sycl.exception) as info:
        device.get_info(sycl.info.device.parent_device)
    assert info.value.code() is sycl.errc.invalid


def test_DV_09_reference_semantics(device: sycl.device) -> None:
    """Two handles of one device are equal and hash equal."""
    other = sycl.make_device(sycl.get_native(device))
    assert other == device and hash(other) == hash(device)
