"""Submit cost of a two-accessor command group vs raw PyOpenCL set_args + enqueue_nd_range_kernel
on the same device in the same run, and after 100 vs 100,000 earlier commands (flatness).

Run: ``python bench/bench_submit.py`` (PoCL by default; SYCL_OCL_BENCH selects by name).
"""

from __future__ import annotations

import os
import time

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


def _raw(dev: sycl.device) -> float:
    ctx = cl.Context([dev._native])
    q = cl.CommandQueue(ctx)
    k = cl.Program(ctx, SRC).build().bench_add
    a = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, N * 4)
    b = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, N * 4)
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(BATCH):
            k.set_args(a, b)
            cl.enqueue_nd_range_kernel(q, k, (N,), None)
        best = min(best, (time.perf_counter() - t0) / BATCH)
        q.finish()
    return best


def _sycl_batch(q: sycl.queue, ba: sycl.buffer, bb: sycl.buffer, count: int) -> float:
    def cgf(h: sycl.handler) -> None:
        h.parallel_for(N, "bench_add", sycl.accessor(ba, h), sycl.accessor(bb, h, sycl.read_only))

    t0 = time.perf_counter()
    for _ in range(count):
        q.submit(cgf)
    return (time.perf_counter() - t0) / count


def main() -> None:
    sycl.register_kernel_source(SRC)
    dev = _device()
    q = sycl.queue(dev)
    ba = sycl.buffer(np.zeros(N, dtype=np.float32))
    bb = sycl.buffer(np.ones(N, dtype=np.float32))
    _sycl_batch(q, ba, bb, 100)
    q.wait()
    early = min(_sycl_batch(q, ba, bb, BATCH) for _ in range(3))
    q.wait()
    raw = _raw(dev)
    done = 100 + 3 * BATCH
    while done < 100_000:
        _sycl_batch(q, ba, bb, 10_000)
        q.wait()
        done += 10_000
    late = min(_sycl_batch(q, ba, bb, BATCH) for _ in range(3))
    q.wait()
    print(f"device: {dev.get_info(sycl.info.device.name)}")
    print(f"raw pyopencl set_args + enqueue_nd_range_kernel: {raw * 1e6:7.2f} us")
    print(f"sycl submit, 2 accessors (after ~100 commands):  {early * 1e6:7.2f} us  ({early / raw:.2f}x raw)")
    print(f"sycl submit after {done} commands:            {late * 1e6:7.2f} us  ({late / early:.2f}x early)")
    print(f"a transfers: {ba.transfer_counters()}")


if __name__ == "__main__":
    main()
