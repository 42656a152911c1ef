"""A 2-D stencil (3x3 box blur) with ``nd_range``, local memory and a work-group barrier.

Teaches: launching over an ``nd_range`` (global size rounded up to whole work-groups),
dimension order (``get_global_id(0)`` walks the last SYCL dimension: the column of a numpy
C-order array), a ``local_accessor`` shared by a work-group, ``barrier`` between loading a
tile with its halo and using it, compile options (``-D TILE=16``), and chaining several
steps through two buffers: the runtime orders them by their accessors.
"""

from __future__ import annotations

import numpy as np

import sycl_ocl as sycl

TILE = 16
STEPS = 3

sycl.register_kernel_source("""
#define W (TILE + 2)  /* a tile plus a one-element halo on each side */
__kernel void blur3x3(__global const float *src, __global float *dst,
                      int rows, int cols, __local float *tile) {
    int lx = get_local_id(0), ly = get_local_id(1);
    int x0 = get_group_id(0) * TILE - 1, y0 = get_group_id(1) * TILE - 1;
    for (int y = ly; y < W; y += TILE)          /* the work-group loads the tile together */
        for (int x = lx; x < W; x += TILE)
            tile[y * W + x] = src[clamp(y0 + y, 0, rows - 1) * cols + clamp(x0 + x, 0, cols - 1)];
    barrier(CLK_LOCAL_MEM_FENCE);               /* every load done before any read */
    int col = get_global_id(0), row = get_global_id(1);
    if (row >= rows || col >= cols) return;     /* padding work-items of the last groups */
    float sum = 0.0f;
    for (int dy = 0; dy < 3; ++dy)
        for (int dx = 0; dx < 3; ++dx)
            sum += tile[(ly + dy) * W + lx + dx];
    dst[row * cols + col] = sum / 9.0f;
}
""", options=[f"-DTILE={TILE}"])


def blur_numpy(img: np.ndarray) -> np.ndarray:
    padded = np.pad(img, 1, mode="edge")
    rows, cols = img.shape
    return sum(padded[dy:dy + rows, dx:dx + cols] for dy in range(3) for dx in range(3)) / 9


def round_up(n: int, multiple: int) -> int:
    return (n + multiple - 1) // multiple * multiple


def blur(q: sycl.queue, src: sycl.buffer, dst: sycl.buffer) -> None:
    """Submit one blur step from ``src`` into ``dst``; returns at once."""
    rows, cols = src.get_range()
    work = sycl.nd_range(sycl.range(round_up(rows, TILE), round_up(cols, TILE)), sycl.range(TILE, TILE))
    q.submit(lambda h: h.parallel_for(
        work, "blur3x3",
        sycl.accessor(src, h, sycl.read_only), sycl.accessor(dst, h, sycl.write_only),
        rows, cols, sycl.local_accessor(np.float32, sycl.range(TILE + 2, TILE + 2), h),
    ))


def main() -> None:
    q = sycl.queue()
    rows, cols = 100, 150  # not multiples of TILE on purpose
    image = np.random.default_rng(1).random((rows, cols), dtype=np.float32)
    result = image.copy()
    with sycl.buffer(result) as current, sycl.buffer(sycl.range(rows, cols), np.float32) as scratch:
        src, dst = current, scratch
        for _ in range(STEPS):  # no waits: each step depends on the one before through a buffer
            blur(q, src, dst)
            src, dst = dst, src
        if src is not current:  # an odd number of steps left the answer in scratch
            q.submit(lambda h: h.copy(sycl.accessor(scratch, h, sycl.read_only),
                                      sycl.accessor(current, h, sycl.write_only)))
    expected = image
    for _ in range(STEPS):
        expected = blur_numpy(expected)
    np.testing.assert_allclose(result, expected, rtol=1e-5, atol=1e-6)
    print(f"{STEPS} blur steps over {rows}x{cols} in {TILE}x{TILE} work-groups: ok")


if __name__ == "__main__":
    main()
