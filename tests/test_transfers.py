"""No redundant transfers (docs/scheduler.md rule S5): the per-buffer counters
of ``buffer.transfer_counters()`` after typical programs, on every device under test."""

from __future__ import annotations

import contextlib
from dataclasses import fields
from typing import Any

import numpy as np
import pyopencl as cl
import pytest

import sycl_ocl as sycl
from sycl_ocl import _native

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


# --- the fast paths move what full planning moves (issue 31) ---------------------------------
# Repeated copies between a window and a numpy array replay their shapes (docs/scheduler.md
# rule S32), a graph's memcpy nodes copy once per replay (rule S18), and the kernels after a
# host accessor or a host task replay plans that make the host's bytes stale (rule S17). The
# calls are counted where they were made (``_native.inject`` counting only): each test checks
# that its fast path was taken, and the counters that it moved exactly what it had to.

ROW = 256  # ints of one row: 1 KiB, a multiple of every device's base address alignment
ROWB = 4 * ROW
exp = sycl.ext.oneapi.experimental


def _made_by(faults: _native.Faults, kind: str, function: str) -> int:
    """How many calls of ``kind`` ``function`` (``path:name`` under sycl_ocl) made itself."""
    return sum(n for (k, callers), n in faults.sites.items() if k == kind and callers[:1] == (function,))


def _inc_all(q: sycl.queue, buf: sycl.buffer) -> sycl.event:
    return q.submit(lambda h: h.parallel_for(buf.size(), "tt_inc", sycl.accessor(buf, h)))


def _moved(after: Any, before: Any = None) -> dict[str, int]:
    """The counters that changed between two readings of ``transfer_counters()`` (none before:
    since the buffer was made), by name."""
    changed = {f.name: getattr(after, f.name) - (getattr(before, f.name) if before else 0)
               for f in fields(after)}
    return {name: n for name, n in changed.items() if n}


@pytest.mark.parametrize("form", ["queue.copy", "handler.copy"])
@pytest.mark.parametrize("window", ["ranged accessor", "sub-buffer"])
def test_ten_copies_of_a_row_move_the_row_ten_times(queue: sycl.queue, form: str, window: str) -> None:
    """Ten copies of row 1 to the host and ten of a host row into row 2, after one kernel:
    exactly ten reads and ten writes of a row's bytes, nothing else, and from the third
    copy on each is the replay's own transfer (rule S32)."""
    data = np.zeros((4, ROW), np.int32)
    with sycl.buffer(data) as buf:
        if window == "sub-buffer":
            rows = [sycl.buffer(buf, sycl.id(r, 0), sycl.range(1, ROW)) for r in (1, 2)]
            read = sycl.accessor(rows[0], sycl.read_only)
            write = sycl.accessor(rows[1], sycl.write_only, [sycl.property.no_init()])
        else:
            read = sycl.accessor(buf, sycl.read_only, sycl.range(1, ROW), sycl.id(1, 0))
            write = sycl.accessor(buf, sycl.write_only, sycl.range(1, ROW), sycl.id(2, 0),
                                  [sycl.property.no_init()])

        def copy(src: Any, dst: Any) -> None:
            if form == "queue.copy":
                queue.copy(src, dst)
            else:
                queue.submit(lambda h: (h.require(read if src is read else write), h.copy(src, dst)))

        _inc_all(queue, buf).wait()
        before = buf.transfer_counters()
        outs = [np.zeros((1, ROW), np.int32) for _ in range(10)]
        with _native.inject() as faults:
            for k, out in enumerate(outs):
                copy(read, out)
                copy(np.full((1, ROW), k, np.int32), write)
            queue.wait()
        assert _moved(buf.transfer_counters(), before) == {
            "d2h_copies": 10, "d2h_bytes": 10 * ROWB, "h2d_copies": 10, "h2d_bytes": 10 * ROWB}
        assert _made_by(faults, "read", "scheduler/replay/copies.py:_copy") >= 8
        assert _made_by(faults, "write", "scheduler/replay/copies.py:_copy") >= 8
        assert all((out == 1).all() for out in outs)
        with sycl.host_accessor(buf, sycl.read_only) as acc:
            assert np.asarray(acc)[2].tolist() == [9] * ROW


@pytest.mark.parametrize("checked", [False, True], ids=["replays", "a host accessor after each"])
def test_a_graph_replayed_five_times_copies_five_times(queue: sycl.queue, checked: bool) -> None:
    """A graph of a kernel over the buffer, a copy of row 1 to the host and one of a host row
    into row 0 (memcpy nodes), replayed five times: five reads and five writes of a row's
    bytes, no more (the replay's one window per buffer, rule S18, moves nothing); with a host
    accessor after each replay, five reads of the buffer besides."""
    data = np.zeros((4, ROW), np.int32)
    out, halo = np.zeros((1, ROW), np.int32), np.zeros((1, ROW), np.int32)
    q = sycl.queue(queue.get_context(), queue.get_device())
    with sycl.buffer(data) as buf:
        g = exp.command_graph(q)
        g.begin_recording(q)
        _inc_all(q, buf)
        q.submit(lambda h: h.copy(sycl.accessor(buf, h, sycl.read_only, sycl.range(1, ROW), sycl.id(1, 0)),
                                  out))
        q.submit(lambda h: h.copy(halo, sycl.accessor(buf, h, sycl.write_only, sycl.range(1, ROW),
                                                      sycl.id(0, 0))))
        g.end_recording()
        exe = g.finalize()
        _inc_all(q, buf).wait()  # the upload
        before = buf.transfer_counters()
        for k in range(5):
            halo[:] = 100 * k  # read by the replay
            q.ext_oneapi_graph(exe).wait()
            assert out.tolist() == [[k + 2] * ROW]
            if checked:
                with sycl.host_accessor(buf, sycl.read_only) as acc:
                    assert np.asarray(acc)[:2].tolist() == [[100 * k] * ROW, [k + 2] * ROW]
        assert _moved(buf.transfer_counters(), before) == {  # a host accessor reads the buffer
            "d2h_copies": 5 * (1 + checked), "d2h_bytes": 5 * ROWB * (1 + 4 * checked),
            "h2d_copies": 5, "h2d_bytes": 5 * ROWB}
    assert data[0].tolist() == [400] * ROW and data[3].tolist() == [6] * ROW


CHECKS = {"host accessor": (sycl.read_only, False), "read_write host accessor": (sycl.read_write, False),
          "ranged read_write host accessor": (sycl.read_write, True), "host task": (sycl.read_only, False)}


@pytest.mark.parametrize("check", list(CHECKS))
def test_kernels_after_host_checks_move_only_the_stale_bytes(queue: sycl.queue, check: str) -> None:
    """A kernel, then ten rounds of a check on the host and a kernel: each check reads back
    the bytes the kernel before it made stale there, and each kernel uploads only what the
    host wrote (nothing after a read, and then from the third round on the kernels replay
    their plans, which make the host's bytes stale: rule S17, the next check reads again)."""
    mode, ranged = CHECKS[check]
    rng, off = (sycl.range(8), sycl.id(8)) if ranged else (sycl.range(N), sycl.id(0))
    window = 4 * rng[0]
    seen: list[int] = []

    def on_host() -> None:
        if check == "host task":
            def cgf(h: sycl.handler) -> None:
                acc = sycl.accessor(buf, h, mode, target=sycl.target.host_task)
                h.host_task(lambda: seen.append(int(np.asarray(acc)[0])))
            queue.submit(cgf).wait()
        else:
            with sycl.host_accessor(buf, mode, rng, off) as acc:
                seen.append(int(np.asarray(acc)[0]))

    data = np.zeros(N, np.int32)
    with sycl.buffer(data) as buf:
        _inc_all(queue, buf)
        with _native.inject() as faults:
            for _ in range(10):
                on_host()
                _inc_all(queue, buf)
            queue.wait()
        uploads = 10 if mode is sycl.read_write else 0
        assert _moved(buf.transfer_counters()) == {
            "d2h_copies": 10, "d2h_bytes": 10 * window,
            "h2d_copies": 1 + uploads, "h2d_bytes": NBYTES + uploads * window}
        if not uploads:  # a kernel that moves bytes is planned in full (rule S17)
            assert _made_by(faults, "kernel", "scheduler/replay/shape.py:_launch") >= 8
    assert seen == list(range(1, 11)) and (data == 11).all()


@pytest.mark.parametrize("copy", ["to the host", "from the host", "between buffers"])
def test_a_copy_refused_at_its_enqueue_counts_nothing(device: sycl.device, copy: str) -> None:
    """An explicit copy planned in full (its first: no shape yet) whose enqueue the driver
    refuses (injected) moved nothing: its error is reported once and the counters are as
    before; the same copy then counts its bytes once (before the fix, the refused one counted
    too)."""
    errors: list[BaseException] = []
    q = sycl.queue(device, async_handler=errors.extend)
    host = np.zeros(N, np.int32)
    kind = {"to the host": "read", "from the host": "write", "between buffers": "copy"}[copy]
    with sycl.buffer(np.ones(N, np.int32)) as buf, sycl.buffer(sycl.range(N), np.int32) as other:
        def run() -> sycl.event:
            if copy == "to the host":
                return q.copy(sycl.accessor(buf, sycl.read_only), host)
            if copy == "from the host":
                return q.copy(host, sycl.accessor(buf, sycl.write_only))
            return q.copy(sycl.accessor(other, sycl.read_only), sycl.accessor(buf, sycl.write_only))

        q.submit(lambda h: h.fill(sycl.accessor(other, h, sycl.write_only), np.int32(2)))
        _inc_all(q, buf).wait()
        before = buf.transfer_counters()
        with _native.inject(kind, 1) as faults:
            try:
                run().wait()
            except sycl.exception as error:
                errors.append(error)
            q.wait_and_throw()
        assert faults.fired and [e.code() for e in errors] == [sycl.errc.memory_allocation]  # type: ignore[attr-defined]
        assert _moved(buf.transfer_counters(), before) == {}
        run().wait()
        moved = {"to the host": "d2h", "from the host": "h2d", "between buffers": "d2d"}[copy]
        expected = {f"{moved}_bytes": NBYTES} | ({} if moved == "d2d" else {f"{moved}_copies": 1})
        assert _moved(buf.transfer_counters(), before) == expected
