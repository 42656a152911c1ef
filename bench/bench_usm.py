"""USM memcpy bandwidth vs raw PyOpenCL ``enqueue_copy`` on the same device in the same run.

For each size and direction (host to device, device to host, device to device) it prints GB/s
of three ways to move the bytes, each copy waited for before the next:

* ``sycl``: ``q.memcpy`` between a ``malloc_device`` allocation and a numpy array (or two
  allocations), through sycl_ocl's scheduler;
* ``raw svm``: PyOpenCL ``enqueue_copy`` on a coarse-grain ``SVMAllocation`` (what sycl_ocl
  enqueues);
* ``raw cl_mem``: PyOpenCL ``enqueue_copy`` on a ``cl.Buffer`` (the buffer path's copies).

The ratio column is ``sycl / raw svm``. Host arrays are ordinary (pageable) numpy memory.
Run: ``python bench/bench_usm.py`` (PoCL by default; SYCL_OCL_BENCH selects a platform by
name, SYCL_OCL_BENCH_MAX_MB caps the largest size, default 64).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable

os.environ.setdefault("POCL_DEVICES", "pthread")

import numpy as np
import pyopencl as cl

import sycl_ocl as sycl

MIN_TIME_S = 0.2  # each measurement repeats the copy for at least this long


def _device() -> sycl.device:
    want = os.environ.get("SYCL_OCL_BENCH", "Portable")
    for plat in sycl.platform.get_platforms():
        if want.lower() in plat.get_info(sycl.info.platform.name).lower():
            return plat.get_devices()[0]
    return sycl.device()


def _sizes() -> list[int]:
    top = int(os.environ.get("SYCL_OCL_BENCH_MAX_MB", "64")) << 20
    return [n for n in (4 << 10, 64 << 10, 1 << 20, 16 << 20, 64 << 20, 256 << 20) if n <= top]


def _rate(copy: Callable[[], None], nbytes: int) -> float:
    """GB/s of the best of three timed rounds."""
    copy()  # warm up (first-touch, allocation on the device)
    best = float("inf")
    for _ in range(3):
        reps, t0 = 0, time.perf_counter()
        while True:
            copy()
            reps += 1
            elapsed = time.perf_counter() - t0
            if elapsed >= MIN_TIME_S / 3 or reps >= 1000:
                break
        best = min(best, elapsed / reps)
    return nbytes / best / 1e9


def _sycl_copies(q: sycl.queue, n: int, host: np.ndarray) -> dict[str, Callable[[], None]]:
    a, b = sycl.malloc_device(n, q), sycl.malloc_device(n, q)
    assert a is not None and b is not None
    return {
        "H2D": lambda: q.memcpy(a, host, n).wait(),
        "D2H": lambda: q.memcpy(host, a, n).wait(),
        "D2D": lambda: q.memcpy(b, a, n).wait(),
    }


def _raw_svm_copies(q: cl.CommandQueue, n: int, host: np.ndarray) -> dict[str, Callable[[], None]]:
    flags = cl.svm_mem_flags.READ_WRITE
    a, b = cl.SVMAllocation(q.context, n, 0, flags), cl.SVMAllocation(q.context, n, 0, flags)
    h = cl.SVM(host)
    return {
        "H2D": lambda: cl.enqueue_copy(q, a, h, byte_count=n, is_blocking=False).wait(),
        "D2H": lambda: cl.enqueue_copy(q, h, a, byte_count=n, is_blocking=False).wait(),
        "D2D": lambda: cl.enqueue_copy(q, b, a, byte_count=n, is_blocking=False).wait(),
    }


def _raw_buffer_copies(q: cl.CommandQueue, n: int, host: np.ndarray) -> dict[str, Callable[[], None]]:
    a = cl.Buffer(q.context, cl.mem_flags.READ_WRITE, n)
    b = cl.Buffer(q.context, cl.mem_flags.READ_WRITE, n)
    return {
        "H2D": lambda: cl.enqueue_copy(q, a, host, is_blocking=False).wait(),
        "D2H": lambda: cl.enqueue_copy(q, host, a, is_blocking=False).wait(),
        "D2D": lambda: cl.enqueue_copy(q, b, a, byte_count=n).wait(),
    }


def main() -> None:
    dev = _device()
    print(f"device: {dev.get_platform().get_info(sycl.info.platform.name)} / "
          f"{dev.get_info(sycl.info.device.name)}")
    if not dev.has(sycl.aspect.usm_device_allocations):
        print("no aspect.usm_device_allocations (no coarse-grain SVM): nothing to measure")
        return
    q = sycl.queue(sycl.context(dev), dev)
    raw_q = cl.CommandQueue(q.get_context()._native, dev._native)  # same context, own queue
    print(f"{'bytes':>10} {'dir':>4} {'sycl GB/s':>10} {'raw svm':>10} {'raw cl_mem':>11} {'sycl/svm':>9}")
    for n in _sizes():
        host = np.ones(n, dtype=np.uint8)
        ways = (_sycl_copies(q, n, host), _raw_svm_copies(raw_q, n, host), _raw_buffer_copies(raw_q, n, host))
        for direction in ("H2D", "D2H", "D2D"):
            rates = [_rate(way[direction], n) for way in ways]
            print(f"{n:>10} {direction:>4} {rates[0]:>10.2f} {rates[1]:>10.2f} {rates[2]:>11.2f} "
                  f"{rates[0] / rates[1]:>9.2f}")


if __name__ == "__main__":
    main()
