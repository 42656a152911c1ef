"""Submit cost of a two-accessor command group vs raw PyOpenCL set_args + enqueue_nd_range_kernel
on the same device in the same run, and after 100 vs 100,000 earlier commands (flatness).
It also times ``Floor``: the objects and lock any Python submit needs around the same enqueue,
a lower bound for a pure-Python runtime.

Two regimes, each for both sides:

* held: the queue waits on a user event while the batch is submitted, so only the submission
  itself is timed (no driver threads running kernels beside the submitting thread);
* free-running: kernels execute while the next ones are submitted. On a CPU device the
  driver's worker threads then compete with the submitting thread, which slows any client
  that does work between enqueues (raw PyOpenCL included, see docs/performance.md).

Run: ``python bench/bench_submit.py`` (PoCL by default; SYCL_OCL_BENCH selects by name).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable

os.environ.setdefault("POCL_DEVICES", "pthread")

import numpy as np
import pyopencl as cl

import sycl_ocl as sycl

SRC = "__kernel void bench_add(__global float* a, __global const float* b) " \
      "{ size_t i = get_global_id(0); a[i] += b[i]; }"
N = 64
BATCH = 2000


def _device() -> sycl.device:
    want = os.environ.get("SYCL_OCL_BENCH", "Portable")
    for plat in sycl.platform.get_platforms():
        if want.lower() in plat.get_info(sycl.info.platform.name).lower():
            return plat.get_devices()[0]
    return sycl.device()


def _best(batch: Callable[[], float], runs: int = 5) -> float:
    return min(batch() for _ in range(runs))


class Raw:
    """The PyOpenCL baseline: one kernel, two buffers, an in-order queue."""

    def __init__(self, dev: sycl.device) -> None:
        self.ctx = cl.Context([dev._native])
        self.queue = cl.CommandQueue(self.ctx)
        self.kernel = cl.Program(self.ctx, SRC).build().bench_add
        self.a = cl.Buffer(self.ctx, cl.mem_flags.READ_WRITE, N * 4)
        self.b = cl.Buffer(self.ctx, cl.mem_flags.READ_WRITE, N * 4)

    def batch(self, held: bool) -> float:
        gate = cl.UserEvent(self.ctx)
        if held:
            cl.enqueue_marker(self.queue, wait_for=[gate])
        k, q, a, b = self.kernel, self.queue, self.a, self.b
        t0 = time.perf_counter()
        for _ in range(BATCH):
            k.set_args(a, b)
            cl.enqueue_nd_range_kernel(q, k, (N,), None)
        elapsed = (time.perf_counter() - t0) / BATCH
        gate.set_status(cl.command_execution_status.COMPLETE)
        q.finish()
        return elapsed


class Floor(Raw):
    """A lower bound for any Python implementation of the SYCL submit: the same objects a
    command group needs (handler, two accessors, an event), one lock, and the raw enqueue;
    no dependency tracking, no data movement, no checks."""

    class Handler:
        __slots__ = ("accs", "args", "kernel", "size")

        def __init__(self) -> None:
            self.accs: list[Floor.Accessor] = []

        def parallel_for(self, size: int, kernel: cl.Kernel, *args: Floor.Accessor) -> None:
            self.size, self.kernel, self.args = (size,), kernel, args

    class Accessor:
        __slots__ = ("mem", "writes")

        def __init__(self, mem: cl.Buffer, h: Floor.Handler, writes: bool = True) -> None:
            self.mem, self.writes = mem, writes
            h.accs.append(self)

    class Event:
        __slots__ = ("native",)

        def __init__(self, native: cl.Event) -> None:
            self.native = native

    def submit(self, cgf: Callable[[Floor.Handler], None]) -> Floor.Event:
        h = Floor.Handler()
        cgf(h)
        with self.lock:
            h.kernel.set_args(*[acc.mem for acc in h.args])
            return Floor.Event(cl.enqueue_nd_range_kernel(self.queue, h.kernel, h.size, None))

    def batch(self, held: bool) -> float:
        self.lock = threading.Lock()
        gate = cl.UserEvent(self.ctx)
        if held:
            cl.enqueue_marker(self.queue, wait_for=[gate])

        def cgf(h: Floor.Handler) -> None:
            h.parallel_for(N, self.kernel, Floor.Accessor(self.a, h), Floor.Accessor(self.b, h, False))

        t0 = time.perf_counter()
        for _ in range(BATCH):
            self.submit(cgf)
        elapsed = (time.perf_counter() - t0) / BATCH
        gate.set_status(cl.command_execution_status.COMPLETE)
        self.queue.finish()
        return elapsed


class Sycl:
    """The same work through sycl_ocl: buffers, accessors and the DAG."""

    def __init__(self, dev: sycl.device) -> None:
        self.queue = sycl.queue(dev)
        self.a = sycl.buffer(np.zeros(N, dtype=np.float32))
        self.b = sycl.buffer(np.ones(N, dtype=np.float32))
        self.submitted = 0

    def cgf(self, h: sycl.handler) -> None:
        h.parallel_for(N, "bench_add", sycl.accessor(self.a, h), sycl.accessor(self.b, h, sycl.read_only))

    def batch(self, held: bool, count: int = BATCH) -> float:
        q, cgf = self.queue, self.cgf
        gate = cl.UserEvent(sycl.get_native(q.get_context()))
        if held:
            def first(h: sycl.handler) -> None:
                h.depends_on(sycl.make_event(gate, q.get_context()))
                cgf(h)

            q.submit(first)  # later commands follow it through the buffers, on the same queue
        t0 = time.perf_counter()
        for _ in range(count):
            q.submit(cgf)
        elapsed = (time.perf_counter() - t0) / count
        self.submitted += count + held
        gate.set_status(cl.command_execution_status.COMPLETE)
        q.wait()
        return elapsed


def main() -> None:
    sycl.register_kernel_source(SRC)
    dev = _device()
    raw, ours = Raw(dev), Sycl(dev)
    ours.batch(False, 100)
    figures = {
        held: (_best(lambda held=held: raw.batch(held)), _best(lambda held=held: ours.batch(held)))
        for held in (True, False)
    }
    while ours.submitted < 100_000:
        ours.batch(False, 10_000)
    done = ours.submitted
    late = _best(lambda: ours.batch(True))
    print(f"device: {dev.get_info(sycl.info.device.name)}")
    for held, (raw_s, ours_s) in figures.items():
        regime = "held device " if held else "free-running"
        print(f"{regime}: raw pyopencl set_args + enqueue_nd_range_kernel {raw_s * 1e6:6.2f} us, "
              f"sycl submit of 2 accessors {ours_s * 1e6:6.2f} us ({ours_s / raw_s:.2f}x raw)")
    floor = _best(lambda: Floor(dev).batch(True))
    print(f"held device : the least a Python submit can do (see Floor) {floor * 1e6:6.2f} us "
          f"({floor / figures[True][0]:.2f}x raw)")
    early = figures[True][1]
    print(f"held device, sycl submit after ~{done} commands: {late * 1e6:6.2f} us "
          f"({late / early:.2f}x after ~100)")
    print(f"a transfers: {ours.a.transfer_counters()}")


if __name__ == "__main__":
    main()
