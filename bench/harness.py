"""The benchmark harness: systems compared side by side, in one process, round after round.

A :class:`Benchmark` names the systems it compares. Each system is a factory that receives the
:class:`Env` and returns a *sample* function: one call, one measurement in the benchmark's
unit. The harness sets every system up, takes one warm-up sample of each, then runs the
rounds, each round calling every system once in an order that rotates from round to round,
so that drift on a loaded machine hits all systems alike. Ratios divide each system's median
by the baseline's, in the benchmark's unit.

Adding a system to a benchmark is one entry in its ``systems`` dict.
"""

from __future__ import annotations

import os
import re
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyopencl as cl

import sycl_ocl as sycl

Sample = Callable[[], float]
Factory = Callable[["Env"], Sample]

# Every kernel the suite launches, registered once with sycl_ocl (and built raw by each system).
KERNELS = """
__kernel void bench_add(__global float* a, __global const float* b)
{ size_t i = get_global_id(0); a[i] += b[i]; }
__kernel void bench_halve_add(__global float* a, float s)
{ size_t i = get_global_id(0); a[i] = a[i] * 0.5f + s; }
__kernel void bench_tick(uint n, float s) { if (get_global_id(0) == n && s < 0.0f) { } }
__kernel void bench_triad(__global float* a, __global const float* b, __global const float* c, float s)
{ size_t i = get_global_id(0); a[i] = b[i] + s * c[i]; }
__kernel void bench_saxpy(__global float* y, __global const float* x, float a, uint n0, uint n1)
{ size_t i = (get_global_id(2) * n1 + get_global_id(1)) * n0 + get_global_id(0); y[i] += a * x[i]; }
__kernel void bench_saxpy_guarded(__global float* y, __global const float* x, float a, uint n0, uint n1,
                                  uint r0, uint r1, uint r2)
{ if (get_global_id(0) >= r0 || get_global_id(1) >= r1 || get_global_id(2) >= r2) return;
  size_t i = (get_global_id(2) * n1 + get_global_id(1)) * n0 + get_global_id(0); y[i] += a * x[i]; }
#define BENCH_STEP(o, a, n, i, j) o[i * n + j] = 0.25f * (a[(i - 1) * n + j] + a[(i + 1) * n + j] \
                                                        + a[i * n + j - 1] + a[i * n + j + 1])
__kernel void bench_jacobi(__global float* out, __global const float* in, uint n)
{ size_t j = get_global_id(0) + 1, i = get_global_id(1) + 1; BENCH_STEP(out, in, n, i, j); }
__kernel void bench_jacobi_guarded(__global float* out, __global const float* in, uint n,
                                   uint r0, uint r1, uint r2)
{ if (get_global_id(0) >= r0 || get_global_id(1) >= r1 || get_global_id(2) >= r2) return;
  size_t j = get_global_id(0) + 1, i = get_global_id(1) + 1; BENCH_STEP(out, in, n, i, j); }
"""
# Raw PyOpenCL at its best sets scalars through typed setters (set_scalar_arg_dtypes), as sycl_ocl does.
_SCALAR_TYPES = {
    "bench_add": [None, None], "bench_halve_add": [None, np.float32], "bench_tick": [np.uint32, np.float32],
    "bench_triad": [None, None, None, np.float32],
    "bench_saxpy": [None, None, np.float32, np.uint32, np.uint32],
    "bench_saxpy_guarded": [None, None, np.float32, *[np.uint32] * 5],
    "bench_jacobi": [None, None, np.uint32], "bench_jacobi_guarded": [None, None, *[np.uint32] * 4],
}


class Unavailable(Exception):
    """Raised by a system's factory when the system cannot run here (with the reason)."""


@dataclass
class Env:
    """The device under test and the suite's settings."""

    device: sycl.device
    quick: bool = False
    _raw: dict[str, Any] = field(default_factory=dict)

    @property
    def gpu(self) -> bool:
        return bool(self.device.is_gpu())

    def size(self, gpu: int, cpu: int, quick: int) -> int:
        """A problem size (or count) scaled to the device and the mode."""
        return quick if self.quick else gpu if self.gpu else cpu

    def queue(self, *properties: Any) -> sycl.queue:
        """A sycl_ocl queue of the device in a context of that device alone, as the raw
        systems' (the default context holds every device the environment lets selectors see:
        both GPUs of a pair, where USM is refused, docs/deviations.md)."""
        if "sycl_context" not in self._raw:
            self._raw["sycl_context"] = sycl.context(self.device)
        return sycl.queue(self._raw["sycl_context"], self.device, prop_list=list(properties))

    def raw_context(self) -> cl.Context:
        """One PyOpenCL context of the device, shared by the raw systems."""
        if "ctx" not in self._raw:
            self._raw["ctx"] = cl.Context([self.device._native])
        return self._raw["ctx"]

    def raw_kernel(self, name: str) -> cl.Kernel:
        """A fresh PyOpenCL kernel of :data:`KERNELS` with typed scalars (one object per system)."""
        if "program" not in self._raw:
            self._raw["program"] = cl.Program(self.raw_context(), KERNELS).build()
        kernel = cl.Kernel(self._raw["program"], name)
        kernel.set_scalar_arg_dtypes(_SCALAR_TYPES[name])
        return kernel


@dataclass
class Benchmark:
    """One comparison: systems measured in one unit against a baseline system."""

    name: str
    what: str
    unit: str
    baseline: str
    systems: dict[str, Factory]
    target: str = ""
    higher_is_better: bool = False
    max_rounds: int | None = None
    compare: bool = True  # False where a ratio of medians means nothing (memory growth near 0)
    # A benchmark whose samples cannot be interleaved (they need an order) measures itself.
    measure: Callable[[Benchmark, Env, int], dict[str, list[float]]] | None = None


def interleaved(benchmark: Benchmark, env: Env, rounds: int) -> tuple[dict[str, list[float]], dict[str, str]]:
    """Set up every system, warm each up, then ``rounds`` rounds in rotating order."""
    samplers: dict[str, Sample] = {}
    skipped: dict[str, str] = {}
    for name, factory in benchmark.systems.items():
        try:
            samplers[name] = factory(env)
        except Unavailable as reason:
            skipped[name] = str(reason)
    for sample in samplers.values():
        sample()
    names = list(samplers)
    results: dict[str, list[float]] = {name: [] for name in names}
    for index in range(rounds):
        shift = index % len(names) if names else 0
        for name in names[shift:] + names[:shift]:
            results[name].append(samplers[name]())
    return results, skipped


def summarize(samples: list[float]) -> dict[str, Any]:
    quartiles = statistics.quantiles(samples, n=4, method="inclusive") if len(samples) > 1 else samples * 3
    return {
        "samples": samples, "median": statistics.median(samples), "min": min(samples), "max": max(samples),
        "q1": quartiles[0], "q3": quartiles[2],
    }


def run(benchmark: Benchmark, env: Env, rounds: int) -> dict[str, Any]:
    """Measure one benchmark; its JSON record."""
    rounds = min(rounds, benchmark.max_rounds or rounds)
    started = time.perf_counter()
    skipped: dict[str, str] = {}
    if benchmark.measure is not None:
        results = benchmark.measure(benchmark, env, rounds)
    else:
        results, skipped = interleaved(benchmark, env, rounds)
    systems = {name: summarize(values) for name, values in results.items() if values}
    base = systems.get(benchmark.baseline, {}).get("median")
    ratios = {name: s["median"] / base for name, s in systems.items() if base and benchmark.compare}
    return {
        "what": benchmark.what, "unit": benchmark.unit, "target": benchmark.target,
        "better": "higher" if benchmark.higher_is_better else "lower", "baseline": benchmark.baseline,
        "rounds": max((len(s["samples"]) for s in systems.values()), default=0),
        "systems": systems, "ratios": ratios, "skipped_systems": skipped,
        "seconds": time.perf_counter() - started,
    }


def report(name: str, record: dict[str, Any]) -> str:
    """A few lines for the terminal."""
    lines = [f"{name}: {record['what']}",
             f"  {record['unit']}, {record['better']} is better; ratio = system / {record['baseline']}"
             + (f"; target {record['target']}" if record["target"] else "")]
    for system, stats in record["systems"].items():
        ratio = record["ratios"].get(system)
        lines.append(f"  {system:<22} median {stats['median']:>11.4g}  min {stats['min']:>11.4g}  "
                     f"max {stats['max']:>11.4g}  ratio {'-' if ratio is None else f'{ratio:.3f}':>6}")
    lines.extend(f"  {system:<22} skipped: {why}" for system, why in record["skipped_systems"].items())
    return "\n".join(lines)


def choose_device(pattern: str) -> sycl.device:
    """The first device whose "platform / device" label matches ``pattern`` (default device if "")."""
    if not pattern:
        return sycl.device()
    regex = re.compile(pattern, re.IGNORECASE)
    for plat in sycl.platform.get_platforms():
        for dev in plat.get_devices():
            if regex.search(label(dev)):
                return dev
    raise SystemExit(f"no device matches {pattern!r}; devices: " + "; ".join(
        label(d) for p in sycl.platform.get_platforms() for d in p.get_devices()))


def label(dev: sycl.device) -> str:
    return f"{dev.get_platform().get_info(sycl.info.platform.name)} / {dev.get_info(sycl.info.device.name)}"


def per_op(count: int, batch: Callable[[], None]) -> Sample:
    """A sample function: microseconds per operation of ``batch``, which runs ``count`` of them."""
    def sample() -> float:
        start = time.perf_counter()
        batch()
        return (time.perf_counter() - start) / count * 1e6
    return sample


def elapsed_ms(body: Callable[[], Any]) -> Sample:
    """A sample function: milliseconds one call of ``body`` takes."""
    def sample() -> float:
        start = time.perf_counter()
        body()
        return (time.perf_counter() - start) * 1e3
    return sample


def rss_mb() -> float:
    """This process's resident memory in MB (Linux; 0 where /proc is absent)."""
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except OSError:
        return 0.0


def filled(n: int, value: float = 1.0) -> np.ndarray:
    return np.full(n, value, dtype=np.float32)
