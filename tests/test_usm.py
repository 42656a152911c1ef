"""Unified shared memory on OpenCL SVM (SYCL 2020 §4.8) and its commands (§4.6.5.2, §4.9.4.3).

Every test runs on each device under test. What the device's SVM supports must work; a kind
it cannot back must be refused with ``errc.feature_not_supported`` (PoCL 3.1 backs all three
kinds with fine-grain SVM, NVIDIA only device memory, Oclgrind none).
"""

from __future__ import annotations

import gc
import sys
import threading
import weakref
from collections.abc import Callable

import numpy as np
import pytest

import sycl_ocl as sycl
from sycl_ocl.scheduler import Op
from sycl_ocl.usm import alloc

sycl.register_kernel_source(
    """
    __kernel void usm_scale(__global float* a, float f) { a[get_global_id(0)] *= f; }
    __kernel void usm_add(__global int* dst, __global const int* src, int k) {
        size_t i = get_global_id(0);
        dst[i] = src[i] + k;
    }
    __kernel void usm_one(__global int* a, int v) { a[0] = v; }
    """
)

KINDS = [alloc.device, alloc.host, alloc.shared]
ASPECT = {
    alloc.device: sycl.aspect.usm_device_allocations,
    alloc.host: sycl.aspect.usm_host_allocations,
    alloc.shared: sycl.aspect.usm_shared_allocations,
}
MALLOC = {alloc.device: sycl.malloc_device, alloc.host: sycl.malloc_host, alloc.shared: sycl.malloc_shared}
ALIGNED = {
    alloc.device: sycl.aligned_alloc_device,
    alloc.host: sycl.aligned_alloc_host,
    alloc.shared: sycl.aligned_alloc_shared,
}
PROFILING = [sycl.property.queue.enable_profiling()]


def supported(dev: sycl.device) -> list[alloc]:
    return [k for k in KINDS if dev.has(ASPECT[k])]


def need(dev: sycl.device, *kinds: alloc) -> None:
    """Skip unless the device backs these kinds (their refusal is test_unsupported_kind_*)."""
    for kind in kinds:
        if not dev.has(ASPECT[kind]):
            pytest.skip(f"{dev!r} has no aspect.{ASPECT[kind].name}; its refusal is tested "
                        "by test_unsupported_kinds_are_refused")


def any_kind(dev: sycl.device) -> alloc:
    kinds = supported(dev)
    if not kinds:
        pytest.skip(f"{dev!r} backs no USM kind (no OpenCL SVM); its refusal is tested by "
                    "test_unsupported_kinds_are_refused")
    return kinds[0]


def host_kind(dev: sycl.device) -> alloc:
    """A kind the host can view (shared, else host)."""
    for kind in (alloc.shared, alloc.host):
        if dev.has(ASPECT[kind]):
            return kind
    pytest.skip(f"{dev!r} backs neither host nor shared USM (needs fine-grain SVM); the "
                "refusal is tested by test_unsupported_kinds_are_refused")


def ints(q: sycl.queue, kind: alloc, n: int) -> sycl.usm_ptr:
    p = sycl.malloc(count=n, dtype=np.int32, q=q, kind=kind)
    assert p is not None
    return p


def read(q: sycl.queue, p: sycl.usm_ptr, n: int) -> np.ndarray:
    out = np.zeros(n, dtype=p.dtype or np.uint8)
    q.memcpy(out, p, out.nbytes).wait()
    return out


def write(q: sycl.queue, p: sycl.usm_ptr, values: np.ndarray) -> None:
    q.memcpy(p, values, values.nbytes).wait()


def raises(code: sycl.errc, fn: Callable[[], object], *words: str) -> sycl.exception:
    with pytest.raises(sycl.exception) as info:
        fn()
    assert info.value.code() is code, info.value.what()
    for word in words:
        assert word in info.value.what()
    return info.value


def still_works(q: sycl.queue) -> None:
    """After a refused call, the queue and USM keep working."""
    p = ints(q, any_kind(q.get_device()), 4)
    write(q, p, np.arange(4, dtype=np.int32))
    assert read(q, p, 4).tolist() == [0, 1, 2, 3]
    sycl.free(p, q)


# --- allocation (§4.8.3) -------------------------------------------------------------------


def test_unsupported_kinds_are_refused(device: sycl.device) -> None:
    q = sycl.queue(sycl.context(device), device)
    for kind in KINDS:
        if device.has(ASPECT[kind]):
            continue
        for call in _allocations(kind, q):
            raises(sycl.errc.feature_not_supported, call, ASPECT[kind].name)


def _allocations(kind: alloc, q: sycl.queue) -> list[Callable[[], object]]:
    dev, ctx = q.get_device(), q.get_context()
    return [lambda: MALLOC[kind](64, q), lambda: ALIGNED[kind](64, 64, q),
            lambda: sycl.malloc(64, q, kind), lambda: sycl.aligned_alloc(64, 64, dev, ctx, kind),
            lambda: MALLOC[kind](count=4, dtype=np.float32, q=q)]


def test_oclgrind_has_no_usm() -> None:
    devs = [d for p in sycl.platform.get_platforms() for d in p.get_devices()
            if "Oclgrind" in p.get_info(sycl.info.platform.name)]
    if not devs:
        pytest.skip("Oclgrind is not installed")
    q = sycl.queue(devs[0])
    for kind in KINDS:
        for call in _allocations(kind, q):
            raises(sycl.errc.feature_not_supported, call)


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
def test_every_allocation_form(device: sycl.device, kind: alloc) -> None:
    need(device, kind)
    ctx = sycl.context(device)
    q = sycl.queue(ctx, device)
    target = (ctx,) if kind is alloc.host else (device, ctx)
    pointers = [
        MALLOC[kind](64, q), MALLOC[kind](64, *target), MALLOC[kind](count=16, dtype=np.float32, q=q),
        MALLOC[kind](16, q, dtype=np.float32), MALLOC[kind](np.float32, 16, q),
        ALIGNED[kind](256, 64, q), ALIGNED[kind](256, 64, *target),
        sycl.malloc(64, device, ctx, kind), sycl.malloc(64, q, kind=kind),
        sycl.aligned_alloc(256, 64, q, kind), sycl.aligned_alloc(16, count=4, dtype=np.int32, q=q, kind=kind),
        MALLOC[kind](64, q, prop_list=sycl.property_list()),
    ]
    for p in pointers:
        assert isinstance(p, sycl.usm_ptr)
        assert sycl.get_pointer_type(p, ctx) is kind
        assert sycl.get_pointer_device(p, ctx) == device
    assert pointers[0].dtype is None and pointers[2].dtype == np.float32
    assert pointers[3].dtype == np.float32 and pointers[4].dtype == np.float32
    assert len({sycl.get_native(p).svm_ptr for p in pointers}) == len(pointers)  # distinct memory
    for p in pointers:
        sycl.free(p, ctx)


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
def test_alignment(device: sycl.device, kind: alloc) -> None:
    need(device, kind)
    q = sycl.queue(sycl.context(device), device)
    for alignment in (1, 8, 64, 128, 256, 4096, 65536):
        p = ALIGNED[kind](alignment, 100, q)
        assert p is not None
        assert sycl.get_native(p).svm_ptr % alignment == 0
        write(q, p, np.arange(100, dtype=np.uint8))  # all 100 bytes are usable
        assert read(q, p, 100).tolist() == list(range(100))
        sycl.free(p, q)
    for bad in (3, 24, -8):
        assert ALIGNED[kind](bad, 64, q) is None  # §4.8.3: an unsupported alignment is nullptr


def test_zero_bytes_and_failed_allocations_are_none(device: sycl.device) -> None:
    kind = any_kind(device)
    q = sycl.queue(sycl.context(device), device)
    assert sycl.malloc(0, q, kind) is None
    assert sycl.malloc(count=0, dtype=np.float64, q=q, kind=kind) is None
    assert sycl.malloc(1 << 60, q, kind) is None  # more than any device has
    sycl.free(None, q)  # the null pointer: no effect
    raises(sycl.errc.invalid, lambda: sycl.malloc(-1, q, kind), ">= 0")
    raises(sycl.errc.invalid, lambda: sycl.malloc(1.5, q, kind), "int")
    still_works(q)


def test_allocation_arguments_are_checked(device_pair: list[sycl.device]) -> None:
    d0, d1 = device_pair
    ctx = sycl.context(d0)
    raises(sycl.errc.invalid, lambda: sycl.malloc_device(64, d1, ctx), "not one of the devices")
    raises(sycl.errc.invalid, lambda: sycl.malloc_shared(64, ctx), "device")
    raises(sycl.errc.invalid, lambda: sycl.malloc(64, d0, ctx), "kind")
    raises(sycl.errc.invalid, lambda: sycl.malloc(64, d0, ctx, alloc.unknown), "kind")
    raises(sycl.errc.invalid, lambda: sycl.malloc_device(64, "q"), "unexpected argument")
    raises(sycl.errc.invalid, lambda: sycl.malloc_device(count=4, q=sycl.queue(d0)), "dtype")


def test_host_allocation_device_is_the_first_of_the_context(device_pair: list[sycl.device]) -> None:
    need(device_pair[0], alloc.host, alloc.shared)
    ctx = sycl.context(device_pair)
    h = sycl.malloc_host(64, ctx)
    s = sycl.malloc_shared(64, device_pair[1], ctx)
    assert sycl.get_pointer_device(h, ctx) == device_pair[0]
    assert sycl.get_pointer_device(s + 10, ctx) == device_pair[1]
    sycl.free(h, ctx)
    sycl.free(s, ctx)


def _two_device_allocation(ctx: sycl.context, dev: sycl.device) -> sycl.usm_ptr:
    """Device USM in a context of two devices, or a skip where the driver cannot pass USM
    pointers to kernels there (NVIDIA 580: test_usm_in_a_context_of_two_devices_*)."""
    try:
        p = sycl.malloc_device(count=8, dtype=np.int32, dev=dev, ctx=ctx)
    except sycl.exception as error:
        assert error.code() is sycl.errc.feature_not_supported and "context of one device" in error.what()
        pytest.skip(f"USM in a context of two devices is refused on this driver: {error.what()}")
    assert p is not None
    return p


def test_usm_in_a_context_of_two_devices_computes_right_or_is_refused(device_pair: list[sycl.device]) -> None:
    """Where a driver passes SVM pointers to kernels wrongly in a context of several devices
    (NVIDIA 580: refused on one GPU, wrong values on the other), allocating there is refused
    with errc.feature_not_supported; elsewhere kernels on each device compute through it."""
    ctx = sycl.context(device_pair)
    try:
        p = sycl.malloc_device(count=8, dtype=np.int32, dev=device_pair[0], ctx=ctx)
    except sycl.exception as error:
        assert error.code() is sycl.errc.feature_not_supported and "context of one device" in error.what()
        return
    assert p is not None
    for k, dev in enumerate(device_pair):
        q = sycl.queue(ctx, dev)
        write(q, p, np.arange(8, dtype=np.int32))
        q.parallel_for(8, "usm_add", p, p, 10 * (k + 1)).wait()
        assert read(q, p, 8).tolist() == [i + 10 * (k + 1) for i in range(8)]
    sycl.free(p, ctx)


def test_device_memory_of_one_device_serves_the_other_in_its_context(device_pair: list[sycl.device]) -> None:
    ctx = sycl.context(device_pair)
    q0, q1 = sycl.queue(ctx, device_pair[0]), sycl.queue(ctx, device_pair[1])
    p = _two_device_allocation(ctx, device_pair[1])
    write(q1, p, np.arange(8, dtype=np.int32))
    q0.parallel_for(8, "usm_add", p, p, 100).wait()
    assert read(q1, p, 8).tolist() == list(range(100, 108))
    sycl.free(p, ctx)


# --- pointers ----------------------------------------------------------------------------------


def test_pointer_queries(device: sycl.device) -> None:
    kind = any_kind(device)
    q = sycl.queue(sycl.context(device), device)
    ctx = q.get_context()
    other = sycl.context(device)
    p = ints(q, kind, 16)
    native = sycl.get_native(p)
    for inside in (p, p + 15, native.svm_ptr + 63, sycl.get_native(p + 3)):
        assert sycl.get_pointer_type(inside, ctx) is kind
    for outside in (p + 16, native.svm_ptr + 64, np.zeros(4), 0, None, "p"):
        assert sycl.get_pointer_type(outside, ctx) is alloc.unknown
    assert sycl.get_pointer_type(p, other) is alloc.unknown  # another context's allocation
    raises(sycl.errc.invalid, lambda: sycl.get_pointer_device(np.zeros(4), ctx), "does not point")
    raises(sycl.errc.invalid, lambda: sycl.get_pointer_device(p, other), "does not point")
    sycl.free(p, ctx)
    assert sycl.get_pointer_type(p, ctx) is alloc.unknown
    assert sycl.get_pointer_type(native.svm_ptr, ctx) is alloc.unknown


def test_an_allocation_no_pointer_refers_to_is_collected(device: sycl.device) -> None:
    kind = any_kind(device)
    q = sycl.queue(sycl.context(device), device)
    p = ints(q, kind, 4)
    address = sycl.get_native(p).svm_ptr
    alive = weakref.ref(p._alloc)
    del p
    gc.collect()
    assert alive() is None
    assert sycl.get_pointer_type(address, q.get_context()) is alloc.unknown


def test_pointer_arithmetic(device: sycl.device) -> None:
    kind = any_kind(device)
    q = sycl.queue(sycl.context(device), device)
    p = ints(q, kind, 8)
    base = sycl.get_native(p).svm_ptr
    assert sycl.get_native(p + 3).svm_ptr == base + 12
    assert sycl.get_native(3 + p).svm_ptr == base + 12
    assert (p + 5) - 2 == p + 3 and hash((p + 5) - 2) == hash(p + 3)
    assert p + 1 != p
    raw = sycl.malloc(32, q, kind)
    assert raw is not None
    assert sycl.get_native(raw + 3).svm_ptr == sycl.get_native(raw).svm_ptr + 3  # bytes
    raises(sycl.errc.invalid, lambda: p + 9, "outside its allocation")
    raises(sycl.errc.invalid, lambda: p - 1, "outside its allocation")
    with pytest.raises(TypeError):
        p + 1.5
    with pytest.raises(TypeError):
        sycl.usm_ptr()
    assert "usm_ptr" in repr(p) and kind.name in repr(p)
    sycl.free(p, q)
    sycl.free(raw, q)
    assert "freed" in repr(p)


def test_a_typed_pointer_must_hold_the_parameters_element_type(device: sycl.device) -> None:
    """A float64 USM pointer for a `__global float*` parameter is refused at the handler, the
    message saying to allocate float32 (USM has no reinterpret); an untyped one (bytes) fits any
    pointer."""
    q = sycl.queue(sycl.context(device), device)
    kind = any_kind(device)
    typed = sycl.malloc(count=8, dtype=np.float64, q=q, kind=kind)
    raw = sycl.malloc(32, q, kind)
    assert typed is not None and raw is not None
    raises(sycl.errc.kernel_argument, lambda: q.parallel_for(8, "usm_scale", typed, 2.0),
           "argument 0 of 'usm_scale'", "the usm_ptr holds float64", "allocate it with dtype=float32")
    q.parallel_for(8, "usm_scale", raw, 2.0).wait()
    sycl.free(typed, q)
    sycl.free(raw, q)


def test_numpy_view_of_host_and_shared_memory(device: sycl.device) -> None:
    kind = host_kind(device)
    q = sycl.queue(sycl.context(device), device)
    p = sycl.malloc(count=8, dtype=np.float32, q=q, kind=kind)
    assert p is not None
    view = np.asarray(p)
    assert view.dtype == np.float32 and view.shape == (8,)
    view[:] = np.arange(8)
    assert np.asarray(p + 5).tolist() == [5.0, 6.0, 7.0]
    assert np.asarray(p, dtype=np.float64).dtype == np.float64
    q.parallel_for(8, "usm_scale", p, 2.0).wait()
    assert view.tolist() == [2.0 * i for i in range(8)]  # the kernel wrote the viewed memory
    raw = sycl.malloc(6, q, kind)
    assert raw is not None
    assert np.asarray(raw).dtype == np.uint8 and np.asarray(raw).size == 6
    sycl.free(p, q)
    sycl.free(raw, q)
    raises(sycl.errc.invalid, lambda: np.asarray(p), "freed")
    assert view.tolist() == [2.0 * i for i in range(8)]  # a view kept after free stays valid


def test_device_memory_is_never_viewed_from_the_host(device: sycl.device) -> None:
    need(device, alloc.device)
    q = sycl.queue(sycl.context(device), device)
    p = ints(q, alloc.device, 4)
    raises(sycl.errc.invalid, lambda: np.asarray(p), "device memory", "q.memcpy")
    raises(sycl.errc.invalid, lambda: np.asarray(p + 1), "device memory")
    sycl.free(p, q)
    still_works(q)


def test_get_native_is_pyopencl_svm_pointer(device: sycl.device) -> None:
    import pyopencl as cl

    kind = any_kind(device)
    q = sycl.queue(sycl.context(device), device)
    p = ints(q, kind, 4)
    assert isinstance(sycl.get_native(p), cl.SVMPointer)
    cl.enqueue_copy(sycl.get_native(q), sycl.get_native(p + 1), np.array([7, 8, 9], dtype=np.int32),
                    byte_count=12)  # PyOpenCL work on the same memory
    assert read(q, p, 4)[1:].tolist() == [7, 8, 9]
    sycl.free(p, q)
    raises(sycl.errc.invalid, lambda: sycl.get_native(p), "freed")


# --- commands (§4.6.5.2, §4.9.4.3) -----------------------------------------------------------


def _pairs(dev: sycl.device) -> list[tuple[alloc, alloc]]:
    kinds = supported(dev)
    return [(a, b) for a in kinds for b in kinds]


def test_memcpy_between_every_pair_of_kinds_and_numpy(device: sycl.device) -> None:
    any_kind(device)
    q = sycl.queue(sycl.context(device), device)
    for src_kind, dst_kind in _pairs(device):
        src, dst = ints(q, src_kind, 16), ints(q, dst_kind, 16)
        write(q, src, np.arange(16, dtype=np.int32))
        write(q, dst, np.zeros(16, dtype=np.int32))
        q.memcpy(dst + 2, src + 4, 8 * 4).wait()
        expected = np.zeros(16, dtype=np.int32)
        expected[2:10] = np.arange(4, 12)
        assert read(q, dst, 16).tolist() == expected.tolist(), (src_kind, dst_kind)
        sycl.free(src, q)
        sycl.free(dst, q)
    a, b = np.arange(4, dtype=np.int32), np.zeros(4, dtype=np.int32)
    q.memcpy(b, a, 16).wait()  # host to host
    assert b.tolist() == [0, 1, 2, 3]


def test_copy_counts_elements(device: sycl.device) -> None:
    kind = any_kind(device)
    q = sycl.queue(sycl.context(device), device)
    p = sycl.malloc(count=8, dtype=np.float64, q=q, kind=kind)
    assert p is not None
    src = np.linspace(0, 1, 8)
    q.copy(src, p, 8).wait()
    out = np.zeros(8)
    q.copy(p + 2, out, 6).wait()
    assert out[:6].tolist() == src[2:].tolist()
    raw = sycl.malloc(64, q, kind)
    q.copy(src, raw, 8).wait()  # the array gives the type
    raises(sycl.errc.invalid, lambda: q.copy(raw, raw, 1), "element type")
    raises(sycl.errc.invalid, lambda: q.copy(np.zeros(8, np.float32), p, 8), "float32", "float64")
    sycl.free(p, q)
    sycl.free(raw, q)
    still_works(q)


def test_memset_and_fill(device: sycl.device) -> None:
    kind = any_kind(device)
    q = sycl.queue(sycl.context(device), device)
    p = ints(q, kind, 16)
    q.memset(p, 0x101, 16 * 4).wait()  # the value is an unsigned char
    assert read(q, p, 16).tolist() == [0x01010101] * 16
    q.fill(p + 4, np.int32(-5), 8).wait()
    q.fill(p + 12, 9, 2).wait()  # a Python int takes the pointer's type
    assert read(q, p, 16).tolist() == [0x01010101] * 4 + [-5] * 8 + [9] * 2 + [0x01010101] * 2
    raw = sycl.malloc(64, q, kind)
    assert raw is not None
    raises(sycl.errc.invalid, lambda: q.fill(raw, 3, 4), "numpy scalar")
    q.fill(raw + 1, np.uint16(0xABCD), 3).wait()  # misaligned for the pattern: filled by copy
    triple = np.zeros(1, dtype="u1,u1,u1")[0]
    triple[0], triple[1], triple[2] = 1, 2, 3
    q.fill(raw + 10, triple, 4).wait()  # a 3-byte pattern: not a power of two
    got = read(q, raw, 64)
    assert got[1:7].view(np.uint16).tolist() == [0xABCD] * 3
    assert got[10:22].tolist() == [1, 2, 3] * 4
    sycl.free(p, q)
    sycl.free(raw, q)


def test_prefetch_and_mem_advise_order_without_changing_data(device: sycl.device) -> None:
    q = sycl.queue(device, prop_list=[sycl.property.queue.in_order()])
    for kind in supported(device) or [any_kind(device)]:
        p = ints(q, kind, 8)
        q.memcpy(p, np.arange(8, dtype=np.int32), 32)
        q.prefetch(p, 32)
        q.prefetch(p + 2, 8)
        q.mem_advise(p, 32, 0)
        q.mem_advise(p + 1, 4, 12345)  # advice is backend specific: any int is accepted
        q.parallel_for(8, "usm_add", p, p, 1)
        assert read(q, p, 8).tolist() == list(range(1, 9))
        raises(sycl.errc.invalid, lambda: q.mem_advise(p, 4, "x"), "int")  # noqa: B023
        sycl.free(p, q)


def test_handler_members(device: sycl.device) -> None:
    kind = any_kind(device)
    q = sycl.queue(sycl.context(device), device)
    p = ints(q, kind, 8)
    src = np.arange(8, dtype=np.int32)
    e1 = q.submit(lambda h: h.memcpy(p, src, 32))

    def cgf(h: sycl.handler) -> None:
        h.depends_on(e1)
        h.parallel_for(sycl.range(8), "usm_add", p, p, 10)

    e2 = q.submit(cgf)
    e3 = q.submit(lambda h: (h.depends_on(e2), h.fill(p + 6, np.int32(0), 2)))
    e4 = q.submit(lambda h: (h.depends_on(e3), h.memset(p, 0, 4)))
    e5 = q.submit(lambda h: (h.depends_on(e4), h.prefetch(p, 32)))
    e6 = q.submit(lambda h: (h.depends_on(e5), h.mem_advise(p, 32, 0)))
    out = np.zeros(8, dtype=np.int32)
    q.submit(lambda h: (h.depends_on(e6), h.copy(p, out, 8))).wait()
    assert out.tolist() == [0, 11, 12, 13, 14, 15, 0, 0]
    with pytest.raises(sycl.exception) as info:
        q.submit(lambda h: (h.memcpy(p, src, 4), h.memset(p, 0, 4)))
    assert info.value.code() is sycl.errc.invalid  # one action per command group (§4.9.3)
    sycl.free(p, q)


def test_kernels_take_usm_pointers_every_way(device: sycl.device) -> None:
    kind = any_kind(device)
    q = sycl.queue(sycl.context(device), device)
    p = ints(q, kind, 4)
    q.single_task("usm_one", p, 5).wait()
    q.single_task("usm_one", p + 1, 6).wait()
    q.parallel_for(sycl.range(1), "usm_one", p + 2, 7).wait()

    def with_set_arg(h: sycl.handler) -> None:
        h.set_arg(0, p + 3)
        h.set_arg(1, 8)
        h.single_task("usm_one")

    q.submit(with_set_arg).wait()
    assert read(q, p, 4).tolist() == [5, 6, 7, 8]
    sycl.free(p, q)


def test_in_order_queue_orders_usm_commands(device: sycl.device) -> None:
    kind = any_kind(device)
    q = sycl.queue(device, prop_list=[sycl.property.queue.in_order()])
    p, r = ints(q, kind, 256), ints(q, kind, 256)
    src = np.arange(256, dtype=np.int32)
    out = np.zeros(256, dtype=np.int32)
    q.memcpy(p, src, src.nbytes)
    for k in range(1, 6):
        q.parallel_for(256, "usm_add", r, p, k)  # r = p + k, then p = r + k: not commutative
        q.parallel_for(256, "usm_add", p, r, k)
    q.memcpy(out, p, out.nbytes)
    q.wait()
    assert out.tolist() == (src + 2 * sum(range(1, 6))).tolist()
    sycl.free(p, q)
    sycl.free(r, q)


def test_depends_on_orders_usm_commands_across_queues(device: sycl.device) -> None:
    kind = any_kind(device)
    ctx = sycl.context(device)
    q1, q2 = sycl.queue(ctx, device), sycl.queue(ctx, device)
    p = ints(q1, kind, 64)
    gate = threading.Event()
    held = q1.submit(lambda h: h.host_task(lambda: gate.wait(10)))  # holds the chain back
    e = q2.memcpy(p, np.full(64, 3, dtype=np.int32), 256, depends_on=held)
    e = q1.parallel_for(64, "usm_add", p, p, 4, depends_on=[e])
    e = q2.fill(p, np.int32(1), 2, depends_on=e)
    out = np.zeros(64, dtype=np.int32)
    done = q1.memcpy(out, p, 256, depends_on=e)
    status = done.get_info(sycl.info.event.command_execution_status)
    assert status is not sycl.info.event_command_status.complete
    gate.set()
    done.wait()
    assert out.tolist() == [1, 1] + [7] * 62
    sycl.free(p, ctx)


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
def test_usm_buffers_and_host_tasks_in_one_program(device: sycl.device, kind: alloc) -> None:
    need(device, kind)
    q = sycl.queue(sycl.context(device), device)
    p = ints(q, kind, 32)
    data = np.arange(32, dtype=np.int32)
    with sycl.buffer(data) as buf:
        # buffer kernel -> USM kernel reading the buffer -> host task on the USM view -> buffer
        q.submit(lambda h: h.parallel_for(32, "usm_add", *[sycl.accessor(buf, h)] * 2, 1))
        e2 = q.submit(lambda h: h.parallel_for(32, "usm_add", p, sycl.accessor(buf, h, sycl.read_only), 5))

        if kind is alloc.device:  # the host reaches device memory through copies only
            staged = np.zeros(32, dtype=np.int32)
            e2 = q.memcpy(staged, p, 128, depends_on=e2)
            double = staged.__imul__
        else:
            double = np.asarray(p).__imul__

        def host(h: sycl.handler) -> None:
            h.depends_on(e2)
            h.host_task(lambda: double(2))

        e3 = q.submit(host)
        if kind is alloc.device:
            e3 = q.memcpy(p, staged, 128, depends_on=e3)
        q.submit(lambda h: (h.depends_on(e3), h.parallel_for(
            32, "usm_add", sycl.accessor(buf, h, sycl.write_only), p, 1)))
    assert data.tolist() == [(i + 1 + 5) * 2 + 1 for i in range(32)]
    sycl.free(p, q)


def test_one_kernel_takes_usm_pointers_then_accessors_then_both(device: sycl.device) -> None:
    """One kernel launched with USM pointers, then accessors, then a USM pointer and an accessor
    each way round, in a context of its own (so this order is the kernel's first). NVIDIA's
    driver refuses a cl_mem on a cl_kernel that had an SVM pointer (docs/usm.md): each mix of
    argument kinds gets a cl_kernel of its own, and get_native keeps the buffer launches' one."""
    kind = any_kind(device)
    q = sycl.queue(sycl.context(device), device)
    usm_add = sycl.get_kernel_id("usm_add")
    bundle = sycl.get_kernel_bundle(sycl.bundle_state.executable, q.get_context(), kernel_ids=[usm_add])
    k = bundle.get_kernel(usm_add)
    p, r = ints(q, kind, 16), ints(q, kind, 16)
    write(q, p, np.arange(16, dtype=np.int32))
    q.parallel_for(16, k, r, p, 1).wait()  # r = p + 1
    data = np.zeros(16, dtype=np.int32)
    with sycl.buffer(data) as buf:
        q.submit(lambda h: h.parallel_for(16, k, sycl.accessor(buf, h, sycl.write_only),
                                          sycl.accessor(buf, h, sycl.read_only), 0))
        q.submit(lambda h: h.parallel_for(16, k, sycl.accessor(buf, h, sycl.write_only), r, 10))
        q.submit(lambda h: h.parallel_for(16, k, p, sycl.accessor(buf, h, sycl.read_only), 100))
    assert data.tolist() == [i + 11 for i in range(16)]
    assert read(q, p, 16).tolist() == [i + 111 for i in range(16)]
    assert sorted(k._svm_twins) == [0b001, 0b010]  # the handler's launches
    (fast,) = q._shortcuts[k].prepared.values()  # the fast launch's own, mask 0b011
    natives = {sycl.get_native(k).int_ptr, fast.native.int_ptr,
               *(t._native.int_ptr for t in k._svm_twins.values())}
    assert len(natives) == 4
    sycl.free(p, q)
    sycl.free(r, q)


def test_profiling_of_every_usm_command(device: sycl.device) -> None:
    kind = any_kind(device)
    if not device.has(sycl.aspect.queue_profiling):
        pytest.skip(f"{device!r} has no aspect.queue_profiling")
    q = sycl.queue(device, prop_list=PROFILING)
    p = ints(q, kind, 64)
    host = np.zeros(64, dtype=np.int32)
    events = [
        q.memcpy(p, host, 256), q.copy(p, host, 64), q.memset(p, 1, 256), q.fill(p, np.int32(2), 64),
        q.fill(p + 1, np.uint16(3), 4), q.prefetch(p, 256), q.mem_advise(p, 256, 0),
        q.parallel_for(64, "usm_add", p, p, 1), q.single_task("usm_one", p, 1),
        q.memcpy(p, host, 0),
    ]
    for ev in events:
        submit = ev.get_profiling_info(sycl.info.event_profiling.command_submit)
        start = ev.get_profiling_info(sycl.info.event_profiling.command_start)
        end = ev.get_profiling_info(sycl.info.event_profiling.command_end)
        assert 0 < submit <= start <= end
    sycl.free(p, q)


def test_zero_byte_commands_need_no_memory(device: sycl.device) -> None:
    q = sycl.queue(sycl.context(device), device)
    for ev in (q.memcpy(None, None, 0), q.copy(None, np.zeros(0), 0), q.memset(None, 0, 0),
               q.prefetch(None, 0), q.mem_advise(None, 0, 0)):
        ev.wait()
    raises(sycl.errc.invalid, lambda: q.memcpy(None, np.zeros(4), 4), "None")


def test_queue_shortcuts_for_accessors(device: sycl.device) -> None:
    q = sycl.queue(sycl.context(device), device)
    data = np.zeros(8, dtype=np.int32)
    out = np.zeros(8, dtype=np.int32)
    with sycl.buffer(data) as buf:
        q.fill(sycl.accessor(buf, mode=sycl.write_only), np.int32(4))
        q.copy(sycl.accessor(buf, mode=sycl.read_only), out).wait()
        q.copy(np.arange(8, dtype=np.int32), sycl.accessor(buf, mode=sycl.write_only))
        q.update_host(sycl.accessor(buf, mode=sycl.read_only)).wait()
    assert out.tolist() == [4] * 8
    assert data.tolist() == list(range(8))


def test_repeated_launches_keep_their_own_arguments(device: sycl.device) -> None:
    """Launches of one kernel (one SVM twin) each run with their own arguments: repeated with
    the same objects, with another queue's launch in between, with a pointer or a scalar
    that changes (a runtime that skips set_args for repeated arguments must get all right)."""
    kind = any_kind(device)
    q1 = sycl.queue(device, prop_list=[sycl.property.queue.in_order()])
    q2 = sycl.queue(q1.get_context(), device, prop_list=[sycl.property.queue.in_order()])
    a, b = ints(q1, kind, 1), ints(q1, kind, 1)
    write(q1, a, np.zeros(1, dtype=np.int32))
    write(q1, b, np.zeros(1, dtype=np.int32))
    events = [q1.parallel_for(1, "usm_add", a, a, 1) for _ in range(5)]  # a += 5, arguments set once
    on_q2 = q2.parallel_for(1, "usm_add", b, b, 1)
    events += [on_q2, q1.parallel_for(1, "usm_add", a, a, 1)]
    # USM has no implicit dependencies: b's last writer waits for q2's write of b explicitly.
    events += [q1.parallel_for(1, "usm_add", a, a, 1000),
               q1.parallel_for(1, "usm_add", b, a, 0, depends_on=on_q2)]
    sycl.event.wait(events)
    assert read(q1, a, 1).tolist() == [1006]
    assert read(q1, b, 1).tolist() == [1006]


def test_kernel_shortcuts_refuse_accessors_as_the_handler_does(device: sycl.device) -> None:
    """``q.parallel_for`` / ``q.single_task`` have no handler to bind an accessor to: each form
    (int range, range, with and without depends_on) refuses one with the handler's errc."""
    q = sycl.queue(sycl.context(device), device)
    with sycl.buffer(np.zeros(4, dtype=np.int32)) as buf:
        acc = sycl.accessor(buf)
        done = sycl.event()
        for call in (lambda: q.parallel_for(1, "usm_one", acc, 1),
                     lambda: q.parallel_for(1, "usm_one", acc, 1, depends_on=done),
                     lambda: q.parallel_for(sycl.range(1), "usm_one", acc, 1),
                     lambda: q.single_task("usm_one", acc, 1)):
            raises(sycl.errc.accessor, call, "not part of this command group")
        local = sycl.local_accessor(np.int32, 1)
        raises(sycl.errc.kernel_argument, lambda: q.parallel_for(1, "usm_one", local, 1), "nd_range")
    still_works(q)


# --- the queue shortcuts' fast path (docs/usm.md) ---------------------------------------------


def floats(q: sycl.queue, kind: alloc, values: list[float]) -> sycl.usm_ptr:
    p = sycl.malloc(count=len(values), dtype=np.float32, q=q, kind=kind)
    assert p is not None
    q.memcpy(p, np.array(values, dtype=np.float32), 4 * len(values)).wait()
    return p


def test_a_repeated_launch_checks_again_what_can_change(device: sycl.device) -> None:
    """A launch with the argument objects of the previous one reuses its checks; whatever
    may have changed since is checked again: the pointer freed, another pointer (of another
    context, of another element type, at an offset), another count of arguments."""
    kind = any_kind(device)
    q = sycl.queue(device, prop_list=[sycl.property.queue.in_order()])
    other = sycl.queue(sycl.context(device), device)
    p, spare = floats(q, kind, [1, 2, 3, 4]), floats(q, kind, [1, 1, 1, 1])
    two = 2.0
    for _ in range(3):  # the second and third launches repeat the first one's objects
        q.parallel_for(4, "usm_scale", p, two)
    q.single_task("usm_scale", p + 3, two)  # one element, at an offset: the full check
    q.wait()
    assert read(q, p, 4).tolist() == [8, 16, 24, 64]
    raises(sycl.errc.invalid, lambda: q.parallel_for(4, "usm_scale", floats(other, kind, [1]), two),
           "not in the queue's context")
    raises(sycl.errc.kernel_argument, lambda: q.parallel_for(4, "usm_scale", ints(q, kind, 4), two),
           "holds int32")
    raises(sycl.errc.kernel_argument, lambda: q.parallel_for(4, "usm_scale", p), "takes 2 argument(s)")
    raises(sycl.errc.kernel_argument, lambda: q.parallel_for(4, "usm_scale", p, "two"), "argument 1")
    q.parallel_for(4, "usm_scale", spare, two)
    q.parallel_for(4, "usm_scale", spare, two)
    sycl.free(spare, q)
    raises(sycl.errc.invalid, lambda: q.parallel_for(4, "usm_scale", spare, two), "freed")
    q.parallel_for(4, "usm_scale", p, 0.5).wait()
    assert read(q, p, 4).tolist() == [4, 8, 12, 32]
    sycl.free(p, q)
    still_works(q)


def test_a_value_changed_in_place_reaches_the_next_launch(device: sycl.device) -> None:
    """A numpy array passed by value is the same object from one launch to the next but may
    hold another value: the fast path sets it again (only immutable values are reused)."""
    kind = any_kind(device)
    q = sycl.queue(device, prop_list=[sycl.property.queue.in_order()])
    p = floats(q, kind, [1, 1, 1, 1])
    factor = np.array(2.0, dtype=np.float32)
    for value in (2.0, 3.0, 3.0, 0.5):
        factor[...] = value
        q.parallel_for(4, "usm_scale", p, factor)
    q.wait()
    assert read(q, p, 4).tolist() == [9, 9, 9, 9]
    sycl.free(p, q)


def test_a_fast_launch_event_is_like_any_other(device: sycl.device) -> None:
    """The event of a launch on the fast path waits, reports its status and profiles; its
    command has every field of an op."""
    kind = any_kind(device)
    q = sycl.queue(device, prop_list=[*PROFILING, sycl.property.queue.in_order()])
    p = ints(q, kind, 4)
    first = q.parallel_for(4, "usm_add", p, p, 1)
    ev = q.parallel_for(4, "usm_add", p, p, 1)
    command = ev._cmd
    assert type(command) is Op
    assert all(hasattr(command, name) for name in Op.__slots__ if name != "__weakref__")
    assert ev.get_wait_list() == []  # the previous launch is before it on the in-order queue
    ev.wait()
    assert first.get_info(sycl.info.event.command_execution_status) is sycl.info.event_command_status.complete
    start = ev.get_profiling_info(sycl.info.event_profiling.command_start)
    assert 0 < first.get_profiling_info(sycl.info.event_profiling.command_end) <= start
    assert start <= ev.get_profiling_info(sycl.info.event_profiling.command_end)
    sycl.free(p, q)


def test_a_launch_in_between_sets_the_arguments_again(device: sycl.device) -> None:
    """The fast path leaves a launch's arguments set on the kernel's ``cl_kernel`` and skips
    setting them for a repeated launch: a handler launch of the same kernel in between, with
    other arguments, must not leave them behind."""
    kind = any_kind(device)
    q = sycl.queue(device, prop_list=[sycl.property.queue.in_order()])
    a, b = ints(q, kind, 1), ints(q, kind, 1)
    write(q, a, np.zeros(1, dtype=np.int32))
    write(q, b, np.zeros(1, dtype=np.int32))
    one = 1
    q.parallel_for(1, "usm_add", a, a, one)
    q.submit(lambda h: h.parallel_for(1, "usm_add", b, b, 100))  # the same SVM twin, other arguments
    q.parallel_for(1, "usm_add", a, a, one)  # a repeated launch: its arguments are set again
    q.single_task("usm_add", b, b, 100)  # and the other way
    q.parallel_for(1, "usm_add", a, a, one).wait()
    assert read(q, a, 1).tolist() == [3]
    assert read(q, b, 1).tolist() == [200]


def test_the_fast_path_keeps_no_memory_alive(device: sycl.device) -> None:
    """What the fast path remembers of a launch keeps neither a pointer that nobody else
    refers to (the garbage collector frees its allocation) nor freed memory (``sycl.free``
    returns it to the driver once the commands using it completed)."""
    kind = any_kind(device)
    q = sycl.queue(sycl.context(device), device)
    p = ints(q, kind, 4)
    q.parallel_for(4, "usm_add", p, p, 1)
    q.parallel_for(4, "usm_add", p, p, 1).wait()
    alive = weakref.ref(p._alloc)
    del p
    gc.collect()
    assert alive() is None
    r = ints(q, kind, 4)
    native = sycl.get_native(r)
    q.parallel_for(4, "usm_add", r, r, 1)
    q.parallel_for(4, "usm_add", r, r, 1)
    q.wait()
    sycl.free(r, q)
    assert sys.getrefcount(native) == 2  # this function's and getrefcount's: nothing else holds it


def test_the_fast_path_waits_behind_a_host_task_of_an_in_order_queue(device: sycl.device) -> None:
    """A launch whose in-order queue's last command waits in the DAG (a host task) cannot be
    enqueued at once: it is submitted in full and runs after the task, as do the next ones."""
    kind = host_kind(device)
    q = sycl.queue(device, prop_list=[sycl.property.queue.in_order()])
    p = ints(q, kind, 1)
    view = np.asarray(p)
    view[0] = 0
    one = 1
    q.parallel_for(1, "usm_add", p, p, one).wait()  # the fast path, remembered
    gate = threading.Event()

    def task() -> None:
        gate.wait(10)
        view[0] *= 10

    q.submit(lambda h: h.host_task(task))
    events = [q.parallel_for(1, "usm_add", p, p, one) for _ in range(3)]
    assert events[0].get_info(sycl.info.event.command_execution_status) is not (
        sycl.info.event_command_status.complete)
    gate.set()
    sycl.event.wait(events)
    assert view.tolist() == [13]
    sycl.free(p, q)


# --- misuse (each refused with a message; nothing else breaks) --------------------------------


def test_double_free_and_wrong_frees(device: sycl.device) -> None:
    kind = any_kind(device)
    q = sycl.queue(sycl.context(device), device)
    other = sycl.queue(sycl.context(device), device)
    p = ints(q, kind, 4)
    raises(sycl.errc.invalid, lambda: sycl.free(p, other), "free it with its own context")
    raises(sycl.errc.invalid, lambda: sycl.free(p + 1, q), "pass the pointer the allocation returned")
    raises(sycl.errc.invalid, lambda: sycl.free(np.zeros(4), q), "usm_ptr")
    raises(sycl.errc.invalid, lambda: sycl.free(p, "q"), "sycl.queue or sycl.context")
    sycl.free(p, q)
    raises(sycl.errc.invalid, lambda: sycl.free(p, q), "double free")
    still_works(q)


def test_pointers_of_another_context_are_refused(device: sycl.device) -> None:
    kind = any_kind(device)
    q = sycl.queue(sycl.context(device), device)
    other = sycl.queue(sycl.context(device), device)
    p = ints(q, kind, 4)
    host = np.zeros(4, dtype=np.int32)
    for call in (lambda: other.memcpy(host, p, 16), lambda: other.memcpy(p, host, 16),
                 lambda: other.memset(p, 0, 4), lambda: other.fill(p, np.int32(0), 1),
                 lambda: other.prefetch(p, 4), lambda: other.mem_advise(p, 4, 0),
                 lambda: other.single_task("usm_one", p, 1)):
        raises(sycl.errc.invalid, call, "not in the queue's context")
    sycl.free(p, q)
    still_works(other)
    still_works(q)


def test_copies_past_the_end_are_refused(device: sycl.device) -> None:
    kind = any_kind(device)
    q = sycl.queue(sycl.context(device), device)
    p = ints(q, kind, 4)
    small = np.zeros(2, dtype=np.int32)
    for call in (lambda: q.memcpy(p, np.zeros(5, np.int32), 20), lambda: q.memcpy(p + 1, small, 16),
                 lambda: q.copy(p, np.zeros(8, np.int32), 5), lambda: q.memset(p + 3, 0, 5),
                 lambda: q.fill(p + 2, np.int32(1), 3), lambda: q.prefetch(p, 17),
                 lambda: q.mem_advise(p + 4, 1, 0)):
        raises(sycl.errc.invalid, call, "pass the end of its allocation")
    raises(sycl.errc.invalid, lambda: q.memcpy(small, p, 16), "end of the numpy array")
    raises(sycl.errc.invalid, lambda: q.memcpy(np.zeros(8, np.int32)[::2], p, 16), "C-contiguous")
    ro = np.zeros(4, np.int32)
    ro.flags.writeable = False
    raises(sycl.errc.invalid, lambda: q.memcpy(ro, p, 16), "writeable")
    raises(sycl.errc.invalid, lambda: q.memcpy(p, [1, 2, 3, 4], 16), "usm_ptr")
    raises(sycl.errc.invalid, lambda: q.memcpy(p, small, -1), ">= 0")
    sycl.free(p, q)
    still_works(q)


def test_use_after_free_is_refused(device: sycl.device) -> None:
    kind = any_kind(device)
    q = sycl.queue(sycl.context(device), device)
    p = ints(q, kind, 4)
    offset = p + 1
    sycl.free(p, q)
    for call in (lambda: q.memcpy(np.zeros(4, np.int32), p, 16), lambda: q.memset(offset, 0, 4),
                 lambda: q.single_task("usm_one", p, 1), lambda: q.parallel_for(1, "usm_one", offset, 1)):
        raises(sycl.errc.invalid, call, "freed")
    still_works(q)


def test_free_keeps_memory_for_commands_already_submitted(device: sycl.device) -> None:
    kind = any_kind(device)
    q = sycl.queue(sycl.context(device), device)
    src, dst = ints(q, kind, 1024), ints(q, kind, 1024)
    write(q, src, np.arange(1024, dtype=np.int32))
    gate = threading.Event()
    held = q.submit(lambda h: h.host_task(lambda: gate.wait(10)))
    copied = q.memcpy(dst, src, 4096, depends_on=held)  # waits in the DAG
    sycl.free(src, q)  # wrong by the spec (a command still uses it), but harmless here
    del src
    gate.set()
    copied.wait()
    assert read(q, dst, 1024).tolist() == list(range(1024))
    sycl.free(dst, q)


def test_allocation_from_many_threads(device: sycl.device) -> None:
    kind = any_kind(device)
    q = sycl.queue(sycl.context(device), device)
    errors: list[BaseException] = []

    def work(t: int) -> None:
        try:
            for i in range(20):
                p = ints(q, kind, 16)
                write(q, p, np.full(16, t * 100 + i, dtype=np.int32))
                assert read(q, p, 16).tolist() == [t * 100 + i] * 16
                assert sycl.get_pointer_type(p + 5, q.get_context()) is kind
                sycl.free(p, q)
        except BaseException as error:  # reported below
            errors.append(error)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors


def test_free_racing_with_use_on_another_thread(device: sycl.device) -> None:
    kind = any_kind(device)
    q = sycl.queue(sycl.context(device), device)
    outcomes: list[str] = []
    for _ in range(20):
        p = ints(q, kind, 64)
        started = threading.Event()

        def use(p: sycl.usm_ptr = p, started: threading.Event = started) -> None:
            started.set()
            for _ in range(50):
                try:
                    q.parallel_for(63, "usm_add", p + 1, p, 1)
                    q.memset(p, 0, 256)
                except sycl.exception as error:  # freed meanwhile: refused, never a crash
                    assert error.code() is sycl.errc.invalid and "freed" in error.what()
                    outcomes.append("refused")
                    return
            outcomes.append("ran")

        thread = threading.Thread(target=use)
        thread.start()
        started.wait(10)
        sycl.free(p, q)
        thread.join()
    q.wait_and_throw()
    assert len(outcomes) == 20


def test_a_pyopencl_array_on_usm_in_a_host_task_is_ordered_with_the_commands(device: sycl.device) -> None:
    """docs/usm.md's pattern: a ``pyopencl.array`` over ``sycl.get_native(p)`` on the host
    task's native queue runs after the fill it depends on and before the copy that depends
    on the task; PyOpenCL's InconsistentOpenCLQueueWarning is the one the docs explain."""
    import warnings

    import pyopencl
    import pyopencl.array as cla

    kind = any_kind(device)
    q = sycl.queue(sycl.context(device), device)
    p = ints(q, kind, 64)
    filled = q.fill(p, np.int32(2), 64)
    seen: list[type[Warning]] = []

    def triple(ih: sycl.interop_handle) -> None:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            a = cla.Array(ih.get_native_queue(), 64, np.int32, data=sycl.get_native(p))
            a *= 3
        seen.extend(w.category for w in caught)

    tripled = q.submit(lambda h: (h.depends_on(filled), h.host_task(triple)))
    out = np.zeros(64, np.int32)
    q.memcpy(out, p, out.nbytes, depends_on=tripled).wait()
    sycl.free(p, q)
    assert out.tolist() == [6] * 64
    # NVIDIA's build log of the array kernel is not empty: PyOpenCL's CompilerWarning, harmless
    assert set(seen) <= {cla.InconsistentOpenCLQueueWarning, pyopencl.CompilerWarning}
