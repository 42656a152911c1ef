"""Submit cost of a two-accessor command group against raw PyOpenCL ``set_args`` + enqueue.

Two regimes, each for both sides:

* held: the queue waits on a user event while the batch is submitted, so only the submission
  itself is timed (no driver threads running kernels beside the submitting thread);
* free-running: kernels execute while the next ones are submitted. On a CPU device the
  driver's worker threads then compete with the submitting thread, which slows any client
  that does work between enqueues (raw PyOpenCL included).

``usm_held_submit`` holds the USM shortcut (``q.parallel_for`` with two USM pointers, nothing
to plan) against raw ``set_args`` + enqueue on two SVM pointers.

``python floor`` is the least any Python implementation of ``q.submit`` does for this command
group: a handler, two accessor objects, the returned event, one lock, around the same raw
enqueue; no dependency tracking, data movement or checks. ``late_submit`` and ``memory``
check that the cost and the memory stay flat over 100,000 submits.
"""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import pyopencl as cl

import sycl_ocl as sycl

from .harness import Benchmark, Env, Unavailable, filled, rss_mb

BENCHMARKS: list[Benchmark] = []  # this module's, in running order

N = 64  # elements per kernel: the launch, not the kernel, is measured


class Raw:
    """The PyOpenCL baseline: one kernel, two buffers, an in-order queue."""

    def __init__(self, env: Env) -> None:
        self.ctx = env.raw_context()
        self.queue = cl.CommandQueue(self.ctx)
        self.kernel = env.raw_kernel("bench_add")
        self.a = cl.Buffer(self.ctx, cl.mem_flags.READ_WRITE, N * 4)
        self.b = cl.Buffer(self.ctx, cl.mem_flags.READ_WRITE, N * 4)
        self.submitted = 0

    def submit(self) -> None:
        self.kernel.set_args(self.a, self.b)
        cl.enqueue_nd_range_kernel(self.queue, self.kernel, (N,), None)

    def open(self, held: bool) -> cl.UserEvent:
        """A gate; when ``held``, the queue waits on it, so the batch only queues up."""
        gate = cl.UserEvent(self.ctx)
        if held:
            cl.enqueue_marker(self.queue, wait_for=[gate])
        return gate

    def close(self, gate: cl.UserEvent) -> None:
        gate.set_status(cl.command_execution_status.COMPLETE)
        self.queue.finish()


class FloorHandler:
    """The least a Python handler records: the launch's size, kernel and arguments."""

    __slots__ = ("accs", "args", "kernel", "size")

    def __init__(self) -> None:
        self.accs: list[FloorAccessor] = []

    def parallel_for(self, size: int, kernel: cl.Kernel, *args: Any) -> None:
        self.size, self.kernel, self.args = (size,), kernel, args


class FloorAccessor:
    """The least a Python accessor records: its memory and mode, on its handler."""

    __slots__ = ("mem", "writes")

    def __init__(self, mem: cl.Buffer, h: FloorHandler, writes: bool = True) -> None:
        self.mem, self.writes = mem, writes
        h.accs.append(self)


class FloorEvent:
    __slots__ = ("native",)

    def __init__(self, native: cl.Event) -> None:
        self.native = native


def floor_submit(
    queue: cl.CommandQueue, lock: threading.Lock, cgf: Callable[[FloorHandler], None],
) -> FloorEvent:
    """A lower bound for a Python SYCL ``q.submit``: the objects a command group needs, one
    lock, the raw ``set_args`` + enqueue (no dependency tracking, data movement or checks)."""
    h = FloorHandler()
    cgf(h)
    with lock:
        h.kernel.set_args(*[arg.mem if type(arg) is FloorAccessor else arg for arg in h.args])
        return FloorEvent(cl.enqueue_nd_range_kernel(queue, h.kernel, h.size, None))


class Floor(Raw):
    """``floor_submit`` of the two-accessor command group."""

    def __init__(self, env: Env) -> None:
        super().__init__(env)
        self.lock = threading.Lock()

    def cgf(self, h: FloorHandler) -> None:
        h.parallel_for(N, self.kernel, FloorAccessor(self.a, h), FloorAccessor(self.b, h, False))

    def submit(self) -> None:
        floor_submit(self.queue, self.lock, self.cgf)


class Sycl:
    """The same work through sycl_ocl: buffers, accessors and the DAG."""

    def __init__(self, env: Env) -> None:
        self.queue = env.queue()
        self.a, self.b = sycl.buffer(filled(N, 0)), sycl.buffer(filled(N))
        self.ctx = sycl.get_native(self.queue.get_context())
        self.submitted = 0

    def cgf(self, h: sycl.handler) -> None:
        h.parallel_for(N, "bench_add", sycl.accessor(self.a, h), sycl.accessor(self.b, h, sycl.read_only))

    def submit(self) -> None:
        self.queue.submit(self.cgf)

    def open(self, held: bool) -> cl.UserEvent:
        gate = cl.UserEvent(self.ctx)
        if held:
            def first(h: sycl.handler) -> None:
                h.depends_on(sycl.make_event(gate, self.queue.get_context()))
                self.cgf(h)

            self.queue.submit(first)  # later commands follow it through the buffers
        return gate

    def close(self, gate: cl.UserEvent) -> None:
        gate.set_status(cl.command_execution_status.COMPLETE)
        self.queue.wait()


Side = Raw | Sycl


def timed_batch(side: Side, count: int, held: bool) -> float:
    """Microseconds per submit of ``count`` submits (the gate and the final wait not timed)."""
    gate, submit = side.open(held), side.submit
    start = time.perf_counter()
    for _ in range(count):
        submit()
    elapsed = time.perf_counter() - start
    side.close(gate)
    side.submitted += count
    return elapsed / count * 1e6


def _system(kind: Callable[[Env], Side], held: bool) -> Callable[[Env], Callable[[], float]]:
    def factory(env: Env) -> Callable[[], float]:
        side, count = kind(env), env.size(gpu=2000, cpu=2000, quick=100)
        return lambda: timed_batch(side, count, held)
    return factory


BENCHMARKS.append(Benchmark(
    "held_submit", "eager submit of a repeated two-accessor command group while the device is held",
    "us per submit", "raw pyopencl",
    {"raw pyopencl": _system(Raw, True), "sycl_ocl": _system(Sycl, True),
     "python floor": _system(Floor, True)},
    target="sycl_ocl <= 3.0 on PoCL (bar at 4.0)",
))

BENCHMARKS.append(Benchmark(
    "free_submit", "eager submit of a repeated two-accessor command group, kernels running meanwhile",
    "us per submit", "raw pyopencl",
    {"raw pyopencl": _system(Raw, False), "sycl_ocl": _system(Sycl, False),
     "python floor": _system(Floor, False)},
    target="sycl_ocl <= 1.5 on the H100",
))


class RawSvm(Raw):
    """The PyOpenCL baseline of the USM shortcut: the same kernel on two SVM pointers."""

    def __init__(self, env: Env) -> None:
        super().__init__(env)
        if not env.device.has(sycl.aspect.usm_device_allocations):
            raise Unavailable("the device has no aspect.usm_device_allocations (coarse-grain SVM)")
        self.a, self.b = (cl.SVM(cl.svm_empty(self.ctx, cl.svm_mem_flags.READ_WRITE, N, np.float32))
                          for _ in range(2))


class SyclUsm(Sycl):
    """``q.parallel_for(n, kernel, p, q)`` on two USM pointers: no requirement to plan."""

    def __init__(self, env: Env) -> None:
        if not env.device.has(sycl.aspect.usm_device_allocations):
            raise Unavailable("the device has no aspect.usm_device_allocations (coarse-grain SVM)")
        super().__init__(env)
        self.pa, self.pb = (sycl.malloc_device(count=N, dtype=np.float32, q=self.queue) for _ in range(2))

    def submit(self) -> None:
        self.queue.parallel_for(N, "bench_add", self.pa, self.pb)

    def open(self, held: bool) -> cl.UserEvent:
        gate = cl.UserEvent(self.ctx)
        if held:  # a command that waits for the gate on the queue's in-order OpenCL queue
            self.queue.submit(lambda h: h.depends_on(sycl.make_event(gate, self.queue.get_context())))
        return gate


BENCHMARKS.append(Benchmark(
    "usm_held_submit", "held q.parallel_for of one kernel on two USM pointers (no requirements)",
    "us per submit", "raw pyopencl",
    {"raw pyopencl": _system(RawSvm, True), "sycl_ocl": _system(SyclUsm, True)},
    target="sycl_ocl <= 2.0 (issue 13)",
))


def _age(side: Side, total: int) -> None:
    while side.submitted < total:
        timed_batch(side, min(10_000, total - side.submitted), held=False)


def _late(benchmark: Benchmark, env: Env, rounds: int) -> dict[str, list[float]]:
    """Held submit cost early (the batches right after a first one: after 2,000 to 2,000 x
    (rounds + 1) commands), then again after 100,000 commands on the same queue and buffers."""
    side, count = Sycl(env), env.size(gpu=2000, cpu=2000, quick=100)
    timed_batch(side, count, held=True)
    early = [timed_batch(side, count, held=True) for _ in range(rounds)]
    total = env.size(gpu=100_000, cpu=100_000, quick=1000)
    _age(side, total)
    late = [timed_batch(side, count, held=True) for _ in range(rounds)]
    return {"sycl_ocl early": early, f"sycl_ocl after {total}": late}


BENCHMARKS.append(Benchmark(
    "late_submit", "held sycl_ocl submit after 100,000 earlier commands vs early (the batches after a "
    "first one; same queue, buffers)",
    "us per submit", "sycl_ocl early", {}, target="ratio <= 1.1", measure=_late,
))


def _memory(benchmark: Benchmark, env: Env, rounds: int) -> dict[str, list[float]]:
    """Resident memory (MB) at 10 checkpoints over 100,000 free-running submits, after a warm-up."""
    total = env.size(gpu=100_000, cpu=100_000, quick=1000)
    results: dict[str, list[float]] = {}
    for name, side in (("raw pyopencl", Raw(env)), ("sycl_ocl", Sycl(env))):
        _age(side, total // 10)
        gc.collect()
        start, marks = rss_mb(), []
        for checkpoint in range(2, 12):
            _age(side, checkpoint * total // 10)
            gc.collect()
            marks.append(rss_mb() - start)
        results[name] = marks
    return results


BENCHMARKS.append(Benchmark(
    "memory", "resident memory at 10 checkpoints over 100,000 free-running submits, after a warm-up",
    "MB above the warm-up", "raw pyopencl", {}, target="flat (sycl_ocl's checkpoints near raw's)",
    measure=_memory, compare=False,
))


# --- explicit copies: a halo exchange's transfers (issue 31) --------------------------------

ROWS = 8  # a 2-D buffer of ROWS x N floats: a kernel over it, then a row out and a row in


class RawCopies(Raw):
    """The PyOpenCL baseline of a halo exchange's commands: the kernel on the whole buffer, a
    non-blocking read of row 1 into a host row, a non-blocking write of a host row into row 0."""

    def __init__(self, env: Env) -> None:
        super().__init__(env)
        self.kernel = env.raw_kernel("bench_halve_add")
        self.a = cl.Buffer(self.ctx, cl.mem_flags.READ_WRITE, ROWS * N * 4)
        self.sent, self.halo = np.zeros(N, np.float32), np.ones(N, np.float32)
        self.step = np.float32(1)

    def submit(self) -> None:
        self.kernel.set_args(self.a, self.step)
        cl.enqueue_nd_range_kernel(self.queue, self.kernel, (ROWS * N,), None)
        cl.enqueue_copy(self.queue, self.sent, self.a, src_offset=N * 4, is_blocking=False)
        cl.enqueue_copy(self.queue, self.a, self.halo, dst_offset=0, is_blocking=False)


class SyclCopies(Sycl):
    """The same through sycl_ocl as examples/mpi_jacobi.py writes it: the kernel on the whole
    buffer, ``q.copy`` of placeholder accessors of two one-row sub-buffers."""

    def __init__(self, env: Env) -> None:
        self.queue = env.queue()
        self.ctx = sycl.get_native(self.queue.get_context())
        self.submitted = 0
        self.a = self.b = sycl.buffer(np.zeros((ROWS, N), np.float32))
        self.sent, self.halo = np.zeros(N, np.float32), np.ones(N, np.float32)
        row = sycl.range(1, N)
        self.top = sycl.buffer(self.a, sycl.id(1, 0), row)
        self.halo_top = sycl.buffer(self.a, sycl.id(0, 0), row)
        self.send = sycl.accessor(self.top, sycl.read_only)
        self.recv = sycl.accessor(self.halo_top, sycl.write_only, [sycl.property.no_init()])

    def cgf(self, h: sycl.handler) -> None:
        h.parallel_for(ROWS * N, "bench_halve_add", sycl.accessor(self.a, h), 1.0)

    def submit(self) -> None:
        q = self.queue
        q.submit(self.cgf)
        q.copy(self.send, self.sent)
        q.copy(self.halo, self.recv)


class SyclHandlerCopies(SyclCopies):
    """The copies as command groups of their own: ``h.copy`` of ranged accessors of the rows."""

    def __init__(self, env: Env) -> None:
        super().__init__(env)
        row, sent, halo, a = sycl.range(1, N), self.sent, self.halo, self.a
        self.out = lambda h: h.copy(sycl.accessor(a, h, sycl.read_only, row, sycl.id(1, 0)), sent)
        self.into = lambda h: h.copy(halo, sycl.accessor(a, h, sycl.write_only, row, sycl.id(0, 0)))

    def submit(self) -> None:
        q = self.queue
        q.submit(self.cgf)
        q.submit(self.out)
        q.submit(self.into)


BENCHMARKS.append(Benchmark(
    "halo_copies", "a halo exchange's three commands repeated, running meanwhile: a kernel on a 2-D "
    "buffer, a row copied to a host array, a host array copied into a row (not held: PoCL blocks a "
    "transfer queued behind a user event)",
    "us per exchange (3 commands)", "raw pyopencl",
    {"raw pyopencl": _system(RawCopies, False), "sycl_ocl q.copy": _system(SyclCopies, False),
     "sycl_ocl h.copy": _system(SyclHandlerCopies, False)},
    target="sycl_ocl <= 1.5 on the H100, as free_submit; <= 3.0 on PoCL (issue 31)",
))
