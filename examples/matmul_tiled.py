"""Tiled matrix multiply with your own kernel, checked against numpy's ``a @ b``.

Teaches: the classic shared-memory tiling on an ``nd_range``: each work-group computes one
TILE x TILE block of C, stepping along K one tile at a time; its work-items load one element
of A and one of B into two ``local_accessor`` tiles, meet at a ``barrier``, multiply the
tiles, and meet again before the next load. Sizes need not be multiples of TILE (loads
outside the matrices read zero). Also: 2-D ranges in SYCL order, (rows, columns).
"""

from __future__ import annotations

import numpy as np

import sycl_ocl as sycl

TILE = 16

sycl.register_kernel_source("""
__kernel void matmul_tiled(__global const float *a, __global const float *b, __global float *c,
                           int m, int n, int k, __local float *ta, __local float *tb) {
    int col = get_global_id(0), row = get_global_id(1);   /* dimension 0: the last SYCL one */
    int lx = get_local_id(0), ly = get_local_id(1);
    float sum = 0.0f;
    for (int t = 0; t < k; t += TILE) {
        ta[ly * TILE + lx] = (row < m && t + lx < k) ? a[row * k + t + lx] : 0.0f;
        tb[ly * TILE + lx] = (t + ly < k && col < n) ? b[(t + ly) * n + col] : 0.0f;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int i = 0; i < TILE; ++i)
            sum += ta[ly * TILE + i] * tb[i * TILE + lx];
        barrier(CLK_LOCAL_MEM_FENCE);   /* done with the tiles before they are overwritten */
    }
    if (row < m && col < n)
        c[row * n + col] = sum;
}
""", options=[f"-DTILE={TILE}"])


def round_up(n: int, multiple: int) -> int:
    return (n + multiple - 1) // multiple * multiple


def matmul(q: sycl.queue, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a @ b`` on the queue's device (float32, C order)."""
    (m, k), n = a.shape, b.shape[1]
    c = np.empty((m, n), dtype=np.float32)
    work = sycl.nd_range(sycl.range(round_up(m, TILE), round_up(n, TILE)), sycl.range(TILE, TILE))
    with sycl.buffer(a) as ba, sycl.buffer(b) as bb, sycl.buffer(c) as bc:
        q.submit(lambda h: h.parallel_for(
            work, "matmul_tiled",
            sycl.accessor(ba, h, sycl.read_only), sycl.accessor(bb, h, sycl.read_only),
            sycl.accessor(bc, h, sycl.write_only, prop_list=[sycl.property.no_init()]),
            m, n, k,
            sycl.local_accessor(np.float32, sycl.range(TILE, TILE), h),
            sycl.local_accessor(np.float32, sycl.range(TILE, TILE), h),
        ))
    return c


def main() -> None:
    q = sycl.queue()
    rng = np.random.default_rng(2)
    a = rng.uniform(-1, 1, (70, 45)).astype(np.float32)
    b = rng.uniform(-1, 1, (45, 90)).astype(np.float32)
    c = matmul(q, a, b)
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-5)
    print(f"({a.shape[0]}x{a.shape[1]}) @ ({b.shape[0]}x{b.shape[1]}) in {TILE}x{TILE} tiles: "
          "matches numpy")


if __name__ == "__main__":
    main()
