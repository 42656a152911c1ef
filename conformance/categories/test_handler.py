"""Category handler (CTS tests/handler): HA-01 .. HA-11."""

from __future__ import annotations

import numpy as np
import pyopencl as cl
import pytest

import sycl_ocl as sycl
from conformance.support import Gate, Hold, raises, status

ADD, INDEX, OFFSET_ID, FILL = sycl.register_kernel_source(
    """
    __kernel void cts_add(__global int *d, int v) { d[get_global_id(0)] += v; }
    __kernel void cts_handler_index(__global int *out) {
        size_t lin = 0;
        for (int d = (int)get_work_dim() - 1; d >= 0; --d)
            lin = lin * get_global_size(d) + (get_global_id(d) - get_global_offset(d));
        out[lin] = (int)lin + 1;
    }
    __kernel void cts_handler_offset_id(__global int *out) {
        out[get_global_id(0) - get_global_offset(0)] = (int)get_global_id(0);
    }
    __kernel void cts_handler_fill(__global int *out, int v, int n) {
        for (int i = 0; i < n; ++i) out[i] = v;
    }
    """
)
NON_UNIFORM_SOURCE = "__kernel void cts_non_uniform(__global int *out) { out[get_global_id(0)] = 1; }"
DONE = sycl.info.event_command_status.complete


def test_HA_01_require_then_write(queue: sycl.queue) -> None:
    """require(placeholder), then a kernel writing through it: the host array holds the result."""
    data = np.zeros(4, np.int32)
    with sycl.buffer(data) as buf:
        acc = sycl.accessor(buf, mode=sycl.write_only)
        queue.submit(lambda h: (h.require(acc), h.parallel_for(sycl.range(4), INDEX, acc)))
    assert list(data) == [1, 2, 3, 4]


def test_HA_02_03_depends_on(queue: sycl.queue) -> None:
    """depends_on one event and a list: a dependent runs only after its dependencies completed.

    Each dependent's body records its dependencies' statuses; the gates stay shut until a
    dependent ran or their bound passed (the second gate of a list one bound later, in either
    place of the list), so a dependency ignored, or a list of which only the first or the last
    is kept, shows an incomplete dependency every time (docs/conformance.md).
    """
    hold = Hold()
    first, late, early = hold.gate(queue), hold.gate(queue, 2), hold.gate(queue)
    seen: list[list[sycl.info.event_command_status]] = []

    def dependent(deps: list[sycl.event]) -> sycl.event:
        return queue.submit(lambda h: (h.depends_on(deps if len(deps) > 1 else deps[0]),
                                       h.host_task(hold.body(deps, seen))))

    dependents = [dependent([first]), dependent([early, late]), dependent([late, early])]
    for ev in dependents:
        ev.wait()
    assert seen == [[DONE], [DONE, DONE], [DONE, DONE]], seen
    assert all(status(e) is DONE for e in (first, late, early))


@pytest.mark.parametrize("shape", [(8,), (4, 6), (2, 3, 4)])
def test_HA_04_copy_fill_update_host(queue: sycl.queue, shape: tuple[int, ...]) -> None:
    """copy host->acc, acc->acc, acc->host (whole and ranged), fill and update_host, in 1-3 D."""
    src = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)
    out = np.zeros(shape, np.int32)
    rng = sycl.range(*shape)
    a, b = sycl.buffer(rng, np.int32), sycl.buffer(rng, np.int32)
    queue.submit(lambda h: h.copy(src, sycl.accessor(a, h, sycl.write_only)))
    queue.submit(lambda h: h.copy(sycl.accessor(a, h, sycl.read_only), sycl.accessor(b, h, sycl.write_only)))
    queue.submit(lambda h: h.copy(sycl.accessor(b, h, sycl.read_only), out)).wait()
    assert (out == src).all()
    # A ranged window: the first half of dimension 0, offset by one in the last dimension.
    win = (*((max(shape[0] // 2, 1), *shape[1:-1]) if len(shape) > 1 else ()), shape[-1] - 1)
    off = (0,) * (len(shape) - 1) + (1,)
    part = np.zeros(win, np.int32)
    queue.submit(
        lambda h: h.copy(sycl.accessor(a, h, sycl.read_only, sycl.range(*win), sycl.id(*off)), part)
    ).wait()
    assert (part == src[tuple(slice(o, o + w) for o, w in zip(off, win, strict=True))]).all()
    queue.submit(lambda h: h.fill(sycl.accessor(b, h, sycl.write_only, sycl.range(*win), sycl.id(*off)), 5))
    queue.submit(lambda h: h.copy(sycl.accessor(b, h, sycl.read_only), out)).wait()
    expected = src.copy()
    expected[tuple(slice(o, o + w) for o, w in zip(off, win, strict=True))] = 5
    assert (out == expected).all()
    data = np.zeros(4, np.int32)
    c = sycl.buffer(data)
    queue.submit(lambda h: h.parallel_for(sycl.range(4), ADD, sycl.accessor(c, h), 2))
    queue.submit(lambda h: h.update_host(sycl.accessor(c, h, sycl.read_only))).wait()
    assert list(data) == [2] * 4


def _run_index(queue: sycl.queue, rng: object, shape: tuple[int, ...], kernel: object = INDEX) -> np.ndarray:
    out = np.zeros(shape, np.int32)
    with sycl.buffer(out) as buf:
        if rng == "single":
            queue.submit(lambda h: h.single_task(FILL, sycl.accessor(buf, h), 1, int(np.prod(shape))))
        else:
            queue.submit(lambda h: h.parallel_for(rng, kernel, sycl.accessor(buf, h, sycl.write_only)))
    return out


def test_HA_06_invocation_forms(queue: sycl.queue) -> None:
    """single_task, parallel_for over 1-3 D ranges and nd_ranges, and with an offset."""
    assert (_run_index(queue, "single", (5,)) == 1).all()
    for shape in ((8,), (4, 6), (2, 3, 4)):
        for rng in (
            sycl.range(*shape),
            sycl.nd_range(sycl.range(*shape), sycl.range(*(2 if s % 2 == 0 else 1 for s in shape))),
        ):
            out = _run_index(queue, rng, shape)
            assert (out.ravel() == np.arange(1, out.size + 1)).all(), rng
    assert (_run_index(queue, 6, (6,)).ravel() == np.arange(1, 7)).all()  # a plain int is a 1-D range
    with_offset = _run_index(queue, sycl.nd_range(sycl.range(8), sycl.range(4), sycl.id(5)), (8,), OFFSET_ID)
    assert list(with_offset) == list(range(5, 13))


def test_HA_07_kernel_object_forms(queue: sycl.queue) -> None:
    """The invocation forms with a kernel object from an executable bundle."""
    bundle = sycl.get_kernel_bundle(
        sycl.bundle_state.executable, queue.get_context(), kernel_ids=[INDEX, FILL]
    )
    index, fill = bundle.get_kernel(INDEX), bundle.get_kernel(FILL)
    assert (_run_index(queue, sycl.range(4, 6), (4, 6), index).ravel() == np.arange(1, 25)).all()
    assert (
        _run_index(queue, sycl.nd_range(sycl.range(8), sycl.range(4)), (8,), index) == np.arange(1, 9)
    ).all()
    out = np.zeros(3, np.int32)
    with sycl.buffer(out) as buf:
        queue.submit(lambda h: (h.set_args(sycl.accessor(buf, h), 4, 3), h.single_task(fill)))
    assert list(out) == [4, 4, 4]


def test_HA_10_nd_range_limits(queue: sycl.queue) -> None:
    """A local range that does not divide the global one, or beyond max_work_group_size: errc.nd_range."""
    with raises(sycl.errc.nd_range):
        queue.submit(
            lambda h: h.parallel_for(
                sycl.nd_range(sycl.range(10), sycl.range(4)),
                INDEX,
                sycl.accessor(sycl.buffer(sycl.range(10), np.int32), h),
            )
        )
    too_big = queue.get_device().get_info(sycl.info.device.max_work_group_size) * 2
    buf = sycl.buffer(sycl.range(too_big), np.int32)
    with raises(sycl.errc.nd_range):
        queue.submit(
            lambda h: h.parallel_for(
                sycl.nd_range(sycl.range(too_big), sycl.range(too_big)), INDEX, sycl.accessor(buf, h)
            )
        )
        queue.wait_and_throw()


def test_HA_10_driver_non_uniform_work_groups(queue: sycl.queue) -> None:
    """The driver runs a non-uniform NDRange only where it supports non-uniform work-groups."""
    dev = sycl.get_native(queue.get_device())
    ctx, nq = sycl.get_native(queue.get_context()), sycl.get_native(queue)
    opencl2 = not dev.version.startswith("OpenCL 1.")
    supported = opencl2 and bool(getattr(dev, "non_uniform_work_group_support", True))
    program = cl.Program(ctx, NON_UNIFORM_SOURCE).build("-cl-std=CL2.0" if supported else "")
    out = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 10 * 4)
    cl.enqueue_fill_buffer(nq, out, np.int32(0), 0, 10 * 4)
    kernel = program.cts_non_uniform
    kernel.set_args(out)
    if not supported:
        with pytest.raises(cl.Error):
            cl.enqueue_nd_range_kernel(nq, kernel, (10,), (4,)).wait()
        return
    cl.enqueue_nd_range_kernel(nq, kernel, (10,), (4,)).wait()
    host = np.zeros(10, np.int32)
    cl.enqueue_copy(nq, host, out, is_blocking=True)
    assert list(host) == [1] * 10


def test_HA_11_zero_sized_ranges(queue: sycl.queue) -> None:
    """Empty ranges and nd_ranges run nothing, complete, and keep later commands' dependencies."""
    data = np.zeros(4, np.int32)
    with sycl.buffer(data) as buf:
        gate = Gate()
        gate.submit(queue, lambda h: sycl.accessor(buf, h, target=sycl.target.host_task))
        empties = [
            queue.submit(lambda h, r=r: h.parallel_for(r, ADD, sycl.accessor(buf, h), 100))
            for r in (sycl.range(0), sycl.range(0, 4), sycl.nd_range(sycl.range(0), sycl.range(1)), 0)
        ]
        after = queue.submit(lambda h: h.parallel_for(sycl.range(4), ADD, sycl.accessor(buf, h), 1))
        assert status(after) is not DONE
        gate.open()
        after.wait()
        assert all(status(e) is DONE for e in empties)
    assert list(data) == [1] * 4
