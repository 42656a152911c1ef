"""Accessors (SYCL 2020 §4.7.6): device accessors (modes, ranged, no_init, placeholders),
host accessors and local accessors, with real kernels on every device under test."""

from __future__ import annotations

import threading
import time
from typing import Any

import numpy as np
import pytest

import sycl_ocl as sycl

sycl.register_kernel_source(
    """
    __kernel void ta_inc(__global int* a) { a[get_global_id(0)] += 1; }
    __kernel void ta_copy(__global int* dst, __global const int* src) {
        dst[get_global_id(0)] = src[get_global_id(0)];
    }
    __kernel void ta_rows(__global int* a, int pitch) {
        /* a ranged 2-D accessor: the pointer is its first element, rows keep the pitch */
        a[get_global_id(1) * pitch + get_global_id(0)] += 1;
    }
    __kernel void ta_twice(__global const float* x, __global float* y) {
        y[get_global_id(0)] = 2 * x[get_global_id(0)];
    }
    __kernel void ta_bytes(__global void* a, __global uchar* b, __global char* c) {}
    __kernel void ta_even(__global int* a) {
        if (get_global_id(0) % 2 == 0) a[get_global_id(0)] = -1;  /* the odd elements are not written */
    }
    __kernel void ta_group_sum(__global int* out, __global const int* in, __local int* tmp) {
        size_t l = get_local_id(0), n = get_local_size(0);
        tmp[l] = in[get_global_id(0)];
        barrier(CLK_LOCAL_MEM_FENCE);
        if (l == 0) {
            int s = 0;
            for (size_t i = 0; i < n; ++i) s += tmp[i];
            out[get_group_id(0)] = s;
        }
    }
    """
)


def _codes(fn: object) -> sycl.errc:
    with pytest.raises(sycl.exception) as info:
        fn()  # type: ignore[operator]
    return info.value.code()


def test_modes_and_tags_are_accepted() -> None:
    b = sycl.buffer(sycl.range(4), np.int32)
    assert sycl.accessor(b, mode=sycl.read_only).mode == sycl.access_mode.read
    assert sycl.accessor(b, sycl.write_only).mode == sycl.access_mode.write
    assert sycl.accessor(b).mode == sycl.access_mode.read_write
    assert sycl.accessor(b).is_placeholder()
    assert sycl.accessor(b).get_target() == sycl.target.device
    assert _codes(lambda: sycl.accessor(b, mode="read")) == sycl.errc.invalid


def test_empty_and_max_size_of_every_accessor(queue: sycl.queue) -> None:
    """§4.7.6.9-11: empty() is size() == 0; max_size() bounds every accessor of the type."""
    most = 2**63 - 1
    full, none = sycl.buffer(sycl.range(4), np.int64), sycl.buffer(sycl.range(0), np.int32)
    assert not sycl.accessor(full).empty() and sycl.accessor(none).empty()
    assert sycl.accessor(full).max_size() == most // 8 and sycl.accessor(none).max_size() == most // 4
    with sycl.host_accessor(full) as h:
        assert not h.empty() and h.max_size() == most // 8
    with sycl.host_accessor(none) as h:
        assert h.empty()
    seen = []
    queue.submit(lambda h: seen.extend((a.empty(), a.max_size()) for a in (
        sycl.local_accessor(np.int16, 0, h), sycl.local_accessor(np.int16, 3, h))))
    assert seen == [(True, most // 2), (False, most // 2)]


def test_the_no_init_tag_object_goes_where_the_property_goes(queue: sycl.queue) -> None:
    """``sycl.no_init`` (§4.7.6.4, the spec's ``inline constexpr property::no_init no_init``)."""
    out, src = np.full(4, 7, np.int32), np.arange(4, dtype=np.int32)
    with sycl.buffer(out) as b, sycl.buffer(src) as bs:
        queue.submit(lambda h: h.parallel_for(
            4, "ta_copy", sycl.accessor(b, h, sycl.write_only, sycl.no_init),
            sycl.accessor(bs, h, sycl.read_only)))
        assert sycl.accessor(b, sycl.write_only, prop_list=sycl.no_init).has_property(sycl.property.no_init)
        assert _codes(lambda: sycl.accessor(b, sycl.read_only, sycl.no_init)) == sycl.errc.invalid
    assert out.tolist() == [0, 1, 2, 3]
    with sycl.buffer(out) as b, sycl.host_accessor(b, sycl.write_only, sycl.no_init) as h:
        assert h.has_property(sycl.property.no_init)
        h[:] = 5
    assert out.tolist() == [5, 5, 5, 5]


def test_read_and_write_accessors_in_a_kernel(queue: sycl.queue) -> None:
    src = np.arange(16, dtype=np.int32)
    dst = np.zeros(16, dtype=np.int32)
    with sycl.buffer(src) as bs, sycl.buffer(dst) as bd:
        queue.submit(lambda h: h.parallel_for(
            16, "ta_copy", sycl.accessor(bd, h, sycl.write_only), sycl.accessor(bs, h, sycl.read_only)))
    assert (dst == src).all()


def test_ranged_accessor_touches_only_its_range(queue: sycl.queue) -> None:
    a = np.zeros(256, dtype=np.int32)
    with sycl.buffer(a) as b:
        # offset 32 ints = 128 bytes (aligned: a sub-buffer) and 5 ints (misaligned: scratch)
        for off in (32, 5):
            queue.submit(lambda h, off=off: h.parallel_for(
                8, "ta_inc", b.get_access(h, sycl.read_write, sycl.range(8), sycl.id(off))))
    expect = np.zeros(256, dtype=np.int32)
    expect[32:40] += 1
    expect[5:13] += 1
    assert (a == expect).all()


def test_a_misaligned_write_only_window_keeps_what_the_kernel_does_not_write(queue: sycl.queue) -> None:
    """§4.7.6.4: without no_init, a write accessor's unwritten elements keep their contents,
    also when the window is not a sub-buffer (its offset misses the device's alignment)."""
    a = np.arange(64, dtype=np.int32)
    with sycl.buffer(a) as b:
        queue.submit(lambda h: h.parallel_for(
            8, "ta_even", sycl.accessor(b, h, sycl.write_only, sycl.range(8), sycl.id(1))))
    expect = np.arange(64, dtype=np.int32)
    expect[1:9:2] = -1
    assert a.tolist() == expect.tolist()


def test_ranged_2d_accessor_keeps_the_row_pitch(queue: sycl.queue) -> None:
    a = np.zeros((6, 8), dtype=np.int32)
    with sycl.buffer(a) as b:
        queue.submit(lambda h: h.parallel_for(
            sycl.range(2, 3), "ta_rows",
            sycl.accessor(b, h, access_range=sycl.range(2, 3), access_offset=sycl.id(1, 4)), 8))
    expect = np.zeros((6, 8), dtype=np.int32)
    expect[1:3, 4:7] = 1
    assert (a == expect).all()


def test_accessor_range_errors() -> None:
    b = sycl.buffer(sycl.range(4, 4), np.int32)
    assert _codes(lambda: sycl.accessor(b, access_range=sycl.range(5, 4))) == sycl.errc.invalid
    assert _codes(lambda: sycl.accessor(
        b, access_range=sycl.range(2, 2), access_offset=sycl.id(3, 0))) == sycl.errc.invalid
    assert _codes(lambda: sycl.accessor(b, access_range=sycl.range(4))) == sycl.errc.invalid
    assert _codes(lambda: sycl.host_accessor(b, access_range=sycl.range(8, 1))) == sycl.errc.invalid


def test_no_init_with_read_is_invalid() -> None:
    b = sycl.buffer(sycl.range(4), np.int32)
    noinit = [sycl.property.no_init()]
    assert _codes(lambda: sycl.accessor(b, mode=sycl.read_only, prop_list=noinit)) == sycl.errc.invalid
    assert _codes(lambda: sycl.host_accessor(b, sycl.read_only, prop_list=noinit)) == sycl.errc.invalid
    assert _codes(lambda: sycl.accessor(b, prop_list=[sycl.property.queue.in_order()])) == sycl.errc.invalid


def test_accessor_properties() -> None:
    """§4.7.6.9 property interface: no_init is reported; an absent property is errc.invalid."""
    b = sycl.buffer(sycl.range(4), np.int32)
    tagged = sycl.accessor(b, sycl.write_only, prop_list=[sycl.property.no_init()])
    plain = sycl.host_accessor(b, sycl.read_only)
    assert tagged.has_property(sycl.property.no_init) and not plain.has_property(sycl.property.no_init)
    assert isinstance(tagged.get_property(sycl.property.no_init), sycl.property.no_init)
    with pytest.raises(sycl.exception) as info:
        plain.get_property(sycl.property.no_init)
    assert info.value.code() == sycl.errc.invalid
    plain.release()


def test_local_accessor_has_the_property_interface(queue: sycl.queue) -> None:
    """§4.5.4, §4.7.6.11: a local accessor takes a property list (SYCL 2020 defines no
    property for it) and answers has_property / get_property."""
    seen: list[sycl.local_accessor] = []

    def cgf(h: sycl.handler) -> None:
        seen.append(sycl.local_accessor(np.int32, sycl.range(8), h, prop_list=sycl.property_list()))
        refused = _codes(lambda: sycl.local_accessor(np.int32, 8, h, [sycl.property.no_init()]))
        assert refused == sycl.errc.invalid

    queue.submit(cgf)
    assert not seen[0].has_property(sycl.property.no_init)
    with pytest.raises(sycl.exception) as info:
        seen[0].get_property(sycl.property.no_init)
    assert info.value.code() == sycl.errc.invalid


def test_accessors_of_one_kind_share_their_window() -> None:
    """A buffer keeps the window of each kind of accessor (mode, range, offset, ``no_init``),
    by which the submit path knows a command group it launched before; a loop over many
    tiles of one buffer keeps only the last 16 ranged windows."""
    b = sycl.buffer(sycl.range(64), np.int32)

    def win(**kw: Any) -> Any:
        return sycl.accessor(b, **kw)._win

    assert win(mode=sycl.write_only, prop_list=[sycl.property.no_init()]) is win(
        mode=sycl.write_only, prop_list=sycl.property_list(sycl.property.no_init()))
    assert win(access_range=sycl.range(8), access_offset=sycl.id(8)) is win(access_range=8, access_offset=8)
    assert win(access_range=sycl.range(64)) is win()  # the whole buffer, given explicitly
    assert win(access_range=8, access_offset=8) is not win(access_range=8, access_offset=16)
    assert win(mode=sycl.write_only) is not win(mode=sycl.write_only, prop_list=[sycl.property.no_init()])
    tiles = [win(access_range=1, access_offset=k) for k in range(40)]
    assert tiles[-1] is win(access_range=1, access_offset=39)
    assert tiles[0] is not win(access_range=1, access_offset=0)
    assert sum(type(key) is tuple for key in b._windows) == 16


def test_no_init_keeps_the_rest_of_the_buffer(queue: sycl.queue) -> None:
    a = np.arange(64, dtype=np.int32)
    with sycl.buffer(a) as b:
        queue.submit(lambda h: h.fill(sycl.accessor(b, h), 0)).wait()  # device now holds zeros
        queue.submit(lambda h: h.fill(sycl.accessor(
            b, h, sycl.write_only, sycl.range(8), sycl.id(32), prop_list=[sycl.property.no_init()]), 9))
    expect = np.zeros(64, dtype=np.int32)
    expect[32:40] = 9
    assert (a == expect).all()


def test_placeholder_needs_require(queue: sycl.queue) -> None:
    a = np.zeros(8, dtype=np.int32)
    with sycl.buffer(a) as b:
        acc = sycl.accessor(b)

        def without(h: sycl.handler) -> None:
            h.parallel_for(8, "ta_inc", acc)

        assert _codes(lambda: queue.submit(without)) == sycl.errc.accessor

        def bound(h: sycl.handler) -> None:
            h.require(acc)
            h.parallel_for(8, "ta_inc", acc)

        queue.submit(bound)
        queue.submit(bound)
    assert (a == 2).all()


def test_accessor_from_another_command_group_is_rejected(queue: sycl.queue) -> None:
    b = sycl.buffer(sycl.range(8), np.int32)
    kept: list[sycl.accessor] = []
    queue.submit(lambda h: kept.append(sycl.accessor(b, h)))
    assert _codes(lambda: queue.submit(lambda h: h.parallel_for(8, "ta_inc", kept[0]))) == sycl.errc.accessor


def test_host_accessor_view_and_indexing() -> None:
    a = np.arange(12, dtype=np.int32).reshape(3, 4)
    with sycl.buffer(a) as b:
        with sycl.host_accessor(b, sycl.read_write, sycl.range(2, 2), sycl.id(1, 1)) as h:
            view = np.asarray(h)
            assert view.shape == (2, 2)
            assert h[0, 0] == 5 and h[1, 1] == 10
            h[0, 1] = -1
            assert h.get_range() == sycl.range(2, 2) and h.get_offset() == sycl.id(1, 1)
        with sycl.host_accessor(b, sycl.read_only) as h:
            assert not np.asarray(h).flags.writeable
            assert len(h) == 3
    assert a[1, 2] == -1


def test_host_accessor_sees_kernel_results(queue: sycl.queue) -> None:
    with sycl.buffer(np.zeros(8, dtype=np.int32)) as b:
        queue.submit(lambda h: h.parallel_for(8, "ta_inc", sycl.accessor(b, h)))
        with b.get_host_access(sycl.read_write) as h:  # blocks for the kernel
            assert (np.asarray(h) == 1).all()
            np.asarray(h)[:] = 41
        queue.submit(lambda h: h.parallel_for(8, "ta_inc", sycl.accessor(b, h)))
        with b.get_host_access(sycl.read_only) as h:
            assert (np.asarray(h) == 42).all()


def test_repeated_ranged_host_accessors_read_behind_their_kernels(queue: sycl.queue) -> None:
    """A pipeline's check: ranged host accessors made again and again (after the first, of the
    window their buffer kept) wait for the kernels before them and read back their window only;
    a read-only view stays read-only, a writable one reaches the next kernel, and a view kept
    past its release is the buffer's no more (docs/scheduler.md rule S30)."""
    data = np.zeros(64, np.int32)
    with sycl.buffer(data) as b:
        before = b.transfer_counters()
        for step in range(1, 7):
            queue.submit(lambda h: h.parallel_for(64, "ta_inc", sycl.accessor(b, h)))
            with sycl.host_accessor(b, sycl.read_only, sycl.range(16), sycl.id(8)) as h:
                view = np.asarray(h)
                assert view.tolist() == [step] * 16 and not view.flags.writeable
        after = b.transfer_counters()
        assert (after.d2h_copies - before.d2h_copies, after.d2h_bytes - before.d2h_bytes) == (6, 6 * 16 * 4)
        kept = None
        for _ in range(3):
            with sycl.host_accessor(b, sycl.read_write, sycl.range(4), sycl.id(60)) as h:
                kept = np.asarray(h)
                kept[:] += 10
        assert kept is not None
        kept[:] = -1  # released: reaches neither the kernel nor the write-back
        queue.submit(lambda h: h.parallel_for(64, "ta_inc", sycl.accessor(b, h)))
    assert data[:60].tolist() == [7] * 60 and data[60:].tolist() == [37] * 4
    with pytest.raises(sycl.exception) as raised:  # a destroyed buffer keeps no window
        sycl.host_accessor(b, sycl.read_only, sycl.range(16), sycl.id(8))
    assert raised.value.code() == sycl.errc.invalid


def test_local_accessor(queue: sycl.queue) -> None:
    data = np.arange(32, dtype=np.int32)
    out = np.zeros(4, dtype=np.int32)
    with sycl.buffer(data) as bi, sycl.buffer(out) as bo:
        def cgf(h: sycl.handler) -> None:
            tmp = sycl.local_accessor(np.int32, sycl.range(8), h)
            assert tmp.byte_size() == 32
            h.parallel_for(sycl.nd_range(32, 8), "ta_group_sum",
                           sycl.accessor(bo, h, sycl.write_only), sycl.accessor(bi, h, sycl.read_only), tmp)

        queue.submit(cgf)
    assert (out == data.reshape(4, 8).sum(axis=1)).all()


def test_local_accessor_needs_an_nd_range(queue: sycl.queue) -> None:
    """AC-11: a local_accessor in single_task or a parallel_for over a range is refused, and
    nothing runs."""
    out = np.zeros(4, dtype=np.int32)
    with sycl.buffer(out) as bo, sycl.buffer(np.ones(32, np.int32)) as bi:
        launches = (
            lambda h, *a: h.single_task("ta_group_sum", *a),
            lambda h, *a: h.parallel_for(sycl.range(32), "ta_group_sum", *a),
            lambda h, *a: h.parallel_for(32, "ta_group_sum", *a),
        )
        for launch in launches:
            def cgf(h: sycl.handler, launch: object = launch) -> None:
                tmp = sycl.local_accessor(np.int32, sycl.range(8), h)
                launch(h, sycl.accessor(bo, h), sycl.accessor(bi, h, sycl.read_only), tmp)  # type: ignore[operator]

            with pytest.raises(sycl.exception) as info:
                queue.submit(cgf)
            assert info.value.code() is sycl.errc.kernel_argument
            assert "local_accessor" in str(info.value) and "nd_range" in str(info.value)
        assert bo.transfer_counters().h2d_bytes == 0
    assert (out == 0).all()


def test_element_type_must_match_the_pointer(queue: sycl.queue) -> None:
    """A float64 buffer for a `__global const float*` parameter is refused before anything is
    submitted (no transfer, nothing runs); a reinterpreted view passes."""
    x = np.arange(8, dtype=np.float64)
    y = np.zeros(8, dtype=np.float32)
    with sycl.buffer(x) as bx, sycl.buffer(y) as by:
        def wrong(h: sycl.handler) -> None:
            h.parallel_for(8, "ta_twice", sycl.accessor(bx, h, sycl.read_only), sycl.accessor(by, h))

        with pytest.raises(sycl.exception) as info:
            queue.submit(wrong)
        assert info.value.code() is sycl.errc.kernel_argument
        message = str(info.value)
        assert "argument 0 of 'ta_twice'" in message and "__global float *x" in message
        assert "the accessor holds float64" in message and "reinterpret" in message
        assert bx.transfer_counters().h2d_bytes == 0 and by.transfer_counters().h2d_bytes == 0
        view = bx.reinterpret(np.float32)
        queue.submit(lambda h: h.parallel_for(
            8, "ta_twice", sycl.accessor(view, h, sycl.read_only), sycl.accessor(by, h))).wait()
    assert (y == 2 * x.view(np.float32)[:8]).all()


def test_void_and_byte_pointers_take_any_element_type(queue: sycl.queue) -> None:
    with sycl.buffer(np.zeros(4, np.float64)) as a, sycl.buffer(np.zeros(4, np.int32)) as b:
        queue.submit(lambda h: h.single_task(
            "ta_bytes", sycl.accessor(a, h), sycl.accessor(b, h), sycl.accessor(a, h))).wait()


def test_two_accessors_of_one_buffer_in_one_group(queue: sycl.queue) -> None:
    a = np.arange(64, dtype=np.int32)
    with sycl.buffer(a) as b:
        def cgf(h: sycl.handler) -> None:
            dst = sycl.accessor(b, h, sycl.write_only, sycl.range(32), sycl.id(32),
                                prop_list=[sycl.property.no_init()])
            src = sycl.accessor(b, h, sycl.read_only, sycl.range(32))
            h.parallel_for(32, "ta_copy", dst, src)

        queue.submit(cgf)
    assert (a[32:] == np.arange(32)).all() and (a[:32] == np.arange(32)).all()


# --- host access: only through host accessors, only while they last -----------------------------


def test_a_device_accessor_is_not_host_accessible(queue: sycl.queue) -> None:
    """A device accessor read on the host after its kernel ran would show the old bytes, and
    writes through it would bypass the runtime: every host access raises (§4.7.6.9)."""
    with sycl.buffer(np.zeros(8, dtype=np.int32)) as b:
        kept: list[sycl.accessor] = []

        def cgf(h: sycl.handler) -> None:
            kept.append(sycl.accessor(b, h))
            h.parallel_for(8, "ta_inc", kept[0])

        queue.submit(cgf).wait()
        acc = kept[0]
        placeholder = sycl.accessor(b)
        for use in (lambda: np.asarray(acc), lambda: acc[0], lambda: acc.__setitem__(0, 5),
                    lambda: np.asarray(placeholder)):
            with pytest.raises(sycl.exception, match="host_accessor") as info:
                use()
            assert info.value.code() == sycl.errc.accessor
        with sycl.host_accessor(b, sycl.read_only) as h:
            assert (np.asarray(h) == 1).all()


def test_a_device_accessor_is_host_accessible_in_a_host_task(queue: sycl.queue) -> None:
    with sycl.buffer(np.zeros(8, dtype=np.int32)) as b:
        queue.submit(lambda h: h.parallel_for(8, "ta_inc", sycl.accessor(b, h)))

        def cgf(h: sycl.handler) -> None:
            acc = sycl.accessor(b, h)
            h.host_task(lambda: acc.__setitem__(slice(None), np.asarray(acc) + acc[0]))

        queue.submit(cgf)
        with sycl.host_accessor(b, sycl.read_only) as h:
            assert (np.asarray(h) == 2).all()


def test_a_host_accessor_lets_go_of_its_buffer_when_its_with_block_ends() -> None:
    """Leaving the with block is the accessor's destruction: the buffer's last handle goes
    with ``del`` and writes back at once; the accessor is unusable from then on."""
    data = np.zeros(4, dtype=np.float32)
    buf = sycl.buffer(data)
    with sycl.host_accessor(buf) as ha:
        ha[0] = 5.0
    del buf
    assert data[0] == 5.0  # written back by the del
    for use in (lambda: np.asarray(ha), lambda: ha[0], lambda: ha.__setitem__(0, 1.0), lambda: len(ha),
                lambda: list(ha)):
        with pytest.raises(sycl.exception, match="was released") as info:
            use()
        assert info.value.code() == sycl.errc.accessor


def test_a_released_host_accessor_never_shows_stale_data(queue: sycl.queue) -> None:
    with sycl.buffer(np.zeros(8, dtype=np.int32)) as b:
        ha = sycl.host_accessor(b, sycl.read_only)
        ha.release()
        queue.submit(lambda h: h.parallel_for(8, "ta_inc", sycl.accessor(b, h))).wait()
        assert _codes(lambda: ha[0]) == sycl.errc.accessor  # not the old 0
        ha.release()  # a second release is harmless


# --- waiting for one's own host accessor (docs/scheduler.md rule S22) -----------------------------


def test_waiting_for_a_command_that_needs_this_threads_host_accessor_raises(queue: sycl.queue) -> None:
    """The command waits for the accessor, which ends only when this thread goes on: instead
    of hanging, every wait raises errc.invalid naming both."""
    a = np.zeros(4, dtype=np.int32)
    with sycl.buffer(a) as b:
        with sycl.host_accessor(b) as held:
            held[0] = 1
            ev = queue.submit(lambda h: h.parallel_for(4, "ta_inc", sycl.accessor(b, h)))
            for wait in (queue.wait, queue.wait_and_throw, ev.wait, ev.wait_and_throw,
                         lambda: sycl.event.wait([ev]), lambda: sycl.host_accessor(b, sycl.read_only)):
                with pytest.raises(sycl.exception, match="holds open") as info:
                    wait()
                assert info.value.code() == sycl.errc.invalid
                assert "ta_inc" in info.value.what() and "host_accessor read_write" in info.value.what()
            with sycl.buffer(np.ones(2, dtype=np.int32)) as c, sycl.host_accessor(c) as other:
                assert other[0] == 1  # a host accessor that waits for nothing of this thread's
        queue.wait()  # released: the kernel runs
        with sycl.host_accessor(b, sycl.read_only) as h:
            assert list(h) == [2, 1, 1, 1]  # the refused accessor changed nothing
    assert a.tolist() == [2, 1, 1, 1]


def _copy(queue: sycl.queue, dst: sycl.buffer, src: sycl.buffer) -> None:
    queue.submit(lambda h: h.parallel_for(4, "ta_copy", sycl.accessor(dst, h), sycl.accessor(src, h)))


def test_destroying_a_buffer_that_waits_for_this_threads_host_accessor(
    queue: sycl.queue, caplog: pytest.LogCaptureFixture,
) -> None:
    """A with block's end raises and leaves the buffer alive (it ends later, writing back); a
    dropped last reference cannot raise: that buffer ends without writing back, with a warning."""
    src = sycl.buffer(np.ones(4, dtype=np.int32))
    out = np.zeros(4, dtype=np.int32)
    dst = sycl.buffer(out)
    held = sycl.host_accessor(src)
    _copy(queue, dst, src)
    with pytest.raises(sycl.exception, match="destruction") as info:
        dst.__exit__(None, None, None)
    assert info.value.code() == sycl.errc.invalid
    del info  # its traceback holds the buffer
    held.release()
    del dst  # now it ends, and writes back
    assert (out == 1).all()
    lost = np.zeros(4, dtype=np.int32)
    dropped = sycl.buffer(lost)
    held = sycl.host_accessor(src)
    _copy(queue, dropped, src)
    with caplog.at_level("WARNING", logger="sycl_ocl"):
        del dropped  # would wait for held, on this thread: never
    assert "holds open" in caplog.text and "not written back" in caplog.text
    held.release()
    queue.wait()
    assert (lost == 0).all()


def test_a_wait_for_another_threads_host_accessor_warns(
    queue: sycl.queue, caplog: pytest.LogCaptureFixture,
) -> None:
    """Whether another thread ever releases its host accessor cannot be known: a wait that
    needs it warns after a few seconds, naming the accessor, and still ends when it goes."""
    a = np.zeros(4, dtype=np.int32)
    opened, warned = threading.Event(), threading.Event()

    def holder(b: sycl.buffer) -> None:
        with sycl.host_accessor(b):
            opened.set()
            warned.wait(20)

    with caplog.at_level("WARNING", logger="sycl_ocl"), sycl.buffer(a) as b:
        other = threading.Thread(target=holder, args=(b,))
        other.start()
        assert opened.wait(10)
        queue.submit(lambda h: h.parallel_for(4, "ta_inc", sycl.accessor(b, h)))
        waiter = threading.Thread(target=queue.wait)
        waiter.start()
        deadline = time.monotonic() + 10
        while "held by thread" not in caplog.text and time.monotonic() < deadline:
            time.sleep(0.05)
        warned.set()
        waiter.join()
        other.join()
    assert "queue.wait() has waited" in caplog.text and "ta_inc" in caplog.text
    assert (a == 1).all()


def test_a_property_list_in_the_cpp_position(queue: sycl.queue) -> None:
    """C++ passes the property list after the mode: ``accessor(buf, h, write, no_init())``
    and ``host_accessor(buf, write, no_init())`` work as with ``prop_list=``."""
    b = sycl.buffer(sycl.range(4), np.int32)
    kept: list[sycl.accessor] = []
    queue.submit(lambda h: kept.append(sycl.accessor(b, h, sycl.access_mode.write, sycl.property.no_init())))
    assert kept[0].has_property(sycl.property.no_init)
    assert kept[0].mode is sycl.access_mode.write
    placeholder = sycl.accessor(b, sycl.write_only, [sycl.property.no_init()])
    assert placeholder.is_placeholder() and placeholder.has_property(sycl.property.no_init)
    with sycl.host_accessor(b, sycl.write_only, sycl.property_list(sycl.property.no_init())) as acc:
        assert acc.has_property(sycl.property.no_init)
    with pytest.raises(sycl.exception) as info:
        sycl.host_accessor(b, sycl.write_only, [sycl.property.no_init()], prop_list=[sycl.property.no_init()])
    assert info.value.code() == sycl.errc.invalid and "prop_list=" in info.value.what()
