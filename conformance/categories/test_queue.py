"""Category queue (CTS tests/queue): QU-01 .. QU-09."""

from __future__ import annotations

import threading

import sycl_ocl as sycl


def test_QU_01_constructors(device: sycl.device) -> None:
    """The constructor forms build queues on the expected device and context."""
    ctx = sycl.context(device)
    handler = lambda errors: None  # noqa: E731
    in_order = sycl.property_list(sycl.property.queue.in_order())
    queues = [
        sycl.queue(),
        sycl.queue(prop_list=in_order),
        sycl.queue(async_handler=handler),
        sycl.queue(sycl.default_selector_v, async_handler=handler, prop_list=in_order),
        sycl.queue(device),
        sycl.queue(device, async_handler=handler, prop_list=in_order),
        sycl.queue(ctx, sycl.default_selector_v),
        sycl.queue(ctx, device, async_handler=handler),
        sycl.queue(ctx, device, prop_list=in_order),
    ]
    assert all(q.get_device() == device for q in queues)
    assert all(q.get_context() == ctx for q in queues[-3:])
    assert [q.is_in_order() for q in queues] == [False, True, False, True, False, True, False, False, True]


def test_QU_04_submit_runs_cgf_synchronously(queue: sycl.queue) -> None:
    """submit calls the cgf once, on the calling thread, and returns an event."""
    seen: list[int] = []
    ev = queue.submit(lambda h: seen.append(threading.get_ident()))
    assert seen == [threading.get_ident()]
    assert isinstance(ev, sycl.event)
    queue.wait()
    queue.wait_and_throw()
    queue.throw_asynchronous()


def test_QU_07_profiling_property(device: sycl.device) -> None:
    """enable_profiling is reported by has/get_property, together with in_order."""
    if not device.has(sycl.aspect.queue_profiling):
        return
    props = [sycl.property.queue.enable_profiling(), sycl.property.queue.in_order()]
    q = sycl.queue(device, prop_list=props)
    assert q.has_property(sycl.property.queue.enable_profiling)
    assert isinstance(q.get_property(sycl.property.queue.in_order), sycl.property.queue.in_order)


def test_QU_08_info(queue: sycl.queue) -> None:
    """info.queue.context and device."""
    assert queue.get_info(sycl.info.queue.context) == queue.get_context()
    assert queue.get_info(sycl.info.queue.device) == queue.get_device()


def test_QU_09_reference_semantics(queue: sycl.queue) -> None:
    """A handle made from the native queue equals the queue."""
    assert sycl.make_queue(sycl.get_native(queue), queue.get_context()) == queue
