"""Category accessor (CTS tests/accessor_*, host_accessor, local_accessor): AC-02 .. AC-23."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import sycl_ocl as sycl
from conformance.support import raises

INC, NEIGHBOUR, PITCHED, LOCAL_2D, SET_ONE, CONST_SUM = sycl.register_kernel_source(
    """
    __kernel void cts_acc_inc(__global int *d) { d[get_global_id(0)] += 1; }
    __kernel void cts_acc_neighbour(__global int *out, __local int *tmp) {
        size_t l = get_local_id(0), n = get_local_size(0);
        tmp[l] = (int)get_global_id(0);
        barrier(CLK_LOCAL_MEM_FENCE);
        out[get_global_id(0)] = tmp[(l + 1) % n];
    }
    /* A ranged 2-D accessor: the pointer is its first element, rows keep the buffer's pitch. */
    __kernel void cts_acc_pitched(__global int *d, int pitch) {
        size_t row = get_global_id(1), col = get_global_id(0);
        d[row * pitch + col] = 100 + (int)(row * 10 + col);
    }
    /* A 2-D local accessor is row-major: element (r, c) of a (rows, cols) range is r * cols + c. */
    __kernel void cts_acc_local_2d(__global int *out, __local int *tile) {
        size_t r = get_local_id(1), c = get_local_id(0), cols = get_local_size(0);
        tile[r * cols + c] = (int)(r * 100 + c);
        barrier(CLK_LOCAL_MEM_FENCE);
        size_t mirror = (get_local_size(1) - 1 - r) * cols + c;
        out[r * cols + c] = tile[mirror];
    }
    __kernel void cts_acc_set_one(__global int *d, int v) { d[0] = v; }
    __kernel void cts_acc_const_sum(__constant int *src, __global int *out, int n) {
        int s = 0;
        for (int i = 0; i < n; ++i) s += src[i];
        out[0] = s;
    }
    """
)


def test_AC_02_zero_length_buffer(queue: sycl.queue) -> None:
    """Accessors over a zero-length buffer, with and without range and offset, are empty."""
    buf = sycl.buffer(sycl.range(0), np.int32)
    for acc in (
        sycl.host_accessor(buf, sycl.read_only),
        sycl.host_accessor(buf, sycl.read_only, sycl.range(0), sycl.id(0)),
        sycl.accessor(buf),
        sycl.accessor(buf, mode=sycl.read_write, access_range=sycl.range(0)),
        sycl.accessor(buf, mode=sycl.read_write, access_range=sycl.range(0), access_offset=sycl.id(0)),
    ):
        assert acc.size() == 0 and acc.byte_size() == 0
        if isinstance(acc, sycl.host_accessor):
            assert np.asarray(acc).size == 0 and list(acc) == []
            acc.release()
    placeholder = sycl.accessor(buf)
    queue.submit(lambda h: (h.require(placeholder), h.parallel_for(sycl.range(0), INC, placeholder))).wait()


def test_AC_03_full_and_placeholder(queue: sycl.queue) -> None:
    """With a handler: not a placeholder; without: a placeholder; range, offset and sizes."""
    buf = sycl.buffer(np.zeros((4, 8), np.int32))
    placeholder = sycl.accessor(buf)
    assert placeholder.is_placeholder()
    assert placeholder.get_range() == sycl.range(4, 8) and placeholder.get_offset() == sycl.id(0, 0)
    assert placeholder.size() == 32 and placeholder.byte_size() == 128
    seen: list[bool] = []
    queue.submit(lambda h: seen.append(sycl.accessor(buf, h).is_placeholder())).wait()
    assert seen == [False]
    with raises(sycl.errc.invalid):
        sycl.accessor(buf, access_range=sycl.range(3, 8), access_offset=sycl.id(2, 0))


def test_AC_06_modes(queue: sycl.queue) -> None:
    """read sees the original data, write reaches the host, read_write does both."""
    data = np.arange(8, dtype=np.int32)
    with sycl.buffer(data) as buf:
        queue.submit(lambda h: h.parallel_for(sycl.range(8), INC, sycl.accessor(buf, h, sycl.read_write)))
        out = np.zeros(8, np.int32)
        queue.submit(lambda h: h.copy(sycl.accessor(buf, h, sycl.read_only), out)).wait()
        assert list(out) == list(range(1, 9))
        queue.submit(lambda h: h.single_task(SET_ONE, sycl.accessor(buf, h, sycl.write_only), 42))
        with sycl.host_accessor(buf, sycl.read_only) as ro:
            assert not np.asarray(ro).flags.writeable and ro[0] == 42
        with sycl.host_accessor(buf, sycl.write_only) as wo:
            wo[7] = -1
    assert list(data) == [42, *range(2, 8), -1]


def test_AC_08_defaults() -> None:
    """An accessor made from a buffer alone: read_write, device target, placeholder, 1-D."""
    acc = sycl.accessor(sycl.buffer(np.zeros(4, np.int32)))
    assert acc.mode is sycl.access_mode.read_write
    assert acc.get_target() is sycl.target.device
    assert acc.is_placeholder() and acc.get_range().dimensions == 1


def test_AC_13_no_init_property(queue: sycl.queue) -> None:
    """no_init is reported when given; get_property of it otherwise raises errc.invalid."""
    buf = sycl.buffer(np.zeros(4, np.int32))
    plain = sycl.accessor(buf)
    assert not plain.has_property(sycl.property.no_init)
    with raises(sycl.errc.invalid):
        plain.get_property(sycl.property.no_init)
    discard = sycl.accessor(buf, mode=sycl.write_only, prop_list=[sycl.property.no_init()])
    assert discard.has_property(sycl.property.no_init)
    assert isinstance(discard.get_property(sycl.property.no_init), sycl.property.no_init)
    host = sycl.host_accessor(buf, sycl.write_only, prop_list=[sycl.property.no_init()])
    assert host.has_property(sycl.property.no_init)
    host.release()
    with raises(sycl.errc.invalid):
        sycl.accessor(buf, mode=sycl.read_only, prop_list=[sycl.property.no_init()])


@pytest.mark.parametrize("form", ["whole", "range", "range_offset"])
@pytest.mark.scenarios("HA-01")
def test_AC_15_placeholder_require(queue: sycl.queue, form: str) -> None:
    """Placeholder accessors (whole, ranged, ranged with offset) work after require()."""
    data = np.zeros(8, np.int32)
    rng, off = {
        "whole": (None, None),
        "range": (sycl.range(4), None),
        "range_offset": (sycl.range(4), sycl.id(3)),
    }[form]
    with sycl.buffer(data) as buf:
        acc = sycl.accessor(buf, mode=sycl.read_write, access_range=rng, access_offset=off)
        assert acc.is_placeholder()
        queue.submit(lambda h: (h.require(acc), h.parallel_for(acc.get_range(), INC, acc))).wait()
    first = 3 if form == "range_offset" else 0
    count = 8 if form == "whole" else 4
    assert list(data) == [int(first <= i < first + count) for i in range(8)]


def test_AC_16_linearization(queue: sycl.queue) -> None:
    """Row-major indexing relative to the offset: host, device (ranged 2-D) and local accessors."""
    buf = sycl.buffer(np.arange(24, dtype=np.int32).reshape(4, 6))
    with sycl.host_accessor(
        buf, sycl.read_only, access_range=sycl.range(2, 3), access_offset=sycl.id(1, 2)
    ) as acc:
        assert acc[0, 0] == 8 and acc[1, 2] == 16 and np.asarray(acc).shape == (2, 3)
    queue.submit(
        lambda h: h.parallel_for(
            sycl.range(2, 3),
            PITCHED,
            sycl.accessor(buf, h, sycl.read_write, sycl.range(2, 3), sycl.id(1, 2)),
            6,
        )
    )
    with sycl.host_accessor(buf, sycl.read_only) as acc:
        window = np.asarray(acc)[1:3, 2:5]
        assert window.tolist() == [[100, 101, 102], [110, 111, 112]]
        assert np.asarray(acc)[0].tolist() == list(range(6))
    out = np.zeros((3, 4), np.int32)
    with sycl.buffer(out) as obuf:
        queue.submit(
            lambda h: h.parallel_for(
                sycl.nd_range(sycl.range(3, 4), sycl.range(3, 4)),
                LOCAL_2D,
                sycl.accessor(obuf, h, sycl.write_only),
                sycl.local_accessor(np.int32, sycl.range(3, 4), h),
            )
        ).wait()
    assert out.tolist() == [[(2 - r) * 100 + c for c in range(4)] for r in range(3)]


def test_AC_17_copies_alias(queue: sycl.queue) -> None:
    """A copy of an accessor refers to the same data: writes through it are seen through the original."""
    data = np.zeros(4, np.int32)
    with sycl.buffer(data) as buf:

        def cgf(h: sycl.handler) -> None:
            acc = sycl.accessor(buf, h, sycl.read_write, target=sycl.target.host_task)
            twin = copy.copy(acc)

            def body() -> None:
                np.asarray(twin)[:] = 5
                np.asarray(acc)[1] += 1
                assert np.asarray(twin)[1] == 6

            h.host_task(body)

        queue.submit(cgf).wait_and_throw()
        with sycl.host_accessor(buf, sycl.read_write) as host:
            first, second = np.asarray(host), np.asarray(host)
            first[2] = 9
            assert second[2] == 9
    assert list(data) == [5, 6, 9, 5]


def test_AC_18_host_accessor_forms() -> None:
    """host_accessor over a buffer, a range, a range and an offset; tags give their modes."""
    buf = sycl.buffer(np.arange(8, dtype=np.int32))
    with sycl.host_accessor(buf, sycl.read_only) as acc:
        assert list(np.asarray(acc)) == list(range(8)) and acc.mode is sycl.access_mode.read
    with sycl.host_accessor(buf, sycl.read_only, access_range=sycl.range(3)) as acc:
        assert list(np.asarray(acc)) == [0, 1, 2]
    with sycl.host_accessor(buf, sycl.read_only, access_range=sycl.range(2), access_offset=sycl.id(5)) as acc:
        assert list(np.asarray(acc)) == [5, 6] and acc.get_offset() == sycl.id(5)
    for tag, mode in (
        (sycl.read_only, sycl.access_mode.read),
        (sycl.write_only, sycl.access_mode.write),
        (sycl.read_write, sycl.access_mode.read_write),
    ):
        with sycl.host_accessor(buf, tag) as acc:
            assert acc.mode is mode
    with sycl.host_accessor(buf) as acc:
        assert acc.mode is sycl.access_mode.read_write


def test_AC_19_local_accessor(queue: sycl.queue) -> None:
    """Work-items of a group write local memory, barrier, and read a neighbour's value."""
    out = np.zeros(16, np.int32)
    with sycl.buffer(out) as buf:

        def cgf(h: sycl.handler) -> None:
            local = sycl.local_accessor(np.int32, sycl.range(4), h)
            assert local.size() == 4 and local.byte_size() == 16 and local.get_range() == sycl.range(4)
            h.parallel_for(
                sycl.nd_range(sycl.range(16), sycl.range(4)),
                NEIGHBOUR,
                sycl.accessor(buf, h, sycl.write_only),
                local,
            )

        queue.submit(cgf).wait()
    assert list(out) == [g - (g % 4) + ((g % 4) + 1) % 4 for g in range(16)]


def test_AC_20_single_element(queue: sycl.queue) -> None:
    """A one-element buffer read and written by a kernel, a host task and a host accessor."""
    data = np.array([1], np.int32)
    with sycl.buffer(data) as buf:
        queue.submit(lambda h: h.single_task(SET_ONE, sycl.accessor(buf, h, sycl.write_only), 7))

        def cgf(h: sycl.handler) -> None:
            acc = sycl.accessor(buf, h, sycl.read_write, target=sycl.target.host_task)
            h.host_task(lambda: acc.__setitem__(0, acc[0] * 3))

        queue.submit(cgf)
        with sycl.host_accessor(buf) as acc:
            assert acc[0] == 21
            acc[0] = 22
    assert data[0] == 22


def test_AC_21_iteration() -> None:
    """A host accessor iterates its elements in order, more than once, and indexes at random."""
    with sycl.host_accessor(sycl.buffer(np.arange(6, dtype=np.int32)), sycl.read_only) as acc:
        assert list(acc) == list(range(6)) and list(acc) == list(range(6))
        assert len(acc) == 6 and acc[4] == 4 and acc[-1] == 5
        assert list(reversed(list(acc))) == list(range(5, -1, -1))


def test_AC_22_legacy_modes_and_targets(queue: sycl.queue) -> None:
    """Deprecated modes (discard_write, discard_read_write, atomic) and the constant_buffer target."""
    data = np.arange(4, dtype=np.int32)
    out = np.zeros(1, np.int32)
    with sycl.buffer(data) as buf, sycl.buffer(out) as obuf:
        discard = sycl.accessor(buf, mode=sycl.access_mode.discard_write)
        assert discard.mode in (sycl.access_mode.write, sycl.access_mode.discard_write)
        queue.submit(
            lambda h: h.parallel_for(sycl.range(4), INC, sycl.accessor(buf, h, sycl.access_mode.atomic))
        )
        queue.submit(
            lambda h: h.single_task(
                CONST_SUM,
                sycl.accessor(buf, h, sycl.access_mode.read, target=sycl.target.constant_buffer),
                sycl.accessor(obuf, h, sycl.access_mode.discard_read_write),
                4,
            )
        ).wait()
    assert out[0] == 1 + 2 + 3 + 4


def test_AC_11_local_accessor_needs_nd_range(queue: sycl.queue) -> None:
    """A local_accessor given to single_task or to a parallel_for over a plain range: errc.kernel_argument."""
    out = sycl.buffer(sycl.range(16), np.int32)
    for launch in (
        lambda h, loc: h.single_task(NEIGHBOUR, sycl.accessor(out, h), loc),
        lambda h, loc: h.parallel_for(sycl.range(16), NEIGHBOUR, sycl.accessor(out, h), loc),
    ):
        with raises(sycl.errc.kernel_argument):
            queue.submit(lambda h, launch=launch: launch(h, sycl.local_accessor(np.int32, sycl.range(4), h)))


def test_AC_23_empty_max_size_and_the_no_init_tag(queue: sycl.queue) -> None:
    """``empty()`` and ``max_size()`` of device, host and local accessors; the tag object
    ``sycl.no_init`` wherever the property goes (§4.7.6.4)."""
    data = np.arange(8, dtype=np.int32)
    with sycl.buffer(data) as buf:
        empty = sycl.buffer(sycl.range(0), np.int32)
        for acc in (sycl.accessor(buf), sycl.accessor(empty)):
            assert acc.empty() is (acc.size() == 0) and acc.max_size() >= 8
        seen = []

        def cgf(h: sycl.handler) -> None:
            out = sycl.accessor(buf, h, sycl.write_only, sycl.no_init)
            local = sycl.local_accessor(np.float64, 0, h)
            seen.append((out.has_property(sycl.property.no_init), out.empty(), local.empty(),
                         local.max_size() >= 2**32))
            h.single_task(SET_ONE, out, np.int32(5))
        queue.submit(cgf).wait()
        assert seen == [(True, False, True, True)]
        with sycl.host_accessor(buf, sycl.write_only, prop_list=[sycl.no_init]) as host:
            assert host.has_property(sycl.property.no_init) and not host.empty() and host.max_size() >= 8
            host[0] = 1
    assert isinstance(sycl.no_init, sycl.property.no_init)
