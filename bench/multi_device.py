"""A compute-bound kernel on one device, then split across two devices of one platform.

Each sample runs the whole program once, end to end: the host array goes into a buffer, every
element goes through a long dependent chain of multiply-adds (``bench_compute``), and the result
is written back. The systems:

- ``raw pyopencl``: one device, a ``cl.Buffer`` copied in and out (the baseline).
- ``sycl_ocl``: the same on one device.
- ``two devices, one context``: one buffer over the array, two sub-buffers (its halves), one
  queue per device in one context; each device computes its half.
- ``two devices, two contexts``: one buffer per half, each used by the queue of its device in a
  context of its own.
- ``raw pyopencl, two devices``: two contexts, each half copied in, computed and read back.

``multi_device_bytes`` reports the megabytes each sycl_ocl system moved in one run (transfer
counters): the least the program implies is the array in and out once, 2 x 4 x N bytes.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence

import numpy as np
import pyopencl as cl

import sycl_ocl as sycl

from .harness import Benchmark, Env, Unavailable, elapsed_ms, filled

BENCHMARKS: list[Benchmark] = []  # this module's, in running order

SOURCE = """
__kernel void bench_compute(__global float *x, uint iterations)
{
    size_t i = get_global_id(0);
    float v = x[i], a = 0.999f, b = 0.001f;
    for (uint k = 0; k < iterations; ++k) { v = fma(v, a, b); }
    x[i] = v;
}
"""
sycl.register_kernel_source(SOURCE)


def _shape(env: Env) -> tuple[int, int]:
    """(floats, iterations per float): about 0.4 s of compute on one H100, against about 20 ms
    of transfers (128 MB each way)."""
    return env.size(gpu=1 << 25, cpu=1 << 16, quick=1 << 12), env.size(gpu=400_000, cpu=2_000, quick=10)


def _pair(env: Env) -> tuple[sycl.device, sycl.device]:
    others = [d for d in env.device.get_platform().get_devices() if d != env.device]
    if not others:
        raise Unavailable("needs two devices of one platform")
    return env.device, others[0]


def _raw_run(devices: Sequence[cl.Device], n: int, iterations: int) -> Callable[[], None]:
    """Raw PyOpenCL over ``devices``, one context each, the array split evenly."""
    parts = []
    for dev in devices:
        ctx = cl.Context([dev])
        kernel = cl.Kernel(cl.Program(ctx, SOURCE).build(), "bench_compute")
        kernel.set_scalar_arg_dtypes([None, np.uint32])
        parts.append((cl.CommandQueue(ctx), kernel, ctx))
    host = filled(n)
    chunk = n // len(devices)

    def run() -> None:
        pending = []
        for k, (queue, kernel, ctx) in enumerate(parts):
            view = host[k * chunk:(k + 1) * chunk]
            buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, view.nbytes)
            cl.enqueue_copy(queue, buf, view, is_blocking=False)
            kernel(queue, (chunk,), None, buf, np.uint32(iterations))
            pending.append(cl.enqueue_copy(queue, view, buf, is_blocking=False))
            queue.flush()
        for event in pending:  # events of several contexts: one wait each
            event.wait()
    return run


def _raw_one(env: Env) -> Callable[[], float]:
    n, iterations = _shape(env)
    return elapsed_ms(_raw_run([env.device._native], n, iterations))


def _raw_two(env: Env) -> Callable[[], float]:
    n, iterations = _shape(env)
    return elapsed_ms(_raw_run([d._native for d in _pair(env)], n, iterations))


def _launch(q: sycl.queue, buf: sycl.buffer, count: int, iterations: int) -> None:
    q.submit(lambda h: h.parallel_for(count, "bench_compute", sycl.accessor(buf, h), iterations))


Program = Callable[[int, int, tuple[sycl.device, ...]], Callable[[], list[sycl.buffer]]]


def _one_device(n: int, iterations: int, devs: tuple[sycl.device, ...]) -> Callable[[], list[sycl.buffer]]:
    q, host = sycl.queue(devs[0]), filled(n)

    def run() -> list[sycl.buffer]:
        with sycl.buffer(host) as buf:
            _launch(q, buf, n, iterations)
        return [buf]
    return run


def _one_context(n: int, iterations: int, devs: tuple[sycl.device, ...]) -> Callable[[], list[sycl.buffer]]:
    ctx = sycl.context(list(devs))
    queues, host, half = [sycl.queue(ctx, d) for d in devs], filled(n), n // 2

    def run() -> list[sycl.buffer]:
        # Every sub-buffer lives until both kernels are submitted: destroying one waits for its
        # kernel (§4.7.2.3), which would run the halves one after the other.
        with sycl.buffer(host) as whole, contextlib.ExitStack() as halves:
            for k, q in enumerate(queues):
                part = halves.enter_context(sycl.buffer(whole, sycl.id(k * half), sycl.range(half)))
                _launch(q, part, half, iterations)
        return [whole]
    return run


def _two_contexts(n: int, iterations: int, devs: tuple[sycl.device, ...]) -> Callable[[], list[sycl.buffer]]:
    queues, host, half = [sycl.queue(sycl.context(d), d) for d in devs], filled(n), n // 2

    def run() -> list[sycl.buffer]:
        with contextlib.ExitStack() as halves:  # both compute before either is written back
            parts = [halves.enter_context(sycl.buffer(host[k * half:(k + 1) * half]))
                     for k in range(len(queues))]
            for q, part in zip(queues, parts, strict=True):
                _launch(q, part, half, iterations)
        return parts
    return run


def _devices(env: Env, two: bool) -> tuple[sycl.device, ...]:
    return _pair(env) if two else (env.device,)


def _timed(make: Program, two: bool) -> Callable[[Env], Callable[[], float]]:
    def factory(env: Env) -> Callable[[], float]:
        n, iterations = _shape(env)
        run = make(n, iterations, _devices(env, two))
        return elapsed_ms(run)
    return factory


def _moved(make: Program, two: bool) -> Callable[[Env], Callable[[], float]]:
    def factory(env: Env) -> Callable[[], float]:
        n, iterations = _shape(env)
        run = make(n, iterations, _devices(env, two))

        def sample() -> float:
            counts = [b.transfer_counters() for b in run()]
            return sum(c.h2d_bytes + c.d2h_bytes + c.staged_bytes for c in counts) / 1e6
        return sample
    return factory


def _minimum(env: Env) -> Callable[[], float]:
    n, _ = _shape(env)
    return lambda: 2 * 4 * n / 1e6


BENCHMARKS.append(Benchmark(
    "multi_device", "a compute-bound kernel over N floats end to end, on one device, then on two "
                    "(2^25 floats on GPUs, 400,000 multiply-adds each)",
    "ms", "raw pyopencl", {
        "raw pyopencl": _raw_one, "sycl_ocl": _timed(_one_device, False),
        "two devices, one context": _timed(_one_context, True),
        "two devices, two contexts": _timed(_two_contexts, True),
        "raw pyopencl, two devices": _raw_two,
    }, target="two devices >= 1.8x faster than one on two H100s (ratio <= 0.556)", max_rounds=7,
))
BENCHMARKS.append(Benchmark(
    "multi_device_bytes", "megabytes moved in one run of multi_device (transfer counters) against the "
                          "least the program implies (the array in and out once)",
    "MB", "least possible", {
        "least possible": _minimum, "sycl_ocl": _moved(_one_device, False),
        "two devices, one context": _moved(_one_context, True),
        "two devices, two contexts": _moved(_two_contexts, True),
    }, target="= the least possible (ratio 1.0)", max_rounds=2,
))
