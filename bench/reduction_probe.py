"""Where a reduction's time goes: the host's cost of each ``q.submit`` and the kernel's.

Runs bench/reduction.py's loop (a sum of 2^26 floats into a one-element buffer with
``initialize_to_identity``, 20 submits then one wait, 7 times) timing each submit, then 20
launches on a profiling queue, each waited for, reading ``command_start``/``command_end``.
The sum is a kernel-bound loop when the submit costs less than the kernel (docs/performance.md,
"Reductions").

Run: ``python3 bench/reduction_probe.py DEVICE_REGEX [LOG2_SIZE]`` (for example ``NVIDIA``).
"""

from __future__ import annotations

import re
import statistics
import sys
import time
from typing import Any

import numpy as np

import sycl_ocl as sycl

SOURCE = """
__kernel void probe_sum(SYCL_REDUCER(float, sum), __global const float *x) {
    SYCL_COMBINE(sum, x[get_global_id(0)]);
}"""


def _summing(q: sycl.queue, n: int) -> tuple[Any, sycl.buffer]:
    """A command group summing ``n`` ones, and its result's buffer."""
    x = sycl.buffer(np.ones(n, np.float32))
    result = sycl.buffer(np.zeros(1, np.float32))
    init = [sycl.property.reduction.initialize_to_identity()]

    def cgf(h: sycl.handler) -> None:
        h.parallel_for(n, sycl.reduction(result, h, sycl.plus(), prop_list=init), "probe_sum",
                       sycl.accessor(x, h, sycl.read_only))
    return cgf, result


def _check(result: sycl.buffer, n: int) -> None:
    with sycl.host_accessor(result, sycl.read_only) as got:
        assert got[0] == n, f"the sum is {got[0]}, not {n}"


def host_and_loop(dev: sycl.device, n: int) -> None:
    """Print the host's time per submit and the loop's time per reduction (min, median)."""
    q = sycl.queue(sycl.context(dev), dev)
    cgf, result = _summing(q, n)
    for _ in range(5):  # built, then a shape with replayed plans (docs/scheduler.md S17, S20)
        q.submit(cgf)
    q.wait()
    hosts, loops = [], []
    for _ in range(7):
        host = 0.0
        start = time.perf_counter()
        for _ in range(20):
            before = time.perf_counter()
            q.submit(cgf)
            host += time.perf_counter() - before
        q.wait()
        loops.append((time.perf_counter() - start) / 20 * 1e6)
        hosts.append(host / 20 * 1e6)
    print(f"host us/submit min {min(hosts):.1f} median {statistics.median(hosts):.1f}; "
          f"us/reduction (20 then wait) min {min(loops):.1f} median {statistics.median(loops):.1f}")
    _check(result, n)


def kernel(dev: sycl.device, n: int) -> None:
    """Print the profiled time of one launch (min, median) and its read bandwidth."""
    q = sycl.queue(sycl.context(dev), dev, prop_list=[sycl.property.queue.enable_profiling()])
    cgf, result = _summing(q, n)
    times = []
    for _ in range(25):
        ev = q.submit(cgf)
        ev.wait()
        times.append((ev.get_profiling_info(sycl.info.event_profiling.command_end)
                      - ev.get_profiling_info(sycl.info.event_profiling.command_start)) / 1e3)
    times = times[5:]
    print(f"kernel us (profiled) min {min(times):.1f} median {statistics.median(times):.1f}; "
          f"{4 * n / min(times) / 1e3:.0f} GB/s at the min")
    _check(result, n)


def main() -> None:
    sycl.register_kernel_source(SOURCE, origin="bench/reduction_probe.py")
    dev = next(d for d in sycl.device.get_devices() if re.search(sys.argv[1], repr(d)))
    n = 1 << int(sys.argv[2]) if len(sys.argv) > 2 else 1 << 26
    print(f"{dev!r}, {n} floats")
    host_and_loop(dev, n)
    kernel(dev, n)


if __name__ == "__main__":
    main()
