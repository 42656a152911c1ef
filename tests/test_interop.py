"""Interop with PyOpenCL (SYCL 2020 §4.5.1): ``get_native`` and ``make_*``, one to one,
so PyOpenCL code and sycl_ocl share contexts, queues and events."""

from __future__ import annotations

import threading
import time

import numpy as np
import pyopencl as cl
import pytest

import sycl_ocl as sycl

COMPLETE = cl.command_execution_status.COMPLETE
DOUBLE = "__kernel void twice(__global int *a) { a[get_global_id(0)] *= 2; }"
sycl.register_kernel_source(
    "__kernel void fdn_interop_add(__global int *a, int v) { a[get_global_id(0)] += v; }"
    "__kernel void fdn_interop_triple(__global int *a) { a[get_global_id(0)] *= 3; }"
)


def test_get_native_returns_the_wrapped_pyopencl_objects(device: sycl.device) -> None:
    ctx = sycl.context(device)
    q = sycl.queue(ctx, device)
    assert isinstance(sycl.get_native(device.get_platform()), cl.Platform)
    assert isinstance(sycl.get_native(device), cl.Device)
    assert isinstance(sycl.get_native(ctx), cl.Context)
    native_q = sycl.get_native(q)
    assert isinstance(native_q, cl.CommandQueue)
    assert native_q.device == sycl.get_native(device)
    assert native_q.context == sycl.get_native(ctx)
    assert isinstance(sycl.get_native(q.submit(lambda h: None)), cl.Event)


def test_make_is_one_to_one(device: sycl.device) -> None:
    native = cl.Device.from_int_ptr(sycl.get_native(device).int_ptr)  # a second PyOpenCL object
    made = sycl.make_device(native)
    assert sycl.get_native(made) is native
    assert made == device and hash(made) == hash(device)
    assert sycl.make_device(sycl.get_native(device)) is device
    plat = sycl.get_native(device.get_platform())
    assert sycl.make_platform(plat) is device.get_platform()
    assert sycl.get_native(sycl.make_platform(plat)) is plat
    ctx = sycl.context(device)
    assert sycl.make_context(sycl.get_native(ctx)) is ctx
    q = sycl.queue(ctx, device)
    assert sycl.make_queue(sycl.get_native(q), ctx) is q


def test_pyopencl_context_and_queue_run_sycl_work(device: sycl.device) -> None:
    native_ctx = cl.Context([sycl.get_native(device)])
    native_q = cl.CommandQueue(native_ctx)
    ctx = sycl.make_context(native_ctx)
    q = sycl.make_queue(native_q, ctx)
    assert ctx.get_devices() == [device]
    assert q.get_context() == ctx and q.get_device() == device
    assert sycl.get_native(q) is native_q
    # A PyOpenCL kernel gated by a user event; the SYCL host task depends on its event.
    gate = cl.UserEvent(native_ctx)
    host = np.arange(16, dtype=np.int32)
    buf = cl.Buffer(native_ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=host)
    kernel = cl.Program(native_ctx, DOUBLE).build().twice
    kernel_event = kernel(native_q, (16,), None, buf, wait_for=[gate])
    seen: list[np.ndarray] = []

    def read_back() -> None:
        out = np.empty_like(host)
        cl.enqueue_copy(native_q, out, buf)
        seen.append(out)

    ev = q.submit(lambda h: (h.depends_on(sycl.make_event(kernel_event, ctx)), h.host_task(read_back)))
    assert ev.get_info(sycl.info.event.command_execution_status) is sycl.info.event_command_status.submitted
    assert seen == []
    gate.set_status(cl.command_execution_status.COMPLETE)
    ev.wait()
    assert (seen[0] == 2 * np.arange(16)).all()


def test_sycl_queue_runs_raw_pyopencl_kernels(queue: sycl.queue) -> None:
    native_ctx = sycl.get_native(queue.get_context())
    native_q = sycl.get_native(queue)
    host = np.arange(32, dtype=np.int32)
    buf = cl.Buffer(native_ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=host)
    cl.Program(native_ctx, DOUBLE).build().twice(native_q, (32,), None, buf)
    cl.enqueue_copy(native_q, host, buf)
    assert (host == 2 * np.arange(32)).all()


def test_make_context_takes_an_async_handler(device: sycl.device) -> None:
    received: list[sycl.exception_list] = []
    ctx = sycl.make_context(cl.Context([sycl.get_native(device)]), async_handler=received.append)
    q = sycl.queue(ctx, device)

    def fail() -> None:
        raise sycl.exception(sycl.errc.runtime, "interop failure")

    q.submit(lambda h: h.host_task(fail))
    q.wait_and_throw()
    assert [e.what() for e in received[0]] == ["interop failure"]


def test_an_out_of_order_native_queue_still_orders_dependent_commands(device: sycl.device) -> None:
    ooo = cl.command_queue_properties.OUT_OF_ORDER_EXEC_MODE_ENABLE
    if not sycl.get_native(device).queue_properties & ooo:
        pytest.skip("the device has no out-of-order queues")
    ctx = sycl.context(device)
    q = sycl.make_queue(cl.CommandQueue(sycl.get_native(ctx), sycl.get_native(device), ooo), ctx)
    gate = cl.UserEvent(sycl.get_native(ctx))
    buf = sycl.buffer(np.zeros(8, dtype=np.int32))
    q.submit(lambda h: (h.depends_on(sycl.make_event(gate, ctx)),
                        h.parallel_for(8, "fdn_interop_add", sycl.accessor(buf, h), np.int32(1))))
    triple = q.submit(lambda h: h.parallel_for(8, "fdn_interop_triple", sycl.accessor(buf, h)))
    second = sycl.get_native(triple)
    try:
        # The OpenCL queue does not order them: the second command must wait for the first's
        # event. Without that edge it runs at once (PoCL starts flushed ready commands;
        # Oclgrind's clFlush would wait for the gate instead, see docs/scheduler.md).
        if "Oclgrind" not in device.get_platform().get_info(sycl.info.platform.name):
            sycl.get_native(q).flush()
        deadline = time.monotonic() + 0.5
        while second.command_execution_status != COMPLETE and time.monotonic() < deadline:
            time.sleep(0.01)
        assert second.command_execution_status != COMPLETE, "it ran while the first was held back"
    finally:
        gate.set_status(COMPLETE)
    with sycl.host_accessor(buf) as out:
        assert (np.asarray(out) == 3).all()


def test_make_queue_takes_an_async_handler(device: sycl.device) -> None:
    received: list[sycl.exception_list] = []
    ctx = sycl.make_context(cl.Context([sycl.get_native(device)]))
    q = sycl.make_queue(cl.CommandQueue(sycl.get_native(ctx)), ctx, async_handler=received.append)
    started = threading.Event()

    def fail() -> None:
        started.set()
        raise sycl.exception(sycl.errc.runtime, "queue handler")

    q.submit(lambda h: h.host_task(fail))
    q.wait_and_throw()
    assert started.is_set() and len(received) == 1


def test_make_queue_and_event_check_the_context(device: sycl.device) -> None:
    ctx, other = sycl.context(device), sycl.context(device)
    native_q = cl.CommandQueue(sycl.get_native(ctx))
    user = cl.UserEvent(sycl.get_native(ctx))
    for make in (lambda: sycl.make_queue(native_q, other), lambda: sycl.make_event(user, other)):
        with pytest.raises(sycl.exception) as info:
            make()
        assert info.value.code() is sycl.errc.invalid
    user.set_status(cl.command_execution_status.COMPLETE)


@pytest.mark.parametrize(
    "make", [sycl.make_platform, sycl.make_device, sycl.make_context], ids=lambda f: f.__name__
)
def test_make_rejects_other_objects(make: object) -> None:
    with pytest.raises(sycl.exception) as info:
        make("not an OpenCL object")  # type: ignore[operator]
    assert info.value.code() is sycl.errc.invalid


def test_get_native_for_another_backend_is_a_mismatch(device: sycl.device) -> None:
    with pytest.raises(sycl.exception) as info:
        sycl.get_native(device, backend="level_zero")  # type: ignore[arg-type]
    assert info.value.code() is sycl.errc.backend_mismatch
    with pytest.raises(sycl.exception) as info:
        sycl.get_native(object())
    assert info.value.code() is sycl.errc.backend_mismatch


def test_copies_are_the_same_object(device: sycl.device) -> None:
    import copy
    import pickle

    others = [d for d in sycl.device.get_devices() if d != device]
    ctx = sycl.context(device)
    q = sycl.queue(ctx, device)
    for obj in (device, device.get_platform(), ctx, q):
        assert copy.copy(obj) is obj and copy.deepcopy(obj) is obj
        with pytest.raises(TypeError):
            pickle.dumps(obj)
    assert all(sycl.get_native(d) != sycl.get_native(device) for d in others)  # nothing was rebound



def test_a_sycl_kernel_runs_on_a_pyopencl_queue(device: sycl.device) -> None:
    native_ctx = cl.Context([sycl.get_native(device)])
    q = sycl.make_queue(cl.CommandQueue(native_ctx), sycl.make_context(native_ctx))
    host = np.arange(8, dtype=np.int32)
    with sycl.buffer(host) as buf:
        q.submit(lambda h: h.parallel_for(sycl.range(8), "fdn_interop_add", sycl.accessor(buf, h), 5))
    assert (host == np.arange(8) + 5).all()
