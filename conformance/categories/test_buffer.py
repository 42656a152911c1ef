"""Category buffer (CTS tests/buffer): BU-01 .. BU-14."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import sycl_ocl as sycl

(LINEAR_2D,) = sycl.register_kernel_source(
    """
    __kernel void cts_linear_2d(__global int *out) {
        size_t row = get_global_id(1), col = get_global_id(0);
        out[row * get_global_size(0) + col] = (int)(row * get_global_size(0) + col);
    }
    """
)


def test_BU_01_sizes() -> None:
    """get_range, size (elements) and byte_size (bytes)."""
    buf = sycl.buffer(sycl.range(8, 4), np.float32)
    assert buf.get_range() == sycl.range(8, 4)
    assert buf.size() == 32 and buf.byte_size() == 128


def test_BU_04_sub_buffer() -> None:
    """A sub-buffer reports is_sub_buffer; its parent does not."""
    parent = sycl.buffer(sycl.range(8, 8), np.int32)
    sub = sycl.buffer(parent, sycl.id(2, 0), sycl.range(4, 8))
    assert sub.is_sub_buffer() and not parent.is_sub_buffer()
    assert sub.get_range() == sycl.range(4, 8)


def test_BU_05_properties(device: sycl.device) -> None:
    """use_mutex, context_bound and use_host_ptr are reported with their arguments."""
    lock, ctx = threading.Lock(), sycl.context(device)
    data = np.zeros(8, np.int32)
    buf = sycl.buffer(data, prop_list=[sycl.property.buffer.use_mutex(lock),
                                       sycl.property.buffer.context_bound(ctx)])
    assert buf.has_property(sycl.property.buffer.use_mutex)
    assert buf.get_property(sycl.property.buffer.use_mutex).get_mutex_ptr() is lock
    assert buf.get_property(sycl.property.buffer.context_bound).get_context() == ctx
    assert not buf.has_property(sycl.property.buffer.use_host_ptr)
    host_ptr = sycl.buffer(data, prop_list=[sycl.property.buffer.use_host_ptr()])
    assert host_ptr.has_property(sycl.property.buffer.use_host_ptr)
    with pytest.raises(sycl.exception) as info:
        host_ptr.get_property(sycl.property.buffer.use_mutex)
    assert info.value.code() is sycl.errc.invalid


def test_BU_07_reinterpret() -> None:
    """reinterpret keeps the byte size; a size mismatch raises errc.invalid."""
    buf = sycl.buffer(sycl.range(4, 4), np.int32)
    flat = buf.reinterpret(np.uint8, sycl.range(64))
    assert flat.byte_size() == buf.byte_size() and flat.get_range() == sycl.range(64)
    assert buf.reinterpret(np.float32, sycl.range(16)).size() == 16
    with pytest.raises(sycl.exception) as info:
        buf.reinterpret(np.int32, sycl.range(5))
    assert info.value.code() is sycl.errc.invalid


def test_BU_08_linearization(queue: sycl.queue) -> None:
    """A 2-D kernel writing the row-major linear index gives 0..N-1 on the host."""
    out = np.full((4, 8), -1, np.int32)
    with sycl.buffer(out) as buf:
        queue.submit(lambda h: h.parallel_for(sycl.range(4, 8), LINEAR_2D,
                                              sycl.accessor(buf, h, sycl.write_only))).wait()
    assert (out.ravel() == np.arange(32)).all()


def test_BU_09_constructors_initial_data(queue: sycl.queue) -> None:
    """Buffers from arrays and read-only arrays expose their data; range-only ones have the range."""
    data = np.arange(6, dtype=np.int32)
    assert (np.asarray(sycl.host_accessor(sycl.buffer(data), sycl.read_only)) == data).all()
    ro = data.copy()
    ro.setflags(write=False)
    assert (np.asarray(sycl.host_accessor(sycl.buffer(ro), sycl.read_only)) == data).all()
    assert sycl.buffer(sycl.range(3), np.int32).get_range() == sycl.range(3)


def test_BU_13_set_final_data() -> None:
    """set_final_data(dest) copies the buffer into dest at destruction."""
    dest = np.zeros(4, np.int32)
    with sycl.buffer(np.arange(4, dtype=np.int32)) as buf:
        buf.set_final_data(dest)
        buf.set_write_back(True)
        with sycl.host_accessor(buf, sycl.read_write) as acc:
            np.asarray(acc)[:] += 10
    assert list(dest) == [10, 11, 12, 13]


def test_BU_14_reference_semantics() -> None:
    """A copy of a buffer sees writes made through the original."""
    buf = sycl.buffer(np.zeros(4, np.int32))
    alias = buf
    with sycl.host_accessor(buf, sycl.write_only) as acc:
        np.asarray(acc)[:] = 7
    with sycl.host_accessor(alias, sycl.read_only) as acc:
        assert list(np.asarray(acc)) == [7] * 4
    assert alias == buf and hash(alias) == hash(buf)


def test_BU_16_write_back_on_destruction(queue: sycl.queue) -> None:
    """A writeable host array receives the device's writes when the buffer is destroyed."""
    data = np.zeros((2, 8), np.int32)
    buf = sycl.buffer(data)
    queue.submit(lambda h, buf=buf: h.parallel_for(
        sycl.range(2, 8), LINEAR_2D, sycl.accessor(buf, h, sycl.write_only)))
    del buf
    assert (data.ravel() == np.arange(16)).all()
