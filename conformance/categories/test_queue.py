"""Category queue (CTS tests/queue): QU-01 .. QU-20."""

from __future__ import annotations

import threading

import numpy as np
import pyopencl as cl
import pytest

import sycl_ocl as sycl
from conformance.support import Gate, raises

FILL8, INC, ADD = sycl.register_kernel_source(
    """
    __kernel void cts_queue_fill8(__global int *d, int v) { for (int i = 0; i < 8; ++i) d[i] = v; }
    __kernel void cts_queue_inc(__global int *d) { d[get_global_id(0)] += 1; }
    __kernel void cts_queue_add(__global int *d, int v) { d[get_global_id(0)] += v; }
    """
)


def test_QU_01_constructors(device: sycl.device) -> None:
    """The constructor forms build queues on the expected device and context."""
    ctx = sycl.context(device)
    handler = lambda errors: None  # noqa: E731
    in_order = sycl.property_list(sycl.property.queue.in_order())
    queues = [
        sycl.queue(),
        sycl.queue(prop_list=in_order),
        sycl.queue(async_handler=handler),
        sycl.queue(async_handler=handler, prop_list=in_order),
        sycl.queue(sycl.default_selector_v),
        sycl.queue(sycl.default_selector_v, async_handler=handler, prop_list=in_order),
        sycl.queue(device),
        sycl.queue(device, async_handler=handler, prop_list=in_order),
        sycl.queue(ctx, sycl.default_selector_v),
        sycl.queue(ctx, sycl.default_selector_v, async_handler=handler, prop_list=in_order),
        sycl.queue(ctx, device, async_handler=handler),
        sycl.queue(ctx, device, prop_list=in_order),
    ]
    assert all(q.get_device() == device for q in queues)
    assert all(q.get_context() == ctx for q in queues[-4:])
    assert [q.is_in_order() for q in queues] == [False, True] * 6
    assert all(q.has_property(sycl.property.queue.in_order) == q.is_in_order() for q in queues)


def test_QU_04_submit_runs_cgf_synchronously(queue: sycl.queue) -> None:
    """submit calls the cgf once, on the calling thread, and returns an event."""
    seen: list[int] = []
    ev = queue.submit(lambda h: seen.append(threading.get_ident()))
    assert seen == [threading.get_ident()]
    assert isinstance(ev, sycl.event)
    assert queue.get_device() == queue.get_info(sycl.info.queue.device)
    queue.wait()
    queue.wait_and_throw()
    queue.throw_asynchronous()


def test_QU_06_absent_property_is_invalid(queue: sycl.queue) -> None:
    """queue.get_property of a property the queue lacks raises errc.invalid."""
    assert not queue.has_property(sycl.property.queue.enable_profiling)
    with raises(sycl.errc.invalid):
        queue.get_property(sycl.property.queue.enable_profiling)


def test_QU_07_profiling_property(device: sycl.device) -> None:
    """enable_profiling is reported by has/get_property, alone and with in_order."""
    prof = sycl.property.queue.enable_profiling()
    if not device.has(sycl.aspect.queue_profiling):
        with raises(sycl.errc.feature_not_supported):
            sycl.queue(device, prop_list=[prof])
        pytest.skip("the device has no queue_profiling aspect (checked: enable_profiling is refused)")
    for props in ([prof], [prof, sycl.property.queue.in_order()]):
        q = sycl.queue(sycl.context(device), device, prop_list=props)
        assert q.has_property(sycl.property.queue.enable_profiling)
        assert isinstance(q.get_property(sycl.property.queue.enable_profiling), type(prof))
        assert q.is_in_order() == (len(props) == 2)


def test_QU_08_info(queue: sycl.queue) -> None:
    """info.queue.context and device."""
    assert queue.get_info(sycl.info.queue.context) == queue.get_context()
    assert queue.get_info(sycl.info.queue.device) == queue.get_device()


def test_QU_09_reference_semantics(device: sycl.device) -> None:
    """A handle made from the native queue equals the queue and shares its properties."""
    q = sycl.queue(device, prop_list=[sycl.property.queue.in_order()])
    same = sycl.make_queue(sycl.get_native(q), q.get_context())
    assert same == q and hash(same) == hash(q)
    assert same.is_in_order() and same.has_property(sycl.property.queue.in_order)
    assert sycl.queue(device) != q


def test_QU_10_kernel_shortcuts(queue: sycl.queue) -> None:
    """single_task and parallel_for shortcuts with no, one and a list of dependencies.

    Shortcut kernels take no accessors (§4.6.5.2), so they write a native buffer and only
    their events order them.
    """
    native = cl.Buffer(sycl.get_native(queue.get_context()), cl.mem_flags.READ_WRITE, 8 * 4)
    gate = Gate()
    first = gate.submit(queue)
    e1 = queue.single_task(FILL8, native, 5, depends_on=first)
    e2 = queue.parallel_for(sycl.range(8), INC, native, depends_on=e1)
    e3 = queue.parallel_for(sycl.nd_range(sycl.range(8), sycl.range(4)), INC, native, depends_on=[e1, e2])
    assert all(isinstance(e, sycl.event) for e in (e1, e2, e3))
    gate.open()
    e3.wait()
    out = np.zeros(8, np.int32)
    cl.enqueue_copy(sycl.get_native(queue), out, native, is_blocking=True)
    assert list(out) == [7] * 8
    e4 = queue.parallel_for(sycl.range(8), ADD, native, 3)  # no dependency at all
    e4.wait()
    cl.enqueue_copy(sycl.get_native(queue), out, native, is_blocking=True)
    assert list(out) == [10] * 8


def test_QU_11_explicit_copy_shortcuts(queue: sycl.queue) -> None:
    """copy (host <-> accessor, accessor -> accessor), fill and update_host on the queue."""
    src = np.arange(8, dtype=np.int32)
    host = np.zeros(8, np.int32)
    a, b = sycl.buffer(sycl.range(8), np.int32), sycl.buffer(host)
    acc_a, acc_b = sycl.accessor(a, mode=sycl.read_write), sycl.accessor(b, mode=sycl.read_write)
    q = queue
    q.copy(src, acc_a).wait()
    q.copy(acc_a, acc_b).wait()
    out = np.zeros(8, np.int32)
    q.copy(acc_b, out).wait()
    assert list(out) == list(range(8))
    q.fill(acc_a, np.int32(4)).wait()
    q.copy(acc_a, out).wait()
    assert list(out) == [4] * 8
    q.update_host(acc_b).wait()
    assert list(host) == list(range(8))


def test_QU_20_many_concurrent_queues(device: sycl.device) -> None:
    """16 queues, each with its own chain of 8 kernels on its own buffer, all in flight at once."""
    gate = Gate()
    queues = [sycl.queue(device) for _ in range(16)]
    buffers = [sycl.buffer(np.full(256, i, np.int32)) for i in range(16)]
    for q, buf in zip(queues, buffers, strict=True):
        gate.submit(q, lambda h, buf=buf: sycl.accessor(buf, h, target=sycl.target.host_task))
        for _ in range(8):
            q.submit(lambda h, buf=buf: h.parallel_for(sycl.range(256), INC, sycl.accessor(buf, h)))
    gate.open()
    for q in queues:
        q.wait_and_throw()
    for i, buf in enumerate(buffers):
        with sycl.host_accessor(buf, sycl.read_only) as acc:
            assert (np.asarray(acc) == i + 8).all(), i
