"""numpy in, one kernel, numpy out: the round trip of a Python user's first program, against raw
PyOpenCL on the same device.

raw: ``cl.Buffer(COPY_HOST_PTR)``, ``set_args`` + enqueue, a blocking ``enqueue_copy`` back.
sycl_ocl: ``with sycl.buffer(a) as b: q.submit(...)`` (the write-back at the end of the block),
and the same buffer kept, read through a ``host_accessor`` after each kernel.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pyopencl as cl

import sycl_ocl as sycl

from .harness import Benchmark, Env, filled, per_op

BENCHMARKS: list[Benchmark] = []  # this module's, in running order
SIZE = 1 << 10  # floats: a latency, not a bandwidth


def _count(env: Env) -> int:
    return env.size(gpu=200, cpu=200, quick=5)


def _raw(env: Env) -> Callable[[], float]:
    ctx, count, host = env.raw_context(), _count(env), filled(SIZE)
    queue, kernel = cl.CommandQueue(ctx), env.raw_kernel("bench_halve_add")
    step = np.float32(1)

    def trips() -> None:
        for _ in range(count):
            buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=host)
            kernel.set_args(buf, step)
            cl.enqueue_nd_range_kernel(queue, kernel, (SIZE,), None)
            cl.enqueue_copy(queue, host, buf)
    return per_op(count, trips)


def _sycl(env: Env) -> Callable[[], float]:
    count, host, queue = _count(env), filled(SIZE), env.queue()

    def trips() -> None:
        for _ in range(count):
            with sycl.buffer(host) as buf:
                queue.submit(lambda h, buf=buf: h.parallel_for(
                    SIZE, "bench_halve_add", sycl.accessor(buf, h), 1.0))
    return per_op(count, trips)


def _sycl_host_accessor(env: Env) -> Callable[[], float]:
    count, queue = _count(env), env.queue()
    buf = sycl.buffer(filled(SIZE))

    def cgf(h: sycl.handler) -> None:
        h.parallel_for(SIZE, "bench_halve_add", sycl.accessor(buf, h), 1.0)

    def trips() -> None:
        for _ in range(count):
            queue.submit(cgf)
            with sycl.host_accessor(buf, sycl.read_only) as view:
                view[0]
    return per_op(count, trips)


BENCHMARKS.append(Benchmark(
    "roundtrip", f"numpy in, one kernel, numpy out ({SIZE} floats): a new buffer each time, or a "
                 "host accessor after each kernel", "us per round trip", "raw pyopencl",
    {"raw pyopencl": _raw, "sycl_ocl": _sycl, "sycl_ocl host_accessor": _sycl_host_accessor},
))
