"""Category buffer (CTS tests/buffer): BU-01 .. BU-21."""

from __future__ import annotations

import copy
import os
import threading
import weakref

import numpy as np
import pytest

import sycl_ocl as sycl
from conformance.support import aligned_elements, known_defect, raises

INDEX, INC, STRIDED, TOUCH, SUM_WINDOW = sycl.register_kernel_source(
    """
    __kernel void cts_buffer_index(__global int *out) {
        size_t lin = 0;
        for (int d = (int)get_work_dim() - 1; d >= 0; --d) lin = lin * get_global_size(d) + get_global_id(d);
        out[lin] = (int)lin;
    }
    __kernel void cts_buffer_inc(__global int *d) { d[get_global_id(0)] += 1; }
    __kernel void cts_buffer_strided(__global uint *d, ulong stride, ulong last) {
        ulong i = get_global_id(0) * stride;
        d[i] = (uint)get_global_id(0) + 1u;
        if (get_global_id(0) == 0) d[last] = 0xC0FFEEu;
    }
    __kernel void cts_buffer_touch(__global uint *d) { d[0] = 1u; }
    __kernel void cts_buffer_sum_window(__global const int *window, __global int *out, int n) {
        int s = 0;
        for (int i = 0; i < n; ++i) s += window[i];
        out[0] = s;
    }
    """
)
# At most this much is allocated near max_mem_alloc_size (env SYCL_OCL_CONFORMANCE_MAX_ALLOC_MB).
ALLOC_CAP = int(float(os.environ.get("SYCL_OCL_CONFORMANCE_MAX_ALLOC_MB", "256")) * 2**20)


@pytest.mark.parametrize("shape", [(8,), (8, 4), (2, 3, 4)])
def test_BU_01_sizes(shape: tuple[int, ...]) -> None:
    """get_range, size (elements), byte_size (bytes) and the deprecated get_count/get_size."""
    buf = sycl.buffer(sycl.range(*shape), np.float32)
    n = int(np.prod(shape))
    assert buf.get_range() == sycl.range(*shape)
    assert buf.size() == n and buf.byte_size() == 4 * n
    assert buf.get_count() == n and buf.get_size() == 4 * n


def test_BU_02_get_access(queue: sycl.queue) -> None:
    """get_access gives device accessors (whole and ranged), get_host_access a host accessor."""
    buf = sycl.buffer(np.arange(8, dtype=np.int32))
    seen: list[tuple[object, ...]] = []

    def cgf(h: sycl.handler) -> None:
        whole = buf.get_access(h, sycl.access_mode.read)
        ranged = buf.get_access(h, sycl.access_mode.read_write, sycl.range(3), sycl.id(2))
        seen.append(
            (
                whole.mode,
                whole.get_range(),
                ranged.get_range(),
                ranged.get_offset(),
                whole.is_placeholder(),
                whole.get_target(),
            )
        )

    queue.submit(cgf).wait()
    assert seen == [
        (sycl.access_mode.read, sycl.range(8), sycl.range(3), sycl.id(2), False, sycl.target.device)
    ]
    with buf.get_host_access(sycl.read_only) as host:
        assert isinstance(host, sycl.host_accessor) and list(np.asarray(host)) == list(range(8))


def test_BU_04_sub_buffer() -> None:
    """A sub-buffer reports is_sub_buffer; its parent does not."""
    parent = sycl.buffer(sycl.range(8, 8), np.int32)
    sub = sycl.buffer(parent, sycl.id(2, 0), sycl.range(4, 8))
    assert sub.is_sub_buffer() and not parent.is_sub_buffer()
    assert sub.get_range() == sycl.range(4, 8) and sub.size() == 32


def test_BU_05_properties(device: sycl.device) -> None:
    """use_mutex, context_bound and use_host_ptr are reported with their arguments."""
    lock, ctx = threading.Lock(), sycl.context(device)
    data = np.zeros(8, np.int32)
    buf = sycl.buffer(
        data, prop_list=[sycl.property.buffer.use_mutex(lock), sycl.property.buffer.context_bound(ctx)]
    )
    assert buf.has_property(sycl.property.buffer.use_mutex)
    assert buf.has_property(sycl.property.buffer.context_bound)
    assert buf.get_property(sycl.property.buffer.use_mutex).get_mutex_ptr() is lock
    assert buf.get_property(sycl.property.buffer.context_bound).get_context() == ctx
    assert not buf.has_property(sycl.property.buffer.use_host_ptr)
    host_ptr = sycl.buffer(data, prop_list=[sycl.property.buffer.use_host_ptr()])
    assert host_ptr.has_property(sycl.property.buffer.use_host_ptr)
    assert isinstance(
        host_ptr.get_property(sycl.property.buffer.use_host_ptr), sycl.property.buffer.use_host_ptr
    )


def test_BU_06_absent_property_is_invalid() -> None:
    """buffer.get_property of a property the buffer lacks raises errc.invalid."""
    buf = sycl.buffer(np.zeros(4, np.int32), prop_list=[sycl.property.buffer.use_host_ptr()])
    with raises(sycl.errc.invalid):
        buf.get_property(sycl.property.buffer.use_mutex)


def test_BU_07_reinterpret() -> None:
    """reinterpret keeps the byte size; a 1-D default range; a size mismatch raises errc.invalid."""
    buf = sycl.buffer(sycl.range(4, 4), np.int32)
    flat = buf.reinterpret(np.uint8, sycl.range(64))
    assert flat.byte_size() == buf.byte_size() and flat.get_range() == sycl.range(64)
    assert buf.reinterpret(np.float32, sycl.range(16)).size() == 16
    same = buf.reinterpret(np.float32)
    assert same.get_range() == buf.get_range() and same.byte_size() == buf.byte_size()
    one_d = sycl.buffer(sycl.range(8), np.int32).reinterpret(np.int16)
    assert one_d.get_range() == sycl.range(16)
    three_d = sycl.buffer(sycl.range(2, 2, 2), np.int64).reinterpret(np.int32, sycl.range(2, 2, 4))
    assert three_d.byte_size() == 64
    with raises(sycl.errc.invalid):
        buf.reinterpret(np.int32, sycl.range(5))


@pytest.mark.parametrize("shape", [(16,), (4, 8), (2, 3, 4)])
def test_BU_08_linearization(queue: sycl.queue, shape: tuple[int, ...]) -> None:
    """A kernel writing the row-major linear index gives 0..N-1 on the host, in 1, 2 and 3 D."""
    out = np.full(shape, -1, np.int32)
    with sycl.buffer(out) as buf:
        queue.submit(
            lambda h: h.parallel_for(sycl.range(*shape), INDEX, sycl.accessor(buf, h, sycl.write_only))
        ).wait()
    assert (out.ravel() == np.arange(out.size)).all()


def test_BU_09_constructors_initial_data(queue: sycl.queue) -> None:
    """Every constructor gives the right range, and the device sees the initial host data."""
    data = np.arange(6, dtype=np.int32)
    ro = data.copy()
    ro.setflags(write=False)
    base = aligned_elements(queue.get_device())  # a sub-buffer used on the device starts there
    parent = sycl.buffer(np.arange(2 * base, dtype=np.int32))
    cases = [
        (sycl.buffer(data.copy()), list(range(6))),
        (sycl.buffer(ro), list(range(6))),
        (sycl.buffer(data.copy(), sycl.range(4)), [0, 1, 2, 3]),
        (sycl.buffer(iter(range(5)), dtype=np.int32), list(range(5))),
        (sycl.buffer(parent, sycl.id(base), sycl.range(4)), list(range(base, base + 4))),
    ]
    for buf, expected in cases:
        assert buf.get_range() == sycl.range(len(expected))
        queue.submit(lambda h, buf=buf: h.parallel_for(buf.get_range(), INC, sycl.accessor(buf, h))).wait()
        with sycl.host_accessor(buf, sycl.read_only) as acc:
            assert list(np.asarray(acc)) == [v + 1 for v in expected]
    assert sycl.buffer(sycl.range(3), np.int32).get_range() == sycl.range(3)


def test_BU_11_copies_keep_properties() -> None:
    """A copied or re-bound buffer handle keeps use_host_ptr."""
    buf = sycl.buffer(np.zeros(4, np.int32), prop_list=[sycl.property.buffer.use_host_ptr()])
    bound = buf
    copied = copy.copy(buf)
    for other in (bound, copied):
        assert other == buf and other.has_property(sycl.property.buffer.use_host_ptr)


@pytest.mark.parametrize("target", ["array", "weakref", "none"])
def test_BU_13_use_mutex_and_final_data(target: str) -> None:
    """The runtime holds the mutex while it owns the host memory (the host may not write then)
    and releases it at destruction, after set_final_data(dest) + set_write_back copied to dest.

    The lock is observed: taken while the buffer lives, free after (docs/conformance.md).
    """
    lock = threading.Lock()
    dest = np.zeros(4, np.int32)
    source = np.arange(4, dtype=np.int32)
    with sycl.buffer(source, prop_list=[sycl.property.buffer.use_mutex(lock)]) as buf:
        assert not lock.acquire(blocking=False), "use_mutex: the runtime does not hold the lock"
        final = {"array": dest, "weakref": weakref.ref(dest), "none": None}[target]
        buf.set_final_data(final)
        buf.set_write_back(True)
        with sycl.host_accessor(buf, sycl.read_write) as acc:
            np.asarray(acc)[:] += 10
        assert lock.locked()
    assert lock.acquire(blocking=False), "use_mutex: the lock is still held after the buffer's end"
    try:  # released at destruction: the data is synchronized
        expected = [10, 11, 12, 13] if target != "none" else [0, 0, 0, 0]
        assert list(dest) == expected
    finally:
        lock.release()


def test_BU_14_reference_semantics() -> None:
    """A write through one handle is seen through another; handles compare and hash equal."""
    buf = sycl.buffer(np.zeros(4, np.int32))
    alias = buf
    with sycl.host_accessor(buf, sycl.write_only) as acc:
        np.asarray(acc)[:] = 7
    with sycl.host_accessor(alias, sycl.read_only) as acc:
        assert list(np.asarray(acc)) == [7] * 4
    with sycl.host_accessor(copy.copy(buf), sycl.write_only) as acc:
        np.asarray(acc)[:] = 9
    with sycl.host_accessor(buf, sycl.read_only) as acc:
        assert list(np.asarray(acc)) == [9] * 4
    assert alias == buf and hash(alias) == hash(buf)
    assert sycl.buffer(np.zeros(4, np.int32)) != buf


def test_BU_16_write_back_on_destruction(queue: sycl.queue) -> None:
    """A writeable host array receives the device's writes when the buffer is destroyed."""
    data = np.zeros((2, 8), np.int32)
    buf = sycl.buffer(data)
    queue.submit(
        lambda h, buf=buf: h.parallel_for(sycl.range(2, 8), INDEX, sycl.accessor(buf, h, sycl.write_only))
    )
    del buf
    assert (data.ravel() == np.arange(16)).all()


def test_BU_16_copy_is_a_second_handle(queue: sycl.queue) -> None:
    """A copy.copy of a buffer keeps it alive after the original handle is gone."""
    data = np.zeros(4, np.int32)
    original = sycl.buffer(data)
    second = copy.copy(original)
    original.__exit__(None, None, None)
    queue.submit(lambda h: h.parallel_for(sycl.range(4), INC, sycl.accessor(second, h))).wait()
    second.__exit__(None, None, None)
    assert list(data) == [1] * 4


def test_BU_20_near_max_mem_alloc_size(queue: sycl.queue) -> None:
    """A buffer near max_mem_alloc_size (capped, see ALLOC_CAP) is written at both ends."""
    limit = queue.get_device().get_info(sycl.info.device.max_mem_alloc_size)
    nbytes = min(limit, ALLOC_CAP) // 4 * 4
    n = nbytes // 4
    items = 1024
    stride = (n - 1) // items
    with sycl.buffer(sycl.range(n), np.uint32) as buf:
        queue.submit(
            lambda h: h.parallel_for(
                sycl.range(items), STRIDED, sycl.accessor(buf, h), np.uint64(stride), np.uint64(n - 1)
            )
        ).wait()
        with sycl.host_accessor(buf, sycl.read_only, sycl.range(1), sycl.id(n - 1)) as last:
            assert int(np.asarray(last)[0]) == 0xC0FFEE
        with sycl.host_accessor(buf, sycl.read_only, sycl.range(1), sycl.id((items - 1) * stride)) as far:
            assert int(np.asarray(far)[0]) == items


def test_BU_20_beyond_max_mem_alloc_size_is_refused(
    request: pytest.FixtureRequest, queue: sycl.queue
) -> None:
    """A buffer one element larger than max_mem_alloc_size is refused when used, never a crash."""
    known_defect(
        request,
        queue.get_device(),
        "Oclgrind",
        "Oclgrind 21.10 creates buffers larger than "
        "CL_DEVICE_MAX_MEM_ALLOC_SIZE (conformance/results/oclgrind-21.10/repro_alloc_beyond_max.py)",
    )
    known_defect(
        request,
        queue.get_device(),
        "NVIDIA CUDA",
        "NVIDIA's OpenCL creates and uses buffers larger than CL_DEVICE_MAX_MEM_ALLOC_SIZE "
        "(a quarter of its memory) (conformance/results/nvidia-h100/repro_alloc_beyond_max.py)",
    )
    limit = queue.get_device().get_info(sycl.info.device.max_mem_alloc_size)
    too_big = sycl.buffer(sycl.range(limit // 4 + 1), np.uint32)
    errors: list[sycl.exception_list] = []
    q = sycl.queue(queue.get_context(), queue.get_device(), async_handler=errors.append)
    with pytest.raises(sycl.exception) as info:
        q.submit(lambda h: h.single_task(TOUCH, sycl.accessor(too_big, h, sycl.write_only, sycl.range(1))))
        q.wait_and_throw()
        for batch in errors:
            raise next(iter(batch))
    assert info.value.code() in (sycl.errc.memory_allocation, sycl.errc.invalid), info.value


def test_BU_21_sub_buffers_at_mem_base_addr_align(queue: sycl.queue) -> None:
    """Sub-buffers on the device's base alignment see their own window; misaligned ones are refused."""
    align = aligned_elements(queue.get_device())
    n = 4 * align
    parent = sycl.buffer(np.arange(n, dtype=np.int32))
    out = sycl.buffer(sycl.range(1), np.int32)
    for k in range(4):
        window = sycl.buffer(parent, sycl.id(k * align), sycl.range(align))
        queue.submit(
            lambda h, w=window: h.single_task(
                SUM_WINDOW, sycl.accessor(w, h, sycl.read_only), sycl.accessor(out, h, sycl.write_only), align
            )
        )
        with sycl.host_accessor(out, sycl.read_only) as acc:
            assert int(np.asarray(acc)[0]) == sum(range(k * align, (k + 1) * align))
    if align > 1:
        crooked = sycl.buffer(parent, sycl.id(1), sycl.range(align))
        with raises(sycl.errc.invalid):
            queue.submit(
                lambda h: h.single_task(
                    SUM_WINDOW, sycl.accessor(crooked, h, sycl.read_only), sycl.accessor(out, h), align
                )
            )
