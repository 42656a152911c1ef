"""Use the kernel library shipped with sycl_ocl (``kernels_cl/``) with buffers and accessors.

Its kernels are not application kernels: each is one call away, ``library.get_kernel_id(name)``,
and launches by that id. Runs axpy, a two-pass work-group reduction with local memory, a tiled
transpose and a tiled matrix multiply on the default device, and checks each result against numpy.
"""

from __future__ import annotations

import numpy as np

import sycl_ocl as sycl
from sycl_ocl import library

TILE = 16


def round_up(n: int, m: int) -> int:
    return (n + m - 1) // m * m


def axpy(q: sycl.queue, a: float, x: np.ndarray, y: np.ndarray) -> None:
    with sycl.buffer(x) as bx, sycl.buffer(y) as by:
        q.submit(lambda h: h.parallel_for(
            sycl.range(x.size), library.get_kernel_id("axpy_float32"), a,
            sycl.accessor(bx, h, sycl.read_only), sycl.accessor(by, h),
        ))


def total(q: sycl.queue, data: np.ndarray, local: int = 64, groups: int = 8) -> float:
    reduce_sum = library.get_kernel_id("reduce_sum_float32")
    partial = np.zeros(groups, np.float32)
    result = np.zeros(1, np.float32)
    with sycl.buffer(data) as bd, sycl.buffer(partial) as bp, sycl.buffer(result) as br:
        def first(h: sycl.handler) -> None:
            h.parallel_for(
                sycl.nd_range(sycl.range(groups * local), sycl.range(local)), reduce_sum,
                sycl.accessor(bd, h, sycl.read_only), sycl.accessor(bp, h, sycl.write_only),
                sycl.local_accessor(np.float32, sycl.range(local), h), data.size,
            )

        def second(h: sycl.handler) -> None:
            h.parallel_for(
                sycl.nd_range(sycl.range(local), sycl.range(local)), reduce_sum,
                sycl.accessor(bp, h, sycl.read_only), sycl.accessor(br, h, sycl.write_only),
                sycl.local_accessor(np.float32, sycl.range(local), h), groups,
            )

        q.submit(first)
        q.submit(second)
    return float(result[0])


def transpose(q: sycl.queue, m: np.ndarray) -> np.ndarray:
    rows, cols = m.shape
    out = np.zeros((cols, rows), m.dtype)
    rng = sycl.nd_range(sycl.range(round_up(rows, TILE), round_up(cols, TILE)), sycl.range(TILE, TILE))
    with sycl.buffer(m) as bm, sycl.buffer(out) as bo:
        q.submit(lambda h: h.parallel_for(
            rng, library.get_kernel_id("transpose_float32"), sycl.accessor(bm, h, sycl.read_only),
            sycl.accessor(bo, h, sycl.write_only), rows, cols,
        ))
    return out


def matmul(q: sycl.queue, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    (m, k), n = a.shape, b.shape[1]
    c = np.zeros((m, n), np.float32)
    rng = sycl.nd_range(sycl.range(round_up(m, TILE), round_up(n, TILE)), sycl.range(TILE, TILE))
    with sycl.buffer(a) as ba, sycl.buffer(b) as bb, sycl.buffer(c) as bc:
        q.submit(lambda h: h.parallel_for(
            rng, library.get_kernel_id("matmul_float32"), sycl.accessor(ba, h, sycl.read_only),
            sycl.accessor(bb, h, sycl.read_only), sycl.accessor(bc, h, sycl.write_only), m, n, k,
        ))
    return c


def main() -> None:
    q = sycl.queue()
    print(f"kernel library on {q.get_device().get_info(sycl.info.device.name)}")
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, 1000).astype(np.float32)
    y = rng.uniform(-1, 1, 1000).astype(np.float32)
    expected = 2 * x + y
    axpy(q, 2.0, x, y)
    np.testing.assert_allclose(y, expected, rtol=1e-6)
    print("axpy_float32: ok")
    s = total(q, x)
    np.testing.assert_allclose(s, x.sum(dtype=np.float64), rtol=1e-4)
    print(f"reduce_sum_float32: {s:.4f} ok")
    m = rng.uniform(-1, 1, (30, 45)).astype(np.float32)
    np.testing.assert_array_equal(transpose(q, m), m.T)
    print("transpose_float32: ok")
    a = rng.uniform(-1, 1, (40, 24)).astype(np.float32)
    b = rng.uniform(-1, 1, (24, 33)).astype(np.float32)
    np.testing.assert_allclose(matmul(q, a, b), a @ b, rtol=1e-4, atol=1e-5)
    print("matmul_float32: ok")


if __name__ == "__main__":
    main()
