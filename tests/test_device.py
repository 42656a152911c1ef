"""Devices (SYCL 2020 §4.6.4): enumeration, type queries, aspects and sub-devices.

Partitioning runs on every device under test that offers it (PoCL: partition_equally and
partition_by_counts); devices that do not must refuse with ``errc.feature_not_supported``.
"""

from __future__ import annotations

import pytest

import sycl_ocl as sycl

D = sycl.info.device
P = sycl.info.partition_property
NOT_APPLICABLE = sycl.info.partition_affinity_domain.not_applicable


def test_get_devices_is_stable_and_holds_every_platforms_roots() -> None:
    devs = sycl.device.get_devices()
    assert devs == sycl.device.get_devices()
    assert devs == [d for p in sycl.platform.get_platforms() for d in p.get_devices()]
    assert sycl.device() in devs
    cpus = sycl.device.get_devices(sycl.info.device_type.cpu)
    assert cpus == [d for d in devs if d.is_cpu()]


def test_default_device_is_a_copy_of_the_selected_one() -> None:
    assert sycl.device() == sycl.device(sycl.default_selector_v)
    assert hash(sycl.device()) == hash(sycl.device(sycl.default_selector_v))


def test_type_queries_agree_with_aspects(device: sycl.device) -> None:
    assert device.is_cpu() == device.has(sycl.aspect.cpu)
    assert device.is_gpu() == device.has(sycl.aspect.gpu)
    assert device.is_accelerator() == device.has(sycl.aspect.accelerator)
    assert device.get_backend() is sycl.backend.opencl
    assert device.get_platform() == device.get_info(D.platform)


def test_has_rejects_non_aspects(device: sycl.device) -> None:
    with pytest.raises(sycl.exception) as info:
        device.has("fp64")  # type: ignore[arg-type]
    assert info.value.code() is sycl.errc.invalid


def test_emulated_aspect_marks_the_simulator(device: sycl.device) -> None:
    simulator = "Oclgrind" in device.get_platform().get_info(sycl.info.platform.name)
    assert device.has(sycl.aspect.emulated) == simulator
    assert not device.has(sycl.aspect.host_debuggable)


def test_backend_info_takes_opencl_names(device: sycl.device) -> None:
    assert device.get_backend_info("OPENCL_C_VERSION").startswith("OpenCL C")
    with pytest.raises(sycl.exception) as info:
        device.get_backend_info(D.name)
    assert info.value.code() is sycl.errc.backend_mismatch


def _partitionable() -> sycl.device:
    for dev in sycl.device.get_devices():
        if P.partition_equally in dev.get_info(D.partition_properties):
            return dev
    pytest.skip("no device under test supports partition_equally (PoCL with 2+ compute units does)")


def test_partition_equally() -> None:
    root = _partitionable()
    units = root.get_info(D.max_compute_units)
    subs = root.create_sub_devices(P.partition_equally, 1)
    assert len(subs) == units
    for sub in subs:
        assert sub.get_info(D.max_compute_units) == 1
        assert sub.get_info(D.parent_device) == root
        assert sub.get_info(D.partition_type_property) is P.partition_equally
        assert sub.get_info(D.partition_type_affinity_domain) is NOT_APPLICABLE
        assert sub.get_platform() == root.get_platform()
        assert sub.get_info(D.name) == root.get_info(D.name)
    assert not set(subs) & set(sycl.device.get_devices())  # sub-devices are never root devices
    assert not set(subs) & set(root.get_platform().get_devices())


def test_partition_by_counts_drops_zero_counts() -> None:
    root = _partitionable()
    if P.partition_by_counts not in root.get_info(D.partition_properties):
        pytest.skip("the partitionable device does not support partition_by_counts")
    subs = root.create_sub_devices(P.partition_by_counts, [1, 0, 1])
    assert [s.get_info(D.max_compute_units) for s in subs] == [1, 1]
    assert all(s.get_info(D.partition_type_property) is P.partition_by_counts for s in subs)


def test_partition_by_counts_of_zeros_makes_no_sub_device() -> None:
    """§4.6.4.1: a sub-device for each non-zero count, so [0] makes none (no error)."""
    root = _partitionable()
    if P.partition_by_counts not in root.get_info(D.partition_properties):
        pytest.skip("the partitionable device does not support partition_by_counts")
    assert root.create_sub_devices(P.partition_by_counts, [0]) == []
    assert root.create_sub_devices(P.partition_by_counts, [0, 0]) == []


@pytest.mark.parametrize(
    ("prop", "arg"),
    [
        (P.partition_equally, "units+1"),
        (P.partition_equally, 0),
        (P.partition_by_counts, "sum too big"),
        (P.partition_by_counts, "too many"),
        (P.partition_by_counts, [-1, 1]),
    ],
)
def test_partition_with_impossible_counts_is_invalid(prop: sycl.info.partition_property, arg: object) -> None:
    root = _partitionable()
    units = root.get_info(D.max_compute_units)
    limit = root.get_info(D.partition_max_sub_devices)
    named = {"units+1": units + 1, "sum too big": [units, 1], "too many": [1] * (limit + 1)}
    arg = named[arg] if isinstance(arg, str) else arg
    with pytest.raises(sycl.exception) as info:
        root.create_sub_devices(prop, arg)
    assert info.value.code() is sycl.errc.invalid


def test_unsupported_partitioning_is_feature_not_supported(device: sycl.device) -> None:
    offered = device.get_info(D.partition_properties)
    for prop, arg in (
        (P.partition_equally, 1),
        (P.partition_by_counts, [1]),
        (P.partition_by_affinity_domain, sycl.info.partition_affinity_domain.numa),
    ):
        if prop in offered and prop is not P.partition_by_affinity_domain:
            continue
        if prop is P.partition_by_affinity_domain and arg in device.get_info(D.partition_affinity_domains):
            continue
        with pytest.raises(sycl.exception) as info:
            device.create_sub_devices(prop, arg)
        assert info.value.code() is sycl.errc.feature_not_supported


def test_sub_devices_answer_every_descriptor() -> None:
    from sycl_ocl.info._descriptor import descriptors_of

    sub = _partitionable().create_sub_devices(P.partition_equally, 1)[0]
    for desc in descriptors_of(vars(D)):
        sub.get_info(desc)


def test_queue_on_a_sub_device_of_a_context_device() -> None:
    """§4.6.5.1 accepts a descendent device; OpenCL lets a driver refuse a queue on a device the
    cl_context was not made with (Intel's CPU runtime does): errc.invalid saying what to do."""
    root = _partitionable()
    sub = root.create_sub_devices(P.partition_equally, 1)[0]
    try:
        q = sycl.queue(sycl.context(root), sub)
    except sycl.exception as error:
        assert error.code() is sycl.errc.invalid and "create the context with the sub-device" in str(error)
    else:
        assert q.get_device() == sub
        q.submit(lambda h: None).wait()
    ctx = sycl.context(sub)
    assert ctx.get_devices() == [sub]
    sycl.queue(ctx, sub).submit(lambda h: None).wait()


def test_default_queue_on_a_sub_device_has_it_in_its_context() -> None:
    """DV-02: queue(sub_device) uses a context that holds the sub-device itself, which OpenCL
    needs (Intel's CPU runtime refuses a queue whose context holds only the parent)."""
    sub = _partitionable().create_sub_devices(P.partition_equally, 1)[0]
    q = sycl.queue(sub)
    assert q.get_context().get_devices() == [sub]
    assert sycl.queue(sub).get_context() == q.get_context()  # shared, like root devices' default
    q.submit(lambda h: None).wait()


def test_sub_devices_can_be_partitioned_again() -> None:
    root = _partitionable()
    units = root.get_info(D.max_compute_units)
    # One sub-device with every unit. partition_equally(units) may fail (OpenCL asks for "smaller"
    # devices; Intel's CPU runtime refuses it); by_counts([units]) is taken by PoCL and Intel's.
    (whole,) = root.create_sub_devices(P.partition_by_counts, [units])
    assert whole.get_info(D.max_compute_units) == units
    grand = whole.create_sub_devices(P.partition_equally, 1)
    assert len(grand) == units
    assert all(g.get_info(D.parent_device) == whole for g in grand)
    assert whole.get_info(D.parent_device) == root
