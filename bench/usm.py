"""USM memcpy bandwidth (``bench_usm.py``) in the suite: one benchmark per direction.

Systems: ``q.memcpy`` through sycl_ocl, PyOpenCL ``enqueue_copy`` on coarse-grain SVM (what
sycl_ocl enqueues) and on a ``cl.Buffer``. Skipped on devices without
``aspect.usm_device_allocations``.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np
import pyopencl as cl

import sycl_ocl as sycl

from . import bench_usm
from .harness import Benchmark, Env, Unavailable

BENCHMARKS: list[Benchmark] = []  # this module's, in running order

Copies = dict[str, Callable[[], None]]


def _ways(env: Env) -> tuple[int, dict[str, Copies]]:
    """The copies of each system for each direction (made once per device and mode)."""
    cache = env._raw.setdefault("usm", {})
    if not cache:
        if not env.device.has(sycl.aspect.usm_device_allocations):
            raise Unavailable("the device has no aspect.usm_device_allocations (coarse-grain SVM)")
        n = env.size(gpu=64 << 20, cpu=16 << 20, quick=1 << 20)
        q = env.queue()
        raw_q = cl.CommandQueue(q.get_context()._native, env.device._native)
        host = np.ones(n, dtype=np.uint8)
        cache["n"], cache["ways"] = n, {
            "sycl_ocl": bench_usm._sycl_copies(q, n, host),
            "raw svm": bench_usm._raw_svm_copies(raw_q, n, host),
            "raw cl_mem": bench_usm._raw_buffer_copies(raw_q, n, host),
        }
    return cache["n"], cache["ways"]


def _system(name: str, direction: str) -> Callable[[Env], Callable[[], float]]:
    def factory(env: Env) -> Callable[[], float]:
        n, ways = _ways(env)
        copy, reps = ways[name][direction], env.size(gpu=20, cpu=5, quick=2)

        def sample() -> float:
            start = time.perf_counter()
            for _ in range(reps):
                copy()
            return n * reps / (time.perf_counter() - start) / 1e9
        return sample
    return factory


for _direction in ("H2D", "D2H", "D2D"):
    BENCHMARKS.append(Benchmark(
        f"usm_memcpy_{_direction.lower()}", f"USM memcpy {_direction}, each copy waited for "
        "(64 MB on a GPU, 16 MB on a CPU)", "GB/s", "raw svm",
        {system: _system(system, _direction) for system in ("raw svm", "sycl_ocl", "raw cl_mem")},
        higher_is_better=True,
    ))
