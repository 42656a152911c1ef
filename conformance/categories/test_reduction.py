"""Category reduction (CTS tests/reduction): RED-01 .. RED-12.

The OpenCL C kernels declare one reducer per reduction, ``SYCL_REDUCER(T, name)``, and combine
with ``SYCL_COMBINE(name, value)`` (docs/reductions.md).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import sycl_ocl as sycl
from conformance.support import needs, raises

COMBINERS: list[Any] = [sycl.plus, sycl.multiplies, sycl.minimum, sycl.maximum, sycl.bit_and, sycl.bit_or,
                        sycl.bit_xor, sycl.logical_and, sycl.logical_or]
NUMPY = {sycl.plus: np.sum, sycl.multiplies: np.prod, sycl.minimum: np.min, sycl.maximum: np.max,
         sycl.bit_and: np.bitwise_and.reduce, sycl.bit_or: np.bitwise_or.reduce,
         sycl.bit_xor: np.bitwise_xor.reduce, sycl.logical_and: lambda a: int(np.logical_and.reduce(a)),
         sycl.logical_or: lambda a: int(np.logical_or.reduce(a))}
INIT = sycl.property.reduction.initialize_to_identity()

sycl.register_kernel_source("""
__kernel void cts_red_int(SYCL_REDUCER(int, r), __global const int *x) {
    SYCL_COMBINE(r, x[get_global_id(0)]);
}
__kernel void cts_red_float(SYCL_REDUCER(float, r), __global const float *x) {
    SYCL_COMBINE(r, x[get_global_id(0)]);
}
__kernel void cts_red_two(SYCL_REDUCER(int, s), SYCL_REDUCER(int, m), __global const int *x) {
    SYCL_COMBINE(s, x[get_global_id(0)]);
    SYCL_COMBINE(m, x[get_global_id(0)]);
}
__kernel void cts_red_none(__global const int *x) { }
__kernel void cts_red_bins(SYCL_REDUCER(int, bins), __global const int *x) {
    SYCL_COMBINE_AT(bins, x[get_global_id(0)] & 3, 1);
}
__kernel void cts_red_positive(SYCL_REDUCER(int, r), __global const int *x) {
    if (x[get_global_id(0)] > 0)
        SYCL_COMBINE(r, x[get_global_id(0)]);
}
""")
X = np.array([3, 1, -2, 0, 5, 1, 1, -1] * 8, np.int32)  # 64 items


def _reduce(q: sycl.queue, rng: Any, op: Any, start: int, *, identity: Any = None, props: Any = None,
            x: np.ndarray = X, kernel: str = "cts_red_int") -> Any:
    out = np.array([start], x.dtype)
    with sycl.buffer(x) as bx, sycl.buffer(out) as bo:
        def cgf(h: sycl.handler) -> None:
            args = (op,) if identity is None else (identity, op)
            h.parallel_for(rng, sycl.reduction(bo, h, *args, prop_list=props), kernel,
                           sycl.accessor(bx, h, sycl.read_only))
        q.submit(cgf).wait_and_throw()
    return out[0]


def test_RED_01_known_identities() -> None:
    """Known identities of the SYCL combiners, and which combiners have none."""
    assert sycl.known_identity(sycl.plus(), np.int32) == 0
    assert sycl.known_identity(sycl.multiplies(), np.float32) == 1
    assert sycl.known_identity(sycl.minimum(), np.float64) == np.inf
    assert sycl.known_identity(sycl.maximum(), np.int64) == np.iinfo(np.int64).min
    assert sycl.known_identity(sycl.bit_and(), np.uint32) == 0xFFFFFFFF
    assert sycl.known_identity(sycl.logical_and(), np.int32) == 1
    assert all(sycl.has_known_identity(op(), np.int32) for op in COMBINERS)
    assert not sycl.has_known_identity(sycl.bit_or(), np.float32)


# Per combiner, items and a start value that changes the result (checked below): a runtime
# that drops the variable's value fails every case (docs/conformance.md).
ONES = np.ones(X.size, np.int32)
RED_02_CASES: dict[Any, tuple[np.ndarray, int]] = {
    sycl.plus: (X, 1000), sycl.multiplies: (np.where(X < 0, -1, 1).astype(np.int32), 7),
    sycl.minimum: (X, -1000), sycl.maximum: (X, 1000), sycl.bit_and: (X | 0x30, 0x10),
    sycl.bit_or: (X & 0xF, 0x100), sycl.bit_xor: (np.arange(1, X.size + 1, dtype=np.int32), 0x100),
    sycl.logical_and: (ONES, 0), sycl.logical_or: (0 * ONES, 5)}


@pytest.mark.parametrize("op", COMBINERS, ids=lambda op: op.__name__)
def test_RED_02_range_combines_the_variable(queue: sycl.queue, op: Any) -> None:
    """Over a range, each combiner's result is op(variable's value, reduction of the items)."""
    x, start = RED_02_CASES[op]
    items = np.int32(NUMPY[op](x))
    expected = op()(np.int32(start), items)
    assert expected != items  # the start value shows: dropping it changes the result
    assert _reduce(queue, sycl.range(x.size), op(), start, x=x) == expected


def test_RED_03_initialize_to_identity(queue: sycl.queue) -> None:
    """With initialize_to_identity the variable's value is not combined in."""
    assert _reduce(queue, sycl.range(X.size), sycl.plus(), 1000, props=[INIT]) == X.sum()
    assert _reduce(queue, sycl.range(X.size), sycl.minimum(), -1000, props=[INIT]) == X.min()


def test_RED_04_nd_range(queue: sycl.queue) -> None:
    """Over an nd_range of work-groups of 16, with int and float variables."""
    assert _reduce(queue, sycl.nd_range(sycl.range(64), sycl.range(16)), sycl.maximum(), -9) == X.max()
    xf = X.astype(np.float32) / 4
    got = _reduce(queue, sycl.nd_range(sycl.range(64), sycl.range(16)), sycl.plus(), 0, x=xf,
                  kernel="cts_red_float")
    assert got == xf.sum()


def test_RED_05_several_reductions(queue: sycl.queue) -> None:
    """Two reductions of one kernel each get their own result."""
    s, m = np.zeros(1, np.int32), np.full(1, -100, np.int32)
    with sycl.buffer(X) as bx, sycl.buffer(s) as bs, sycl.buffer(m) as bm:
        queue.submit(lambda h: h.parallel_for(
            X.size, sycl.reduction(bs, h, sycl.plus()), sycl.reduction(bm, h, sycl.maximum()), "cts_red_two",
            sycl.accessor(bx, h, sycl.read_only))).wait_and_throw()
    assert (s[0], m[0]) == (X.sum(), X.max())


def test_RED_06_usm_variable(queue: sycl.queue) -> None:
    """A reduction into a typed USM allocation."""
    needs(queue.get_device(), sycl.aspect.usm_device_allocations)
    src = sycl.malloc_device(count=X.size, dtype=np.int32, q=queue)
    out = sycl.malloc_device(count=1, dtype=np.int32, q=queue)
    assert src is not None and out is not None
    try:
        queue.memcpy(src, X, X.nbytes).wait()
        queue.memcpy(out, np.array([7], np.int32), 4).wait()
        queue.submit(lambda h: h.parallel_for(
            X.size, sycl.reduction(out, sycl.plus()), "cts_red_int", src)).wait()
        got = np.zeros(1, np.int32)
        queue.memcpy(got, out, 4).wait()
    finally:
        sycl.free(src, queue)
        sycl.free(out, queue)
    assert got[0] == 7 + X.sum()


def test_RED_07_user_combiner(queue: sycl.queue) -> None:
    """A user combiner (an OpenCL C expression) with an explicit identity."""
    got = _reduce(queue, sycl.range(X.size), "a > b ? a : b", -50, identity=-100)
    assert got == X.max()


def test_RED_08_misuse(queue: sycl.queue) -> None:
    """A kernel without a reducer, a reducer of another type, a combiner that cannot take the type."""
    with raises(sycl.errc.kernel_argument):
        _reduce(queue, X.size, sycl.plus(), 0, kernel="cts_red_none")
    with raises(sycl.errc.kernel_argument):
        _reduce(queue, X.size, sycl.plus(), 0, kernel="cts_red_float")
    with raises(sycl.errc.invalid):
        _reduce(queue, X.size, sycl.bit_and(), 0, x=X.astype(np.float32), kernel="cts_red_float")


def test_RED_09_empty_range(queue: sycl.queue) -> None:
    """Over an empty range the variable keeps its value, or takes the identity."""
    assert _reduce(queue, sycl.range(0), sycl.plus(), 5) == 5
    assert _reduce(queue, sycl.range(0), sycl.multiplies(), 5, props=[INIT]) == 1


def test_RED_10_span(queue: sycl.queue) -> None:
    """A span of variables: each element is its own reduction (a histogram in a buffer window)."""
    bins = np.full(6, 2, np.int32)
    with sycl.buffer(X) as bx, sycl.buffer(bins) as bb:
        queue.submit(lambda h: h.parallel_for(
            X.size, sycl.reduction(sycl.span(bb, 4, 1), h, sycl.plus()), "cts_red_bins",
            sycl.accessor(bx, h, sycl.read_only))).wait_and_throw()
    assert bins.tolist() == [2, *(np.bincount(X & 3, minlength=4) + 2).tolist(), 2]


def test_RED_11_no_identity(queue: sycl.queue) -> None:
    """A combiner without a known identity, given none: work-items that combined nothing
    contribute nothing, into a buffer and a span, over a range and an nd_range."""
    positive = X[X > 0]
    assert _reduce(queue, sycl.range(X.size), "a + b", 2, kernel="cts_red_positive") == 2 + positive.sum()
    got = _reduce(queue, sycl.nd_range(sycl.range(64), sycl.range(16)), "min(a, b)", 100, props=[INIT],
                  kernel="cts_red_positive")
    assert got == positive.min()
    assert _reduce(queue, sycl.range(X.size), "a * b", 2, x=-np.abs(X), kernel="cts_red_positive") == 2
    bins = np.full(4, 5, np.int32)
    with sycl.buffer(X) as bx, sycl.buffer(bins) as bb:
        queue.submit(lambda h: h.parallel_for(
            X.size, sycl.reduction(sycl.span(bb, 4), h, "a + b"), "cts_red_bins",
            sycl.accessor(bx, h, sycl.read_only))).wait_and_throw()
    assert bins.tolist() == (np.bincount(X & 3, minlength=4) + 5).tolist()


def test_RED_12_property_list_in_the_cpp_position(queue: sycl.queue) -> None:
    """``reduction(buf, cgh, combiner, propList)``: the property list last, positionally, as a
    property_list (of properties or of a list) or a list."""
    for props in (sycl.property_list(INIT), sycl.property_list([INIT]), [INIT]):
        out = np.array([1000], np.int32)
        with sycl.buffer(X) as bx, sycl.buffer(out) as bo:
            queue.submit(lambda h, props=props: h.parallel_for(
                X.size, sycl.reduction(bo, h, sycl.plus(), props), "cts_red_int",
                sycl.accessor(bx, h, sycl.read_only))).wait_and_throw()
        assert out[0] == X.sum()
