"""Awkward sizes (issue 32): kernels over ranges whose sizes have no good divisor, per launch.

OpenCL without a local size lets the driver pick a work-group size that divides the range: 1
for a prime. Systems, each launching the same kernel over the same range (a batch of
launches, then a wait; milliseconds per launch):

- ``raw pyopencl``: ``set_args`` + ``enqueue_nd_range_kernel`` with no local size;
- ``sycl_ocl rounding off``: ``q.submit`` of the ``parallel_for`` on a queue with
  ``property.queue.no_range_rounding`` (the driver's choice, as before issue 32);
- ``sycl_ocl``: the same on a default queue (sycl_ocl chooses the work-group size);
- ``raw padded``: raw PyOpenCL over the range rounded up to whole work-groups of sycl_ocl's
  size (256 on a GPU, 4096 on PoCL), the kernel returning outside the range: the target;
- ``raw split``: raw PyOpenCL over the whole work-groups, then the remainders at global
  offsets in work-groups of 1 (up to 2^d launches): the design not chosen.

The kernels: saxpy (``y += a x``) over a power of two, a prime, 2 x a prime and primes in
2-D and 3-D; a Jacobi step over the interior of a square grid (16,382 = 2 x 8,191 columns on
a GPU).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyopencl as cl

import sycl_ocl as sycl
from sycl_ocl._kernel_bundle.range_launch import preferred_group

from .harness import Benchmark, Env, per_op

BENCHMARKS: list[Benchmark] = []  # this module's, in running order

Factory = Callable[[Env], Callable[[], float]]
Sizes = tuple[int, ...]


@dataclass(frozen=True)
class Case:
    """A kernel (``bench_NAME``, and ``bench_NAME_guarded`` taking the range after its own
    parameters) over ``shape`` (SYCL order), on two float arrays of ``data``'s shape."""

    kernel: str
    shape: Sizes
    data: Sizes

    @property
    def opencl(self) -> Sizes:
        return tuple(reversed(self.shape))

    def scalars(self) -> tuple[Any, ...]:
        """The kernel's arguments after its two arrays."""
        if self.kernel == "jacobi":
            return (np.uint32(self.data[-1]),)
        cl_shape = (*self.opencl, 1, 1)
        return np.float32(2), np.uint32(cl_shape[0]), np.uint32(cl_shape[1])


def _count(env: Env) -> int:
    return env.size(gpu=100, cpu=20, quick=2)


def _raw_buffers(env: Env, case: Case) -> tuple[cl.Buffer, cl.Buffer]:
    flags = cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR
    data = np.ones(case.data, dtype=np.float32)
    ctx = env.raw_context()
    return cl.Buffer(ctx, flags, hostbuf=data), cl.Buffer(ctx, flags, hostbuf=data)


def _raw_system(kernel_name: Callable[[Case], str], args: Callable[[Case], tuple[Any, ...]],
                launches: Callable[[Env, Case], list[tuple[Sizes, Sizes | None, Sizes | None]]],
                ) -> Callable[[Case], Factory]:
    """A raw PyOpenCL system: ``launches`` of the kernel per launch of the case."""
    def make(case: Case) -> Factory:
        def factory(env: Env) -> Callable[[], float]:
            queue, count = cl.CommandQueue(env.raw_context()), _count(env)
            kernel = env.raw_kernel(kernel_name(case))
            y, x = _raw_buffers(env, case)
            kernel.set_args(y, x, *args(case))
            planned = launches(env, case)

            def batch() -> None:
                for _ in range(count):
                    for global_size, local_size, offset in planned:
                        cl.enqueue_nd_range_kernel(queue, kernel, global_size, local_size, offset)
                queue.finish()
            batch.buffers = (y, x)  # type: ignore[attr-defined]  # alive as long as the sample
            return _ms(per_op(count, batch))
        return factory
    return make


def _local(env: Env, cl_shape: Sizes) -> Sizes:
    """Work-groups as sycl_ocl shapes them (``range_launch``: its size for the device, the
    fastest dimension first)."""
    room = min(preferred_group(env.device), int(env.device.get_info(sycl.info.device.max_work_group_size)))
    local = []
    for n in cl_shape:
        size = min(room, 1 << max(0, (n - 1).bit_length()))
        local.append(size)
        room //= size
    return tuple(local)


def _padded_launch(env: Env, case: Case) -> list[tuple[Sizes, Sizes | None, Sizes | None]]:
    local = _local(env, case.opencl)
    return [(tuple(-(-n // size) * size for n, size in zip(case.opencl, local, strict=True)), local, None)]


def _split_launches(env: Env, case: Case) -> list[tuple[Sizes, Sizes | None, Sizes | None]]:
    """The launches of the split design: per dimension the whole work-groups, then the
    remainder at an offset in work-groups of 1 (up to 2^d launches)."""
    parts = []
    for n, size in zip(case.opencl, _local(env, case.opencl), strict=True):
        bulk = n // size * size
        parts.append([p for p in ((0, bulk, size), (bulk, n - bulk, 1)) if p[1]])
    return [(tuple(p[1] for p in box), tuple(p[2] for p in box), tuple(p[0] for p in box))
            for box in itertools.product(*parts)]


_raw = _raw_system(lambda c: f"bench_{c.kernel}", Case.scalars, lambda env, c: [(c.opencl, None, None)])
_padded = _raw_system(lambda c: f"bench_{c.kernel}_guarded",
                      lambda c: (*c.scalars(), *(np.uint32(n) for n in (*c.opencl, 1, 1)[:3])),
                      _padded_launch)
_split = _raw_system(lambda c: f"bench_{c.kernel}", Case.scalars, _split_launches)


def _sycl(rounding: bool) -> Callable[[Case], Factory]:
    def make(case: Case) -> Factory:
        def factory(env: Env) -> Callable[[], float]:
            props = [] if rounding else [sycl.property.queue.no_range_rounding()]
            queue, count = env.queue(*props), _count(env)
            y, x = (sycl.buffer(np.ones(case.data, dtype=np.float32)) for _ in range(2))
            rng, scalars, name = sycl.range(*case.shape), case.scalars(), f"bench_{case.kernel}"

            def cgf(h: sycl.handler) -> None:
                h.parallel_for(rng, name, sycl.accessor(y, h), sycl.accessor(x, h, sycl.read_only), *scalars)

            def batch() -> None:
                for _ in range(count):
                    queue.submit(cgf)
                queue.wait()
            batch.buffers = (y, x)  # type: ignore[attr-defined]  # alive as long as the sample
            return _ms(per_op(count, batch))
        return factory
    return make


def _ms(sample: Callable[[], float]) -> Callable[[], float]:
    """``per_op``'s microseconds as milliseconds."""
    return lambda: sample() / 1e3


def _prime_below(n: int) -> int:
    return next(p for p in range(n - 1, 1, -1) if all(p % d for d in range(2, int(p ** 0.5) + 1)))


def _case(env: Env, name: str) -> Case:
    """The case ``name`` at the device's sizes."""
    big = env.size(gpu=1 << 24, cpu=1 << 20, quick=1 << 10)
    side2 = env.size(gpu=4096, cpu=1024, quick=32)
    side3 = env.size(gpu=256, cpu=100, quick=24)
    grid = env.size(gpu=16384, cpu=1024, quick=34)
    shapes = {"pow2": (big,), "prime": (_prime_below(big + 64),),
              "2xprime": (2 * _prime_below(big // 2 + 64),),
              "2d_primes": (_prime_below(side2), _prime_below(side2 - 8)),
              "3d_primes": (_prime_below(side3), _prime_below(side3 - 8), _prime_below(side3 - 16))}
    if name == "jacobi":
        return Case("jacobi", (grid - 2, grid - 2), (grid, grid))
    return Case("saxpy", shapes[name], shapes[name])


def _benchmark(name: str) -> Benchmark:
    def lazily(make: Callable[[Case], Factory]) -> Factory:
        return lambda env: make(_case(env, name))(env)
    what = ("a Jacobi step over a square grid's interior (16382^2 on a GPU, 1022^2 on a CPU)"
            if name == "jacobi" else f"saxpy over an awkward range ({name})")
    return Benchmark(
        f"awkward_{name}", f"{what}, per launch", "ms", "raw pyopencl",
        {"raw pyopencl": lazily(_raw), "sycl_ocl rounding off": lazily(_sycl(False)),
         "sycl_ocl": lazily(_sycl(True)), "raw padded": lazily(_padded), "raw split": lazily(_split)},
        target="sycl_ocl <= 1.1 x raw padded on primes; <= 1.02 x rounding off on powers of two; "
               "jacobi <= 2.5 ms on the H100 (issue 32)",
    )


BENCHMARKS.extend(_benchmark(name)
                  for name in ("pow2", "prime", "2xprime", "2d_primes", "3d_primes", "jacobi"))
