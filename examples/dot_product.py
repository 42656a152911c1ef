"""A dot product as a reduction (SYCL 2020 §4.9.2; docs/reductions.md), into a buffer and into
USM memory.

Teaches: the kernel's reducer parameter ``SYCL_REDUCER(float, sum)`` and ``SYCL_COMBINE``,
``sycl.reduction(buf, h, sycl.plus())`` on a one-element buffer (read after the buffer's
``with`` block), the USM form ``sycl.reduction(ptr, sycl.plus())`` with
``initialize_to_identity``, and two reductions of one kernel (a dot product and a maximum).
Prints the results beside numpy's and checks them.
"""

from __future__ import annotations

import numpy as np

import sycl_ocl as sycl

N = 1 << 20

sycl.register_kernel_source("""
__kernel void dot_product(SYCL_REDUCER(float, sum), __global const float *x, __global const float *y) {
    size_t i = get_global_id(0);
    SYCL_COMBINE(sum, x[i] * y[i]);
}

__kernel void dot_and_max(SYCL_REDUCER(float, sum), SYCL_REDUCER(float, biggest),
                          __global const float *x, __global const float *y) {
    size_t i = get_global_id(0);
    SYCL_COMBINE(sum, x[i] * y[i]);
    SYCL_COMBINE(biggest, fabs(x[i]));
}
""")


def with_buffers(q: sycl.queue, x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """x.y and max |x|, two reductions of one kernel over buffers."""
    dot, biggest = np.zeros(1, np.float32), np.zeros(1, np.float32)
    with sycl.buffer(x) as bx, sycl.buffer(y) as by, sycl.buffer(dot) as bd, sycl.buffer(biggest) as bb:
        q.submit(lambda h: h.parallel_for(
            sycl.range(N), sycl.reduction(bd, h, sycl.plus()), sycl.reduction(bb, h, sycl.maximum()),
            "dot_and_max", sycl.accessor(bx, h, sycl.read_only), sycl.accessor(by, h, sycl.read_only)))
    return float(dot[0]), float(biggest[0])  # written back when the buffers' block ended


def with_usm(q: sycl.queue, x: np.ndarray, y: np.ndarray) -> float | None:
    """x.y into device memory (None where the device has no USM)."""
    if not q.get_device().has(sycl.aspect.usm_device_allocations):
        print("the device has no USM device allocations (OpenCL 2.0 SVM): skipping the USM form")
        return None
    px, py, out = (sycl.malloc_device(count=n, dtype=np.float32, q=q) for n in (N, N, 1))
    assert px is not None and py is not None and out is not None
    try:
        q.memcpy(px, x, x.nbytes)
        q.memcpy(py, y, y.nbytes).wait()  # USM is ordered by the queue and events, not accessors
        init = sycl.property.reduction.initialize_to_identity()
        q.submit(lambda h: h.parallel_for(
            N, sycl.reduction(out, sycl.plus(), prop_list=[init]), "dot_product", px, py)).wait()
        result = np.zeros(1, np.float32)
        q.memcpy(result, out, result.nbytes).wait()
        return float(result[0])
    finally:
        for p in (px, py, out):
            sycl.free(p, q)


def main() -> None:
    q = sycl.queue()
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal(N).astype(np.float32), rng.standard_normal(N).astype(np.float32)
    want = float(x.astype(np.float64) @ y.astype(np.float64))
    dot, biggest = with_buffers(q, x, y)
    print(f"buffers: x.y = {dot:.4f} (numpy {want:.4f}), max |x| = {biggest} (numpy {np.abs(x).max()})")
    assert abs(dot - want) <= 1e-3 * np.sqrt(N) and biggest == np.abs(x).max()
    usm = with_usm(q, x, y)
    if usm is not None:
        print(f"USM:     x.y = {usm:.4f}")
        assert abs(usm - want) <= 1e-3 * np.sqrt(N)


if __name__ == "__main__":
    main()
