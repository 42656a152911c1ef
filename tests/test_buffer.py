"""sycl.buffer (SYCL 2020 §4.7.2): constructors, members, sub-buffers, reinterpret,
properties and the destruction rules of §4.7.2.3, on every device under test."""

from __future__ import annotations

import copy
import gc
import logging
import os
import threading
import time
import weakref
from collections.abc import Iterator

import numpy as np
import pytest
from kernel_support import aligned_ints

import sycl_ocl as sycl
from sycl_ocl.scheduler import RUNTIME

# Iterations of the reference-cycle pattern (a fuzz budget: SYCL_OCL_CYCLES=10000 for more).
CYCLES = int(os.environ.get("SYCL_OCL_CYCLES", "1000"))

sycl.register_kernel_source(
    """
    __kernel void tb_inc(__global int* a) { a[get_global_id(0)] += 1; }
    __kernel void tb_set(__global int* a, int v) { a[get_global_id(0)] = v; }
    """
)


def _inc(q: sycl.queue, buf: sycl.buffer, n: int | None = None) -> sycl.event:
    n = buf.size() if n is None else n
    return q.submit(lambda h: h.parallel_for(sycl.range(n), "tb_inc", sycl.accessor(buf, h)))


def _gated_writer(q: sycl.queue, buf: sycl.buffer, gate: threading.Event) -> sycl.event:
    def cgf(h: sycl.handler) -> None:
        acc = sycl.accessor(buf, h, sycl.write_only)

        def task() -> None:
            gate.wait()
            np.asarray(acc)[...] = 7

        h.host_task(task)

    return q.submit(cgf)


def _destroy_in_thread(buf: sycl.buffer) -> threading.Thread:
    """Leave the buffer's scope on another thread; the caller checks whether it blocks."""
    holder = [buf]
    t = threading.Thread(target=lambda: holder.pop().__exit__(None, None, None))
    t.start()
    return t


# --- constructors and members ------------------------------------------------------------


def test_members_of_a_host_array_buffer() -> None:
    a = np.zeros((4, 6), dtype=np.float32)
    b = sycl.buffer(a)
    assert b.get_range() == sycl.range(4, 6)
    assert b.size() == b.get_count() == 24
    assert b.byte_size() == b.get_size() == 96
    assert b.dtype == np.float32
    assert not b.is_sub_buffer()


def test_range_buffer_needs_a_dtype() -> None:
    with pytest.raises(sycl.exception) as info:
        sycl.buffer(sycl.range(8))
    assert info.value.code() == sycl.errc.invalid
    assert sycl.buffer(sycl.range(8), np.int16).byte_size() == 16


def test_host_data_initialises_and_is_written_back(queue: sycl.queue) -> None:
    a = np.arange(16, dtype=np.int32)
    with sycl.buffer(a) as b:
        _inc(queue, b)
        _inc(queue, b)
    assert (a == np.arange(16) + 2).all()


def test_read_only_array_is_never_written_back(queue: sycl.queue) -> None:
    a = np.arange(8, dtype=np.int32)
    a.flags.writeable = False
    with sycl.buffer(a) as b:
        _inc(queue, b)
        with b.get_host_access(sycl.read_only) as h:
            assert (np.asarray(h) == np.arange(8) + 1).all()
    assert (a == np.arange(8)).all()


def test_read_only_array_with_final_data_writes_there(queue: sycl.queue) -> None:
    a = np.arange(8, dtype=np.int32)
    a.flags.writeable = False
    out = np.zeros(8, dtype=np.int32)
    with sycl.buffer(a) as b:
        b.set_final_data(out)
        _inc(queue, b)
    assert (out == np.arange(8) + 1).all()


def test_range_buffer_final_data_needs_a_write(queue: sycl.queue) -> None:
    out = np.full(4, -1, dtype=np.int32)
    with sycl.buffer(sycl.range(4), np.int32) as b:
        b.set_final_data(out)
        queue.submit(lambda h: h.fill(sycl.accessor(b, h, sycl.write_only), 5))
    assert (out == 5).all()
    untouched = np.full(4, -1, dtype=np.int32)
    src = np.arange(4, dtype=np.int32)
    with sycl.buffer(src) as b:
        b.set_final_data(untouched)
        with b.get_host_access(sycl.read_only):
            pass
    assert (untouched == -1).all()  # only read accessors: nothing written (§4.7.2.3)


def test_final_data_weakref_expired_and_alive(queue: sycl.queue) -> None:
    alive = np.zeros(4, dtype=np.int32)
    with sycl.buffer(sycl.range(4), np.int32) as b:
        b.set_final_data(weakref.ref(alive))
        queue.submit(lambda h: h.fill(sycl.accessor(b, h), 3))
    assert (alive == 3).all()
    gone = np.zeros(4, dtype=np.int32)
    with sycl.buffer(sycl.range(4), np.int32) as b:
        b.set_final_data(weakref.ref(gone))
        queue.submit(lambda h: h.fill(sycl.accessor(b, h), 3))
        del gone  # an expired target is skipped without error


def test_set_final_data_none_and_set_write_back_false(queue: sycl.queue) -> None:
    a = np.zeros(4, dtype=np.int32)
    with sycl.buffer(a) as b:
        b.set_final_data(None)
        queue.submit(lambda h: h.fill(sycl.accessor(b, h), 9)).wait()
    assert (a == 0).all()
    c = np.zeros(4, dtype=np.int32)
    with sycl.buffer(c) as b:
        b.set_write_back(False)
        queue.submit(lambda h: h.fill(sycl.accessor(b, h), 9)).wait()
    assert (c == 0).all()
    d = np.zeros(4, dtype=np.int32)
    with sycl.buffer(d) as b:
        b.set_write_back(False)
        b.set_write_back(True)
        queue.submit(lambda h: h.fill(sycl.accessor(b, h), 9))
    assert (d == 9).all()


def test_iterable_buffer_copies_and_never_writes_back(queue: sycl.queue) -> None:
    source = [1, 2, 3, 4]
    with sycl.buffer(source, dtype=np.int32) as b:
        assert b.get_range() == sycl.range(4)
        _inc(queue, b)
        with b.get_host_access(sycl.read_only) as h:
            assert list(np.asarray(h)) == [2, 3, 4, 5]
    assert source == [1, 2, 3, 4]


def test_iterable_needs_dtype() -> None:
    with pytest.raises(sycl.exception) as info:
        sycl.buffer([1, 2, 3])
    assert info.value.code() == sycl.errc.invalid


def test_bytearray_container_is_written_back(queue: sycl.queue) -> None:
    data = bytearray(8)
    with sycl.buffer(data) as b:
        queue.submit(lambda h: h.fill(sycl.accessor(b, h), 4))
    assert data == bytearray([4] * 8)


def test_host_array_with_a_smaller_range(queue: sycl.queue) -> None:
    a = np.zeros(10, dtype=np.int32)
    with sycl.buffer(a, sycl.range(2, 3)) as b:
        assert b.get_range() == sycl.range(2, 3)
        _inc(queue, b, 6)
    assert list(a) == [1] * 6 + [0] * 4
    with pytest.raises(sycl.exception) as info:
        sycl.buffer(a, sycl.range(11))
    assert info.value.code() == sycl.errc.invalid


def test_zero_sized_buffers_work(queue: sycl.queue) -> None:
    a = np.zeros(0, dtype=np.float32)
    with sycl.buffer(a) as b, sycl.buffer(sycl.range(0), np.int32) as c:
        assert b.byte_size() == 0
        queue.submit(lambda h: h.parallel_for(sycl.range(0), "tb_inc", sycl.accessor(c, h))).wait()
        queue.submit(lambda h: h.fill(sycl.accessor(b, h), 1.0)).wait()
        with c.get_host_access() as h:
            assert np.asarray(h).shape == (0,)
        assert sycl.get_native(c) == []
    with sycl.buffer(None, sycl.range(0), dtype=np.int8) as z:
        assert z.size() == 0


# --- sub-buffers ----------------------------------------------------------------------------


def test_sub_buffer_views_the_parent(queue: sycl.queue) -> None:
    k = aligned_ints(queue.get_device())  # the first aligned sub-buffer base after 0
    a = np.zeros(2 * k, dtype=np.int32)
    with sycl.buffer(a) as parent:
        sub = sycl.buffer(parent, sycl.id(k), sycl.range(16))
        assert sub.is_sub_buffer() and sub.get_range() == sycl.range(16)
        _inc(queue, sub)
        queue.submit(lambda h, sub=sub: h.single_task("tb_set", sycl.accessor(sub, h), -1))
        with parent.get_host_access(sycl.read_only) as h:
            v = np.asarray(h)
            assert v[k] == -1 and (v[k + 1:k + 16] == 1).all()
            assert (v[:k] == 0).all() and (v[k + 16:] == 0).all()
        del sub


def test_sub_buffer_errors() -> None:
    parent = sycl.buffer(sycl.range(8, 8), np.int32)
    ok = sycl.buffer(parent, sycl.id(2, 0), sycl.range(2, 8))
    assert sycl.buffer(parent, sycl.id(2, 2), sycl.range(1, 4)).get_range() == sycl.range(1, 4)
    cases = [
        lambda: sycl.buffer(ok, sycl.id(0, 0), sycl.range(1, 8)),  # from a sub-buffer
        lambda: sycl.buffer(parent, sycl.id(2, 0), sycl.range(2, 4)),  # not contiguous
        lambda: sycl.buffer(parent, sycl.id(7, 0), sycl.range(2, 8)),  # out of range
        lambda: sycl.buffer(parent, sycl.id(0), sycl.range(8)),  # wrong dimensions
    ]
    for make in cases:
        with pytest.raises(sycl.exception) as info:
            make()
        assert info.value.code() == sycl.errc.invalid


def test_misaligned_sub_buffer_fails_at_the_accessor(queue: sycl.queue) -> None:
    parent = sycl.buffer(sycl.range(64), np.int32)
    sub = sycl.buffer(parent, sycl.id(1), sycl.range(8))  # the constructor accepts it (§4.7.2.1)

    def cgf(h: sycl.handler) -> None:
        sycl.accessor(sub, h)

    with pytest.raises(sycl.exception) as info:
        queue.submit(cgf)
    assert info.value.code() == sycl.errc.invalid
    placeholder = sycl.accessor(sub)
    with pytest.raises(sycl.exception) as info:
        queue.submit(lambda h: h.require(placeholder))  # from require
    assert info.value.code() == sycl.errc.invalid


def test_a_sub_buffer_accessor_is_checked_once_per_device_then_taken_as_it_is(queue: sycl.queue) -> None:
    """A sub-buffer's window remembers the device its start was found aligned for, so later
    command groups on that device take it as a whole-buffer accessor's (no checks on the submit
    path); a misaligned sub-buffer is refused every time."""
    align = queue.get_device().get_info(sycl.info.device.mem_base_addr_align) // 8
    parent = sycl.buffer(np.zeros(4 * align, np.uint8))
    sub = sycl.buffer(parent, sycl.id(align), sycl.range(align))
    made: list[sycl.accessor] = []
    for _ in range(2):
        queue.submit(lambda h: made.append(sycl.accessor(sub, h)))
    assert made[0]._win is made[1]._win  # type: ignore[attr-defined]
    assert made[1]._win.aligned is not None  # type: ignore[attr-defined]
    misaligned = sycl.buffer(parent, sycl.id(1), sycl.range(8))
    for _ in range(2):
        with pytest.raises(sycl.exception) as info:
            queue.submit(lambda h: sycl.accessor(misaligned, h))
        assert info.value.code() == sycl.errc.invalid


# --- reinterpret ------------------------------------------------------------------------------


def test_reinterpret_shares_the_data(queue: sycl.queue) -> None:
    a = np.zeros(8, dtype=np.int32)
    with sycl.buffer(a) as b:
        r = b.reinterpret(np.uint8, sycl.range(2, 16))
        assert r.get_range() == sycl.range(2, 16) and r.byte_size() == b.byte_size()
        queue.submit(lambda h, r=r: h.fill(sycl.accessor(r, h), 1))
        with b.get_host_access(sycl.read_only) as h:
            assert (np.asarray(h) == 0x01010101).all()
        assert b.reinterpret(np.int16).get_range() == sycl.range(16)
        del r


def test_reinterpret_errors() -> None:
    b = sycl.buffer(sycl.range(3), np.int32)
    for make in (
        lambda: b.reinterpret(np.int64),  # 12 bytes are not whole int64s
        lambda: b.reinterpret(np.int32, sycl.range(4)),
        lambda: sycl.buffer(sycl.range(2, 2), np.float32).reinterpret(np.int16),
    ):
        with pytest.raises(sycl.exception) as info:
            make()
        assert info.value.code() == sycl.errc.invalid
    assert b.reinterpret(np.float32).get_range() == sycl.range(3)


def test_reinterpret_of_a_sub_buffer_keeps_its_window(queue: sycl.queue) -> None:
    k = aligned_ints(queue.get_device())
    a = np.zeros(2 * k, dtype=np.int32)
    with sycl.buffer(a) as parent:
        sub = sycl.buffer(parent, sycl.id(k), sycl.range(4))
        view = sub.reinterpret(np.int8, sycl.range(16))
        queue.submit(lambda h, view=view: h.fill(sycl.accessor(view, h), 2))
        del sub, view
    assert (a[k:k + 4] == 0x02020202).all() and (a[:k] == 0).all() and (a[k + 4:] == 0).all()


def test_last_handle_triggers_write_back(queue: sycl.queue) -> None:
    a = np.zeros(4, dtype=np.int32)
    b = sycl.buffer(a)
    r = b.reinterpret(np.int32)
    queue.submit(lambda h, b=b: h.fill(sycl.accessor(b, h), 6)).wait()
    del b  # a reinterpreted copy is still alive
    assert (a == 0).all()
    del r
    assert (a == 6).all()


def test_using_a_destroyed_buffer_raises() -> None:
    with sycl.buffer(sycl.range(4), np.int32) as b:
        pass
    with pytest.raises(sycl.exception) as info:
        sycl.host_accessor(b)
    assert info.value.code() == sycl.errc.invalid


def test_host_accessor_keeps_a_temporary_buffer_alive() -> None:
    data = np.arange(6, dtype=np.float32)
    buf = sycl.buffer(data)
    alive = weakref.ref(buf)
    acc = sycl.host_accessor(buf)
    del buf  # the accessor is the only owner left
    assert alive() is not None
    acc[0] = 40
    del acc
    assert alive() is None
    assert data[0] == 40 and (data[1:] == np.arange(1, 6)).all()


def test_buffer_with_block_ending_under_an_open_host_accessor(queue: sycl.queue) -> None:
    data = np.zeros(4, dtype=np.int32)
    with sycl.buffer(data) as b:
        acc = sycl.host_accessor(b)
        acc[1] = 5
    assert data[1] == 5  # the with block ended the access, then wrote back
    with pytest.raises(sycl.exception, match="was released"):
        acc[1]  # ended by the buffer's destruction: its memory is no longer the buffer's
    with pytest.raises(sycl.exception):
        sycl.host_accessor(b)


def test_buffer_and_host_accessor_collected_together() -> None:
    import gc

    data = np.zeros(4, dtype=np.int32)
    cycle: list[object] = []
    buf = sycl.buffer(data)
    acc = sycl.host_accessor(buf)
    acc[2] = 9
    cycle += [cycle, buf, acc]  # both die in one garbage collection, in any order
    del buf, acc, cycle
    gc.collect()
    assert data[2] == 9


# --- destruction blocking rules (§4.7.2.3) ---------------------------------------------------


def test_destructor_blocks_until_work_is_done_then_writes_back(queue: sycl.queue) -> None:
    a = np.zeros(4, dtype=np.int32)
    b = sycl.buffer(a)
    gate = threading.Event()
    _gated_writer(queue, b, gate)
    t = _destroy_in_thread(b)
    del b
    t.join(timeout=0.5)
    assert t.is_alive()  # held by the gate
    gate.set()
    t.join()
    assert (a == 7).all()


def test_iterator_buffer_destructor_does_not_block(queue: sycl.queue) -> None:
    b = sycl.buffer([0, 0, 0, 0], dtype=np.int32)
    gate = threading.Event()
    ev = _gated_writer(queue, b, gate)
    t = _destroy_in_thread(b)
    del b
    t.join()  # returns while the writer is still gated
    assert ev.get_info(sycl.info.event.command_execution_status) != sycl.info.event_command_status.complete
    gate.set()
    ev.wait()


def test_range_buffer_with_final_data_blocks(queue: sycl.queue) -> None:
    out = np.zeros(4, dtype=np.int32)
    b = sycl.buffer(sycl.range(4), np.int32)
    b.set_final_data(out)
    gate = threading.Event()
    _gated_writer(queue, b, gate)
    t = _destroy_in_thread(b)
    del b
    t.join(timeout=0.5)
    assert t.is_alive()
    gate.set()
    t.join()
    assert (out == 7).all()


# --- properties -------------------------------------------------------------------------------


def test_use_host_ptr_views_the_users_memory(queue: sycl.queue) -> None:
    a = np.arange(8, dtype=np.int32)
    with sycl.buffer(a, prop_list=[sycl.property.buffer.use_host_ptr()]) as b:
        assert b.has_property(sycl.property.buffer.use_host_ptr)
        _inc(queue, b)
        with b.get_host_access() as h:
            assert np.shares_memory(np.asarray(h), a)  # use_host_ptr: the user's memory
            assert (np.asarray(h) == np.arange(8) + 1).all()
    assert (a == np.arange(8) + 1).all()


def test_use_host_ptr_over_read_only_data_is_copied(queue: sycl.queue) -> None:
    """docs/deviations.md: over read-only data (here memory Python holds immutable, a
    ``bytes``) use_host_ptr cannot be honoured; the data is copied, the kernel's writes land
    in the copy and the user's memory never changes."""
    data = np.arange(8, dtype=np.int32).tobytes()
    const = np.frombuffer(data, dtype=np.int32)
    with sycl.buffer(const, prop_list=[sycl.property.buffer.use_host_ptr()]) as b:
        assert b.has_property(sycl.property.buffer.use_host_ptr)
        _inc(queue, b)
        with b.get_host_access() as h:
            assert not np.shares_memory(np.asarray(h), const)
            assert (np.asarray(h) == np.arange(8) + 1).all()
    assert data == np.arange(8, dtype=np.int32).tobytes()


def test_use_mutex_is_held_while_the_buffer_lives(queue: sycl.queue) -> None:
    lock = threading.Lock()
    a = np.zeros(4, dtype=np.int32)
    prop = sycl.property.buffer.use_mutex(lock)
    assert prop.get_mutex_ptr() is lock
    with sycl.buffer(a, prop_list=[prop]) as b:
        assert b.get_property(sycl.property.buffer.use_mutex).get_mutex_ptr() is lock
        _inc(queue, b)
        assert not lock.acquire(blocking=False)
    assert lock.acquire(blocking=False)  # released after write-back: the data is in a
    assert (a == 1).all()
    lock.release()


def test_context_bound_rejects_other_contexts(queue: sycl.queue) -> None:
    other = sycl.context(queue.get_device())
    prop = sycl.property.buffer.context_bound(other)
    b = sycl.buffer(sycl.range(4), np.int32, prop_list=[prop])
    assert b.get_property(sycl.property.buffer.context_bound).get_context() == other
    with pytest.raises(sycl.exception) as info:
        queue.submit(lambda h: h.fill(sycl.accessor(b, h), 1))
    assert info.value.code() == sycl.errc.invalid
    q2 = sycl.queue(other, queue.get_device())
    q2.submit(lambda h: h.fill(sycl.accessor(b, h), 1)).wait()
    with b.get_host_access(sycl.read_only) as h:
        assert (np.asarray(h) == 1).all()


def test_buffer_rejects_foreign_properties() -> None:
    with pytest.raises(sycl.exception) as info:
        sycl.buffer(sycl.range(4), np.int32, prop_list=[sycl.property.queue.in_order()])
    assert info.value.code() == sycl.errc.invalid


# --- interop ------------------------------------------------------------------------------------


def test_make_buffer_and_get_native(queue: sycl.queue) -> None:
    import pyopencl as cl

    ctx = queue.get_context()
    mem = cl.Buffer(sycl.get_native(ctx), cl.mem_flags.READ_WRITE, 16)
    cl.enqueue_fill_buffer(sycl.get_native(queue), mem, np.int32(3), 0, 16).wait()
    b = sycl.make_buffer(mem, ctx, np.int32)
    assert b.get_range() == sycl.range(4)
    assert sycl.get_native(b) == [mem]
    _inc(queue, b)
    with b.get_host_access(sycl.read_only) as h:
        assert (np.asarray(h) == 4).all()


def test_a_buffer_over_a_pyopencl_buffer_gives_its_data_back_from_another_context(
    device: sycl.device,
) -> None:
    """OpenCL interop (§4.5.1.3; rule S23): a make_buffer over a cl_mem of the user's own
    PyOpenCL context, changed by a kernel on a queue of another context, puts its bytes back
    into that cl_mem when the buffer ends; used only in its own context, it copies nothing."""
    import pyopencl as cl

    mine = cl.Context([device._native])
    native_queue = cl.CommandQueue(mine)
    for other_context in (True, False):
        mem = cl.Buffer(mine, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR,
                        hostbuf=np.arange(16, dtype=np.int32))
        b = sycl.make_buffer(mem, sycl.make_context(mine), np.int32)
        q = sycl.queue(device) if other_context else sycl.make_queue(native_queue, sycl.make_context(mine))
        _inc(q, b)
        moved = b.transfer_counters()
        del b
        seen = np.zeros(16, np.int32)
        cl.enqueue_copy(native_queue, seen, mem)
        assert seen.tolist() == list(range(1, 17)), f"used from another context: {other_context}"
        if not other_context:
            assert (moved.h2d_bytes, moved.d2h_bytes) == (0, 0)


def test_get_native_before_first_use_is_usable(queue: sycl.queue) -> None:
    """get_native(buffer) of a buffer not used yet: a cl_mem holding its data, in the default
    context (or the context_bound one); what native code writes there is seen afterwards."""
    import pyopencl as cl

    default = sycl.queue()
    for q, props in ((default, []), (queue, [sycl.property.buffer.context_bound(queue.get_context())])):
        a = np.arange(8, dtype=np.int32)
        with sycl.buffer(a, prop_list=props) as b:
            (mem,) = sycl.get_native(b)
            assert mem.context == sycl.get_native(q.get_context())
            seen = np.zeros(8, np.int32)
            native_queue = cl.CommandQueue(mem.context)
            cl.enqueue_copy(native_queue, seen, mem)
            assert seen.tolist() == list(range(8))
            cl.enqueue_fill_buffer(native_queue, mem, np.int32(7), 0, mem.size).wait()
            assert sycl.get_native(b) == [mem]
            with b.get_host_access(sycl.read_only) as h:
                assert (np.asarray(h) == 7).all()
        assert (a == 7).all()


def test_a_copy_is_a_second_handle(queue: sycl.queue) -> None:
    """BU-16: copy.copy(buffer) shares the data; the buffer ends with its last handle."""
    first = sycl.buffer(sycl.range(8), np.int32)
    out = np.zeros(8, dtype=np.int32)
    first.set_final_data(out)
    queue.submit(lambda h: h.fill(sycl.accessor(first, h), 0)).wait()
    second = copy.copy(first)
    assert second == first and second is not first
    with first:
        pass  # the first handle ends: the second keeps the buffer alive
    _inc(queue, second).wait()
    assert list(out) == [0] * 8
    del second
    gc.collect()
    assert list(out) == [1] * 8  # written to the final data when the last handle went


# --- destruction by the garbage collector (docs/scheduler.md rule S21) ------------------------


@pytest.fixture
def frozen_heap() -> Iterator[None]:
    """The objects alive so far out of the collector's sight: a full collection stays cheap."""
    gc.collect()
    gc.freeze()
    yield
    gc.unfreeze()


def _fill_in_a_cycle(queue: sycl.queue, a: np.ndarray, value: float) -> None:
    """A sub-buffer left in a reference cycle: the parent's with block does not end the buffer."""
    with sycl.buffer(a) as buf:
        sub = sycl.buffer(buf, sycl.id(0), sycl.range(a.size))
        queue.submit(lambda h, s=sub: h.fill(sycl.accessor(s, h), np.float32(value)))
        cycle: list[object] = [sub]
        cycle.append(cycle)
        del sub, cycle


def test_a_buffer_ended_by_the_collector_is_written_back_before_the_collection_returns(
    queue: sycl.queue, frozen_heap: None,
) -> None:
    """Once gc.collect() returns, the write-back is done, and nothing is written later over the
    user's own writes."""
    arrays = []
    for i in range(CYCLES):
        a = np.zeros(16, dtype=np.float32)
        _fill_in_a_cycle(queue, a, i + 1)
        gc.collect()
        assert (a == i + 1).all(), f"stale after the collection (iteration {i})"
        a[:] = 7.0
        arrays.append(a)
    queue.wait()
    time.sleep(0.1)  # a late write-back, on the progress thread, lands within this
    late = [i for i, a in enumerate(arrays) if not (a == 7.0).all()]
    assert not late, f"written back after the collection returned: iterations {late[:10]}"


def test_a_collection_inside_the_runtime_writes_nothing_back_later(
    queue: sycl.queue, caplog: pytest.LogCaptureFixture,
) -> None:
    """A collection under the scheduler lock cannot run a write-back there: the buffer ends on
    the progress thread without writing into the user's memory, and says so."""
    a = np.zeros(16, dtype=np.float32)
    with caplog.at_level(logging.WARNING, logger="sycl_ocl"):
        _fill_in_a_cycle(queue, a, 3.0)
        queue.wait()
        with RUNTIME:
            gc.collect()
        deadline = time.monotonic() + 10
        while "could not be written back" not in caplog.text and time.monotonic() < deadline:
            time.sleep(0.01)
        assert "could not be written back" in caplog.text
    queue.wait()
    time.sleep(0.1)
    assert (a == 0).all()  # what it held, never the late bytes
    assert a.flags.writeable  # given back


def test_buffers_collected_anywhere_are_written_back_in_time_or_never(
    queue: sycl.queue, frozen_heap: None,
) -> None:
    """Collections everywhere (the scheduler's threads, under its lock, inside an Event's
    lock: the finalizer deadlock of rule S19) while buffers in cycles are written: each array
    holds the written value or, where the runtime could not write back in time, what it held;
    never a torn or a late write."""
    threshold = gc.get_threshold()
    gc.set_threshold(50, 1, 1)
    snapshots = []
    try:
        for i in range(CYCLES // 4):
            a = np.zeros(16, dtype=np.float32)
            _fill_in_a_cycle(queue, a, i + 1)
            queue.submit(lambda h: h.host_task(lambda: [[] for _ in range(60)]))  # garbage there too
            gc.collect()
            snapshots.append((i + 1, a, a.copy()))
    finally:
        gc.set_threshold(*threshold)
    queue.wait()
    time.sleep(0.1)
    for value, a, seen in snapshots:
        assert (seen == value).all() or (seen == 0).all(), f"torn write-back: {seen}"
        assert (a == seen).all(), f"written after the collection returned: {seen} became {a}"


# --- the host array while a buffer owns it --------------------------------------------------------


def test_the_array_is_read_only_while_its_buffer_owns_it(queue: sycl.queue) -> None:
    """A write to the array while the buffer lives would race with the runtime's copies (one
    run sees it, another not): numpy refuses it until the destruction gives the array back."""
    a = np.zeros(8, dtype=np.int32)
    with sycl.buffer(a) as b:
        _inc(queue, b)
        with pytest.raises(ValueError, match="read-only"):
            a[0] = 43
        with sycl.host_accessor(b) as h:  # the way to write while it is owned
            h[0] = 43
    assert a.flags.writeable
    assert a.tolist() == [43] + [1] * 7
    a[1] = 5  # given back


def test_every_form_of_owned_array_is_given_back(queue: sycl.queue) -> None:
    strided = np.zeros(16, dtype=np.int32)[::2]  # not contiguous: the buffer works on a copy
    whole = np.zeros(8, dtype=np.int32)
    shaped = np.zeros(12, dtype=np.int32)  # the first 8 elements, as a range
    linked = np.zeros(8, dtype=np.int32)
    with sycl.buffer(strided) as b1, sycl.buffer(shaped, sycl.range(2, 4)) as b2, \
            sycl.buffer(linked, prop_list=[sycl.property.buffer.use_host_ptr()]) as b3:
        assert not any(x.flags.writeable for x in (strided, shaped, linked))
        for b in (b1, b3):
            _inc(queue, b)
        queue.submit(lambda h: h.fill(sycl.accessor(b2, h), np.int32(2)))
        part = whole[2:6]
        view = sycl.buffer(part)
        assert not part.flags.writeable and whole.flags.writeable  # only the array given is owned
        del view
        assert part.flags.writeable
    assert all(x.flags.writeable for x in (strided, shaped, linked))
    assert (strided == 1).all() and (linked == 1).all() and shaped.tolist() == [2] * 8 + [0] * 4


def test_a_read_only_array_stays_read_only_and_is_not_written_back(queue: sycl.queue) -> None:
    a = np.zeros(8, dtype=np.int32)
    a.flags.writeable = False
    with sycl.buffer(a) as b:
        _inc(queue, b)
    assert not a.flags.writeable and (a == 0).all()


def test_buffers_over_one_array_share_it_until_the_last_ends(queue: sycl.queue) -> None:
    a = np.zeros(8, dtype=np.int32)
    with sycl.buffer(a) as first:
        with sycl.buffer(a) as second:  # owned already: still written back
            queue.submit(lambda h: h.fill(sycl.accessor(second, h), np.int32(2)))
        assert (a == 2).all() and not a.flags.writeable  # the first still owns it
        queue.submit(lambda h: h.fill(sycl.accessor(first, h), np.int32(3)))
    assert (a == 3).all() and a.flags.writeable


def test_a_property_list_in_the_cpp_position(queue: sycl.queue) -> None:
    """``buffer(data, propList)`` and ``buffer(data, range, propList)``, C++'s order."""
    a = np.arange(8, dtype=np.int32)
    with sycl.buffer(a, [sycl.property.buffer.use_host_ptr()]) as b:
        assert b.has_property(sycl.property.buffer.use_host_ptr)
        with sycl.host_accessor(b, sycl.read_only) as h:
            assert np.shares_memory(np.asarray(h), a)
    with sycl.buffer(a, sycl.range(4), sycl.property.buffer.use_host_ptr()) as b:
        assert b.has_property(sycl.property.buffer.use_host_ptr) and b.size() == 4


# --- a buffer held only by its accessors (docs/scheduler.md rule S29) -----------------------


def test_a_temporary_buffer_lives_until_its_kernel_completes_then_writes_back(queue: sycl.queue) -> None:
    a = np.zeros(8, dtype=np.int32)
    queue.submit(lambda h: h.parallel_for(sycl.range(8), "tb_inc", sycl.accessor(sycl.buffer(a), h)))
    queue.wait()
    assert (a == 1).all() and a.flags.writeable


def test_a_buffer_local_to_the_command_group_function_is_written_back(queue: sycl.queue) -> None:
    a = np.zeros(8, dtype=np.int32)

    def cgf(h: sycl.handler) -> None:
        local = sycl.buffer(a)
        h.parallel_for(sycl.range(8), "tb_inc", sycl.accessor(local, h))

    queue.submit(cgf)
    queue.wait()
    assert (a == 1).all() and a.flags.writeable


def test_the_array_of_a_temporary_buffer_stays_the_buffers_until_its_command_ran(queue: sycl.queue) -> None:
    a = np.zeros(8, dtype=np.int32)
    gate = threading.Event()
    gated = queue.submit(lambda h: h.host_task(gate.wait))

    def cgf(h: sycl.handler) -> None:
        h.depends_on(gated)
        h.parallel_for(sycl.range(8), "tb_inc", sycl.accessor(sycl.buffer(a), h))

    ev = queue.submit(cgf)
    assert not a.flags.writeable  # a write now would change what the queued kernel reads
    with pytest.raises(ValueError):
        a[0] = 5
    gate.set()
    ev.wait()
    queue.wait()
    assert (a == 1).all() and a.flags.writeable


def test_a_placeholder_of_a_temporary_buffer_keeps_it_until_both_end(queue: sycl.queue) -> None:
    a = np.zeros(8, dtype=np.int32)
    placeholder = [sycl.accessor(sycl.buffer(a))]

    def cgf(h: sycl.handler) -> None:
        h.require(placeholder[0])
        h.parallel_for(sycl.range(8), "tb_inc", placeholder[0])

    queue.submit(cgf)
    queue.submit(cgf)
    queue.wait()
    assert (a == 0).all() and not a.flags.writeable  # the placeholder still holds the buffer
    placeholder.clear()  # its last owner: written back before the next statement
    assert (a == 2).all() and a.flags.writeable


def test_a_temporary_buffer_behind_a_host_task_is_written_back_by_queue_wait(queue: sycl.queue) -> None:
    a = np.zeros(8, dtype=np.int32)

    def cgf(h: sycl.handler) -> None:
        acc = sycl.accessor(sycl.buffer(a), h)

        def task() -> None:
            time.sleep(0.05)
            np.asarray(acc)[...] += 3

        h.host_task(task)

    for _ in range(3):
        queue.submit(cgf)
        queue.wait()
    assert (a == 9).all() and a.flags.writeable


def test_a_buffer_the_program_holds_still_ends_when_it_drops_it(queue: sycl.queue) -> None:
    a = np.zeros(4, dtype=np.int32)
    b = sycl.buffer(a)
    gate = threading.Event()
    queue.submit(lambda h: h.host_task(gate.wait))
    _inc(queue, b)
    threading.Timer(0.2, gate.set).start()
    del b  # its last handle: waits for the kernel, then writes back
    assert (a == 1).all() and a.flags.writeable


def test_a_buffer_whose_last_reference_the_command_group_drops_lives_until_its_kernel_completes(
        queue: sycl.queue) -> None:
    # Its second accessor takes the window the first left (rule S20) and joins with no work.
    a = np.zeros(8, dtype=np.int32)
    bufs = [sycl.buffer(a)]
    queue.submit(lambda h: h.parallel_for(sycl.range(8), "tb_inc", sycl.accessor(bufs[0], h)))
    queue.wait()
    gate = threading.Event()
    gated = queue.submit(lambda h: h.host_task(gate.wait))

    def cgf(h: sycl.handler) -> None:
        h.depends_on(gated)
        h.parallel_for(sycl.range(8), "tb_inc", sycl.accessor(bufs.pop(), h))

    ev = queue.submit(cgf)
    held = not a.flags.writeable  # still the buffer's: its kernel has not run
    gate.set()
    ev.wait()
    queue.wait()
    assert held
    assert (a == 2).all() and a.flags.writeable


def test_a_buffer_dropped_by_its_command_group_on_the_fast_path_is_written_back(queue: sycl.queue) -> None:
    a = np.zeros(8, dtype=np.int32)
    bufs = [sycl.buffer(a)]
    for expected in (1, 2, 3):
        if expected == 3:
            queue.submit(lambda h: h.parallel_for(sycl.range(8), "tb_inc", sycl.accessor(bufs.pop(), h)))
        else:
            queue.submit(lambda h: h.parallel_for(sycl.range(8), "tb_inc", sycl.accessor(bufs[0], h)))
        queue.wait()
    assert (a == 3).all() and a.flags.writeable


def test_a_buffer_dropped_after_a_nested_submit_lives_with_the_outer_command(queue: sycl.queue) -> None:
    # The nested submit puts back the outer command group as the one being built (rule S29).
    a, b = np.zeros(8, dtype=np.int32), np.zeros(8, dtype=np.int32)
    bufs = [sycl.buffer(a)]
    _inc(queue, bufs[0])
    queue.wait()
    gate = threading.Event()
    gated = queue.submit(lambda h: h.host_task(gate.wait))

    def cgf(h: sycl.handler) -> None:
        h.depends_on(gated)
        with sycl.buffer(b) as other:
            _inc(queue, other)
        h.parallel_for(sycl.range(8), "tb_inc", sycl.accessor(bufs.pop(), h))

    ev = queue.submit(cgf)
    held = not a.flags.writeable  # still the buffer's: its kernel waits for the gate
    gate.set()
    ev.wait()
    queue.wait()
    assert held
    assert (a == 2).all() and a.flags.writeable and (b == 1).all()


def test_a_buffer_dropped_after_its_submit_returned_ends_at_its_del(queue: sycl.queue) -> None:
    # Once the command-group function returned, no command group is being built on this
    # thread: the buffer is handed to none (rule S29) and ends at its del (rule S13).
    a = np.zeros(8, dtype=np.int32)
    buf = sycl.buffer(a)
    for _ in range(2):  # the second accessor takes the window the first left (rule S20)
        _inc(queue, buf)
    del buf
    assert (a == 2).all() and a.flags.writeable


def test_a_buffer_dropped_by_a_command_group_that_raises_ends_there(queue: sycl.queue) -> None:
    a = np.zeros(8, dtype=np.int32)
    bufs = [sycl.buffer(a)]
    _inc(queue, bufs[0])
    queue.wait()

    def cgf(h: sycl.handler) -> None:
        sycl.accessor(bufs.pop(), h)
        raise RuntimeError("the command group fails")

    with pytest.raises(RuntimeError) as failure:
        queue.submit(cgf)
    assert failure.traceback  # the traceback holds the handler, not the buffer
    assert (a == 1).all() and a.flags.writeable
