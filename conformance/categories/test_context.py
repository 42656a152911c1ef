"""Category context (CTS tests/context): CX-01 .. CX-05."""

from __future__ import annotations

import sycl_ocl as sycl


def test_CX_01_constructors(device: sycl.device) -> None:
    """Every constructor form gives the expected devices."""
    handler = lambda errors: None  # noqa: E731
    for ctx in (
        sycl.context(),
        sycl.context(prop_list=sycl.property_list()),
        sycl.context(async_handler=handler),
        sycl.context(async_handler=handler, prop_list=sycl.property_list()),
        sycl.context(device),
        sycl.context(device, handler),
        sycl.context(device, handler, sycl.property_list()),
        sycl.context([device]),
        sycl.context([device], handler, sycl.property_list()),
    ):
        assert ctx.get_devices() == [device]
    plat_devs = device.get_platform().get_devices()
    assert sycl.context(plat_devs).get_devices() == plat_devs
    assert sycl.context(plat_devs, handler).get_platform() == device.get_platform()


def test_CX_03_devices_and_platform(device: sycl.device) -> None:
    """get_devices(), get_platform() and get_backend()."""
    ctx = sycl.context(device)
    assert ctx.get_devices() == [device]
    assert ctx.get_platform() == device.get_platform()
    assert ctx.get_backend() is sycl.backend.opencl


def test_CX_04_info(device: sycl.device) -> None:
    """platform and devices descriptors, atomic capability minimums."""
    ctx = sycl.context(device)
    assert ctx.get_info(sycl.info.context.platform) == device.get_platform()
    assert ctx.get_info(sycl.info.context.devices) == [device]
    orders = ctx.get_info(sycl.info.context.atomic_memory_order_capabilities)
    assert sycl.memory_order.relaxed in orders
    fences = set(ctx.get_info(sycl.info.context.atomic_fence_order_capabilities))
    assert {
        sycl.memory_order.relaxed,
        sycl.memory_order.acquire,
        sycl.memory_order.release,
        sycl.memory_order.acq_rel,
    } <= fences
    for desc in (
        sycl.info.context.atomic_memory_scope_capabilities,
        sycl.info.context.atomic_fence_scope_capabilities,
    ):
        assert sycl.memory_scope.work_group in ctx.get_info(desc)


def test_CX_05_reference_semantics(device: sycl.device) -> None:
    """Handles of one context are equal and hash equal; distinct contexts are not."""
    ctx = sycl.context(device)
    same = sycl.make_context(sycl.get_native(ctx))
    assert same == ctx and hash(same) == hash(ctx)
    assert sycl.queue(ctx, device).get_context() == ctx
    assert sycl.context(device) != ctx
