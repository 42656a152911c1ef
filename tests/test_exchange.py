"""Zero-copy exchange (docs/data-movement.md "Zero-copy exchange"): host accessors, accessors
inside a host task and host or shared USM pointers go out through DLPack, the buffer protocol
and the array interface as views of their memory, read-only where the access is read-only;
``sycl.buffer(x)`` takes DLPack and buffer-protocol host objects without a copy.

torch's and cupy's CPU paths are not tested: PyPI's torch wheel for Linux is the CUDA build
(over 1 GB with its CUDA libraries) and cupy has no CPU arrays; numpy and ``memoryview`` are
the consumers here, mpi4py in test_mpi.py.
"""

from __future__ import annotations

import gc
import sys

import numpy as np
import pytest

import sycl_ocl as sycl
from sycl_ocl.usm import alloc

sycl.register_kernel_source("""
__kernel void exchange_add(__global int *x, int k) { x[get_global_id(0)] += k; }
""")


class Interface:
    """Only the array interface of ``source`` (numpy would otherwise take ``__array__``)."""

    def __init__(self, source: object) -> None:
        self.__array_interface__ = source.__array_interface__  # type: ignore[attr-defined]


def add(q: sycl.queue, buf: sycl.buffer, k: int) -> None:
    n = buf.get_range().size()
    q.submit(lambda h: h.parallel_for(n, "exchange_add", sycl.accessor(buf, h), k)).wait()


def test_host_accessor_exports_are_views_of_the_buffer(queue: sycl.queue) -> None:
    data = np.arange(8, dtype=np.int32)
    with sycl.buffer(data) as buf:
        add(queue, buf, 10)
        with sycl.host_accessor(buf) as acc:
            assert acc.__dlpack_device__() == (1, 0)  # kDLCPU
            packed = np.from_dlpack(acc)
            interfaced = np.asarray(Interface(acc))
            viewed = np.frombuffer(acc.__buffer__(0), dtype=np.int32)
            for view in (packed, interfaced, viewed):
                assert view.flags.writeable
                assert np.shares_memory(view, np.asarray(acc))
            np.testing.assert_array_equal(packed, np.arange(8) + 10)
            packed[0] = -1
            interfaced[1] = -2
            viewed[2] = -3
        add(queue, buf, 1)  # the device sees the host writes
    np.testing.assert_array_equal(data[:3], [0, -1, -2])


def test_read_only_access_exports_read_only(queue: sycl.queue) -> None:
    with sycl.buffer(np.arange(6, dtype=np.int32)) as buf, sycl.host_accessor(buf, sycl.read_only) as acc:
        assert not np.from_dlpack(acc).flags.writeable
        assert not np.asarray(Interface(acc)).flags.writeable
        assert acc.__buffer__(0).readonly
        with pytest.raises(BufferError):  # a consumer of DLPack < 1.0 cannot be told "read-only"
            acc.__dlpack__()
        with pytest.raises(ValueError, match="read-only"):
            np.asarray(Interface(acc))[0] = 1


def test_a_ranged_accessor_exports_exactly_its_window(queue: sycl.queue) -> None:
    data = np.arange(48, dtype=np.float64).reshape(6, 8)
    window = sycl.range(3, 4), sycl.id(2, 3)
    with sycl.buffer(data) as buf, sycl.host_accessor(buf, sycl.read_write, *window) as acc:
        expected = data[2:5, 3:7]  # not contiguous: strides of the whole rows
        for view in (np.from_dlpack(acc), np.asarray(Interface(acc)), np.asarray(acc.__buffer__(0))):
            assert view.shape == (3, 4)
            assert view.strides == (64, 8)
            np.testing.assert_array_equal(view, expected)
        np.asarray(Interface(acc))[2, 3] = -5
    assert data[4, 6] == -5
    assert (data == -5).sum() == 1


@pytest.mark.skipif(sys.version_info < (3, 12), reason="memoryview() of a Python class needs PEP 688 (Python "
                    "3.12+); before, memoryview(numpy.asarray(x)), and acc.__buffer__ is tested above")
def test_memoryview_of_an_accessor(queue: sycl.queue) -> None:
    data = np.arange(4, dtype=np.int32)
    with sycl.buffer(data) as buf:
        with sycl.host_accessor(buf, sycl.read_only) as acc:
            view = memoryview(acc)
            assert view.readonly
            assert view.tolist() == [0, 1, 2, 3]
        with sycl.host_accessor(buf) as acc:
            memoryview(acc)[1] = 7
        add(queue, buf, 1)
    assert data.tolist() == [1, 8, 3, 4]


def test_an_export_keeps_the_memory_alive(queue: sycl.queue) -> None:
    """The runtime's host copy of a buffer without host data goes with the buffer, but not
    while an export views it."""
    def exports() -> tuple[np.ndarray, np.ndarray]:
        with sycl.buffer(sycl.range(1024), np.int32) as buf:
            queue.submit(lambda h: h.fill(sycl.accessor(buf, h, sycl.write_only), np.int32(3))).wait()
            with sycl.host_accessor(buf, sycl.read_only) as acc:
                return np.from_dlpack(acc), np.asarray(Interface(acc))

    capsule_view, interface_view = exports()
    gc.collect()  # the buffer and the accessor are gone
    np.ones(1 << 20, dtype=np.int32)  # reuse of freed memory would show
    assert (capsule_view == 3).all()
    assert (interface_view == 3).all()


def test_a_released_host_accessor_exports_nothing(queue: sycl.queue) -> None:
    """After its with block the accessor's memory is no longer valid: every export raises
    errc.accessor (no dangling view), while a view taken during the block stays valid."""
    data = np.arange(8, dtype=np.int32)
    with sycl.buffer(data) as buf:
        with sycl.host_accessor(buf, sycl.read_only) as acc:
            taken = np.from_dlpack(acc)
        exports = [lambda: np.from_dlpack(acc), lambda: acc.__array_interface__, lambda: np.asarray(acc)]
        for export in exports:
            with pytest.raises(sycl.exception) as info:
                export()
            assert info.value.code() is sycl.errc.accessor and "released" in str(info.value)
    assert taken.tolist() == list(range(8))


KEPT_VIEWS = {
    "numpy.asarray": np.asarray,
    "a slice": lambda acc: np.asarray(acc)[1:],
    "DLPack": np.from_dlpack,
    "the array interface": lambda acc: np.asarray(Interface(acc)),
    "memoryview": lambda acc: np.asarray(memoryview(np.asarray(acc))),
}


@pytest.mark.parametrize("take", KEPT_VIEWS.values(), ids=KEPT_VIEWS.keys())
@pytest.mark.parametrize("host_data", [True, False], ids=["over an array", "over a range"])
def test_a_view_kept_after_release_is_the_buffers_memory_no_more(
        queue: sycl.queue, take: object, host_data: bool) -> None:
    """A writable view taken inside a host accessor and kept after ``release()``: a write
    through it reaches neither the next kernel, nor a later host accessor, nor the write-back
    (docs/scheduler.md rule S30; issue 33 item 3). What was written inside the access stays."""
    data = np.zeros(8, dtype=np.int32)
    with sycl.buffer(data) if host_data else sycl.buffer(sycl.range(8), np.int32) as buf:
        if not host_data:
            buf.set_final_data(data)
        with sycl.host_accessor(buf) as acc:
            kept = take(acc)  # type: ignore[operator]
            np.asarray(acc)[:] = 5
        kept[...] = 99  # after the access: the memory is the buffer's no more
        add(queue, buf, 1)
        with sycl.host_accessor(buf, sycl.read_only) as acc:
            assert np.asarray(acc).tolist() == [6] * 8
        kept[...] = 77
    assert data.tolist() == [6] * 8


def test_a_view_dropped_before_release_costs_no_copy(queue: sycl.queue) -> None:
    """Without a view kept, the buffer keeps working in the array it owns (no host copy of its
    own is made)."""
    data = np.zeros(8, dtype=np.int32)
    with sycl.buffer(data) as buf:
        with sycl.host_accessor(buf) as acc:
            np.asarray(acc)[:] = 4
            acc[0] = 5
        with sycl.host_accessor(buf, sycl.read_only) as acc:
            np.asarray(acc).tolist()
        assert np.shares_memory(buf._root.host, data)
    assert data.tolist() == [5] + [4] * 7


def test_an_accessor_in_a_host_task_exports_its_range(queue: sycl.queue) -> None:
    data = np.zeros(16, dtype=np.int32)
    seen: list[tuple[int, int]] = []

    def fill(h: sycl.handler) -> None:
        acc = sycl.accessor(buf, h, sycl.write_only, access_range=sycl.range(4), access_offset=sycl.id(8),
                            target=sycl.target.host_task)

        def body() -> None:
            view = np.from_dlpack(acc)
            seen.append(acc.__dlpack_device__())
            view[:] = [1, 2, 3, 4]
            np.asarray(Interface(acc))[0] += 10

        h.host_task(body)

    with sycl.buffer(data) as buf:
        queue.submit(fill).wait_and_throw()
        add(queue, buf, 100)
    assert seen == [(1, 0)]
    np.testing.assert_array_equal(data[8:12], [111, 102, 103, 104])
    assert (data[:8] == 100).all()


@pytest.mark.parametrize("kind", [alloc.host, alloc.shared], ids=lambda k: k.name)
def test_usm_pointer_exports(queue: sycl.queue, kind: alloc) -> None:
    dev = queue.get_device()
    aspect = sycl.aspect.usm_host_allocations if kind is alloc.host else sycl.aspect.usm_shared_allocations
    if not dev.has(aspect):
        pytest.skip(f"{dev!r} has no aspect.{aspect.name} (Oclgrind: no SVM; NVIDIA: device USM only)")
    malloc = sycl.malloc_host if kind is alloc.host else sycl.malloc_shared
    p = malloc(8, queue, dtype=np.int32)
    np.asarray(p)[:] = np.arange(8)
    q_view = np.from_dlpack(p + 2)  # from the pointer to the end of the allocation
    np.testing.assert_array_equal(q_view, np.arange(2, 8))
    assert (p + 2).__dlpack_device__() == (1, 0)
    np.asarray(Interface(p))[0] = 40
    assert np.frombuffer(p.__buffer__(0), dtype=np.int32)[0] == 40
    queue.submit(lambda h: h.parallel_for(8, "exchange_add", p, 1)).wait()
    assert q_view.tolist() == [3, 4, 5, 6, 7, 8]
    sycl.free(p, queue)
    assert q_view.tolist() == [3, 4, 5, 6, 7, 8]  # the export keeps the memory
    with pytest.raises(sycl.exception, match="freed") as freed:
        np.from_dlpack(p)
    assert freed.value.code() == sycl.errc.invalid


def test_device_usm_is_not_exported(queue: sycl.queue) -> None:
    if not queue.get_device().has(sycl.aspect.usm_device_allocations):
        pytest.skip(f"{queue.get_device()!r} has no aspect.usm_device_allocations (Oclgrind has no SVM)")
    p = sycl.malloc_device(4, queue, dtype=np.int32)
    for export in (np.from_dlpack, lambda x: x.__dlpack_device__(), lambda x: x.__buffer__(0),
                   lambda x: x.__array_interface__):
        with pytest.raises(sycl.exception, match="device memory") as refused:
            export(p)
        assert refused.value.code() == sycl.errc.invalid
    sycl.free(p, queue)


class Packed:
    """A DLPack producer that is nothing else (like a torch CPU tensor): no buffer protocol,
    no ``__array__``."""

    def __init__(self, array: np.ndarray) -> None:
        self._array = array

    def __dlpack__(self, **kwargs: object) -> object:
        return self._array.__dlpack__(**kwargs)

    def __dlpack_device__(self) -> tuple[int, int]:
        return self._array.__dlpack_device__()  # type: ignore[no-any-return]


def test_a_buffer_over_a_dlpack_object_uses_its_memory(queue: sycl.queue) -> None:
    data = np.zeros((2, 4), dtype=np.int32)
    with sycl.buffer(Packed(data)) as buf:
        assert buf.get_range() == sycl.range(2, 4)
        add(queue, buf, 5)
    assert (data == 5).all()  # written back into the producer's memory


def test_a_buffer_refuses_device_memory_from_dlpack() -> None:
    class OnGpu:
        def __dlpack__(self, **kwargs: object) -> object:
            raise BufferError("the tensor is on cuda:0")

        def __dlpack_device__(self) -> tuple[int, int]:
            return (2, 0)

    with pytest.raises(sycl.exception, match="host memory") as refused:
        sycl.buffer(OnGpu())
    assert refused.value.code() == sycl.errc.invalid
