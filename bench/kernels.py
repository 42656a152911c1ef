"""Launch-bound benchmarks: submit + wait of one kernel, and a 1,000-kernel dependent chain.

``chain`` runs 1,000 dependent kernels on one buffer (1M floats on a GPU) end to end: raw
PyOpenCL on an in-order queue against sycl_ocl's eager submits (the dependencies come from the
accessors) and against the same command groups recorded once into a command graph and
replayed (native command buffer, and prepared kernels), and against ``python floor``, the
least any Python SYCL runtime does per eager submit (``submit.floor_submit``).
``chain_scalar`` and ``submit_wait`` use a kernel with scalar arguments only, so that dpctl can
join (in-order queues everywhere).
"""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Callable

import numpy as np
import pyopencl as cl

import sycl_ocl as sycl
from sycl_ocl.scheduler.graph import native_command_buffers

from . import dpctl_side
from .harness import Benchmark, Env, Unavailable, elapsed_ms, filled, per_op
from .raw_command_buffer import RawCommandBuffer
from .submit import FloorAccessor, FloorHandler, floor_submit

BENCHMARKS: list[Benchmark] = []  # this module's, in running order

TICK = 64  # work-items of the scalar kernel


def _count(env: Env) -> int:
    return env.size(gpu=1000, cpu=1000, quick=50)


# --- the buffer chain ----------------------------------------------------------------------

def _raw_chain(env: Env) -> Callable[[], float]:
    n, count = env.size(gpu=1 << 20, cpu=1 << 16, quick=1 << 12), _count(env)
    queue, kernel = cl.CommandQueue(env.raw_context()), env.raw_kernel("bench_halve_add")
    flags = cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR
    buf = cl.Buffer(env.raw_context(), flags, hostbuf=filled(n))
    step = np.float32(1)

    def chain() -> None:
        for _ in range(count):
            kernel.set_args(buf, step)
            cl.enqueue_nd_range_kernel(queue, kernel, (n,), None)
        queue.finish()
    return elapsed_ms(chain)


def _sycl_chain(env: Env) -> Callable[[], float]:
    n, count = env.size(gpu=1 << 20, cpu=1 << 16, quick=1 << 12), _count(env)
    queue, buf = env.queue(), sycl.buffer(filled(n))

    def cgf(h: sycl.handler) -> None:
        h.parallel_for(n, "bench_halve_add", sycl.accessor(buf, h), 1.0)

    def chain() -> None:
        for _ in range(count):
            queue.submit(cgf)
        queue.wait()
    return elapsed_ms(chain)


def _floor_chain(env: Env) -> Callable[[], float]:
    """The chain through ``submit.floor_submit``: the least any Python SYCL runtime does per
    eager submit, on raw PyOpenCL's in-order queue."""
    n, count = env.size(gpu=1 << 20, cpu=1 << 16, quick=1 << 12), _count(env)
    queue, kernel = cl.CommandQueue(env.raw_context()), env.raw_kernel("bench_halve_add")
    flags = cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR
    buf, lock = cl.Buffer(env.raw_context(), flags, hostbuf=filled(n)), threading.Lock()

    def cgf(h: FloorHandler) -> None:
        h.parallel_for(n, kernel, FloorAccessor(buf, h), 1.0)

    def chain() -> None:
        for _ in range(count):
            floor_submit(queue, lock, cgf)
        queue.finish()
    return elapsed_ms(chain)


def _graph_chain(native: bool) -> Callable[[Env], Callable[[], float]]:
    """The eager chain's command groups recorded once into a command graph, replayed per sample
    (as a native command buffer where the device has one, or as prepared kernels)."""
    def factory(env: Env) -> Callable[[], float]:
        n, count = env.size(gpu=1 << 20, cpu=1 << 16, quick=1 << 12), _count(env)
        queue, buf = env.queue(), sycl.buffer(filled(n))
        graph = sycl.ext.oneapi.experimental.command_graph(queue)
        graph.begin_recording(queue)
        for _ in range(count):
            queue.submit(lambda h: h.parallel_for(n, "bench_halve_add", sycl.accessor(buf, h), 1.0))
        graph.end_recording()
        with native_command_buffers(native):
            exe = graph.finalize()
        if native and not exe._replay.native:  # type: ignore[union-attr]
            raise Unavailable("the device has no usable cl_khr_command_buffer")

        def chain() -> None:
            queue.ext_oneapi_graph(exe)
            queue.wait()
        chain.buffer = buf  # type: ignore[attr-defined]  # a graph replays only while its buffers live
        return elapsed_ms(chain)
    return factory


def _raw_command_buffer_chain(env: Env) -> Callable[[], float]:
    """The raw chain recorded once into a command buffer through ctypes (no sycl_ocl), replayed
    per sample: the driver's own cost of a command-buffer replay."""
    n, count = env.size(gpu=1 << 20, cpu=1 << 16, quick=1 << 12), _count(env)
    queue, kernel = cl.CommandQueue(env.raw_context()), env.raw_kernel("bench_halve_add")
    flags = cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR
    buf = cl.Buffer(env.raw_context(), flags, hostbuf=filled(n))
    kernel.set_args(buf, np.float32(1))
    try:
        commands = RawCommandBuffer(queue)
    except LookupError as error:
        raise Unavailable(str(error)) from error
    for _ in range(count):
        commands.record(kernel, n)  # one kernel object: every command has the same arguments
    commands.finalize()

    def chain() -> None:
        commands.enqueue().wait()
        queue.finish()
    chain.buffer = buf  # type: ignore[attr-defined]  # command buffers need not retain their buffers
    return elapsed_ms(chain)


CHAIN = Benchmark(
    "chain", "1,000 dependent kernels on one buffer, end to end (1M floats on a GPU, 64K on a CPU)",
    "ms", "raw pyopencl", {"raw pyopencl": _raw_chain, "raw command buffer": _raw_command_buffer_chain,
                           "sycl_ocl eager": _sycl_chain, "python floor": _floor_chain,
                           "sycl_ocl graph replay": _graph_chain(native=True),
                           "sycl_ocl graph prepared": _graph_chain(native=False)},
    target="sycl_ocl eager <= 1.3 and graph replay <= 1.05 on the H100; "
           "graph replay per kernel <= 1.0 (native) and <= 1.2 (prepared)",
)
BENCHMARKS.append(CHAIN)


# --- scalar-argument kernels (dpctl can run these) ----------------------------------------------

def _raw_tick(env: Env, count: int, wait_each: bool) -> Callable[[], None]:
    queue, kernel = cl.CommandQueue(env.raw_context()), env.raw_kernel("bench_tick")
    args = (np.uint32(TICK), np.float32(1))

    def run() -> None:
        for _ in range(count):
            kernel.set_args(*args)
            event = cl.enqueue_nd_range_kernel(queue, kernel, (TICK,), None)
            if wait_each:
                event.wait()
        queue.finish()
    return run


def _sycl_tick(env: Env, count: int, wait_each: bool) -> Callable[[], None]:
    queue = env.queue(sycl.property.queue.in_order())

    def run() -> None:
        for _ in range(count):
            event = queue.parallel_for(TICK, "bench_tick", TICK, 1.0)
            if wait_each:
                event.wait()
        queue.wait()
    return run


def _dpctl_tick(env: Env, count: int, wait_each: bool) -> Callable[[], None]:
    queue, program = dpctl_side.queue_and_program(env)
    kernel, args = program.get_sycl_kernel("bench_tick"), [ctypes.c_uint(TICK), ctypes.c_float(1)]

    def run() -> None:
        for _ in range(count):
            event = queue.submit_async(kernel, args, [TICK])
            if wait_each:
                event.wait()
        queue.wait()
    return run


Maker = Callable[[Env, int, bool], Callable[[], None]]  # (env, count, wait for each) -> a run


def _chain_of(make: Maker) -> Callable[[Env], Callable[[], float]]:
    return lambda env: elapsed_ms(make(env, _count(env), False))


def _each_waited(make: Maker) -> Callable[[Env], Callable[[], float]]:
    def factory(env: Env) -> Callable[[], float]:
        count = env.size(gpu=200, cpu=200, quick=20)
        return per_op(count, make(env, count, True))
    return factory


TICKS: dict[str, Maker] = {"raw pyopencl": _raw_tick, "sycl_ocl": _sycl_tick, "dpctl": _dpctl_tick}
AGAINST_DPCTL = "sycl_ocl <= 1.0 x dpctl on PoCL"
BENCHMARKS.append(Benchmark(
    "chain_scalar", "1,000 kernels with scalar arguments on an in-order queue, end to end", "ms",
    "raw pyopencl", {name: _chain_of(make) for name, make in TICKS.items()}, target=AGAINST_DPCTL,
))
BENCHMARKS.append(Benchmark(
    "submit_wait", "submit and wait of one kernel with scalar arguments", "us per kernel",
    "raw pyopencl", {name: _each_waited(make) for name, make in TICKS.items()}, target=AGAINST_DPCTL,
))
