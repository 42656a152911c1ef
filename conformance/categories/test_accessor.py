"""Category accessor (CTS tests/accessor_*, host_accessor, local_accessor): AC-02 .. AC-19."""

from __future__ import annotations

import numpy as np
import pytest

import sycl_ocl as sycl

INC, NEIGHBOUR = sycl.register_kernel_source(
    """
    __kernel void cts_inc(__global int *d) { d[get_global_id(0)] += 1; }
    __kernel void cts_neighbour(__global int *out, __local int *tmp) {
        size_t l = get_local_id(0), n = get_local_size(0);
        tmp[l] = (int)get_global_id(0);
        barrier(CLK_LOCAL_MEM_FENCE);
        out[get_global_id(0)] = tmp[(l + 1) % n];
    }
    """
)


def test_AC_02_zero_length_buffer() -> None:
    """A host accessor over a zero-length buffer is empty."""
    acc = sycl.host_accessor(sycl.buffer(sycl.range(0), np.int32), sycl.read_only)
    assert acc.size() == 0 and np.asarray(acc).size == 0


def test_AC_03_full_and_placeholder(queue: sycl.queue) -> None:
    """Accessors with a handler are not placeholders; without one they are."""
    buf = sycl.buffer(np.zeros(8, np.int32))
    placeholder = sycl.accessor(buf)
    assert placeholder.is_placeholder()
    assert placeholder.get_range() == sycl.range(8) and placeholder.get_offset() == sycl.id(0)
    seen: list[bool] = []
    queue.submit(lambda h: seen.append(sycl.accessor(buf, h).is_placeholder())).wait()
    assert seen == [False]


def test_AC_06_modes(queue: sycl.queue) -> None:
    """read_write reads the original data and writes back."""
    data = np.arange(8, dtype=np.int32)
    with sycl.buffer(data) as buf:
        queue.submit(lambda h: h.parallel_for(sycl.range(8), INC, sycl.accessor(buf, h, sycl.read_write)))
    assert list(data) == list(range(1, 9))


def test_AC_13_no_init_property(queue: sycl.queue) -> None:
    """no_init is reported when given; get_property of it otherwise raises errc.invalid."""
    buf = sycl.buffer(np.zeros(4, np.int32))
    plain = sycl.accessor(buf)
    assert not plain.has_property(sycl.property.no_init)
    with pytest.raises(sycl.exception) as info:
        plain.get_property(sycl.property.no_init)
    assert info.value.code() is sycl.errc.invalid
    discard = sycl.accessor(buf, mode=sycl.write_only, prop_list=[sycl.property.no_init()])
    assert discard.has_property(sycl.property.no_init)
    with pytest.raises(sycl.exception):
        sycl.accessor(buf, mode=sycl.read_only, prop_list=[sycl.property.no_init()])


def test_AC_14_out_of_range_is_invalid() -> None:
    """A range plus offset beyond the buffer raises."""
    buf = sycl.buffer(np.zeros(4, np.int32))
    with pytest.raises(sycl.exception):
        sycl.accessor(buf, access_range=sycl.range(3), access_offset=sycl.id(2))


def test_AC_15_placeholder_require(queue: sycl.queue) -> None:
    """A placeholder accessor bound with require() is usable in the command group."""
    data = np.zeros(4, np.int32)
    with sycl.buffer(data) as buf:
        acc = sycl.accessor(buf, mode=sycl.read_write)
        queue.submit(lambda h: (h.require(acc), h.parallel_for(sycl.range(4), INC, acc))).wait()
    assert list(data) == [1] * 4


def test_AC_16_host_linearization() -> None:
    """A 2-D host accessor indexes row-major, relative to its offset."""
    buf = sycl.buffer(np.arange(24, dtype=np.int32).reshape(4, 6))
    acc = sycl.host_accessor(buf, sycl.read_only, access_range=sycl.range(2, 3), access_offset=sycl.id(1, 2))
    assert acc[0, 0] == 8 and acc[1, 2] == 16
    assert np.asarray(acc).shape == (2, 3)


def test_AC_18_host_accessor_forms() -> None:
    """host_accessor over a buffer, a range, a range and an offset; tag forms."""
    buf = sycl.buffer(np.arange(8, dtype=np.int32))
    assert list(np.asarray(sycl.host_accessor(buf, sycl.read_only))) == list(range(8))
    assert list(np.asarray(sycl.host_accessor(buf, sycl.read_only, access_range=sycl.range(3)))) == [0, 1, 2]
    ranged = sycl.host_accessor(buf, sycl.read_only, access_range=sycl.range(2), access_offset=sycl.id(5))
    assert list(np.asarray(ranged)) == [5, 6]


def test_AC_19_local_accessor(queue: sycl.queue) -> None:
    """Work-items of a group write local memory, barrier, and read a neighbour's value."""
    out = np.zeros(16, np.int32)
    with sycl.buffer(out) as buf:
        queue.submit(lambda h: h.parallel_for(
            sycl.nd_range(sycl.range(16), sycl.range(4)), NEIGHBOUR,
            sycl.accessor(buf, h, sycl.write_only), sycl.local_accessor(np.int32, sycl.range(4), h))).wait()
    expected = [g - (g % 4) + ((g % 4) + 1) % 4 for g in range(16)]
    assert list(out) == expected
