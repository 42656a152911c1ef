"""No redundant transfers (docs/scheduler.md rule S5): the per-buffer counters
of ``buffer.transfer_counters()`` after typical programs, on every device under test."""

from __future__ import annotations

import contextlib

import numpy as np
import pyopencl as cl
import pytest

import sycl_ocl as sycl

sycl.register_kernel_source(
    """
    __kernel void tt_inc(__global int* a) { a[get_global_id(0)] += 1; }
    __kernel void tt_add(__global int* a, __global const int* b) {
        a[get_global_id(0)] += b[get_global_id(0)];
    }
    __kernel void tt_set(__global int* a, int v) { a[get_global_id(0)] = v; }
    """
)

N = 64
NBYTES = N * 4


def _add(q: sycl.queue, a: sycl.buffer, b: sycl.buffer) -> sycl.event:
    return q.submit(lambda h: h.parallel_for(
        N, "tt_add", sycl.accessor(a, h), sycl.accessor(b, h, sycl.read_only)))


def test_kernel_chain_moves_each_buffer_in_once_and_out_once(queue: sycl.queue) -> None:
    x = np.ones(N, dtype=np.int32)
    y = np.zeros(N, dtype=np.int32)
    with sycl.buffer(x) as bx, sycl.buffer(y) as by:
        for _ in range(20):
            _add(queue, by, bx)
    cx, cy = bx.transfer_counters(), by.transfer_counters()
    assert (cx.h2d_bytes, cx.h2d_copies, cx.d2h_bytes) == (NBYTES, 1, 0)  # read only: never out
    assert (cy.h2d_bytes, cy.h2d_copies) == (NBYTES, 1)
    assert (cy.d2h_bytes, cy.d2h_copies) == (NBYTES, 1)  # the write-back
    assert (y == 20).all()


def test_no_init_moves_nothing_in(queue: sycl.queue) -> None:
    y = np.full(N, -1, dtype=np.int32)
    with sycl.buffer(y) as b:
        queue.submit(lambda h: h.parallel_for(
            N, "tt_set", sycl.accessor(b, h, sycl.write_only, prop_list=[sycl.property.no_init()]), 3))
    c = b.transfer_counters()
    assert c.h2d_bytes == 0 and c.d2h_bytes == NBYTES
    assert (y == 3).all()


def test_plain_write_copies_in(queue: sycl.queue) -> None:
    with sycl.buffer(np.zeros(N, dtype=np.int32)) as b:
        queue.submit(lambda h: h.parallel_for(N, "tt_set", sycl.accessor(b, h, sycl.write_only), 3))
        queue.wait()
        assert b.transfer_counters().h2d_bytes == NBYTES  # SYCL 2020: write without no_init


def test_uninitialised_buffer_moves_nothing(queue: sycl.queue) -> None:
    with sycl.buffer(sycl.range(N), np.int32) as b:
        queue.submit(lambda h: h.parallel_for(N, "tt_inc", sycl.accessor(b, h)))
        queue.wait()
    assert b.transfer_counters() == sycl.buffer(sycl.range(1), np.int8).transfer_counters()


def test_host_reads_move_only_what_changed(queue: sycl.queue) -> None:
    with sycl.buffer(np.zeros(N, dtype=np.int32)) as b:
        queue.submit(lambda h: h.parallel_for(N, "tt_inc", sycl.accessor(b, h)))
        for _ in range(3):
            with b.get_host_access(sycl.read_only) as h:
                assert (np.asarray(h) == 1).all()
        # a ranged device write invalidates only its range on the host
        queue.submit(lambda h: h.parallel_for(
            8, "tt_inc", sycl.accessor(b, h, access_range=sycl.range(8), access_offset=sycl.id(32))))
        with b.get_host_access(sycl.read_only) as h:
            assert np.asarray(h)[32:40].tolist() == [2] * 8
        c = b.transfer_counters()
        assert c.h2d_bytes == NBYTES and c.d2h_bytes == NBYTES + 32
        assert c.d2h_copies == 2


def test_write_back_skips_a_valid_host_copy(queue: sycl.queue) -> None:
    a = np.zeros(N, dtype=np.int32)
    with sycl.buffer(a) as b:
        queue.submit(lambda h: h.parallel_for(N, "tt_inc", sycl.accessor(b, h)))
        with b.get_host_access(sycl.read_only):
            pass
    assert b.transfer_counters().d2h_bytes == NBYTES  # nothing more at destruction
    assert (a == 1).all()


def test_host_unified_use_host_ptr_moves_nothing(device: sycl.device) -> None:
    if not device.get_info(sycl.info.device.host_unified_memory):
        pytest.skip(f"{device!r} has no host-unified memory (use_host_ptr buffers are copied there)")
    q = sycl.queue(device)
    a = np.zeros(N, dtype=np.int32)
    x = np.ones(N, dtype=np.int32)
    props = [sycl.property.buffer.use_host_ptr()]
    with sycl.buffer(a, prop_list=props) as ba, sycl.buffer(x, prop_list=props) as bx:
        for _ in range(5):
            _add(q, ba, bx)
        with ba.get_host_access(sycl.read_only) as h:
            assert (np.asarray(h) == 5).all()
        _add(q, ba, bx)
    for c in (ba.transfer_counters(), bx.transfer_counters()):
        assert c.h2d_bytes == c.d2h_bytes == 0
    assert (a == 6).all()


def test_device_copy_and_fill_stay_on_the_device(queue: sycl.queue) -> None:
    with sycl.buffer(sycl.range(N), np.int32) as a, sycl.buffer(sycl.range(N), np.int32) as b:
        queue.submit(lambda h: h.fill(sycl.accessor(a, h, sycl.write_only), 4))
        queue.submit(lambda h: h.copy(
            sycl.accessor(a, h, sycl.read_only), sycl.accessor(b, h, sycl.write_only)
        ))
        with b.get_host_access(sycl.read_only) as h:
            assert (np.asarray(h) == 4).all()
        ca, cb = a.transfer_counters(), b.transfer_counters()
        assert ca.h2d_bytes == cb.h2d_bytes == ca.d2h_bytes == 0
        assert cb.d2h_bytes == NBYTES and cb.d2d_bytes == NBYTES


def _record(q: sycl.queue) -> object:
    return q._lane.context  # type: ignore[attr-defined]  # the context's scheduler record


def test_reads_back_behind_the_writer_on_its_queue(device: sycl.device) -> None:
    """A write-back, or a host accessor, right after a kernel reads on the kernel's in-order
    OpenCL queue, behind it (one blocking call, docs/scheduler.md rule S16): the context's
    transfer queue is never made."""
    q = sycl.queue(sycl.context(device), device)
    x = np.zeros(N, dtype=np.int32)
    with sycl.buffer(x) as b:
        q.submit(lambda h: h.parallel_for(N, "tt_inc", sycl.accessor(b, h)))
        with sycl.host_accessor(b, sycl.read_only) as view:
            assert (np.asarray(view) == 1).all()
        q.submit(lambda h: h.parallel_for(N, "tt_inc", sycl.accessor(b, h)))
    assert (x == 2).all() and b.transfer_counters().d2h_copies == 2
    assert _record(q).queue is None  # type: ignore[attr-defined]


def test_a_write_back_behind_a_failed_kernel_keeps_the_data_and_reports_once(device: sycl.device) -> None:
    """The kernel fails (an event it waits for failed), so reading behind it may fail too: the
    write-back then waits and reads on the transfer queue, as anywhere else. The host data
    keeps what the device holds, the failure is reported once, and nothing hangs."""
    errors: list[sycl.exception] = []
    ctx = sycl.context(device)
    q = sycl.queue(ctx, device, async_handler=errors.extend)
    user = cl.UserEvent(sycl.get_native(ctx))
    x = np.arange(N, dtype=np.int32)
    with sycl.buffer(x) as b:
        def inc(h: sycl.handler) -> None:
            h.depends_on(sycl.make_event(user, ctx))
            h.parallel_for(N, "tt_inc", sycl.accessor(b, h))
        q.submit(inc)
        user.set_status(-5)
    q.throw_asynchronous()
    assert list(x) == list(range(N))
    assert len(errors) == 1 and errors[0].code() is sycl.errc.runtime


def test_moves_into_a_kernel_window_go_through_its_sub_buffer(device_pair: list[sycl.device]) -> None:
    """Transfers into and out of a sub-buffer's window go through the kernel's sub-buffer, at an
    offset inside it where they cover part of it (docs/data-movement.md): the bytes land where
    the kernels on both devices of one context read them."""
    half = 1024  # ints: 4 KiB, a multiple of any device's base address alignment
    data = np.arange(2 * half, dtype=np.int32)
    ctx = sycl.context(device_pair)
    queues = [sycl.queue(ctx, d) for d in device_pair]
    with sycl.buffer(data) as whole, contextlib.ExitStack() as views:  # all gone: the write-back
        parts = [views.enter_context(sycl.buffer(whole, sycl.id(k * half), sycl.range(half)))
                 for k in range(2)]

        def inc(k: int) -> None:
            queues[k].submit(lambda h: h.parallel_for(half, "tt_inc", sycl.accessor(parts[k], h)))

        inc(0)
        inc(1)
        inside = views.enter_context(sycl.buffer(whole, sycl.id(half + 16), sycl.range(16)))  # in parts[1]
        before = whole.transfer_counters()
        with sycl.host_accessor(inside) as acc:  # read back from inside the sub-buffer
            assert list(acc) == list(range(half + 17, half + 33))
            for i in range(16):
                acc[i] = -1
        inc(1)  # the 64 bytes written on the host go back into the sub-buffer, at its byte 64
        moved = whole.transfer_counters()
        assert (moved.d2h_bytes - before.d2h_bytes, moved.h2d_bytes - before.h2d_bytes) == (64, 64)
    expected = np.arange(2 * half, dtype=np.int32) + 1
    expected[half:] += 1
    expected[half + 16:half + 32] = 0
    assert (data == expected).all()


def test_a_read_back_goes_on_the_queue_of_the_device_that_wrote_the_bytes(
        device_pair: list[sycl.device]) -> None:
    """In a context of two devices, bytes a kernel wrote on the second device are read back on
    that device's queue, not on the context's transfer queue (the first device's): a driver
    moves the whole ``cl_mem`` between two GPUs to read it on the other one (issue 31). Here
    the read is past the size read behind the kernel, so it takes the general way."""
    ctx = sycl.context(device_pair)
    q = sycl.queue(ctx, device_pair[1])
    n = (1 << 20) // 4 + 64  # more bytes than a read behind its producer saves (SAVED_BYTES_MAX)
    x = np.zeros(n, dtype=np.int32)
    with sycl.buffer(x) as b:
        q.submit(lambda h: h.parallel_for(n, "tt_inc", sycl.accessor(b, h)))
        with sycl.host_accessor(b, sycl.read_only) as view:
            assert (np.asarray(view) == 1).all()
        assert _record(q).queue is None  # type: ignore[attr-defined]  # the transfer queue was never made
    assert (x == 1).all()
