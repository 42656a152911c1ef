"""Category device (CTS tests/device): DV-01 .. DV-09."""

from __future__ import annotations

import pytest

import sycl_ocl as sycl
from conformance.support import other_devices, raises
from sycl_ocl.info._descriptor import descriptors_of

P = sycl.info.partition_property


def test_DV_01_api(device: sycl.device) -> None:
    """get_platform, is_cpu/gpu/accelerator, get_info(name), has(aspect)."""
    assert device in device.get_platform().get_devices()
    assert device.is_cpu() == device.has(sycl.aspect.cpu)
    assert device.is_gpu() == device.has(sycl.aspect.gpu)
    assert device.is_accelerator() == device.has(sycl.aspect.accelerator)
    assert isinstance(device.get_info(sycl.info.device.name), str) and device.get_info(sycl.info.device.name)
    assert all(isinstance(device.has(a), bool) for a in sycl.aspect)
    assert device.get_backend() is sycl.backend.opencl


def _partition(device: sycl.device, prop: sycl.info.partition_property, arg: object) -> list[sycl.device]:
    if prop not in device.get_info(sycl.info.device.partition_properties):
        with raises(sycl.errc.feature_not_supported):
            device.create_sub_devices(prop, arg)
        pytest.skip(f"the device does not support {prop.name} (checked: it raises feature_not_supported)")
    if device.get_info(sycl.info.device.partition_max_sub_devices) < 2:
        pytest.skip("the device cannot be split into two sub-devices")
    return device.create_sub_devices(prop, arg)


@pytest.mark.parametrize("how", ["equally", "by_counts", "by_affinity_domain"])
@pytest.mark.scenarios("DV-08")
def test_DV_02_sub_devices(device: sycl.device, how: str) -> None:
    """create_sub_devices returns devices whose parent is the device, where supported."""
    units = device.get_info(sycl.info.device.max_compute_units)
    if how == "equally":
        subs = _partition(device, P.partition_equally, 1)
        assert len(subs) == min(units, device.get_info(sycl.info.device.partition_max_sub_devices))
    elif how == "by_counts":
        subs = _partition(device, P.partition_by_counts, [1, 1])
        assert len(subs) == 2
        assert all(s.get_info(sycl.info.device.max_compute_units) == 1 for s in subs)
    else:
        domain = sycl.info.partition_affinity_domain.next_partitionable
        if domain not in device.get_info(sycl.info.device.partition_affinity_domains):
            pytest.skip("the device cannot be partitioned by the next partitionable affinity domain")
        subs = _partition(device, P.partition_by_affinity_domain, domain)
        assert subs
    for sub in subs:
        assert sub.get_info(sycl.info.device.parent_device) == device
        assert sub.get_info(sycl.info.device.partition_type_property) is not P.no_partition
    q = sycl.queue(subs[0])
    q.submit(lambda h: h.host_task(lambda: None)).wait_and_throw()


def test_DV_03_get_devices(device: sycl.device) -> None:
    """device.get_devices() and get_devices(all) include the device."""
    assert device in sycl.device.get_devices()
    assert device in sycl.device.get_devices(sycl.info.device_type.all)
    typed = sycl.device.get_devices(device.get_info(sycl.info.device.device_type))
    assert device in typed


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
    assert device.get_info(sycl.info.device.max_num_sub_groups) >= 1
    assert device.get_info(sycl.info.device.sub_group_sizes)


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
    with raises(sycl.errc.invalid):
        device.get_info(sycl.info.device.parent_device)


def test_DV_09_reference_semantics(device: sycl.device) -> None:
    """Handles of one device are equal and hash equal; two distinct devices are not equal."""
    other = sycl.make_device(sycl.get_native(device))
    assert other == device and hash(other) == hash(device)
    others = other_devices(device) or [d for d in sycl.device.get_devices() if d != device]
    if not others:
        pytest.skip("only one device is installed: no second device to compare with")
    assert others[0] != device and sycl.get_native(others[0]) != sycl.get_native(device)
