"""Cold and warm ``get_kernel_bundle(executable)`` of the whole kernel library
(``bench_kernel_bundle.py``) in the suite: each sample is a fresh child process.

Per round, in a new empty cache directory: raw PyOpenCL builds of every unit, then a cold
bundle (compiles and fills the cache), then a warm one (reloads binaries). The drivers' own
caches are off. It compiles the library twice per round, so it runs at most 3 rounds.
"""

from __future__ import annotations

import tempfile

import sycl_ocl as sycl

from . import bench_kernel_bundle
from .harness import Benchmark, Env

BENCHMARKS: list[Benchmark] = []  # this module's, in running order


def _measure(benchmark: Benchmark, env: Env, rounds: int) -> dict[str, list[float]]:
    index = sycl.platform.get_platforms().index(env.device.get_platform())
    results: dict[str, list[float]] = {"raw build": [], "sycl_ocl cold": [], "sycl_ocl warm": []}
    for _ in range(1 if env.quick else rounds):
        with tempfile.TemporaryDirectory(prefix="sycl_ocl_bench_") as cache:
            results["raw build"].append(bench_kernel_bundle._child(index, "raw", cache)["raw"])
            results["sycl_ocl cold"].append(bench_kernel_bundle._child(index, "bundle", cache)["first"])
            results["sycl_ocl warm"].append(bench_kernel_bundle._child(index, "bundle", cache)["first"])
    return results


BENCHMARKS.append(Benchmark(
    "kernel_bundle", "get_kernel_bundle(executable) of the kernel library in a new process: cold "
    "(empty disk cache), warm (filled), against raw PyOpenCL builds", "s", "raw build", {},
    target="warm <= 5% of cold", max_rounds=3, measure=_measure,
))
