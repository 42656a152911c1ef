"""Awkward sizes (issue 32): saxpy over ranges whose sizes have no good divisor, per launch.

OpenCL without a local size lets the driver pick a work-group size that divides the range: 1
for a prime. Systems, each launching ``y += a x`` over the same range (a batch of launches,
then a wait; milliseconds per launch):

- ``raw pyopencl``: ``set_args`` + ``enqueue_nd_range_kernel`` with no local size;
- ``sycl_ocl rounding off``: ``q.submit`` of the ``parallel_for`` on a queue with
  ``property.queue.no_range_rounding`` (the driver's choice, as before issue 32);
- ``sycl_ocl``: the same on a default queue (sycl_ocl chooses the work-group size);
- ``raw padded``: raw PyOpenCL over the range rounded up to whole work-groups of sycl_ocl's
  size (256 on a GPU, 4096 on PoCL), the kernel returning outside the range: the target;
- ``raw split``: raw PyOpenCL over the whole work-groups, then the remainders at global
  offsets in work-groups of 1 (up to 2^d launches): the design not chosen.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

import numpy as np
import pyopencl as cl

import sycl_ocl as sycl
from sycl_ocl._kernel_bundle.range_launch import preferred_group

from .harness import Benchmark, Env, per_op

BENCHMARKS: list[Benchmark] = []  # this module's, in running order

Factory = Callable[[Env], Callable[[], float]]


def _count(env: Env) -> int:
    return env.size(gpu=100, cpu=20, quick=2)


def _opencl(shape: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(reversed(shape))


def _scalars(shape: tuple[int, ...]) -> tuple[np.float32, np.uint32, np.uint32]:
    cl_shape = (*_opencl(shape), 1, 1)
    return np.float32(2), np.uint32(cl_shape[0]), np.uint32(cl_shape[1])


def _raw_buffers(env: Env, shape: tuple[int, ...]) -> tuple[cl.Buffer, cl.Buffer]:
    flags = cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR
    data = np.ones(shape, dtype=np.float32)
    ctx = env.raw_context()
    return cl.Buffer(ctx, flags, hostbuf=data), cl.Buffer(ctx, flags, hostbuf=data)


def _raw(shape: tuple[int, ...]) -> Factory:
    def factory(env: Env) -> Callable[[], float]:
        queue, kernel, count = cl.CommandQueue(env.raw_context()), env.raw_kernel("bench_saxpy"), _count(env)
        y, x = _raw_buffers(env, shape)
        kernel.set_args(y, x, *_scalars(shape))

        def batch() -> None:
            for _ in range(count):
                cl.enqueue_nd_range_kernel(queue, kernel, _opencl(shape), None)
            queue.finish()
        batch.buffers = (y, x)  # type: ignore[attr-defined]  # alive as long as the sample
        return _ms(per_op(count, batch))
    return factory


def _padded(shape: tuple[int, ...]) -> Factory:
    def factory(env: Env) -> Callable[[], float]:
        queue, count = cl.CommandQueue(env.raw_context()), _count(env)
        kernel = env.raw_kernel("bench_saxpy_guarded")
        y, x = _raw_buffers(env, shape)
        sizes = (*_opencl(shape), 1, 1)
        kernel.set_args(y, x, np.float32(2), *(np.uint32(n) for n in sizes[:3]))
        local = _local(env, _opencl(shape))
        padded = tuple(-(-n // size) * size for n, size in zip(_opencl(shape), local, strict=True))

        def batch() -> None:
            for _ in range(count):
                cl.enqueue_nd_range_kernel(queue, kernel, padded, local)
            queue.finish()
        batch.buffers = (y, x)  # type: ignore[attr-defined]  # alive as long as the sample
        return _ms(per_op(count, batch))
    return factory


def _local(env: Env, cl_shape: tuple[int, ...]) -> tuple[int, ...]:
    """Work-groups as sycl_ocl shapes them (``range_launch``: its size for the device, the
    fastest dimension first)."""
    room = min(preferred_group(env.device), int(env.device.get_info(sycl.info.device.max_work_group_size)))
    local = []
    for n in cl_shape:
        size = min(room, 1 << max(0, (n - 1).bit_length()))
        local.append(size)
        room //= size
    return tuple(local)


def _split(shape: tuple[int, ...]) -> Factory:
    def factory(env: Env) -> Callable[[], float]:
        queue, kernel, count = cl.CommandQueue(env.raw_context()), env.raw_kernel("bench_saxpy"), _count(env)
        y, x = _raw_buffers(env, shape)
        kernel.set_args(y, x, *_scalars(shape))
        launches = _split_launches(_opencl(shape), _local(env, _opencl(shape)))

        def batch() -> None:
            for _ in range(count):
                for global_size, local_size, offset in launches:
                    cl.enqueue_nd_range_kernel(queue, kernel, global_size, local_size, offset)
            queue.finish()
        batch.buffers = (y, x)  # type: ignore[attr-defined]  # alive as long as the sample
        return _ms(per_op(count, batch))
    return factory


Sizes = tuple[int, ...]


def _split_launches(cl_shape: Sizes, local: Sizes) -> list[tuple[Sizes, Sizes, Sizes]]:
    """The launches of the split design: per dimension the whole work-groups, then the
    remainder at an offset in work-groups of 1 (up to 2^d launches)."""
    parts = []
    for n, size in zip(cl_shape, local, strict=True):
        bulk = n // size * size
        parts.append([p for p in ((0, bulk, size), (bulk, n - bulk, 1)) if p[1]])
    return [(tuple(p[1] for p in box), tuple(p[2] for p in box), tuple(p[0] for p in box))
            for box in itertools.product(*parts)]


def _sycl(shape: tuple[int, ...], rounding: bool) -> Factory:
    def factory(env: Env) -> Callable[[], float]:
        props = [] if rounding else [sycl.property.queue.no_range_rounding()]
        queue, count = env.queue(*props), _count(env)
        y, x = sycl.buffer(np.ones(shape, dtype=np.float32)), sycl.buffer(np.ones(shape, dtype=np.float32))
        rng, scalars = sycl.range(*shape), _scalars(shape)

        def cgf(h: sycl.handler) -> None:
            h.parallel_for(rng, "bench_saxpy", sycl.accessor(y, h), sycl.accessor(x, h, sycl.read_only),
                           *scalars)

        def batch() -> None:
            for _ in range(count):
                queue.submit(cgf)
            queue.wait()
        batch.buffers = (y, x)  # type: ignore[attr-defined]  # alive as long as the sample
        return _ms(per_op(count, batch))
    return factory


def _ms(sample: Callable[[], float]) -> Callable[[], float]:
    """``per_op``'s microseconds as milliseconds."""
    return lambda: sample() / 1e3


def _prime_below(n: int) -> int:
    return next(p for p in range(n - 1, 1, -1) if all(p % d for d in range(2, int(p ** 0.5) + 1)))


def _cases(env: Env) -> list[tuple[str, tuple[int, ...]]]:
    """(name, SYCL range): a power of two, a prime, 2 x a prime; 2-D and 3-D primes."""
    big = env.size(gpu=1 << 24, cpu=1 << 20, quick=1 << 10)
    side2 = env.size(gpu=4096, cpu=1024, quick=32)
    side3 = env.size(gpu=256, cpu=100, quick=24)
    return [("pow2", (big,)), ("prime", (_prime_below(big + 64),)),
            ("2xprime", (2 * _prime_below(big // 2 + 64),)),
            ("2d_primes", (_prime_below(side2), _prime_below(side2 - 8))),
            ("3d_primes", (_prime_below(side3), _prime_below(side3 - 8), _prime_below(side3 - 16)))]


def _benchmark(case: str, pick: Callable[[Env], tuple[int, ...]]) -> Benchmark:
    def lazily(make: Callable[[tuple[int, ...]], Factory]) -> Factory:
        return lambda env: make(pick(env))(env)
    return Benchmark(
        f"awkward_{case}", f"saxpy over an awkward range ({case}), per launch", "ms", "raw pyopencl",
        {"raw pyopencl": lazily(_raw), "sycl_ocl rounding off": lazily(lambda s: _sycl(s, False)),
         "sycl_ocl": lazily(lambda s: _sycl(s, True)), "raw padded": lazily(_padded),
         "raw split": lazily(_split)},
        target="sycl_ocl <= 1.1 x raw padded on primes; <= 1.02 x rounding off on powers of two (issue 32)",
    )


for _name, _index in (("pow2", 0), ("prime", 1), ("2xprime", 2), ("2d_primes", 3), ("3d_primes", 4)):
    BENCHMARKS.append(_benchmark(_name, lambda env, i=_index: _cases(env)[i][1]))
