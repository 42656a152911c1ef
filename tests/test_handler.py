"""sycl.handler (SYCL 2020 §4.9.4): kernel launches with the dimension mapping, arguments,
explicit copies, fill, update_host, depends_on and host tasks, on every device under test."""

from __future__ import annotations

import textwrap
import threading

import numpy as np
import pyopencl.cltypes as cltypes
import pytest

import sycl_ocl as sycl

sycl.register_kernel_source(
    """
    __kernel void th_ids(__global int* a) {
        /* SYCL range(R, C): OpenCL dimension 0 is the fastest (C) one */
        size_t c = get_global_id(0), r = get_global_id(1);
        a[r * get_global_size(0) + c] = (int)(r * 1000 + c);
    }
    __kernel void th_groups(__global int* a) {
        size_t i = get_global_id(1) * get_global_size(0) + get_global_id(0);
        a[i] = (int)(get_group_id(1) * 100 + get_local_id(1) * 10 + get_local_id(0));
    }
    __kernel void th_axpy(__global float* y, __global const float* x, float alpha) {
        size_t i = get_global_id(0);
        y[i] += alpha * x[i];
    }
    __kernel void th_one(__global int* a, int v) { a[0] = v; }
    """
)


def test_parallel_for_2d_maps_sycl_dims_to_opencl(queue: sycl.queue) -> None:
    a = np.zeros((3, 5), dtype=np.int32)
    with sycl.buffer(a) as b:
        queue.submit(lambda h: h.parallel_for(sycl.range(3, 5), "th_ids", sycl.accessor(b, h)))
    rows, cols = np.indices((3, 5))
    assert (a == rows * 1000 + cols).all()


def test_parallel_for_nd_range(queue: sycl.queue) -> None:
    a = np.zeros((4, 2), dtype=np.int32)
    with sycl.buffer(a) as b:
        queue.submit(lambda h: h.parallel_for(
            sycl.nd_range(sycl.range(4, 2), sycl.range(2, 2)), "th_groups", sycl.accessor(b, h)))
    r, c = np.indices((4, 2))
    assert (a == (r // 2) * 100 + (r % 2) * 10 + c).all()


def test_single_task_and_set_args(queue: sycl.queue) -> None:
    a = np.zeros(1, dtype=np.int32)
    with sycl.buffer(a) as b:
        def cgf(h: sycl.handler) -> None:
            h.set_args(sycl.accessor(b, h), 17)
            h.single_task("th_one")

        queue.submit(cgf).wait()
        with b.get_host_access(sycl.read_only) as h:
            assert h[0] == 17

        def by_index(h: sycl.handler) -> None:
            acc = sycl.accessor(b, h)
            h.set_arg(1, np.int32(23))
            h.set_arg(0, acc)
            h.single_task("th_one")

        queue.submit(by_index)
    assert a[0] == 23


def test_python_float_scalar_is_converted(queue: sycl.queue) -> None:
    y = np.ones(8, dtype=np.float32)
    x = np.arange(8, dtype=np.float32)
    with sycl.buffer(y) as by, sycl.buffer(x) as bx:
        queue.submit(lambda h: h.parallel_for(
            8, "th_axpy", sycl.accessor(by, h), sycl.accessor(bx, h, sycl.read_only), 2.0))
    assert np.allclose(y, 1 + 2 * np.arange(8))


def test_one_action_per_group(queue: sycl.queue) -> None:
    b = sycl.buffer(sycl.range(1), np.int32)

    def two(h: sycl.handler) -> None:
        acc = sycl.accessor(b, h)
        h.single_task("th_one", acc, 1)
        h.single_task("th_one", acc, 2)

    with pytest.raises(sycl.exception) as info:
        queue.submit(two)
    assert info.value.code() == sycl.errc.invalid  # §4.9.3


def test_copy_accessor_to_array_and_back(queue: sycl.queue) -> None:
    src = np.arange(10, dtype=np.int32)
    out = np.zeros(10, dtype=np.int32)
    with sycl.buffer(sycl.range(10), np.int32) as b:
        queue.submit(lambda h: h.copy(src, sycl.accessor(b, h, sycl.write_only)))
        queue.submit(lambda h: h.fill(sycl.accessor(b, h, sycl.write_only, sycl.range(3), sycl.id(7)), -1))
        queue.submit(lambda h: h.copy(sycl.accessor(b, h, sycl.read_only), out)).wait()
    assert list(out) == [*list(range(7)), -1, -1, -1]


def test_copy_accessor_to_accessor(queue: sycl.queue) -> None:
    a = np.arange(64, dtype=np.int32)
    c = np.zeros(64, dtype=np.int32)
    d = np.zeros((4, 4), dtype=np.int32)
    with sycl.buffer(a) as ba, sycl.buffer(c) as bc, sycl.buffer(d) as bd:
        queue.submit(lambda h: h.copy(sycl.accessor(ba, h, sycl.read_only),
                                      sycl.accessor(bc, h, sycl.write_only)))
        # a non-contiguous window goes through the host
        queue.submit(lambda h: h.copy(
            sycl.accessor(ba, h, sycl.read_only, sycl.range(4), sycl.id(3)),
            sycl.accessor(bd, h, sycl.write_only, sycl.range(2, 2), sycl.id(1, 1))))
        assert bc.transfer_counters().d2d_bytes == 256
    assert (c == a).all()
    assert (d[1:3, 1:3].ravel() == [3, 4, 5, 6]).all() and d[0].sum() == 0


def test_placeholder_written_by_a_copy_is_read_by_the_next(queue: sycl.queue) -> None:
    """QU-11: a placeholder that a whole-range copy or fill wrote is read correctly by a later
    command group (the write-only shortcut of one command must not stick to the accessor)."""
    src, out = np.arange(8, dtype=np.int32), np.zeros(8, np.int32)
    a, b = sycl.buffer(sycl.range(8), np.int32), sycl.buffer(sycl.range(8), np.int32)
    acc_a, acc_b = sycl.accessor(a), sycl.accessor(b)
    queue.submit(lambda h: (h.require(acc_a), h.copy(src, acc_a)))
    queue.submit(lambda h: (h.require(acc_a), h.require(acc_b), h.copy(acc_a, acc_b)))
    queue.submit(lambda h: (h.require(acc_b), h.copy(acc_b, out))).wait()
    assert list(out) == list(range(8))
    queue.submit(lambda h: (h.require(acc_a), h.fill(acc_a, 4)))
    queue.submit(lambda h: (h.require(acc_a), h.require(acc_b), h.copy(acc_a, acc_b)))
    queue.submit(lambda h: (h.require(acc_b), h.copy(acc_b, out))).wait()
    assert list(out) == [4] * 8


def test_copy_errors(queue: sycl.queue) -> None:
    b = sycl.buffer(sycl.range(4), np.int32)
    small = np.zeros(2, dtype=np.int32)
    for cgf in (
        lambda h: h.copy(sycl.accessor(b, h, sycl.read_only), small),
        lambda h: h.copy(small, sycl.accessor(b, h, sycl.read_only)),
        lambda h: h.copy(small, small),
        lambda h: h.fill(sycl.accessor(b, h, sycl.read_only), 1),
    ):
        with pytest.raises(sycl.exception) as info:
            queue.submit(cgf)
        assert info.value.code() == sycl.errc.invalid


def test_fill_non_contiguous_window(queue: sycl.queue) -> None:
    a = np.zeros((4, 4), dtype=np.float32)
    with sycl.buffer(a) as b:
        corner = (sycl.range(2, 2), sycl.id(2, 2))
        queue.submit(lambda h: h.fill(sycl.accessor(b, h, sycl.write_only, *corner), 1.5))
    expect = np.zeros((4, 4), dtype=np.float32)
    expect[2:, 2:] = 1.5
    assert (a == expect).all()


def test_update_host_writes_into_the_host_memory(queue: sycl.queue) -> None:
    a = np.zeros(8, dtype=np.int32)
    b = sycl.buffer(a)
    queue.submit(lambda h, b=b: h.fill(sycl.accessor(b, h), 3))
    queue.submit(lambda h, b=b: h.update_host(sycl.accessor(b, h, sycl.read_only))).wait()
    assert (a == 3).all()
    assert b.transfer_counters().d2h_bytes == 32
    del b


def test_depends_on_orders_independent_groups(queue: sycl.queue) -> None:
    gate = threading.Event()
    order: list[str] = []
    first = queue.submit(lambda h: h.host_task(lambda: (gate.wait(), order.append("first"))))
    second = queue.submit(lambda h: (h.depends_on(first), h.host_task(lambda: order.append("second"))))
    status = second.get_info(sycl.info.event.command_execution_status)
    assert status != sycl.info.event_command_status.complete
    gate.set()
    second.wait()
    assert order == ["first", "second"]
    assert first in second.get_wait_list()


def test_depends_on_rejects_non_events(queue: sycl.queue) -> None:
    with pytest.raises(sycl.exception) as info:
        queue.submit(lambda h: h.depends_on([1]))
    assert info.value.code() == sycl.errc.invalid


def test_host_task_sees_current_data_and_its_writes_reach_the_device(queue: sycl.queue) -> None:
    a = np.zeros(8, dtype=np.int32)
    seen: list[np.ndarray] = []
    with sycl.buffer(a) as b:
        queue.submit(lambda h: h.fill(sycl.accessor(b, h), 4))

        def cgf(h: sycl.handler) -> None:
            acc = sycl.accessor(b, h, sycl.read_write)

            def task() -> None:
                seen.append(np.asarray(acc).copy())
                np.asarray(acc)[:] += 1

            h.host_task(task)

        queue.submit(cgf)
        queue.submit(lambda h: h.single_task("th_one", sycl.accessor(b, h), 100))
    assert (seen[0] == 4).all()
    assert list(a) == [100] + [5] * 7


def test_parallel_for_help_says_how_arguments_reach_the_kernel_and_its_example_runs() -> None:
    doc = sycl.handler.parallel_for.__doc__ or ""
    for topic in ("__global T*", "__local T*", "numpy scalar", "declared type", "get_global_id(0)"):
        assert topic in doc
    example = textwrap.dedent(doc.split("Example::", 1)[1])
    data = np.arange(8, dtype=np.float32)
    exec(example, {"sycl": sycl, "q": sycl.queue(), "data": data})  # registers once: no device loop
    np.testing.assert_array_equal(data, np.arange(8, dtype=np.float32) * 2)


sycl.register_kernel_source(
    """
    typedef struct { int x; float y; } th_pair;
    __kernel void th_local(__global int *a, __local int *t) { a[get_global_id(0)] = 1; }
    __kernel void th_struct(__global int *a, th_pair p) { a[get_global_id(0)] = p.x; }
    __kernel void th_vector(__global int *a, int4 v) { a[get_global_id(0)] = v.x + v.w; }
    """
)

# Wrong arguments that the kernel's signature tells apart: types, counts, address spaces.
WRONG_ARGUMENTS = {
    "a float for int": ("th_one", lambda b, h: (1.5,), "int v"),
    "too large for int": ("th_one", lambda b, h: (2**40,), "int v"),
    "an accessor for int": ("th_one", lambda b, h: (sycl.accessor(b, h, sycl.read_only),), "int v"),
    "a count short": ("th_one", lambda b, h: (), "takes 2 argument"),
    "a Python int for a struct": ("th_struct", lambda b, h: (3,), "th_pair p"),
    "a tuple for int4": ("th_vector", lambda b, h: ((1, 2, 3, 4),), "cltypes.int4"),
    "a float4 for int4": ("th_vector", lambda b, h: (cltypes.make_float4(1, 2, 3, 4),), "bit for bit"),
    "global memory for __local": ("th_local", lambda b, h: (sycl.accessor(b, h, sycl.read_only),),
                                  "__local int *t"),
    "a value for __local": ("th_local", lambda b, h: (3,), "local memory"),
}


@pytest.mark.parametrize("case", list(WRONG_ARGUMENTS))
def test_wrong_arguments_raise_at_submit_also_behind_another_command(queue: sycl.queue, case: str) -> None:
    """A launch whose arguments the kernel's signature refuses raises errc.kernel_argument from
    submit, whether it would be enqueued at once or wait behind a host task (deferred): never
    later, as an asynchronous error. The queue goes on."""
    name, args, words = WRONG_ARGUMENTS[case]
    out, other = sycl.buffer(np.zeros(4, np.int32)), sycl.buffer(np.zeros(4, np.int32))
    for deferred in (False, True):
        gate = threading.Event()
        if deferred:
            queue.submit(lambda h, gate=gate: (sycl.accessor(out, h), h.host_task(lambda: gate.wait(30))))
        with pytest.raises(sycl.exception) as info:
            queue.submit(lambda h: h.parallel_for(4, name, sycl.accessor(out, h), *args(other, h)))
        gate.set()
        assert info.value.code() is sycl.errc.kernel_argument and words in str(info.value), info.value
        queue.wait_and_throw()  # nothing asynchronous follows
    queue.submit(lambda h: h.single_task("th_one", sycl.accessor(out, h), 7)).wait_and_throw()
    assert sycl.host_accessor(out)[0] == 7
