"""Reductions (``sycl.reduction``, docs/reductions.md) against the device's copy bandwidth,
PyOpenCL's ``ReductionKernel`` and ``numpy.sum``; a dot product with two reductions in one kernel
against two separate reductions.

2^26 floats on a GPU, 2^22 on a CPU. Each sample runs a few reductions back to back and waits
once; bandwidth counts the bytes each moves STREAM's way: the floats read by a sum, the floats
read and written by the copy.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np
import pyopencl as cl
import pyopencl.array as cl_array
from pyopencl.reduction import ReductionKernel

import sycl_ocl as sycl

from .harness import Benchmark, Env, filled

BENCHMARKS: list[Benchmark] = []  # this module's, in running order

KERNELS = """
__kernel void bench_sum(SYCL_REDUCER(float, sum), __global const float *x) {
    SYCL_COMBINE(sum, x[get_global_id(0)]);
}
__kernel void bench_dot_norm(SYCL_REDUCER(float, dot), SYCL_REDUCER(float, norm),
                             __global const float *x, __global const float *y) {
    size_t i = get_global_id(0);
    SYCL_COMBINE(dot, x[i] * y[i]);
    SYCL_COMBINE(norm, y[i] * y[i]);
}
__kernel void bench_dot(SYCL_REDUCER(float, dot), __global const float *x, __global const float *y) {
    size_t i = get_global_id(0);
    SYCL_COMBINE(dot, x[i] * y[i]);
}
"""
_COPY = "__kernel void bench_copy(__global float *b, __global const float *a) " \
        "{ size_t i = get_global_id(0); b[i] = a[i]; }"


def _shape(env: Env) -> tuple[int, int]:
    return env.size(gpu=1 << 26, cpu=1 << 22, quick=1 << 14), env.size(gpu=20, cpu=5, quick=2)


def _registered() -> None:
    sycl.register_kernel_source(KERNELS, origin="bench/reduction.py")


def _rate(nbytes: int, reps: int, body: Callable[[], None]) -> Callable[[], float]:
    def sample() -> float:
        start = time.perf_counter()
        body()
        return nbytes * reps / (time.perf_counter() - start) / 1e9
    return sample


def _copy(env: Env) -> Callable[[], float]:
    (n, reps), ctx = _shape(env), env.raw_context()
    queue = cl.CommandQueue(ctx)
    kernel = cl.Kernel(cl.Program(ctx, _COPY).build(), "bench_copy")
    a = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=filled(n, 1.0))
    b = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 4 * n)

    def copies() -> None:
        for _ in range(reps):
            kernel.set_args(b, a)
            cl.enqueue_nd_range_kernel(queue, kernel, (n,), None)
        queue.finish()
    return _rate(8 * n, reps, copies)


def _pyopencl(env: Env) -> Callable[[], float]:
    (n, reps), ctx = _shape(env), env.raw_context()
    queue = cl.CommandQueue(ctx)
    total = ReductionKernel(ctx, np.float32, neutral="0", reduce_expr="a+b", map_expr="x[i]",
                            arguments="__global const float *x")
    x = cl_array.to_device(queue, filled(n, 1.0))

    def sums() -> None:
        for _ in range(reps):
            total(x, queue=queue)
        queue.finish()
    return _rate(4 * n, reps, sums)


def _sycl(env: Env) -> Callable[[], float]:
    n, reps = _shape(env)
    _registered()
    queue = env.queue()
    x = sycl.buffer(filled(n, 1.0))
    result = sycl.buffer(np.zeros(1, np.float32))
    init = [sycl.property.reduction.initialize_to_identity()]

    def cgf(h: sycl.handler) -> None:
        h.parallel_for(n, sycl.reduction(result, h, sycl.plus(), prop_list=init), "bench_sum",
                       sycl.accessor(x, h, sycl.read_only))

    def sums() -> None:
        for _ in range(reps):
            queue.submit(cgf)
        queue.wait()
    return _rate(4 * n, reps, sums)


def _numpy(env: Env) -> Callable[[], float]:
    n, reps = _shape(env)
    x = filled(n, 1.0)

    def sums() -> None:
        for _ in range(reps):
            np.sum(x)
    return _rate(4 * n, reps, sums)


BENCHMARKS.append(Benchmark(
    "reduction_sum", "sum of 2^26 floats (2^22 on a CPU): sycl.reduction, PyOpenCL's ReductionKernel and "
    "numpy.sum, against a copy of the same floats", "GB/s", "copy", {
        "copy": _copy, "sycl_ocl reduction": _sycl, "pyopencl ReductionKernel": _pyopencl,
        "numpy.sum": _numpy},
    target="sycl_ocl >= 0.90 x copy and >= pyopencl on the H100; >= pyopencl and >= 0.5 x numpy on PoCL",
    higher_is_better=True,
))


def _dots(env: Env, together: bool) -> Callable[[], float]:
    n, reps = _shape(env)
    _registered()
    queue = env.queue()
    x, y = sycl.buffer(filled(n, 1.0)), sycl.buffer(filled(n, 2.0))
    dot, norm = sycl.buffer(np.zeros(1, np.float32)), sycl.buffer(np.zeros(1, np.float32))
    init = [sycl.property.reduction.initialize_to_identity()]

    def both(h: sycl.handler) -> None:
        h.parallel_for(n, sycl.reduction(dot, h, sycl.plus(), prop_list=init),
                       sycl.reduction(norm, h, sycl.plus(), prop_list=init), "bench_dot_norm",
                       sycl.accessor(x, h, sycl.read_only), sycl.accessor(y, h, sycl.read_only))

    def one(out: sycl.buffer, a: sycl.buffer) -> Callable[[sycl.handler], None]:
        return lambda h: h.parallel_for(
            n, sycl.reduction(out, h, sycl.plus(), prop_list=init), "bench_dot",
            sycl.accessor(a, h, sycl.read_only), sycl.accessor(y, h, sycl.read_only))

    def sample() -> float:
        start = time.perf_counter()
        for _ in range(reps):
            if together:
                queue.submit(both)
            else:
                queue.submit(one(dot, x))
                queue.submit(one(norm, y))
        queue.wait()
        return (time.perf_counter() - start) / reps * 1e3
    return sample


BENCHMARKS.append(Benchmark(
    "reduction_dot", "x.y and y.y of 2^26 floats (2^22 on a CPU): two reductions of one kernel against two "
    "kernels of one reduction each", "ms", "sycl_ocl two kernels", {
        "sycl_ocl two kernels": lambda env: _dots(env, False),
        "sycl_ocl one kernel": lambda env: _dots(env, True)},
    target="one kernel < two kernels",
))
