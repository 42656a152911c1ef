"""STREAM triad ``a = b + s * c`` through buffers, against raw PyOpenCL on the same device.

2^26 floats per array on a GPU (768 MB moved per triad), 2^20 on a CPU. Each sample runs a few
triads back to back and waits once; bandwidth counts three arrays per triad.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np
import pyopencl as cl

import sycl_ocl as sycl

from .harness import Benchmark, Env, filled

BENCHMARKS: list[Benchmark] = []  # this module's, in running order


def _shape(env: Env) -> tuple[int, int]:
    return env.size(gpu=1 << 26, cpu=1 << 20, quick=1 << 14), env.size(gpu=20, cpu=5, quick=2)


def _rate(n: int, reps: int, body: Callable[[], None]) -> Callable[[], float]:
    def sample() -> float:
        start = time.perf_counter()
        body()
        return 3 * 4 * n * reps / (time.perf_counter() - start) / 1e9
    return sample


def _raw(env: Env) -> Callable[[], float]:
    (n, reps), ctx = _shape(env), env.raw_context()
    queue, kernel = cl.CommandQueue(ctx), env.raw_kernel("bench_triad")
    flags = cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR
    a, b, c = (cl.Buffer(ctx, flags, hostbuf=filled(n, v)) for v in (0.0, 1.0, 2.0))
    scale = np.float32(3)

    def triads() -> None:
        for _ in range(reps):
            kernel.set_args(a, b, c, scale)
            cl.enqueue_nd_range_kernel(queue, kernel, (n,), None)
        queue.finish()
    return _rate(n, reps, triads)


def _sycl(env: Env) -> Callable[[], float]:
    n, reps = _shape(env)
    queue = env.queue()
    a, b, c = (sycl.buffer(filled(n, v)) for v in (0.0, 1.0, 2.0))
    no_init = [sycl.property.no_init()]

    def cgf(h: sycl.handler) -> None:
        h.parallel_for(n, "bench_triad", sycl.accessor(a, h, sycl.write_only, prop_list=no_init),
                       sycl.accessor(b, h, sycl.read_only), sycl.accessor(c, h, sycl.read_only), 3.0)

    def triads() -> None:
        for _ in range(reps):
            queue.submit(cgf)
        queue.wait()
    return _rate(n, reps, triads)


BENCHMARKS.append(Benchmark(
    "triad", "STREAM triad through buffers (2^26 floats per array on a GPU, 2^20 on a CPU)",
    "GB/s", "raw pyopencl", {"raw pyopencl": _raw, "sycl_ocl": _sycl},
    target="sycl_ocl >= 0.98 on the H100", higher_is_better=True,
))
