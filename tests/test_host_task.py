"""Host tasks (SYCL 2020 §4.10): ``interop_handle`` and native work that is part of the task
(§4.10.2), errors inside host tasks, and profiling timestamps of host tasks (§4.6.6.2).

Ordering uses gates (a host task waiting on a ``threading.Event``), never sleeps.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable

import numpy as np
import pyopencl as cl
import pyopencl.array as cl_array
import pytest

import sycl_ocl as sycl

sycl.register_kernel_source(
    """
    __kernel void ht_inc(__global int* a) { a[get_global_id(0)] += 1; }
    __kernel void ht_copy(__global int* dst, __global const int* src) {
        dst[get_global_id(0)] = src[get_global_id(0)];
    }
    """
)
EP = sycl.info.event_profiling
PROFILING = [sycl.property.queue.enable_profiling()]
IN_ORDER = [sycl.property.queue.in_order()]


def native_task(buf: sycl.buffer, body: Callable[[sycl.interop_handle, cl.Buffer], object],
                mode: object = sycl.read_write) -> Callable[[sycl.handler], None]:
    """A command group whose host task runs ``body(ih, mem)`` on the buffer's native memory."""

    def cgf(h: sycl.handler) -> None:
        acc = sycl.accessor(buf, h, mode)
        h.host_task(lambda ih: body(ih, *ih.get_native_mem(acc)))

    return cgf


def fill(value: int) -> Callable[[sycl.interop_handle, cl.Buffer], object]:
    """A body filling the memory with ``value`` on the native queue."""
    return lambda ih, mem: cl.enqueue_fill_buffer(ih.get_native_queue(), mem, np.int32(value), 0, mem.size)


def inc(q: sycl.queue, buf: sycl.buffer) -> sycl.event:
    return q.submit(lambda h: h.parallel_for(buf.size(), "ht_inc", sycl.accessor(buf, h)))


def body_gate(device: sycl.device) -> threading.Event:
    """A gate for a native task's body, so that later commands are submitted while it runs.

    On Oclgrind the body runs under the scheduler's lock (Oclgrind is not thread safe), so no
    submission can happen while it runs: there the gate is open from the start.
    """
    gate = threading.Event()
    if "Oclgrind" in device.get_platform().get_info(sycl.info.platform.name):
        gate.set()
    return gate


def async_errors(device: sycl.device) -> tuple[sycl.queue, list[sycl.exception]]:
    seen: list[sycl.exception] = []
    return sycl.queue(device, async_handler=lambda errors: seen.extend(errors)), seen


# --- interop_handle ----------------------------------------------------------------------------


@pytest.mark.parametrize("props", [None, IN_ORDER], ids=["out-of-order", "in-order"])
def test_pyopencl_array_work_is_seen_by_a_kernel_and_a_host_accessor(
    device: sycl.device, props: list[object] | None
) -> None:
    """The user's case: pyopencl.array doubles a SYCL buffer through get_native_mem; a later
    kernel and a host accessor see the result (the host accessor used to return stale data)."""
    q = sycl.queue(device, prop_list=props)
    data = np.arange(64, dtype=np.int32)
    buf = sycl.buffer(data)
    inc(q, buf)  # the current data is on the device first

    def double(ih: sycl.interop_handle, mem: cl.Buffer) -> None:
        arr = cl_array.Array(ih.get_native_queue(), (64,), np.int32, data=mem)
        arr *= 2

    q.submit(native_task(buf, double))
    inc(q, buf)
    with sycl.host_accessor(buf, sycl.read_only) as acc:
        assert np.asarray(acc).tolist() == [(i + 1) * 2 + 1 for i in range(64)]
    del buf
    assert data.tolist() == [(i + 1) * 2 + 1 for i in range(64)]


def test_native_work_on_an_out_of_order_opencl_queue(device: sycl.device) -> None:
    """A queue made from an out-of-order PyOpenCL queue: the transfers complete before the body,
    and the marker after everything the body enqueued, so a later kernel sees the native work."""
    ctx = sycl.context(device)
    props = cl.command_queue_properties.OUT_OF_ORDER_EXEC_MODE_ENABLE
    if not sycl.get_native(device).queue_properties & props:
        pytest.skip(f"{device!r} has no out-of-order queues")
    q = sycl.make_queue(cl.CommandQueue(sycl.get_native(ctx), sycl.get_native(device), props), ctx)
    # The kernel is made before the body builds pyopencl.array's: PoCL 3.1 crashed once making a
    # program while another thread built one on the context (docs/devices/README.md).
    inc(q, sycl.buffer(np.zeros(1, dtype=np.int32))).wait()
    data = np.arange(32, dtype=np.int32)

    def add_then_double(ih: sycl.interop_handle, mem: cl.Buffer) -> None:
        arr = cl_array.Array(ih.get_native_queue(), (32,), np.int32, data=mem)
        arr += 1
        arr *= 2

    with sycl.buffer(data) as buf:
        q.submit(native_task(buf, add_then_double))
        inc(q, buf)
    assert data.tolist() == [(i + 1) * 2 + 1 for i in range(32)]


def test_native_task_reads_what_the_host_wrote(queue: sycl.queue) -> None:
    """Memory current on the host is moved to the device before the body runs."""
    data = np.arange(16, dtype=np.int32)
    seen = np.zeros(16, dtype=np.int32)
    with sycl.buffer(data) as buf:
        queue.submit(native_task(
            buf, lambda ih, mem: cl.enqueue_copy(ih.get_native_queue(), seen, mem), sycl.read_only)).wait()
    assert seen.tolist() == list(range(16))


def test_handle_gives_the_queues_native_objects(queue: sycl.queue) -> None:
    got: dict[str, object] = {}

    def body(ih: sycl.interop_handle) -> None:
        got.update(backend=ih.get_backend(), queue=ih.get_native_queue(), device=ih.get_native_device(),
                   context=ih.get_native_context(), repr=repr(ih))

    queue.submit(lambda h: h.host_task(body)).wait_and_throw()
    assert got["backend"] is sycl.backend.opencl
    assert got["queue"] is sycl.get_native(queue)
    assert got["device"] == sycl.get_native(queue.get_device())
    assert got["context"] == sycl.get_native(queue.get_context())
    assert "interop_handle" in str(got["repr"])
    with pytest.raises(TypeError):
        sycl.interop_handle()


def test_a_dependent_on_the_same_in_order_queue_waits_for_the_native_work(device: sycl.device) -> None:
    """A kernel submitted while the body is still running (so before the task's marker exists)
    runs after the native work, on the same in-order OpenCL queue."""
    q = sycl.queue(device, prop_list=IN_ORDER)
    gate = body_gate(device)
    data = np.zeros(32, dtype=np.int32)
    with sycl.buffer(data) as buf:
        q.submit(native_task(buf, lambda ih, mem: (gate.wait(30), fill(7)(ih, mem))))
        q.submit(lambda h: h.parallel_for(32, "ht_inc", sycl.accessor(buf, h)))  # in order, same buffer
        gate.set()
    assert data.tolist() == [8] * 32


def test_other_queues_and_contexts_see_the_native_work(device: sycl.device) -> None:
    """The task reads what another context wrote (through the host); a queue of the same
    context waits for its marker through its wait list; a queue of another context gets its
    result through the host."""
    q1 = sycl.queue(device)
    q2 = sycl.queue(q1.get_context(), device)
    q3 = sycl.queue(sycl.context(device), device)
    gate = body_gate(device)
    data = np.zeros(32, dtype=np.int32)
    out2, out3 = np.zeros(32, dtype=np.int32), np.zeros(32, dtype=np.int32)
    with sycl.buffer(data) as buf, sycl.buffer(out2) as b2, sycl.buffer(out3) as b3:
        inc(q3, buf)

        def add_four(ih: sycl.interop_handle, mem: cl.Buffer) -> None:
            gate.wait(30)
            arr = cl_array.Array(ih.get_native_queue(), (32,), np.int32, data=mem)
            arr += 4

        q1.submit(native_task(buf, add_four))
        for q, dst in ((q2, b2), (q3, b3)):
            q.submit(lambda h, dst=dst: h.parallel_for(32, "ht_copy", sycl.accessor(dst, h, sycl.write_only),
                                                       sycl.accessor(buf, h, sycl.read_only)))
        gate.set()
    assert out2.tolist() == [5] * 32 and out3.tolist() == [5] * 32


def test_native_tasks_on_two_devices_of_one_context(device_pair: list[sycl.device]) -> None:
    """One context, two devices: native work on each device's queue reaches the other's kernels."""
    ctx = sycl.context(device_pair)
    q0, q1 = (sycl.queue(ctx, d) for d in device_pair)
    data = np.zeros(32, dtype=np.int32)
    with sycl.buffer(data) as buf:
        q0.submit(native_task(buf, fill(3)))
        inc(q1, buf)

        def add_ten(ih: sycl.interop_handle, mem: cl.Buffer) -> None:
            arr = cl_array.Array(ih.get_native_queue(), (32,), np.int32, data=mem)
            arr += 10
            assert ih.get_native_device() == sycl.get_native(device_pair[1])

        q1.submit(native_task(buf, add_ten))
        inc(q0, buf)
    assert data.tolist() == [3 + 1 + 10 + 1] * 32


def test_sub_buffer_and_ranged_accessors(queue: sycl.queue) -> None:
    """get_native_mem is the memory of the accessor's buffer: a sub-buffer's own memory, the
    whole buffer for a ranged accessor (whose offset the native code applies)."""
    align = queue.get_device().get_info(sycl.info.device.mem_base_addr_align) // 8 // 4  # in ints
    n = 4 * max(align, 4)
    data = np.zeros(n, dtype=np.int32)
    with sycl.buffer(data) as whole:
        sub = sycl.buffer(whole, sycl.id(align), sycl.range(align))
        sizes: list[int] = []

        def on_sub(ih: sycl.interop_handle, mem: cl.Buffer) -> None:
            sizes.append(mem.size)
            fill(1)(ih, mem)

        queue.submit(native_task(sub, on_sub))

        def ranged(h: sycl.handler) -> None:
            acc = sycl.accessor(whole, h, sycl.read_write, sycl.range(2), sycl.id(n - 2))

            def body(ih: sycl.interop_handle) -> None:
                (mem,) = ih.get_native_mem(acc)
                sizes.append(mem.size)
                offset = acc.get_offset()[0] * 4
                cl.enqueue_fill_buffer(ih.get_native_queue(), mem, np.int32(2), offset, 8)

            h.host_task(body)

        queue.submit(ranged)
        queue.wait_and_throw()
        del sub
    assert sizes == [align * 4, n * 4]
    assert data.tolist() == [0] * align + [1] * align + [0] * (n - 2 * align - 2) + [2, 2]


def test_zero_byte_buffer_has_no_native_memory(queue: sycl.queue) -> None:
    got: list[object] = []
    with sycl.buffer(sycl.range(0), np.int32) as buf:
        queue.submit(native_task(buf, lambda ih, *mems: got.append(mems))).wait_and_throw()
    assert got == [()]


def test_a_host_task_without_a_parameter_keeps_host_data(queue: sycl.queue) -> None:
    """fn() still sees the buffer on the host (numpy view), after device work."""
    data = np.zeros(8, dtype=np.int32)
    with sycl.buffer(data) as buf:
        inc(queue, buf)

        def cgf(h: sycl.handler) -> None:
            acc = sycl.accessor(buf, h, sycl.read_write, target=sycl.target.host_task)
            h.host_task(lambda: np.asarray(acc).__imul__(5))

        queue.submit(cgf)
    assert data.tolist() == [5] * 8


def test_native_tasks_from_many_threads_on_one_buffer(device: sycl.device) -> None:
    """Threads submit native tasks and kernels on one buffer: each runs after the previous
    writer, whatever thread submitted it (every public call may come from any thread)."""
    q = sycl.queue(device)
    data = np.zeros(64, dtype=np.int32)

    def add_one(ih: sycl.interop_handle, mem: cl.Buffer) -> None:
        arr = cl_array.Array(ih.get_native_queue(), (64,), np.int32, data=mem)
        arr += 1

    with sycl.buffer(data) as buf:
        def work() -> None:
            for _ in range(5):
                q.submit(native_task(buf, add_one))
                inc(q, buf)

        threads = [threading.Thread(target=work) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert data.tolist() == [40] * 64


# --- misuse and errors -------------------------------------------------------------------------


def test_misuse_is_refused_when_submitted(queue: sycl.queue) -> None:
    with sycl.buffer(sycl.range(4), np.int32) as buf:
        with pytest.raises(sycl.exception) as info:
            queue.submit(lambda h: h.host_task(lambda a, b: None))
        assert info.value.code() is sycl.errc.invalid and "fn() or fn(interop_handle)" in info.value.what()

        def host_target_before(h: sycl.handler) -> None:
            sycl.accessor(buf, h, target=sycl.target.host_task)
            h.host_task(lambda ih: None)

        def host_target_after(h: sycl.handler) -> None:
            h.host_task(lambda ih: None)
            sycl.accessor(buf, h, target=sycl.target.host_task)

        def placeholder_after(h: sycl.handler) -> None:
            h.host_task(lambda ih: None)
            h.require(sycl.accessor(buf, sycl.read_write, target=sycl.target.host_task))

        for cgf in (host_target_before, host_target_after, placeholder_after):
            with pytest.raises(sycl.exception) as info:
                queue.submit(cgf)
            assert info.value.code() is sycl.errc.invalid and "separate host task" in info.value.what()
        inc(queue, buf).wait()  # nothing was submitted, and the queue works


def test_get_native_mem_takes_accessors_of_its_command_group(device: sycl.device) -> None:
    q, seen = async_errors(device)
    with sycl.buffer(sycl.range(4), np.int32) as a, sycl.buffer(sycl.range(4), np.int32) as b:
        other = sycl.accessor(b, sycl.read_write)  # a placeholder never required here

        def cgf(h: sycl.handler) -> None:
            sycl.accessor(a, h)
            h.host_task(lambda ih: ih.get_native_mem(other))

        q.submit(cgf)
        q.submit(lambda h: h.host_task(lambda ih: ih.get_native_queue(backend="cuda")))
        q.wait_and_throw()
    codes = {e.code(): e for e in seen}  # the two tasks are independent: either may fail first
    assert len(seen) == 2 and set(codes) == {sycl.errc.invalid, sycl.errc.backend_mismatch}
    assert "of this host task's command group" in codes[sycl.errc.invalid].what()


def test_an_error_in_the_body_is_asynchronous_and_dependents_still_run(device: sycl.device) -> None:
    """The body raises after enqueuing native work: the error reaches the async handler as
    errc.runtime caused by it; the native work is still ordered before the dependents."""
    q, seen = async_errors(device)
    gate = body_gate(device)
    data = np.zeros(16, dtype=np.int32)

    def body(ih: sycl.interop_handle, mem: cl.Buffer) -> None:
        gate.wait(30)
        fill(4)(ih, mem)
        raise ValueError("native work went wrong")

    with sycl.buffer(data) as buf:
        failed = q.submit(native_task(buf, body))
        after = inc(q, buf)
        gate.set()
        after.wait()
    q.wait_and_throw()
    assert data.tolist() == [5] * 16
    assert len(seen) == 1 and seen[0].code() is sycl.errc.runtime
    assert isinstance(seen[0].__cause__, ValueError)
    status = failed.get_info(sycl.info.event.command_execution_status)
    assert status is sycl.info.event_command_status.complete


def test_a_native_command_that_fails_is_reported(device: sycl.device) -> None:
    """A refused native call (a fill past the end) is the body's error; the queue goes on."""
    q, seen = async_errors(device)
    data = np.zeros(4, dtype=np.int32)
    with sycl.buffer(data) as buf:
        q.submit(native_task(
            buf, lambda ih, mem: cl.enqueue_fill_buffer(ih.get_native_queue(), mem, np.int32(1), 0, 64)))
        inc(q, buf)
    q.wait_and_throw()
    assert data.tolist() == [1] * 4
    assert len(seen) == 1 and isinstance(seen[0].__cause__, cl.Error)


# --- profiling -----------------------------------------------------------------------------------


def stamps(ev: sycl.event) -> tuple[int, int, int]:
    submit, start, end = (ev.get_profiling_info(d)
                          for d in (EP.command_submit, EP.command_start, EP.command_end))
    return submit, start, end


def test_host_tasks_have_timestamps_on_the_devices_clock(device: sycl.device) -> None:
    """A kernel, a host task, a native task and a kernel in a chain: each command's times are
    ordered, and each starts after the previous one ended, on one clock (the host times are
    converted to the device's profiling clock; 1 ms allows for the conversion's error)."""
    if not device.has(sycl.aspect.queue_profiling):
        pytest.skip(f"{device!r} has no aspect.queue_profiling")
    q = sycl.queue(device, prop_list=[*PROFILING, *IN_ORDER])
    slack = 1_000_000
    with sycl.buffer(np.zeros(256, dtype=np.int32)) as buf:
        events = [inc(q, buf)]

        def host(h: sycl.handler) -> None:
            acc = sycl.accessor(buf, h, target=sycl.target.host_task)
            h.host_task(lambda: np.asarray(acc).__iadd__(1))

        events.append(q.submit(host))
        events.append(q.submit(native_task(buf, fill(9))))
        events.append(inc(q, buf))
        times = [stamps(ev) for ev in events]
    for submit, start, end in times:
        assert submit <= start <= end
    for (_, _, end), (_, start, _) in itertools.pairwise(times):
        assert end <= start + slack
    assert times[-1][2] - times[0][0] < 60 * 10**9  # one clock, not two unrelated ones


def test_a_copy_run_on_the_host_has_timestamps(device: sycl.device) -> None:
    if not device.has(sycl.aspect.queue_profiling):
        pytest.skip(f"{device!r} has no aspect.queue_profiling")
    q = sycl.queue(device, prop_list=PROFILING)
    out = np.zeros((4, 2), dtype=np.int32)
    with sycl.buffer(np.arange(32, dtype=np.int32).reshape(4, 8)) as buf:
        ev = q.submit(lambda h: h.copy(sycl.accessor(buf, h, sycl.read_only, sycl.range(4, 2)), out))
        submit, start, end = stamps(ev)
    assert submit <= start <= end
    assert out.tolist() == [[0, 1], [8, 9], [16, 17], [24, 25]]
