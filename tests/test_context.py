"""Contexts (SYCL 2020 §4.6.3): construction, devices, descriptors, async handlers."""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest
from kernel_support import child_json

import sycl_ocl as sycl
from sycl_ocl import library

C = sycl.info.context
D = sycl.info.device

FILL = library.get_kernel_id("fill_int32")


def _fail(message: str) -> None:
    raise sycl.exception(sycl.errc.runtime, message)


def test_default_context_holds_the_default_device() -> None:
    ctx = sycl.context()
    assert sycl.device() in ctx.get_devices()
    assert ctx.get_platform() == sycl.platform()
    assert ctx.get_backend() is sycl.backend.opencl


def test_context_of_one_device(device: sycl.device) -> None:
    ctx = sycl.context(device)
    assert ctx.get_devices() == [device]
    assert ctx.get_platform() == device.get_platform()
    assert ctx.get_info(C.devices) == ctx.get_devices()
    assert ctx.get_info(C.platform) == ctx.get_platform()
    assert sycl.get_native(ctx).devices == [sycl.get_native(device)]


def test_context_of_several_devices(device_pair: list[sycl.device]) -> None:
    ctx = sycl.context(device_pair)
    assert set(ctx.get_devices()) == set(device_pair)
    assert sycl.context(device_pair + device_pair).get_devices() == device_pair  # duplicates collapse


def test_devices_of_two_platforms_are_rejected() -> None:
    firsts = [p.get_devices()[0] for p in sycl.platform.get_platforms() if p.get_devices()]
    if len(firsts) < 2:
        pytest.skip("needs devices of two platforms (PoCL and Oclgrind here)")
    with pytest.raises(sycl.exception) as info:
        sycl.context(firsts[:2])
    assert info.value.code() is sycl.errc.invalid
    assert "one platform" in info.value.what()


@pytest.mark.parametrize("bad", [[], ["not a device"], 3])
def test_bad_device_lists_are_invalid(bad: object) -> None:
    with pytest.raises(sycl.exception) as info:
        sycl.context(bad)  # type: ignore[arg-type]
    assert info.value.code() is sycl.errc.invalid


def test_contexts_are_distinct_objects(device: sycl.device) -> None:
    a, b = sycl.context(device), sycl.context(device)
    assert a != b and a == a
    assert len({a, b, a}) == 2


def test_atomic_capabilities_are_the_intersection_over_devices() -> None:
    devs = sycl.device.get_devices()
    pairs = [
        (C.atomic_memory_order_capabilities, D.atomic_memory_order_capabilities),
        (C.atomic_fence_order_capabilities, D.atomic_fence_order_capabilities),
        (C.atomic_memory_scope_capabilities, D.atomic_memory_scope_capabilities),
        (C.atomic_fence_scope_capabilities, D.atomic_fence_scope_capabilities),
    ]
    for plat in sycl.platform.get_platforms():
        ctx = sycl.context(plat.get_devices())
        for ctx_desc, dev_desc in pairs:
            expected = set.intersection(*(set(d.get_info(dev_desc)) for d in ctx.get_devices()))
            assert set(ctx.get_info(ctx_desc)) == expected
    assert devs  # the loop ran over real devices


def test_atomic_capability_minimums(device: sycl.device) -> None:
    ctx = sycl.context(device)
    mo, ms = sycl.memory_order, sycl.memory_scope
    assert mo.relaxed in ctx.get_info(C.atomic_memory_order_capabilities)
    fences = set(ctx.get_info(C.atomic_fence_order_capabilities))
    assert {mo.relaxed, mo.acquire, mo.release, mo.acq_rel} <= fences
    for desc in (C.atomic_memory_scope_capabilities, C.atomic_fence_scope_capabilities):
        assert {ms.work_item, ms.sub_group, ms.work_group} <= set(ctx.get_info(desc))


def test_context_get_info_rejects_other_descriptors(device: sycl.device) -> None:
    with pytest.raises(sycl.exception) as info:
        sycl.context(device).get_info(D.name)
    assert info.value.code() is sycl.errc.invalid


def test_context_properties(device: sycl.device) -> None:
    ctx = sycl.context(device, prop_list=sycl.property_list())
    assert not ctx.has_property(sycl.property.queue.in_order)
    with pytest.raises(sycl.exception) as info:
        ctx.get_property(sycl.property.queue.in_order)
    assert info.value.code() is sycl.errc.invalid
    with pytest.raises(sycl.exception) as info:
        sycl.context(device, prop_list=[sycl.property.queue.in_order()])
    assert info.value.code() is sycl.errc.invalid


def test_context_handler_receives_errors_of_queues_without_one(device: sycl.device) -> None:
    received: list[sycl.exception_list] = []
    ctx = sycl.context(device, async_handler=received.append)
    q = sycl.queue(ctx, device)
    q.submit(lambda h: h.host_task(lambda: _fail("from the host task")))
    q.wait_and_throw()
    assert len(received) == 1
    assert [e.what() for e in received[0]] == ["from the host task"]


def test_queue_handler_wins_over_the_context_handler(device: sycl.device) -> None:
    on_context: list[sycl.exception_list] = []
    on_queue: list[sycl.exception_list] = []
    ctx = sycl.context(device, async_handler=on_context.append)
    q = sycl.queue(ctx, device, async_handler=on_queue.append)
    q.submit(lambda h: h.host_task(lambda: _fail("boom")))
    q.wait_and_throw()
    assert (len(on_queue), len(on_context)) == (1, 0)


def test_backend_info_takes_opencl_context_names(device_pair: list[sycl.device]) -> None:
    ctx = sycl.context(device_pair)
    assert ctx.get_backend_info("NUM_DEVICES") == 2
    with pytest.raises(sycl.exception) as info:
        ctx.get_backend_info(C.devices)
    assert info.value.code() is sycl.errc.backend_mismatch


def _use_and_drop(device: sycl.device) -> tuple[weakref.ref[sycl.context], object]:
    """Run kernels, host tasks and host accessors in a new context; return what outlives it."""
    ctx = sycl.context(device)
    q = sycl.queue(ctx, device)
    data = np.zeros(64, dtype=np.int32)
    with sycl.buffer(data) as b:
        q.submit(lambda h: h.fill(sycl.accessor(b, h), 3))
        q.submit(lambda h: h.parallel_for(64, FILL, sycl.accessor(b, h), np.int32(5)))
        q.submit(lambda h: h.host_task(lambda: None)).wait()
        with b.get_host_access() as seen:
            assert (np.asarray(seen) == 5).all()
    return weakref.ref(ctx), sycl.get_native(ctx)


def test_a_dropped_context_frees_its_opencl_context(device: sycl.device) -> None:
    """Nothing in the runtime keeps a context (and its device memory) once users drop it."""
    alive, native = _use_and_drop(device)
    gc.collect()
    assert alive() is None
    assert native.reference_count == 1  # ours: no queue, buffer or program retains it


RANK_CONTEXT = """
import json
import sycl_ocl as sycl
from sycl_ocl import _discovery
pair = [d for d in sycl.device.get_devices() if "Portable" in repr(d)][:2]
chosen = sycl.device()
hidden = pair[0] if chosen == pair[1] else pair[1]
print(json.dumps({
    "chosen": _discovery.filter_name(chosen),
    "default": [_discovery.filter_name(d) for d in sycl.queue().get_context().get_devices()],
    "hidden": [_discovery.filter_name(d) for d in sycl.queue(hidden).get_context().get_devices()],
}))
"""


def test_a_process_restricted_to_one_device_has_a_default_context_of_that_device(
    device_pair: list[sycl.device],
) -> None:
    """Default queues share one context per platform, of the devices the environment's filters
    let selectors see: an MPI rank given one GPU (SYCL_OCL_DEVICE_SELECTOR) has a context of that
    GPU alone; a device the filters hide gets a context of its own."""
    from sycl_ocl import _discovery
    if "Portable" not in device_pair[0].get_platform().get_info(sycl.info.platform.name):
        pytest.skip("the child process looks for PoCL's two devices")
    second = _discovery.filter_name(device_pair[1])
    found = child_json(RANK_CONTEXT, {"SYCL_OCL_DEVICE_SELECTOR": second, "POCL_DEVICES": "pthread pthread"})
    assert found["chosen"] == second and found["default"] == [second]
    assert found["hidden"] == [_discovery.filter_name(device_pair[0])]
