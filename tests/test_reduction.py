"""Reductions (SYCL 2020 §4.9.2; docs/reductions.md): every combiner and element type, over
ranges and nd_ranges, one and several reductions, buffers and USM, checked against numpy."""

from __future__ import annotations

import functools
import json
import subprocess
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from kernel_support import run_child

# On Oclgrind an invalid or uninitialised access (a data race with OCLGRIND_DATA_RACES=1) fails
# the test that made it.
from test_kernel_library import _no_oclgrind_errors  # noqa: F401

import sycl_ocl as sycl
from sycl_ocl import _discovery

DTYPES = ["int32", "uint32", "int64", "float32", "float64"]
INTEGER_OPS: list[Any] = [sycl.plus, sycl.multiplies, sycl.minimum, sycl.maximum, sycl.bit_and,
                          sycl.bit_or, sycl.bit_xor, sycl.logical_and, sycl.logical_or]
FLOAT_OPS: list[Any] = INTEGER_OPS[:4]
C_TYPE = {"int32": "int", "uint32": "uint", "int64": "long", "float32": "float", "float64": "double"}
# numpy's reduction of each combiner (reduce over an array of the element type).
NUMPY: dict[Any, Callable[[np.ndarray], Any]] = {
    sycl.plus: np.sum, sycl.multiplies: np.prod, sycl.minimum: np.min, sycl.maximum: np.max,
    sycl.bit_and: np.bitwise_and.reduce, sycl.bit_or: np.bitwise_or.reduce,
    sycl.bit_xor: np.bitwise_xor.reduce,
    sycl.logical_and: lambda a: a.dtype.type(np.logical_and.reduce(a)),
    sycl.logical_or: lambda a: a.dtype.type(np.logical_or.reduce(a)),
}


def ops_for(dtype: str) -> list[Any]:
    return INTEGER_OPS if np.dtype(dtype).kind in "iu" else FLOAT_OPS


@functools.cache
def all_ops_kernel(dtype: str) -> str:
    """A kernel combining x[i] into one reducer per combiner of ``dtype``; returns its name."""
    name = f"red_all_{dtype}"
    t = C_TYPE[dtype]
    count = len(ops_for(dtype))
    reducers = ", ".join(f"SYCL_REDUCER({t}, r{k})" for k in range(count))
    combines = "\n".join(f"    SYCL_COMBINE(r{k}, x[i]);" for k in range(count))
    pragma = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n" if dtype == "float64" else ""
    sycl.register_kernel_source(
        f"{pragma}__kernel void {name}({reducers}, __global const {t} *x) {{\n"
        f"    size_t i = get_global_id(0);\n{combines}\n}}\n")
    return name


def data(dtype: str, n: int, seed: int = 1) -> np.ndarray:
    """Values whose products stay in range (floats near 1) and whose logic has both truths."""
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt.kind == "f":
        return rng.uniform(0.99, 1.01, n).astype(dt)
    values = rng.integers(0 if dt.kind == "u" else -3, 4, n).astype(dt)
    values[n // 2] = 0  # so logical_and and products see a zero
    return values


def size(q: sycl.queue, n: int) -> int:
    """``n``, or a tenth of it (at least 300) on a simulator (Oclgrind runs every access checked)."""
    return max(300, n // 10) if q.get_device().has(sycl.aspect.emulated) else n


def need_type(dev: sycl.device, dtype: str) -> None:
    if dtype == "float64" and not dev.has(sycl.aspect.fp64):
        pytest.skip(f"{dev!r} has no aspect.fp64: float64 reductions need it")


def expected(op: Any, x: np.ndarray, start: Any | None) -> Any:
    total = NUMPY[op](x)
    return total if start is None else op()(x.dtype.type(start), x.dtype.type(total))


def check(op: Any, got: Any, want: Any, dtype: str) -> None:
    if np.dtype(dtype).kind == "f" and op is not sycl.minimum and op is not sycl.maximum:
        np.testing.assert_allclose(got, want, rtol=1e-4 if dtype == "float32" else 1e-10)
    else:
        assert got == want, (op, got, want)


def raises(code: sycl.errc, fn: Callable[[], object], *words: str) -> None:
    with pytest.raises(sycl.exception) as info:
        fn()
    assert info.value.code() is code, info.value.what()
    for word in words:
        assert word in info.value.what(), info.value.what()


# --- combiners and identities (§4.9.2.2) ------------------------------------------------------

def test_known_identities() -> None:
    assert sycl.known_identity(sycl.plus(), np.float32) == 0
    assert sycl.known_identity(sycl.multiplies(), np.int64) == 1
    assert sycl.known_identity(sycl.minimum(), np.float32) == np.inf
    assert sycl.known_identity(sycl.maximum(), np.float64) == -np.inf
    assert sycl.known_identity(sycl.minimum(), np.int32) == np.iinfo(np.int32).max
    assert sycl.known_identity(sycl.maximum(), np.uint32) == 0
    assert sycl.known_identity(sycl.bit_and(), np.uint32) == 0xFFFFFFFF
    assert sycl.known_identity(sycl.bit_and(), np.int64) == -1
    assert sycl.known_identity(sycl.bit_or(), np.int32) == 0
    assert sycl.known_identity(sycl.logical_and(), np.int32) == 1
    assert sycl.known_identity(sycl.logical_or(), np.int32) == 0
    assert sycl.known_identity(sycl.plus(), np.int32).dtype == np.int32
    assert sycl.has_known_identity(sycl.bit_xor(), np.int64)
    assert not sycl.has_known_identity(sycl.bit_xor(), np.float32)
    assert not sycl.has_known_identity("fmax(a, b)", np.float32)
    raises(sycl.errc.invalid, lambda: sycl.known_identity(sycl.bit_or(), np.float64),
           "cannot combine float64")
    raises(sycl.errc.invalid, lambda: sycl.known_identity("a + b", np.float32), "no known identity")
    assert sycl.plus()(2, 3) == 5 and sycl.minimum()(2, 3) == 2 and sycl.bit_xor()(6, 3) == 5


# --- every combiner and type, several reductions in one kernel --------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
def test_every_combiner_over_a_range(queue: sycl.queue, dtype: str) -> None:
    """One launch with a reduction per combiner; each variable's value is combined in."""
    need_type(queue.get_device(), dtype)
    ops = ops_for(dtype)
    n = 1000  # not a multiple of the work-group size
    x = data(dtype, n)
    first = [2 if op is not sycl.logical_and else 1 for op in ops]
    start = [np.array([f], dtype) for f in first]
    kernel = all_ops_kernel(dtype)
    with sycl.buffer(x) as bx:
        bufs = [sycl.buffer(s) for s in start]
        queue.submit(lambda h: h.parallel_for(
            sycl.range(n), *[sycl.reduction(b, h, op()) for b, op in zip(bufs, ops, strict=True)],
            kernel, sycl.accessor(bx, h, sycl.read_only)))
        got = []
        for b in bufs:
            with sycl.host_accessor(b) as acc:
                got.append(np.asarray(acc)[0])
    for op, f, value in zip(ops, first, got, strict=True):
        check(op, value, expected(op, x, f), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_every_combiner_over_an_nd_range(queue: sycl.queue, dtype: str) -> None:
    """Over an nd_range of work-groups of 64 (4 x 16), with initialize_to_identity."""
    need_type(queue.get_device(), dtype)
    ops = ops_for(dtype)
    n = 64 * 9
    x = data(dtype, n, seed=2)
    kernel = all_ops_kernel(dtype)
    init = sycl.property.reduction.initialize_to_identity()
    results = [np.full(1, 7, dtype) for _ in ops]
    with sycl.buffer(x) as bx:
        bufs = [sycl.buffer(r) for r in results]
        queue.submit(lambda h: h.parallel_for(
            sycl.nd_range(sycl.range(n), sycl.range(64)),
            *[sycl.reduction(b, h, op(), prop_list=[init]) for b, op in zip(bufs, ops, strict=True)],
            kernel, sycl.accessor(bx, h, sycl.read_only)))
        for b in bufs:
            b.__exit__(None, None, None)
    for op, r in zip(ops, results, strict=True):
        check(op, r[0], expected(op, x, None), dtype)


def test_nd_range_of_two_dimensions_and_local_memory(queue: sycl.queue) -> None:
    """A 2-D nd_range whose kernel uses barriers and a local accessor besides its reducer."""
    sycl.register_kernel_source("""
        __kernel void red_tile_max(SYCL_REDUCER(int, best), __global const int *x, __local int *tile) {
            size_t l = get_local_id(0) + get_local_size(0) * get_local_id(1);
            size_t i = get_global_id(0) + get_global_size(0) * get_global_id(1);
            tile[l] = x[i];
            barrier(CLK_LOCAL_MEM_FENCE);
            SYCL_COMBINE(best, tile[(l + 1) % (get_local_size(0) * get_local_size(1))]);
        }""")
    x = np.random.default_rng(3).integers(-1000, 1000, (12, 20)).astype(np.int32)
    result = np.array([-5000], np.int32)
    with sycl.buffer(x) as bx, sycl.buffer(result) as br:
        queue.submit(lambda h: h.parallel_for(
            sycl.nd_range(sycl.range(12, 20), sycl.range(3, 5)), sycl.reduction(br, h, sycl.maximum()),
            "red_tile_max", sycl.accessor(bx, h, sycl.read_only), sycl.local_accessor(np.int32, 15, h)))
    assert result[0] == x.max()


# Work-item 0 of each work-group combines what the group gathered in local memory behind a
# barrier (issue 33: the barrier, under a condition in the generated kernel, hung PoCL 3.1).
GROUP_SUM = """
import json, sys
import numpy as np
import sycl_ocl as sycl
sycl.register_kernel_source('''
    __kernel void red_group_sum(SYCL_REDUCER(int, total), __global const int *x, __local int *tile) {
        size_t l = get_local_id(0);
        tile[l] = x[get_global_id(0)];
        barrier(CLK_LOCAL_MEM_FENCE);
        if (l == 0) {
            int s = 0;
            for (size_t k = 0; k < get_local_size(0); k++)
                s += tile[k];
            SYCL_COMBINE(total, s);
        }
    }''')
q = sycl.queue(sycl.device(sys.argv[1]))
x = np.arange(1024, dtype=np.int32)
total = np.array([5], np.int32)
with sycl.buffer(x) as bx, sycl.buffer(total) as bt:
    q.submit(lambda h: h.parallel_for(
        sycl.nd_range(sycl.range(1024), sycl.range(64)), sycl.reduction(bt, h, sycl.plus()),
        "red_group_sum", sycl.accessor(bx, h, sycl.read_only), sycl.local_accessor(np.int32, 64, h)))
print(json.dumps(int(total[0])))
"""


def in_child(code: str, dev: sycl.device, *args: object,
             timeout: int = 120) -> subprocess.CompletedProcess[str]:
    """``code`` run in a child on ``dev`` (its filter string is ``sys.argv[1]``, ``args`` follow):
    a hang or a driver crash there fails the test, not the run."""
    argv = [_discovery.filter_name(dev), *map(str, args)]
    return run_child(f"import sys; sys.argv[1:] = {argv!r}\n{code}", timeout=timeout)


def test_nd_range_body_with_a_barrier_then_one_work_item_combining(queue: sycl.queue) -> None:
    """Every work-item reaches the body's barrier (the body runs under no condition), so a
    kernel that gathers into local memory and lets work-item 0 combine completes."""
    try:
        done = in_child(GROUP_SUM, queue.get_device())
    except subprocess.TimeoutExpired:
        pytest.fail("the launch did not complete in 120 s: a work-item missed the body's barrier")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1]) == 5 + sum(range(1024))


def test_range_of_two_dimensions_sees_each_item(queue: sycl.queue) -> None:
    """Over a 2-D range, get_global_id and get_global_size in the body are the item's."""
    sycl.register_kernel_source("""
        __kernel void red_weighted(SYCL_REDUCER(long, sum), __global const int *x) {
            size_t col = get_global_id(0), row = get_global_id(1);
            if (get_work_dim() != 2)
                return;
            SYCL_COMBINE(sum, (long)x[row * get_global_size(0) + col] * (long)(row + 1));
        }""")
    x = np.arange(37 * 53, dtype=np.int32).reshape(37, 53)
    total = np.zeros(1, np.int64)
    with sycl.buffer(x) as bx, sycl.buffer(total) as bt:
        queue.submit(lambda h: h.parallel_for(
            sycl.range(37, 53), sycl.reduction(bt, h, sycl.plus()), "red_weighted",
            sycl.accessor(bx, h, sycl.read_only)))
    assert total[0] == (x.astype(np.int64) * np.arange(1, 38)[:, None]).sum()


def test_range_of_three_dimensions_and_an_offset_nd_range(queue: sycl.queue) -> None:
    """Over a 3-D range every item is combined once with its own ids; over an nd_range with an
    offset the ids carry the offset."""
    sycl.register_kernel_source("""
        __kernel void red_ids(SYCL_REDUCER(long, sum), SYCL_REDUCER(long, count)) {
            SYCL_COMBINE(sum, get_global_id(0) + 10 * get_global_id(1) + 100 * get_global_id(2)
                              + 1000 * (get_work_dim() == 3));
            SYCL_COMBINE(count, 1);
        }""")
    ids = np.indices((3, 5, 7)).reshape(3, -1)  # SYCL order: dimension 0 is OpenCL dimension 2
    want = (ids[2] + 10 * ids[1] + 100 * ids[0] + 1000).sum()  # get_work_dim() is the range's
    out = np.zeros(2, np.int64)
    with sycl.buffer(out) as bo:
        queue.submit(lambda h: h.parallel_for(
            sycl.range(3, 5, 7), sycl.reduction(sycl.span(bo, 1, 0), h, sycl.plus()),
            sycl.reduction(sycl.span(bo, 1, 1), h, sycl.plus()), "red_ids"))
    assert out.tolist() == [want, 105]
    out[:] = 0
    with sycl.buffer(out) as bo:
        queue.submit(lambda h: h.parallel_for(
            sycl.nd_range(sycl.range(8), sycl.range(4), sycl.id(16)),
            sycl.reduction(sycl.span(bo, 1, 0), h, sycl.maximum()),
            sycl.reduction(sycl.span(bo, 1, 1), h, sycl.plus()), "red_ids"))
    assert out[0] == 23 and out[1] == 8  # offset 16: ids 16..23; get_work_dim() is 1


def test_dot_product_with_two_reductions(queue: sycl.queue) -> None:
    """Two reductions of one kernel, one combining more than once per item; early returns."""
    sycl.register_kernel_source("""
        __kernel void red_dot2(SYCL_REDUCER(float, dot), SYCL_REDUCER(float, norm),
                               __global const float *x, __global const float *y, uint n) {
            size_t i = get_global_id(0);
            if (i >= n)
                return;
            SYCL_COMBINE(dot, x[i] * y[i]);
            SYCL_COMBINE(norm, x[i] * x[i]);
            SYCL_COMBINE(norm, y[i] * y[i]);
        }""")
    n = size(queue, 50_000)
    rng = np.random.default_rng(4)
    x, y = rng.random(n, np.float32), rng.random(n, np.float32)
    with sycl.buffer(x) as bx, sycl.buffer(y) as by, sycl.buffer(np.zeros(1, np.float32)) as d, \
            sycl.buffer(np.zeros(1, np.float32)) as m:
        queue.submit(lambda h: h.parallel_for(
            n + 100, sycl.reduction(d, h, sycl.plus()), sycl.reduction(m, h, sycl.plus()), "red_dot2",
            sycl.accessor(bx, h, sycl.read_only), sycl.accessor(by, h, sycl.read_only), n))
        with sycl.host_accessor(d) as a, sycl.host_accessor(m) as b:
            got = (np.asarray(a)[0], np.asarray(b)[0])
    x64, y64 = x.astype(np.float64), y.astype(np.float64)
    np.testing.assert_allclose(got, (x64 @ y64, x64 @ x64 + y64 @ y64), rtol=1e-5)


def test_float_results_repeat_exactly(queue: sycl.queue) -> None:
    """The order of combination is fixed: the same launch gives the same bits."""
    kernel = all_ops_kernel("float32")
    x = np.random.default_rng(5).standard_normal(size(queue, 100_000)).astype(np.float32)
    results = []
    for _ in range(2):
        outs = [np.zeros(1, np.float32) for _ in FLOAT_OPS]
        with sycl.buffer(x) as bx:
            bufs = [sycl.buffer(o) for o in outs]
            queue.submit(lambda h, bufs=bufs: h.parallel_for(
                x.size, *[sycl.reduction(b, h, op()) for b, op in zip(bufs, FLOAT_OPS, strict=True)],
                kernel, sycl.accessor(bx, h, sycl.read_only))).wait()
            results.append([sycl.host_accessor(b, sycl.read_only)[0] for b in bufs])
    assert results[0] == results[1]


def test_empty_range_leaves_the_value_or_the_identity(queue: sycl.queue) -> None:
    kernel = all_ops_kernel("int32")
    x = np.ones(4, np.int32)
    kept, reset = np.array([9], np.int32), np.array([9], np.int32)
    with sycl.buffer(x) as bx, sycl.buffer(kept) as bk, sycl.buffer(reset) as bz:
        init = sycl.property.reduction.initialize_to_identity()
        queue.submit(lambda h: h.parallel_for(
            0, sycl.reduction(bk, h, sycl.plus()), sycl.reduction(bz, h, sycl.plus(), prop_list=[init]),
            *[sycl.reduction(sycl.buffer(np.zeros(1, np.int32)), h, op()) for op in INTEGER_OPS[2:]],
            kernel, sycl.accessor(bx, h, sycl.read_only)))
    assert kept[0] == 9 and reset[0] == 0


# --- USM, user combiners, ordering --------------------------------------------------------------

def test_usm_reduction_into_shared_and_device_memory(queue: sycl.queue) -> None:
    dev = queue.get_device()
    if not dev.has(sycl.aspect.usm_device_allocations):
        pytest.skip(f"{dev!r} has no USM (aspect.usm_device_allocations)")
    kernel = all_ops_kernel("int64")
    n = 3000
    x = data("int64", n, seed=6)
    src = sycl.malloc_device(count=n, dtype=np.int64, q=queue)
    out = sycl.malloc_device(count=len(INTEGER_OPS), dtype=np.int64, q=queue)
    assert src is not None and out is not None
    try:
        queue.memcpy(src, x, x.nbytes).wait()
        queue.memcpy(out, np.full(len(INTEGER_OPS), 1, np.int64), 8 * len(INTEGER_OPS)).wait()
        queue.submit(lambda h: h.parallel_for(
            n, *[sycl.reduction(out + k, op()) for k, op in enumerate(INTEGER_OPS)], kernel, src)).wait()
        got = np.zeros(len(INTEGER_OPS), np.int64)
        queue.memcpy(got, out, got.nbytes).wait()
    finally:
        sycl.free(src, queue)
        sycl.free(out, queue)
    for k, op in enumerate(INTEGER_OPS):
        check(op, got[k], expected(op, x, 1), "int64")


def test_user_combiners_expression_and_function(queue: sycl.queue) -> None:
    sycl.register_kernel_source("""
        float red_absmax(float a, float b) { return fmax(fabs(a), fabs(b)); }
        __kernel void red_user(SYCL_REDUCER(float, m), SYCL_REDUCER(float, s), __global const float *x) {
            size_t i = get_global_id(0);
            SYCL_COMBINE(m, x[i]);
            SYCL_COMBINE(s, x[i]);
        }""")
    x = np.random.default_rng(7).standard_normal(777).astype(np.float32)
    m, s = np.zeros(1, np.float32), np.zeros(1, np.float32)
    with sycl.buffer(x) as bx, sycl.buffer(m) as bm, sycl.buffer(s) as bs:
        queue.submit(lambda h: h.parallel_for(
            x.size, sycl.reduction(bm, h, 0.0, "red_absmax"), sycl.reduction(bs, h, -np.inf, "a < b ? b : a"),
            "red_user", sycl.accessor(bx, h, sycl.read_only)))
    assert m[0] == np.abs(x).max()
    assert s[0] == x.max()


NO_IDENTITY = """
    float red_absmin(float a, float b) { return fabs(a) < fabs(b) ? a : b; }
    __kernel void red_no_identity(SYCL_REDUCER(float, m), SYCL_REDUCER(long, p), SYCL_REDUCER(int, last),
                                  __global const float *x, uint every) {
        size_t i = get_global_id(0);
        if (i % every == 3) {
            SYCL_COMBINE(m, x[i]);
            SYCL_COMBINE(p, (long)(i % 3 + 2));
            SYCL_COMBINE_AT(last, i % 2, (int)i);
        }
    }"""


def no_identity_results(x: np.ndarray, items: np.ndarray) -> list[Any]:
    """What red_no_identity gives from 99.0 (initialized: kept only if nothing combined), 3 and
    [-7, -7] when the items ``items`` combine."""
    least = x[items][np.argmin(np.abs(x[items]))] if items.size else 99.0
    last = [max([-7, *items[items % 2 == k]]) for k in (0, 1)]
    return [least, 3 * np.prod(items % 3 + 2, dtype=np.int64), last]


def no_identity_into_buffers(queue: sycl.queue, x: np.ndarray, rng: Any, every: int) -> list[Any]:
    """red_no_identity into buffers, its first reduction initialized; what they hold after."""
    init = sycl.property.reduction.initialize_to_identity()
    m, p, last = np.array([99.0], np.float32), np.array([3], np.int64), np.full(3, -7, np.int32)
    with sycl.buffer(x) as bx, sycl.buffer(m) as bm, sycl.buffer(p) as bp, sycl.buffer(last) as bl:

        def cgf(h: sycl.handler) -> None:
            least = sycl.reduction(bm, h, "red_absmin", prop_list=[init])
            raises(sycl.errc.invalid, least.identity, "no identity")
            h.parallel_for(rng, least, sycl.reduction(bp, h, "a * b"),
                           sycl.reduction(sycl.span(bl, 2), h, "max(a, b)"), "red_no_identity",
                           sycl.accessor(bx, h, sycl.read_only), np.uint32(every))
        queue.submit(cgf)
    assert last[2] == -7  # past the span
    return [m[0], p[0], last[:2].tolist()]


def no_identity_into_usm(queue: sycl.queue, x: np.ndarray) -> list[Any]:
    """red_no_identity over x.size items into USM, every 7th item combining."""
    start = (np.array([99.0], np.float32), np.array([3], np.int64), np.full(2, -7, np.int32))
    src = sycl.malloc_device(count=x.size, dtype=np.float32, q=queue)
    ptrs = [sycl.malloc_device(count=v.size, dtype=v.dtype, q=queue) for v in start]
    try:
        for ptr, v in zip([src, *ptrs], [x, *start], strict=True):
            queue.memcpy(ptr, v, v.nbytes).wait()
        mins, prods, lasts = ptrs
        queue.submit(lambda h: h.parallel_for(
            x.size, sycl.reduction(mins, "red_absmin"), sycl.reduction(prods, "a * b"),
            sycl.reduction(sycl.span(lasts, 2), "max(a, b)"), "red_no_identity", src, np.uint32(7))).wait()
        got = [np.zeros_like(v) for v in start]
        for ptr, v in zip(ptrs, got, strict=True):
            queue.memcpy(v, ptr, v.nbytes).wait()
    finally:
        for ptr in [src, *ptrs]:
            sycl.free(ptr, queue)
    return [got[0][0], got[1][0], got[2].tolist()]


def test_reductions_without_an_identity(queue: sycl.queue) -> None:
    """§4.9.2: combiners without a known identity, given none: work-items that combined nothing
    contribute nothing (and where none combined, the variable keeps its value, with
    initialize_to_identity too), over a range and an nd_range, into buffers, a span and USM."""
    sycl.register_kernel_source(NO_IDENTITY)
    n = size(queue, 6000)
    x = np.random.default_rng(11).uniform(-10, 10, n).astype(np.float32)
    for every in (7, 3):  # some work-items combine (i % 7 == 3); none does (i % 3 == 3)
        for rng in (n, sycl.nd_range(sycl.range(n - n % 50), sycl.range(50))):
            items = np.arange(n if isinstance(rng, int) else n - n % 50)
            items = items[items % every == 3]
            assert no_identity_into_buffers(queue, x, rng, every) == no_identity_results(x, items)
    assert items.size == 0
    if queue.get_device().has(sycl.aspect.usm_device_allocations):
        # Not initialized: absmin(99.0, least) is least.
        assert no_identity_into_usm(queue, x) == no_identity_results(x, np.arange(n)[np.arange(n) % 7 == 3])


def test_property_lists_in_the_cpp_position(queue: sycl.queue) -> None:
    """A reduction's property list last among its positional arguments, as in C++: a
    property_list (also made of a list), a list, a tuple or a property; never a combiner.
    Given there and as prop_list= it is refused."""
    sycl.register_kernel_source(REPEAT_KERNELS)
    init = sycl.property.reduction.initialize_to_identity()
    x = np.arange(10, dtype=np.int32)
    for props in (sycl.property_list(init), sycl.property_list([init]), [init], (init,), init):
        s, m = np.array([100], np.int32), np.array([50.0], np.float32)
        with sycl.buffer(x) as bx, sycl.buffer(s) as bs, sycl.buffer(m) as bm:
            queue.submit(lambda h, props=props: h.parallel_for(
                x.size, sycl.reduction(bs, h, sycl.plus(), props),
                sycl.reduction(bm, h, -1.0, sycl.maximum(), props), "red_repeat",
                sycl.accessor(bx, h, sycl.read_only)))
        assert (s[0], m[0]) == (x.sum(), 9.0)
    with sycl.buffer(x) as bx:
        raises(sycl.errc.invalid, lambda: queue.submit(
            lambda h: sycl.reduction(bx, h, sycl.plus(), [init], prop_list=[init])), "comes last and once")


def test_specialization_constants_reach_the_generated_variant(queue: sycl.queue) -> None:
    """A command group's specialization constant is seen by the kernel's body in its variant."""
    scale = sycl.specialization_id("RED_SCALE", np.int32, 1)
    sycl.register_kernel_source("""
        __kernel void red_scaled(SYCL_REDUCER(int, s)) { SYCL_COMBINE(s, RED_SCALE); }""")
    for value, want in ((None, 10), (7, 70)):
        out = np.zeros(1, np.int32)
        with sycl.buffer(out) as bo:
            def cgf(h: sycl.handler, value: int | None = value) -> None:
                if value is not None:
                    h.set_specialization_constant(scale, value)
                h.parallel_for(10, sycl.reduction(bo, h, sycl.plus()), "red_scaled")
            queue.submit(cgf)
        assert out[0] == want


def test_reduction_result_is_ordered_before_later_commands(queue: sycl.queue) -> None:
    """The variable is a requirement: a later kernel reading it sees the result (the DAG)."""
    sycl.register_kernel_source("""
        __kernel void red_count(SYCL_REDUCER(int, c), __global const int *x) {
            SYCL_COMBINE(c, x[get_global_id(0)] > 0);
        }
        __kernel void red_scale(__global int *y, __global const int *c) {
            y[get_global_id(0)] *= c[0];
        }""")
    x = np.arange(-50, 50, dtype=np.int32)
    y = np.ones(8, np.int32)
    with sycl.buffer(x) as bx, sycl.buffer(np.zeros(1, np.int32)) as bc, sycl.buffer(y) as by:
        queue.submit(lambda h: h.parallel_for(
            x.size, sycl.reduction(bc, h, sycl.plus()), "red_count", sycl.accessor(bx, h, sycl.read_only)))
        queue.submit(lambda h: h.parallel_for(
            y.size, "red_scale", sycl.accessor(by, h), sycl.accessor(bc, h, sycl.read_only)))
    assert (y == 49).all()



# --- repeated launches: one kernel, kept plans, partials and shapes ----------------------------

REPEAT_KERNELS = """
    __kernel void red_repeat(SYCL_REDUCER(int, s), SYCL_REDUCER(float, m), __global const int *x) {
        size_t i = get_global_id(0);
        SYCL_COMBINE(s, x[i]);
        SYCL_COMBINE(m, (float)x[i]);
    }"""


def test_repeated_launches_combine_each_time_into_the_variable(queue: sycl.queue) -> None:
    """A command group submitted again and again (a shape from its second launch, its plans
    replayed from the third) combines into the variable each time: the last work-group of each
    launch finds the counter its previous launch set back to 0, and the partials it wrote.
    Launches of other sizes and a kernel with other reductions between them keep their own."""
    sycl.register_kernel_source(REPEAT_KERNELS)
    n, rounds = size(queue, 5000), 12
    x = np.random.default_rng(9).integers(-50, 100, n).astype(np.int32)
    total, top = np.array([7], np.int32), np.array([-1.0], np.float32)
    other = np.zeros(1, np.int32)
    with sycl.buffer(x) as bx, sycl.buffer(total) as bt, sycl.buffer(top) as bm, sycl.buffer(other) as bo:
        def cgf(h: sycl.handler) -> None:
            h.parallel_for(n, sycl.reduction(bt, h, sycl.plus()), sycl.reduction(bm, h, sycl.maximum()),
                           "red_repeat", sycl.accessor(bx, h, sycl.read_only))

        for k in range(rounds):
            queue.submit(cgf)
            if k % 4 == 3:  # another size, then a sum into another variable, on the same queue
                queue.submit(lambda h: h.parallel_for(
                    n // 2, sycl.reduction(bo, h, sycl.plus()), sycl.reduction(bm, h, sycl.minimum()),
                    "red_repeat", sycl.accessor(bx, h, sycl.read_only)))
        shapes = [s for key, s in sycl.accessor(bt, None)._win.shapes.items() if type(key) is tuple]
    assert total[0] == 7 + rounds * x.sum()
    assert top[0] == x[: n // 2].min()  # the last launch into it was a minimum
    assert other[0] == (rounds // 4) * x[: n // 2].sum()
    # The repeated launch is kept as a shape with the variable's buffer, bound to a cl_kernel
    # of its own (docs/reductions.md, "Repeated launches").
    assert any(shape.prepared is not None for shape in shapes)


def test_a_repeated_initializing_reduction_never_copies_the_old_value_in(queue: sycl.queue) -> None:
    """With ``initialize_to_identity`` the variable's old value is not needed (a discarding
    write): the launch, repeated as a shape whose plans replay, never copies it to the device,
    even when the host wrote it in between; each result is the reduction's alone."""
    sycl.register_kernel_source(REPEAT_KERNELS)
    n = size(queue, 5000)
    x = np.random.default_rng(3).integers(-50, 100, n).astype(np.int32)
    init = [sycl.property.reduction.initialize_to_identity()]
    with sycl.buffer(x) as bx, sycl.buffer(np.zeros(1, np.int32)) as bt, \
            sycl.buffer(np.zeros(1, np.float32)) as bm:
        for k in range(5):
            with sycl.host_accessor(bt) as view:
                assert k == 0 or view[0] == x.sum()
                view[0] = -k  # on the host only: the device's copy is stale now
            queue.submit(lambda h: h.parallel_for(
                n, sycl.reduction(bt, h, sycl.plus(), prop_list=init),
                sycl.reduction(bm, h, sycl.maximum(), prop_list=init), "red_repeat",
                sycl.accessor(bx, h, sycl.read_only)))
        with sycl.host_accessor(bt, sycl.read_only) as view:
            assert view[0] == x.sum()
        assert bt.transfer_counters().h2d_copies == 0


def test_a_kept_launch_still_refuses_another_command_groups_accessor(queue: sycl.queue) -> None:
    """A launch matched to a kept shape is still checked for what the shape does not fix: an
    accessor of another command group raises errc.accessor, as the first launch would."""
    sycl.register_kernel_source(REPEAT_KERNELS)
    x = np.arange(64, dtype=np.int32)
    with sycl.buffer(x) as bx, sycl.buffer(np.zeros(1, np.int32)) as bt, \
            sycl.buffer(np.zeros(1, np.float32)) as bm:
        def cgf(h: sycl.handler, acc: Any = None) -> None:
            h.parallel_for(x.size, sycl.reduction(bt, h, sycl.plus()), sycl.reduction(bm, h, sycl.maximum()),
                           "red_repeat", acc if acc is not None else sycl.accessor(bx, h, sycl.read_only))

        for _ in range(3):
            queue.submit(cgf)
        stolen: list[Any] = []
        queue.submit(lambda h: stolen.append(sycl.accessor(bx, h, sycl.read_only)))
        raises(sycl.errc.accessor, lambda: queue.submit(lambda h: cgf(h, stolen[0])),
               "not part of this command group")
        queue.submit(cgf)
        with sycl.host_accessor(bt) as got:
            assert got[0] == 4 * x.sum()


def test_empty_nd_range_writes_the_identity_or_keeps_the_value(queue: sycl.queue) -> None:
    """An nd_range of no work-item runs no body: a reduction that initializes to the identity
    writes it, one that does not keeps the variable's value."""
    sycl.register_kernel_source(REPEAT_KERNELS)
    kept, reset = np.array([9], np.int32), np.array([9.5], np.float32)
    with sycl.buffer(np.ones(4, np.int32)) as bx, sycl.buffer(kept) as bk, sycl.buffer(reset) as bz:
        init = sycl.property.reduction.initialize_to_identity()
        queue.submit(lambda h: h.parallel_for(
            sycl.nd_range(sycl.range(0), sycl.range(4)), sycl.reduction(bk, h, sycl.plus()),
            sycl.reduction(bz, h, sycl.maximum(), prop_list=[init]), "red_repeat",
            sycl.accessor(bx, h, sycl.read_only)))
    assert kept[0] == 9 and reset[0] == -np.inf


# --- errors -----------------------------------------------------------------------------------

def test_misuse_is_refused_clearly(queue: sycl.queue) -> None:
    sycl.register_kernel_source("""
        __kernel void red_none(__global const float *x) { }
        __kernel void red_late(__global const float *x, SYCL_REDUCER(float, r)) { SYCL_COMBINE(r, x[0]); }
        __kernel void red_one(SYCL_REDUCER(float, r), __global const float *x) { SYCL_COMBINE(r, x[0]); }
    """)
    x = np.ones(4, np.float32)
    with sycl.buffer(x) as bx, sycl.buffer(np.zeros(1, np.float32)) as bf, \
            sycl.buffer(np.zeros(1, np.int32)) as bi, sycl.buffer(np.zeros(2, np.float32)) as b2:

        def launch(kernel: str, *make: Callable[[sycl.handler], Any]) -> Callable[[], object]:
            return lambda: queue.submit(lambda h: h.parallel_for(
                4, *[m(h) for m in make], kernel, sycl.accessor(bx, h, sycl.read_only)))

        plus_f = lambda h: sycl.reduction(bf, h, sycl.plus())  # noqa: E731
        raises(sycl.errc.kernel_argument, launch("red_none", plus_f), "declares no reducer", "SYCL_REDUCER")
        raises(sycl.errc.kernel_argument, launch("red_late", plus_f), "first parameters")
        raises(sycl.errc.kernel_argument, launch("red_one", plus_f, plus_f), "1 reducer", "2 reduction")
        raises(sycl.errc.kernel_argument, launch("red_one", lambda h: sycl.reduction(bi, h, sycl.plus())),
               "declared float", "int32", "SYCL_REDUCER(int, r)")
        raises(sycl.errc.invalid, launch("red_one", lambda h: sycl.reduction(bf, h, sycl.bit_and())),
               "cannot combine float32")
        raises(sycl.errc.invalid, launch("red_one", lambda h: sycl.reduction(b2, h, sycl.plus())),
               "one element")
        raises(sycl.errc.invalid, launch("red_one", lambda h: sycl.reduction(bf, h, 1, 2, 3)),
               "combiner")
        raises(sycl.errc.invalid, lambda: queue.submit(lambda h: h.parallel_for(
            4, sycl.reduction(bf, h, sycl.plus()))), "needs a kernel")
        raises(sycl.errc.invalid, lambda: sycl.reduction(np.zeros(1), sycl.plus()), "sycl.buffer")
    # After the refusals the same kernel still runs.
    out = np.zeros(1, np.float32)
    with sycl.buffer(x) as bx, sycl.buffer(out) as bo:
        queue.submit(lambda h: h.parallel_for(
            4, sycl.reduction(bo, h, sycl.plus()), "red_one", sycl.accessor(bx, h, sycl.read_only)))
    assert out[0] == 4


def test_reducer_kernel_builds_in_a_plain_bundle(queue: sycl.queue) -> None:
    """A unit with reducers builds like any other (its plain meaning), so bundles of every
    application kernel still build; launched without reductions it is refused, not run with
    combinations that do nothing."""
    ids = sycl.register_kernel_source(
        "__kernel void red_plain(SYCL_REDUCER(int, r), __global const int *x) { SYCL_COMBINE(r, x[0]); }")
    kb = sycl.get_kernel_bundle(sycl.bundle_state.executable, queue.get_context(), kernel_ids=ids)
    assert kb.has_kernel(ids[0])
    with sycl.buffer(np.zeros(1, np.int32)) as out, sycl.buffer(np.ones(4, np.int32)) as x:
        raises(sycl.errc.kernel_argument, lambda: queue.submit(lambda h: h.parallel_for(
            4, "red_plain", sycl.accessor(out, h), sycl.accessor(x, h, sycl.read_only))),
            "takes reducers", "sycl.reduction")


def test_command_graph_replays_a_reduction(queue: sycl.queue) -> None:
    """A recorded launch with a reduction replays: each replay combines into the variable."""
    sycl.register_kernel_source("""
        __kernel void red_graph_sum(SYCL_REDUCER(int, s), __global const int *x) {
            SYCL_COMBINE(s, x[get_global_id(0)]);
        }
        __kernel void red_graph_inc(__global int *x) { x[get_global_id(0)] += 1; }""")
    exp = sycl.ext.oneapi.experimental
    x = np.arange(1000, dtype=np.int32)
    total = np.zeros(1, np.int32)
    with sycl.buffer(x) as bx, sycl.buffer(total) as bt:
        g = exp.command_graph(queue)
        g.begin_recording(queue)
        queue.submit(lambda h: h.parallel_for(x.size, "red_graph_inc", sycl.accessor(bx, h)))
        queue.submit(lambda h: h.parallel_for(
            x.size, sycl.reduction(bt, h, sycl.plus()), "red_graph_sum",
            sycl.accessor(bx, h, sycl.read_only)))
        g.end_recording()
        exe = g.finalize()
        for _ in range(3):
            queue.ext_oneapi_graph(exe)
    assert total[0] == sum((np.arange(1000) + k).sum() for k in (1, 2, 3))


def test_span_reductions_into_a_buffer_window_and_usm(queue: sycl.queue) -> None:
    """A span of variables (a histogram): element i of the variable gets the combination of
    what the kernel combined into element i; the rest of the buffer is untouched."""
    sycl.register_kernel_source("""
        __kernel void red_hist(SYCL_REDUCER(int, bins), SYCL_REDUCER(float, top), __global const int *x) {
            size_t i = get_global_id(0);
            SYCL_COMBINE_AT(bins, x[i] % 8, 1);
            SYCL_COMBINE_AT(top, x[i] % 3, (float)x[i]);
        }""")
    n = size(queue, 5000)
    x = np.random.default_rng(8).integers(0, 1000, n).astype(np.int32)
    want_bins = np.bincount(x % 8, minlength=8)
    want_top = np.array([x[x % 3 == k].max() for k in range(3)], np.float32)
    hist = np.full(12, 5, np.int32)  # bins in elements 2..9, each starting at 5
    top = np.zeros(3, np.float32)
    init = sycl.property.reduction.initialize_to_identity()
    with sycl.buffer(x) as bx, sycl.buffer(hist) as bh, sycl.buffer(top) as bt:
        queue.submit(lambda h: h.parallel_for(
            n, sycl.reduction(sycl.span(bh, 8, 2), h, sycl.plus()),
            sycl.reduction(sycl.span(bt, 3), h, sycl.maximum(), prop_list=[init]), "red_hist",
            sycl.accessor(bx, h, sycl.read_only)))
    assert hist[:2].tolist() == [5, 5] and hist[10:].tolist() == [5, 5]
    assert (hist[2:10] == want_bins + 5).all() and (top == want_top).all()
    if queue.get_device().has(sycl.aspect.usm_device_allocations):
        bins = sycl.malloc_device(count=8, dtype=np.int32, q=queue)
        tops = sycl.malloc_device(count=3, dtype=np.float32, q=queue)
        src = sycl.malloc_device(count=n, dtype=np.int32, q=queue)
        assert bins is not None and tops is not None and src is not None
        try:
            queue.memcpy(src, x, x.nbytes).wait()
            queue.submit(lambda h: h.parallel_for(
                sycl.nd_range(sycl.range(n - n % 100), sycl.range(100)),
                sycl.reduction(sycl.span(bins, 8), sycl.plus(), prop_list=[init]),
                sycl.reduction(sycl.span(tops, 3), sycl.maximum(), prop_list=[init]), "red_hist", src)).wait()
            got = np.zeros(8, np.int32)
            queue.memcpy(got, bins, got.nbytes).wait()
        finally:
            for p in (bins, tops, src):
                sycl.free(p, queue)
        assert (got == np.bincount(x[:n - n % 100] % 8, minlength=8)).all()
    raises(sycl.errc.invalid, lambda: sycl.span(sycl.buffer(np.zeros(4, np.int32)), 3, 2), "window")


# Each span length over a range and an nd_range (issue 33: a span of two elements killed the
# process in PoCL 3.1's work-group compiler); one line per length, so a crash names its length.
EVERY_SPAN = """
import json, sys
import numpy as np
import sycl_ocl as sycl
sycl.register_kernel_source('''
    __kernel void red_span_any(SYCL_REDUCER(int, bins), __global const int *x, uint n) {
        size_t i = get_global_id(0);
        SYCL_COMBINE_AT(bins, x[i] % n, 1);
    }''')
q = sycl.queue(sycl.device(sys.argv[1]))
x = np.arange(int(sys.argv[2]), dtype=np.int32)
with sycl.buffer(x) as bx:
    for n in range(1, 17):
        got = []
        for rng in (x.size, sycl.nd_range(sycl.range(x.size), sycl.range(16))):
            bins = np.zeros(n, np.int32)
            with sycl.buffer(bins) as bb:
                q.submit(lambda h: h.parallel_for(
                    rng, sycl.reduction(sycl.span(bb, n), h, sycl.plus()), "red_span_any",
                    sycl.accessor(bx, h, sycl.read_only), np.uint32(n)))
            got.append(bins.tolist())
        print(json.dumps([n, got]), flush=True)
"""


def test_every_span_length_from_1_to_16_builds_and_reduces(queue: sycl.queue) -> None:
    """Spans of 1..16 elements, over a range and an nd_range: each builds on the device and
    gives numpy's histogram (run in a child: a driver that crashed would end it, not the run)."""
    n = 320
    try:
        done = in_child(EVERY_SPAN, queue.get_device(), n, timeout=600)
    except subprocess.TimeoutExpired:
        pytest.fail("the span launches did not complete in 600 s")
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("[")]
    reached = lines[-1][0] if lines else 0
    assert done.returncode == 0, f"the child ended ({done.returncode}) after span length {reached}:\n" \
                                 f"{done.stderr[-2000:]}"
    x = np.arange(n)
    assert lines == [[k, [np.bincount(x % k, minlength=k).tolist()] * 2] for k in range(1, 17)]
