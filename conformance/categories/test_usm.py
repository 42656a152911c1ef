"""Category usm (CTS tests/usm, queue_shortcuts_usm): US-01 .. US-04, QU-12, and the driver's SVM.

sycl_ocl builds USM on OpenCL shared virtual memory: device allocations on coarse-grain SVM
buffers, host and shared allocations on fine-grain ones (docs/usm.md). A device backs a kind
exactly when it has the kind's aspect. Where it lacks one (Oclgrind has no SVM; NVIDIA has
coarse-grain SVM only, so device allocations only), each test first checks that allocating that
kind is refused with ``errc.feature_not_supported``, then skips what needs the kind, saying so.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import pytest

import sycl_ocl as sycl
from conformance.support import Gate, needs_usm_kind, raises, status, usm_refused
from sycl_ocl.usm import alloc
from sycl_ocl.usm.kinds import NEEDS

AXPY, ATOMICS, SCATTER = sycl.register_kernel_source(
    """
    __kernel void cts_usm_axpy(__global int *y, __global const int *x, int a) {
        size_t i = get_global_id(0);
        y[i] += a * x[i];
    }
    __kernel void cts_usm_atomics(__global int *c) {
        int i = (int)get_global_id(0);
        atomic_add(&c[0], 1);
        atomic_inc(&c[1]);
        atomic_max(&c[2], i);
        atomic_min(&c[3], -i);
        atomic_xchg(&c[4], 7);
        atomic_cmpxchg(&c[5], 0, i + 1);  /* exactly one work-item wins */
    }
    __kernel void cts_usm_scatter(__global int *out, __global const int *index, int n) {
        size_t i = get_global_id(0);
        out[index[i] % n] = (int)i;  /* a permutation: every slot written once */
    }
    """
)
(ATOMICS_64,) = sycl.register_kernel_source(
    """
    #pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
    __kernel void cts_usm_atomics_64(__global long *c) { atom_add(&c[0], 1L << 33); atom_inc(&c[1]); }
    """
)

KINDS = [alloc.device, alloc.host, alloc.shared]
ASPECT = NEEDS  # the aspect that permits each kind
N = 64  # ints per allocation


def malloc_of(kind: alloc) -> Callable[..., sycl.usm_ptr | None]:
    """sycl.malloc_device, malloc_host or malloc_shared."""
    return getattr(sycl, f"malloc_{kind.name}")


def aligned_alloc_of(kind: alloc) -> Callable[..., sycl.usm_ptr | None]:
    """sycl.aligned_alloc_device, aligned_alloc_host or aligned_alloc_shared."""
    return getattr(sycl, f"aligned_alloc_{kind.name}")


def kinds(q: sycl.queue) -> list[alloc]:
    """The kinds the device backs, after checking the refusal of the others; skip if none."""
    dev = q.get_device()
    backed = [k for k in KINDS if dev.has(ASPECT[k])]
    for kind in KINDS:
        if kind not in backed:
            usm_refused(q, kind)
    if not backed:
        pytest.skip("the device backs no USM kind (no OpenCL SVM; checked: every allocation "
                    "raises feature_not_supported)")
    return backed


@contextmanager
def ints(q: sycl.queue, kind: alloc, n: int = N) -> Iterator[sycl.usm_ptr]:
    """A typed allocation of ``n`` ints, freed afterwards."""
    p = sycl.malloc(count=n, dtype=np.int32, q=q, kind=kind)
    assert p is not None, f"malloc of {n} ints of {kind.name} memory returned None"
    try:
        yield p
    finally:
        sycl.free(p, q)


def read(q: sycl.queue, p: sycl.usm_ptr, n: int = N) -> list[int]:
    out = np.zeros(n, np.int32)
    q.memcpy(out, p, out.nbytes).wait()
    return out.tolist()


def write(q: sycl.queue, p: sycl.usm_ptr, values: np.ndarray) -> None:
    q.memcpy(p, np.ascontiguousarray(values, dtype=np.int32), values.size * 4).wait()


# --- allocation and pointer queries ------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
def test_US_01_allocations(queue: sycl.queue, kind: alloc) -> None:
    """Every allocation form of a kind the device backs returns usable, aligned memory; free works."""
    needs_usm_kind(queue, kind)
    dev, ctx = queue.get_device(), queue.get_context()
    target = (ctx,) if kind is alloc.host else (dev, ctx)
    made = [
        malloc_of(kind)(256, queue), malloc_of(kind)(256, *target), sycl.malloc(256, queue, kind),
        sycl.malloc(256, dev, ctx, kind), malloc_of(kind)(count=N, dtype=np.int32, q=queue),
        malloc_of(kind)(np.int32, N, queue),
    ]
    made += [aligned_alloc_of(kind)(a, 256, queue) for a in (1, 8, 64, 256, 4096)]
    made += [aligned_alloc_of(kind)(4096, 256, *target), sycl.aligned_alloc(512, 256, queue, kind)]
    alignments = [0] * 6 + [1, 8, 64, 256, 4096, 4096, 512]
    for p, alignment in zip(made, alignments, strict=True):
        assert isinstance(p, sycl.usm_ptr), p
        address = sycl.get_native(p).svm_ptr
        assert alignment == 0 or address % alignment == 0, (alignment, hex(address))
        assert sycl.get_pointer_type(p, ctx) is kind
        write(queue, p, np.arange(N))  # all 256 bytes are usable
        assert read(queue, p) == list(range(N))
    assert len({sycl.get_native(p).svm_ptr for p in made}) == len(made)  # distinct memory
    for p in made:
        sycl.free(p, ctx)
    assert aligned_alloc_of(kind)(3, 64, queue) is None  # not a power of two: nullptr (§4.8.3)
    assert sycl.malloc(0, queue, kind) is None


def test_US_02_pointer_queries(queue: sycl.queue) -> None:
    """get_pointer_type: unknown for host memory, the kind of each allocation (inside it too);
    get_pointer_device: the allocating device (for host memory the context's first device)."""
    ctx, dev = queue.get_context(), queue.get_device()
    host_array = np.zeros(N, np.int32)
    assert sycl.get_pointer_type(host_array, ctx) is alloc.unknown
    with raises(sycl.errc.invalid):
        sycl.get_pointer_device(host_array, ctx)
    for kind in kinds(queue):
        with ints(queue, kind) as p:
            for inside in (p, p + 1, p + (N - 1)):
                assert sycl.get_pointer_type(inside, ctx) is kind, (kind, inside)
                assert sycl.get_pointer_device(inside, ctx) == (
                    ctx.get_devices()[0] if kind is alloc.host else dev
                )
            assert sycl.get_pointer_type(p + N, ctx) is alloc.unknown  # one past the end
            assert sycl.get_pointer_type(p, sycl.context(dev)) is alloc.unknown  # another context
            freed = sycl.malloc(count=4, dtype=np.int32, q=queue, kind=kind)
            sycl.free(freed, queue)
            assert sycl.get_pointer_type(freed, ctx) is alloc.unknown


# --- commands: the queue shortcuts (0, 1, several events) and the handler members -------------

# How an operation is submitted: after waiting for what it reads (no events), or depending on
# the gated commands that wrote it (one event, several), or in a command group (the handler).
FORMS = ["queue", "queue_one_event", "queue_events", "handler"]


def _setup(q: sycl.queue, form: str, p: sycl.usm_ptr, gate: Gate) -> list[sycl.event]:
    """Write 7 into ``p[:N]`` (3 into the second half when there are several events); return
    what the operation must depend on. With events, the writes wait behind ``gate``."""
    if form in ("queue", "handler"):
        q.fill(p, np.int32(7), N).wait()
        if form == "handler":
            return [q.fill(p + N // 2, np.int32(3), N // 2)]
        return []
    held = gate.submit(q)
    if form == "queue_one_event":
        return [q.fill(p, np.int32(7), N, depends_on=held)]
    return [q.fill(p, np.int32(7), N // 2, depends_on=held),
            q.fill(p + N // 2, np.int32(3), N // 2, depends_on=held)]


def _expected_setup(form: str) -> list[int]:
    return [7] * N if form in ("queue", "queue_one_event") else [7] * (N // 2) + [3] * (N // 2)


def _submit(q: sycl.queue, form: str, deps: list[sycl.event], op: str, *args: Any) -> sycl.event:
    """``q.<op>(*args)`` in the given form, depending on ``deps``."""
    if form == "handler":

        def cgf(h: sycl.handler) -> None:
            h.depends_on(deps)
            getattr(h, op)(*args)

        return q.submit(cgf)
    if form == "queue":
        return getattr(q, op)(*args)
    return getattr(q, op)(*args, depends_on=deps[0] if form == "queue_one_event" else deps)


def _in_every_form(
    q: sycl.queue, p: sycl.usm_ptr, op: str, *args: Any, result: Any = None, first_half: int | None = None
) -> None:
    """For each form: write ``p`` (gated when there are events), submit ``op(*args)``, then
    compare ``result`` (a numpy array or a USM pointer; ``p`` when None) with what was written,
    its first half replaced by ``first_half`` when given. With events, the operation must not
    complete before the writes it depends on."""
    for form in FORMS:
        gate = Gate()
        deps = _setup(q, form, p, gate)
        done = _submit(q, form, deps, op, *args)
        if form.startswith("queue_"):
            assert status(done) is not sycl.info.event_command_status.complete, (op, form)
        gate.open()
        done.wait_and_throw()
        expected = _expected_setup(form)
        if first_half is not None:
            expected[:N // 2] = [first_half] * (N // 2)
        got = result.tolist() if isinstance(result, np.ndarray) else read(q, result or p)
        assert got == expected, (op, form, p, type(result).__name__)


@pytest.mark.scenarios("QU-12")
def test_US_03_memcpy(queue: sycl.queue) -> None:
    """memcpy from every backed kind to every backed kind and to numpy, and from numpy, in every form."""
    backed = kinds(queue)
    for src_kind in backed:
        with ints(queue, src_kind) as src:
            out = np.zeros(N, np.int32)
            _in_every_form(queue, src, "memcpy", out, src, N * 4, result=out)
            for dst_kind in backed:
                with ints(queue, dst_kind) as dst:
                    _in_every_form(queue, src, "memcpy", dst, src, N * 4, result=dst)
            values = np.arange(N, dtype=np.int32)
            _submit(queue, "handler", [], "memcpy", src + 1, values, (N - 1) * 4).wait()
            assert read(queue, src) == [7, *range(N - 1)]


@pytest.mark.scenarios("QU-12")
def test_US_03_copy(queue: sycl.queue) -> None:
    """copy (counted in elements) from every backed kind to numpy and back, in every form."""
    for kind in kinds(queue):
        with ints(queue, kind) as p:
            out = np.zeros(N, np.int32)
            _in_every_form(queue, p, "copy", p, out, N, result=out)
            queue.copy(np.arange(N, dtype=np.int32), p + 2, N - 2).wait()
            assert read(queue, p)[:4] == [7, 7, 0, 1]


@pytest.mark.scenarios("QU-12")
def test_US_03_memset(queue: sycl.queue) -> None:
    """memset of the first half after the writes it depends on, for every backed kind and form
    (the value is a byte: 0x101 sets bytes of 0x01)."""
    for kind in kinds(queue):
        with ints(queue, kind) as p:
            _in_every_form(queue, p, "memset", p, 0x101, N // 2 * 4, first_half=0x01010101)


@pytest.mark.scenarios("QU-12")
def test_US_03_fill(queue: sycl.queue) -> None:
    """fill of the first half after the writes it depends on, for every backed kind and form."""
    for kind in kinds(queue):
        with ints(queue, kind) as p:
            _in_every_form(queue, p, "fill", p, np.int32(-5), N // 2, first_half=-5)


@pytest.mark.parametrize("op", ["prefetch", "mem_advise"])
def test_US_03_prefetch_and_mem_advise(queue: sycl.queue, op: str) -> None:
    """prefetch and mem_advise order like any command and leave the data as it was."""
    args = (N * 4,) if op == "prefetch" else (N * 4, 0)
    for kind in kinds(queue):
        with ints(queue, kind) as p:
            _in_every_form(queue, p, op, p, *args)


# --- atomics (US-04) and kernels through USM pointers ------------------------------------------


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
def test_US_04_atomics(queue: sycl.queue, kind: alloc) -> None:
    """32-bit (and, with aspect.atomic64, 64-bit) atomics of 4096 work-items on USM memory."""
    needs_usm_kind(queue, kind)
    items = 4096
    with ints(queue, kind, 6) as c:
        write(queue, c, np.array([0, 0, -1, 1, 0, 0]))
        queue.parallel_for(sycl.range(items), ATOMICS, c).wait_and_throw()
        total, incs, biggest, smallest, exchanged, winner = read(queue, c, 6)
    assert (total, incs, biggest, smallest, exchanged) == (items, items, items - 1, -(items - 1), 7)
    assert 1 <= winner <= items
    if not queue.get_device().has(sycl.aspect.atomic64):
        return
    c64 = sycl.malloc(count=2, dtype=np.int64, q=queue, kind=kind)
    assert c64 is not None
    queue.memset(c64, 0, 16).wait()
    queue.parallel_for(sycl.range(items), ATOMICS_64, c64).wait_and_throw()
    out = np.zeros(2, np.int64)
    queue.memcpy(out, c64, 16).wait()
    sycl.free(c64, queue)
    assert out.tolist() == [items << 33, items]


def test_US_10_kernels_through_usm_pointers(queue: sycl.queue) -> None:
    """Kernels read and write every backed kind, pointers offset into an allocation included,
    and mix USM pointers with buffer accessors in one kernel."""
    backed = kinds(queue)
    for y_kind in backed:
        for x_kind in backed:
            with ints(queue, y_kind) as y, ints(queue, x_kind) as x:
                write(queue, y, np.arange(N))
                write(queue, x, np.full(N, 2))
                queue.parallel_for(sycl.range(N // 2), AXPY, y + N // 2, x, 10).wait_and_throw()
                assert read(queue, y) == [*range(N // 2), *(i + 20 for i in range(N // 2, N))]
    index = np.random.default_rng(5).permutation(N).astype(np.int32)
    with ints(queue, backed[0]) as out, sycl.buffer(index) as index_buf:
        queue.submit(lambda h: h.parallel_for(
            sycl.range(N), SCATTER, out, sycl.accessor(index_buf, h, sycl.read_only), N
        )).wait_and_throw()
        got = read(queue, out)
    assert [got[index[i]] for i in range(N)] == list(range(N))


@pytest.mark.parametrize("pattern_bytes", [1, 2, 4, 8, 16, 32, 64, 128, 3, 12])
def test_US_11_fill_patterns(queue: sycl.queue, pattern_bytes: int) -> None:
    """fill with patterns of each size clEnqueueSVMMemFill takes (1 to 128 bytes), and sizes it
    does not (3, 12 bytes: copied), at an aligned and a misaligned start."""
    kind = kinds(queue)[0]
    pattern = np.frombuffer(bytes(range(1, pattern_bytes + 1)), dtype=f"V{pattern_bytes}")[0]
    count, total, misaligned = 5, 2048, 1025
    raw = sycl.malloc(total, queue, kind)
    assert raw is not None
    try:
        queue.memset(raw, 0, total).wait()
        for start in (0, misaligned):
            queue.fill(raw + start, pattern, count).wait_and_throw()
        got = np.zeros(total, np.uint8)
        queue.memcpy(got, raw, total).wait()
    finally:
        sycl.free(raw, queue)
    one = list(range(1, pattern_bytes + 1))
    span = count * pattern_bytes
    for start in (0, misaligned):
        assert got[start:start + span].tolist() == one * count, start
    assert not got[span:misaligned].any() and not got[misaligned + span:].any()


def test_US_12_misuse_is_refused(queue: sycl.queue) -> None:
    """A freed pointer, a pointer of another context, a copy past the end, host access to device
    memory, a double free and a typed pointer of the wrong element type are refused with the
    spec's errc, and USM keeps working."""
    kind = kinds(queue)[0]
    other = sycl.queue(sycl.context(queue.get_device()), queue.get_device())
    host = np.zeros(N, np.int32)
    with ints(queue, kind) as p:
        for call in (lambda: queue.memcpy(host, p, (N + 1) * 4), lambda: queue.memset(p + 1, 0, N * 4),
                     lambda: queue.fill(p, np.int32(1), N + 1), lambda: other.memcpy(host, p, 4),
                     lambda: other.parallel_for(sycl.range(N), AXPY, p, p, 1)):
            with raises(sycl.errc.invalid):
                call()
        floats = sycl.malloc(count=N, dtype=np.float32, q=queue, kind=kind)
        with raises(sycl.errc.kernel_argument):
            queue.parallel_for(sycl.range(N), AXPY, floats, p, 1)
        sycl.free(floats, queue)
        with raises(sycl.errc.invalid):
            sycl.free(floats, queue)  # twice
        with raises(sycl.errc.invalid):
            queue.parallel_for(sycl.range(N), AXPY, floats, p, 1)  # freed
        if kind is alloc.device:
            with raises(sycl.errc.invalid):
                np.asarray(p)  # device memory has no host view
        write(queue, p, np.arange(N))
        assert read(queue, p) == list(range(N))


def test_US_13_large_device_allocation(queue: sycl.queue) -> None:
    """A device allocation of a quarter of max_mem_alloc_size (at most 256 MiB) is written by a
    kernel at both ends and read back."""
    needs_usm_kind(queue, alloc.device)
    limit = queue.get_device().get_info(sycl.info.device.max_mem_alloc_size)
    n = min(limit // 4, 256 * 2**20) // 4
    p = sycl.malloc_device(count=n, dtype=np.int32, q=queue)
    assert p is not None, f"malloc_device of {n * 4} bytes returned None"
    try:
        ones = np.ones(N, np.int32)
        for start in (0, n - N):
            queue.memcpy(p + start, ones * (start + 1), N * 4).wait()
            queue.parallel_for(sycl.range(N), AXPY, p + start, p + start, 2).wait_and_throw()
            out = np.zeros(N, np.int32)
            queue.memcpy(out, p + start, N * 4).wait()
            assert out.tolist() == [3 * (start + 1)] * N, start
    finally:
        sycl.free(p, queue)
