"""Whole programs against their raw PyOpenCL twins (issue 31): ``python -m bench --only apps``.

Each app is written the idiomatic SYCL way and beside it as someone who knows OpenCL writes it in
raw PyOpenCL (one in-order queue, sub-buffers made once, non-blocking reads behind the kernels,
a wait only where the host needs the bytes). Every sample runs a number of iterations and then
waits for the device; the unit is milliseconds per iteration.

- ``apps_jacobi_2048`` / ``apps_jacobi_8192``: one Jacobi iteration of one rank of
  examples/mpi_jacobi.py (three launches on sub-buffers of a slab: the two boundary rows, then
  the inner rows), on a 2048^2 or 8192^2 grid of doubles (on a CPU: 64 x 256, the
  launch-bound case).
- ``apps_cg``: conjugate gradients on the 1-D Poisson matrix as examples/conjugate_gradient.py
  (two reductions read back per iteration), against a raw CG that reduces per work-group in
  local memory and sums the partial sums on the host.
- ``apps_pipeline``: a time-stepping loop that reads a small result (16 floats) back every
  ``k`` steps and checks it one window later while the device keeps working: raw non-blocking
  reads, ``q.copy`` into a host array (an event), and a host accessor every ``k`` steps.
- ``apps_gpus_steady`` / ``apps_gpus_e2e``: a compute-bound kernel split over every device of
  the platform (two or four GPUs; PoCL's CPU devices in the tests): in steady state (the halves
  stay on their devices) and end to end (the array goes up and comes back each sample), in the
  default context, one explicit context and a context per device, against one device.

MPI Jacobi's weak scaling runs under ``mpiexec`` (``python -m bench.mpi_scaling``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

import numpy as np
import pyopencl as cl

import sycl_ocl as sycl

from .harness import Benchmark, Env, Unavailable, filled
from .multi_device import SOURCE as COMPUTE_SOURCE

BENCHMARKS: list[Benchmark] = []  # this module's, in running order

SOURCE = """
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
/* Rows first_row.. of u into dst (which starts at row first_row); columns 1..cols-2. */
__kernel void app_jacobi_rows(__global const double *u, __global double *dst, int cols, int first_row) {
    int j = get_global_id(0) + 1, r = get_global_id(1), i = first_row + r;
    dst[r * cols + j] = 0.25 * (u[(i - 1) * cols + j] + u[(i + 1) * cols + j]
                                + u[i * cols + j - 1] + u[i * cols + j + 1]);
}
__kernel void app_step(__global float *x, float s) { size_t i = get_global_id(0); x[i] = x[i] * 0.5f + s; }
"""
CG_SOURCE = """
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void app_cg_apply(SYCL_REDUCER(double, rho), __global double *q, __global const double *p, uint n) {
    size_t i = get_global_id(0);
    double left = i > 0 ? p[i - 1] : 0.0, right = i + 1 < n ? p[i + 1] : 0.0;
    q[i] = 2.0 * p[i] - left - right;
    SYCL_COMBINE(rho, p[i] * q[i]);
}
__kernel void app_cg_update(SYCL_REDUCER(double, rr), __global double *x, __global double *r,
                            __global const double *p, __global const double *q, double alpha) {
    size_t i = get_global_id(0);
    x[i] += alpha * p[i];
    r[i] -= alpha * q[i];
    SYCL_COMBINE(rr, r[i] * r[i]);
}
__kernel void app_cg_direction(__global double *p, __global const double *r, double beta) {
    size_t i = get_global_id(0);
    p[i] = r[i] + beta * p[i];
}
"""
# The raw CG's kernels: each work-group of WG items leaves its partial sum in ``part``.
WG = 128
RAW_CG_SOURCE = f"""
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define WG {WG}
double group_sum(double v, __local double *scratch) {{
    size_t l = get_local_id(0);
    scratch[l] = v;
    for (size_t s = WG / 2; s > 0; s >>= 1) {{
        barrier(CLK_LOCAL_MEM_FENCE);
        if (l < s) scratch[l] += scratch[l + s];
    }}
    return scratch[0];
}}
__kernel void raw_cg_apply(__global double *part, __global double *q, __global const double *p, uint n) {{
    __local double scratch[WG];
    size_t i = get_global_id(0);
    double left = i > 0 ? p[i - 1] : 0.0, right = i + 1 < n ? p[i + 1] : 0.0;
    q[i] = 2.0 * p[i] - left - right;
    double s = group_sum(p[i] * q[i], scratch);
    if (get_local_id(0) == 0) part[get_group_id(0)] = s;
}}
__kernel void raw_cg_update(__global double *part, __global double *x, __global double *r,
                            __global const double *p, __global const double *q, double alpha) {{
    __local double scratch[WG];
    size_t i = get_global_id(0);
    x[i] += alpha * p[i];
    r[i] -= alpha * q[i];
    double s = group_sum(r[i] * r[i], scratch);
    if (get_local_id(0) == 0) part[get_group_id(0)] = s;
}}
__kernel void raw_cg_direction(__global double *p, __global const double *r, double beta) {{
    size_t i = get_global_id(0);
    p[i] = r[i] + beta * p[i];
}}
"""
sycl.register_kernel_source(SOURCE, device_has=[sycl.aspect.fp64])
sycl.register_kernel_source(CG_SOURCE, device_has=[sycl.aspect.fp64])


def _per_iteration(iterations: int, body: Callable[[], None]) -> Callable[[], float]:
    """A sample function: milliseconds per iteration of ``body``, which runs ``iterations``."""
    import time

    def sample() -> float:
        start = time.perf_counter()
        body()
        return (time.perf_counter() - start) / iterations * 1e3
    return sample


def _program(ctx: cl.Context, source: str) -> cl.Program:
    return cl.Program(ctx, source).build()


def _fp64(env: Env) -> None:
    if not env.device.has(sycl.aspect.fp64):
        raise Unavailable("needs fp64")


# --- Jacobi on one device --------------------------------------------------------------------


def _grid(env: Env, side: int) -> tuple[int, int, int]:
    """(rows, cols, iterations per sample): ``side``^2 on a GPU; 64 x 256 on a CPU."""
    rows = env.size(gpu=side, cpu=64, quick=16)
    cols = env.size(gpu=side, cpu=256, quick=64)
    return rows, cols, env.size(gpu=200 if side <= 4096 else 50, cpu=200, quick=4)


def _start(rows: int, cols: int) -> np.ndarray:
    """A slab of ``rows`` rows and its two halo rows."""
    i = np.arange(rows + 2, dtype=np.float64)[:, None]
    j = np.arange(cols, dtype=np.float64)[None, :]
    return np.sin(0.1 * i) * np.cos(0.07 * j) + (i == 0)


def _raw_jacobi(side: int) -> Callable[[Env], Callable[[], float]]:
    def factory(env: Env) -> Callable[[], float]:
        _fp64(env)
        rows, cols, iterations = _grid(env, side)
        ctx = env.raw_context()
        queue = cl.CommandQueue(ctx)
        kernel = cl.Kernel(_program(ctx, SOURCE), "app_jacobi_rows")
        kernel.set_scalar_arg_dtypes([None, None, np.int32, np.int32])
        flags = cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR
        start = _start(rows, cols)
        slabs = [cl.Buffer(ctx, flags, hostbuf=start) for _ in range(2)]
        row = cols * 8

        def parts(whole: cl.Buffer) -> list[tuple[cl.Buffer, int, int]]:
            """(sub-buffer, first row, rows): the top row, the bottom row, the inner rows."""
            return [(whole.get_sub_region(row * first, row * count), first, count)
                    for first, count in ((1, 1), (rows, 1), (2, rows - 2))]
        subs = [parts(s) for s in slabs]  # made once, as an expert caches them

        def body() -> None:
            src = 0
            for _ in range(iterations):
                for sub, first, count in subs[1 - src]:
                    kernel.set_args(slabs[src], sub, cols, first)
                    cl.enqueue_nd_range_kernel(queue, kernel, (cols - 2, count), None)
                src = 1 - src
            queue.finish()
        return _per_iteration(iterations, body)
    return factory


class _Slab:
    """A slab in one buffer cut into sub-buffers as in examples/mpi_jacobi.py."""

    def __init__(self, values: np.ndarray) -> None:
        rows, cols = values.shape[0] - 2, values.shape[1]
        self.whole = sycl.buffer(values.copy())

        def part(first: int, count: int) -> sycl.buffer:
            return sycl.buffer(self.whole, sycl.id(first, 0), sycl.range(count, cols))
        self.parts = [(part(1, 1), 1), (part(rows, 1), rows), (part(2, rows - 2), 2)]


def _jacobi_launch(q: sycl.queue, src: sycl.buffer, dst: sycl.buffer, first_row: int) -> None:
    rows, cols = dst.get_range()
    q.submit(lambda h: h.parallel_for(
        sycl.range(rows, cols - 2), "app_jacobi_rows",
        sycl.accessor(src, h, sycl.read_only), sycl.accessor(dst, h, sycl.write_only), cols, first_row,
    ))


def _sycl_jacobi(side: int) -> Callable[[Env], Callable[[], float]]:
    def factory(env: Env) -> Callable[[], float]:
        _fp64(env)
        rows, cols, iterations = _grid(env, side)
        q, start = env.queue(), _start(rows, cols)
        slabs = [_Slab(start), _Slab(start)]

        def body() -> None:
            src, dst = slabs
            for _ in range(iterations):
                for part, first in dst.parts:
                    _jacobi_launch(q, src.whole, part, first)
                src, dst = dst, src
            q.wait()
        return _per_iteration(iterations, body)
    return factory


def _graph_jacobi(side: int) -> Callable[[Env], Callable[[], float]]:
    """The same iterations recorded once as a command graph (two iterations, the slabs
    swapped in the second) and replayed: the design whose cost per launch is raw's
    (docs/graphs.md)."""
    def factory(env: Env) -> Callable[[], float]:
        _fp64(env)
        rows, cols, iterations = _grid(env, side)
        q, start = env.queue(), _start(rows, cols)
        slabs = [_Slab(start), _Slab(start)]
        graph = sycl.ext.oneapi.experimental.command_graph(q)
        graph.begin_recording(q)
        for src, dst in (slabs, slabs[::-1]):
            for part, first in dst.parts:
                _jacobi_launch(q, src.whole, part, first)
        graph.end_recording()
        two_iterations = graph.finalize()

        def body(kept: list[_Slab] = slabs) -> None:  # a graph replays only while its buffers live
            for _ in range(iterations // 2):
                q.ext_oneapi_graph(two_iterations)
            q.wait()
        return _per_iteration(iterations // 2 * 2, body)
    return factory


def _jacobi(side: int) -> Benchmark:
    return Benchmark(
        f"apps_jacobi_{side}",
        f"one Jacobi iteration of one rank of examples/mpi_jacobi.py: three launches on sub-buffers "
        f"({side}^2 doubles on a GPU, 64 x 256 on a CPU); also recorded once as a command graph",
        "ms per iteration", "raw pyopencl",
        {"raw pyopencl": _raw_jacobi(side), "sycl_ocl": _sycl_jacobi(side),
         "sycl_ocl graph": _graph_jacobi(side)},
        target="<= 1.10 on the H100, <= 3.0 on PoCL (issue 31)",
    )


BENCHMARKS.append(_jacobi(2048))
BENCHMARKS.append(_jacobi(8192))


# --- conjugate gradients ---------------------------------------------------------------------


def _cg_shape(env: Env) -> tuple[int, int]:
    """(unknowns, iterations per sample)."""
    return env.size(gpu=1 << 22, cpu=1 << 14, quick=1 << 10), env.size(gpu=50, cpu=50, quick=3)


def _rhs(n: int) -> np.ndarray:
    return np.random.default_rng(0).random(n)


def _raw_cg(env: Env) -> Callable[[], float]:
    _fp64(env)
    n, iterations = _cg_shape(env)
    ctx = env.raw_context()
    queue = cl.CommandQueue(ctx)
    program = _program(ctx, RAW_CG_SOURCE)
    apply, update, direction = (cl.Kernel(program, f"raw_cg_{k}") for k in ("apply", "update", "direction"))
    apply.set_scalar_arg_dtypes([None, None, None, np.uint32])
    update.set_scalar_arg_dtypes([None, None, None, None, None, np.float64])
    direction.set_scalar_arg_dtypes([None, None, np.float64])
    b = _rhs(n)
    flags = cl.mem_flags.READ_WRITE
    x, r, p, q = (cl.Buffer(ctx, flags, b.nbytes) for _ in range(4))
    partials = np.empty(n // WG)
    part = cl.Buffer(ctx, flags, partials.nbytes)

    def dot() -> float:
        cl.enqueue_copy(queue, partials, part)  # blocking: the host needs the scalar now
        return float(partials.sum())

    def body() -> None:
        cl.enqueue_fill_buffer(queue, x, np.float64(0), 0, b.nbytes)
        cl.enqueue_copy(queue, r, b, is_blocking=False)
        cl.enqueue_copy(queue, p, b, is_blocking=False)
        rr = float(b @ b)
        for _ in range(iterations):
            apply(queue, (n,), (WG,), part, q, p, n)
            alpha = rr / dot()
            update(queue, (n,), (WG,), part, x, r, p, q, alpha)
            new_rr = dot()
            direction(queue, (n,), None, p, r, new_rr / rr)
            rr = new_rr
        queue.finish()
    return _per_iteration(iterations, body)


def _sycl_cg(env: Env) -> Callable[[], float]:
    _fp64(env)
    n, iterations = _cg_shape(env)
    q, b = env.queue(), _rhs(n)
    init = [sycl.property.reduction.initialize_to_identity()]
    vectors = {k: sycl.buffer(sycl.range(n), np.float64) for k in "xrpq"}
    scalars = {"rho": sycl.buffer(np.zeros(1)), "rr": sycl.buffer(np.zeros(1))}

    def read(name: str) -> float:
        return float(sycl.host_accessor(scalars[name], sycl.read_only)[0])

    def iteration(rr: float) -> float:
        """One iteration as examples/conjugate_gradient.py: the new r.r."""
        v = vectors
        q.submit(lambda h: h.parallel_for(
            n, sycl.reduction(scalars["rho"], h, sycl.plus(), prop_list=init), "app_cg_apply",
            sycl.accessor(v["q"], h), sycl.accessor(v["p"], h), n))
        alpha = rr / read("rho")
        q.submit(lambda h: h.parallel_for(
            n, sycl.reduction(scalars["rr"], h, sycl.plus(), prop_list=init), "app_cg_update",
            *(sycl.accessor(v[k], h) for k in "xrpq"), alpha))
        new_rr = read("rr")
        q.submit(lambda h: h.parallel_for(
            n, "app_cg_direction", sycl.accessor(v["p"], h), sycl.accessor(v["r"], h), new_rr / rr))
        return new_rr

    def body() -> None:
        q.fill(sycl.accessor(vectors["x"]), 0.0)
        for k in "rp":
            q.copy(b, sycl.accessor(vectors[k]))
        rr = float(b @ b)
        for _ in range(iterations):
            rr = iteration(rr)
        q.wait()
    return _per_iteration(iterations, body)


BENCHMARKS.append(Benchmark(
    "apps_cg", "an iteration of conjugate gradients as examples/conjugate_gradient.py (three launches, two "
               "reductions read back; 2^22 unknowns on a GPU, 2^14 on a CPU)",
    "ms per iteration", "raw pyopencl", {"raw pyopencl": _raw_cg, "sycl_ocl": _sycl_cg},
    target="<= 1.10 on the H100, <= 3.0 on PoCL (issue 31)",
))


# --- a time-stepping pipeline with a convergence check every k steps --------------------------

CHECK = 16  # floats read back per check


def _pipe_shape(env: Env) -> tuple[int, int, int]:
    """(floats, steps per sample, steps between checks)."""
    return (env.size(gpu=1 << 24, cpu=1 << 14, quick=1 << 10), env.size(gpu=400, cpu=400, quick=8),
            env.size(gpu=10, cpu=10, quick=2))


def _raw_pipeline(blocking: bool) -> Callable[[Env], Callable[[], float]]:
    def factory(env: Env) -> Callable[[], float]:
        return _raw_pipeline_loop(env, blocking)
    return factory


def _raw_pipeline_loop(env: Env, blocking: bool) -> Callable[[], float]:
    """The raw twin: a non-blocking read checked one window later, or (``blocking``, the twin
    of a host accessor) a read the host waits for at once."""
    n, steps, k = _pipe_shape(env)
    ctx = env.raw_context()
    queue = cl.CommandQueue(ctx)
    kernel = cl.Kernel(_program(ctx, SOURCE), "app_step")
    kernel.set_scalar_arg_dtypes([None, np.float32])
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=filled(n))
    checks = [np.empty(CHECK, np.float32) for _ in range(2)]

    def body() -> None:
        pending: cl.Event | None = None
        for step in range(1, steps + 1):
            kernel(queue, (n,), None, buf, 1.0)
            if step % k == 0 and blocking:
                cl.enqueue_copy(queue, checks[0], buf)
            elif step % k == 0:
                if pending is not None:
                    pending.wait()  # the last window's check, while this window's kernels run
                pending = cl.enqueue_copy(queue, checks[step // k % 2], buf, is_blocking=False)
        queue.finish()
    return _per_iteration(steps, body)


def _sycl_pipeline(copy: bool) -> Callable[[Env], Callable[[], float]]:
    def factory(env: Env) -> Callable[[], float]:
        n, steps, k = _pipe_shape(env)
        q, buf = env.queue(), sycl.buffer(filled(n))
        checks = [np.empty(CHECK, np.float32) for _ in range(2)]
        window = sycl.accessor(buf, mode=sycl.read_only, access_range=sycl.range(CHECK))  # a placeholder

        def cgf(h: sycl.handler) -> None:
            h.parallel_for(n, "app_step", sycl.accessor(buf, h), 1.0)

        def body() -> None:
            pending: sycl.event | None = None
            for step in range(1, steps + 1):
                q.submit(cgf)
                if step % k == 0 and copy:
                    if pending is not None:
                        pending.wait()
                    pending = q.copy(window, checks[step // k % 2])
                elif step % k == 0:
                    with sycl.host_accessor(buf, sycl.read_only, sycl.range(CHECK)) as acc:
                        checks[0][:] = acc
            q.wait()
        return _per_iteration(steps, body)
    return factory


BENCHMARKS.append(Benchmark(
    "apps_pipeline", f"a time step of one kernel, {CHECK} floats read back every 10 steps and checked one "
                     "window later (2^24 floats on a GPU, 2^14 on a CPU)",
    "ms per step", "raw pyopencl", {
        "raw pyopencl": _raw_pipeline(blocking=False), "sycl_ocl copy": _sycl_pipeline(copy=True),
        "sycl_ocl host_accessor": _sycl_pipeline(copy=False),
    }, target="<= 1.10 on the H100, <= 3.0 on PoCL (issue 31)",
))
# The host accessor waits for the kernels before it, as a blocking read does: its own twin.
BENCHMARKS.append(Benchmark(
    "apps_pipeline_sync", f"the same time step, {CHECK} floats read every 10 steps by a read the host "
                          "waits for at once (a host accessor; raw: a blocking read)",
    "ms per step", "raw pyopencl", {
        "raw pyopencl": _raw_pipeline(blocking=True), "sycl_ocl host_accessor": _sycl_pipeline(copy=False),
    }, target="<= 1.10 on the H100, <= 3.0 on PoCL (issue 31)",
))


# --- several GPUs in one process ---------------------------------------------------------------


def _devices(env: Env) -> list[sycl.device]:
    """The device and its peers of one platform and type (at most four)."""
    kind = sycl.info.device.device_type
    peers = [d for d in env.device.get_platform().get_devices()
             if d != env.device and d.get_info(kind) == env.device.get_info(kind)]
    if not peers:
        raise Unavailable("needs two devices of one platform")
    return [env.device, *peers][:4]


def _gpus_shape(env: Env) -> tuple[int, int, int]:
    """(floats, multiply-adds per float per launch, launches per sample)."""
    return (env.size(gpu=1 << 25, cpu=1 << 16, quick=1 << 12), env.size(gpu=20_000, cpu=200, quick=10),
            env.size(gpu=5, cpu=5, quick=2))


def _compute(q: sycl.queue, buf: sycl.buffer, count: int, fmas: int) -> None:
    q.submit(lambda h: h.parallel_for(count, "bench_compute", sycl.accessor(buf, h), fmas))


# A layout: the queues over ``devs``, and how to put a host array in buffers for them (the parts
# each queue computes, and the whole buffer they are cut from, or None).
Parts = Callable[[np.ndarray], tuple[list[sycl.buffer], sycl.buffer | None]]
Layout = Callable[[list[sycl.device]], tuple[list[sycl.queue], Parts]]


def _split(count: int) -> Parts:
    def parts(host: np.ndarray) -> tuple[list[sycl.buffer], sycl.buffer | None]:
        whole, chunk = sycl.buffer(host), host.size // count
        return [sycl.buffer(whole, sycl.id(k * chunk), sycl.range(chunk)) for k in range(count)], whole
    return parts


def _default_context(devs: list[sycl.device]) -> tuple[list[sycl.queue], Parts]:
    """As users write it: a queue per device (the default context), sub-buffers of one buffer."""
    return [sycl.queue(d) for d in devs], _split(len(devs))


def _one_context(devs: list[sycl.device]) -> tuple[list[sycl.queue], Parts]:
    ctx = sycl.context(devs)
    return [sycl.queue(ctx, d) for d in devs], _split(len(devs))


def _context_each(devs: list[sycl.device]) -> tuple[list[sycl.queue], Parts]:
    def parts(host: np.ndarray) -> tuple[list[sycl.buffer], sycl.buffer | None]:
        chunk = host.size // len(devs)
        return [sycl.buffer(host[k * chunk:(k + 1) * chunk]) for k in range(len(devs))], None
    return [sycl.queue(sycl.context(d), d) for d in devs], parts


def _one_device(devs: list[sycl.device]) -> tuple[list[sycl.queue], Parts]:
    return [sycl.queue(sycl.context(devs[0]), devs[0])], lambda host: ([sycl.buffer(host)], None)


def _sycl_gpus(layout: Layout, all_devices: bool, steady: bool) -> Callable[[Env], Callable[[], float]]:
    def factory(env: Env) -> Callable[[], float]:
        n, fmas, launches = _gpus_shape(env)
        queues, make = layout(_devices(env) if all_devices else [env.device])
        host = filled(n)

        def compute(parts: list[sycl.buffer]) -> None:
            for _ in range(launches):
                for q, part in zip(queues, parts, strict=True):
                    _compute(q, part, part.size(), fmas)

        if steady:
            parts, _ = make(host)  # sub-buffers hold their parent

            def body() -> None:
                compute(parts)
                for q in queues:
                    q.wait()
            body()  # the parts move to their devices once, outside the samples
            return _per_iteration(launches, body)

        def end_to_end() -> None:
            parts, whole = make(host)
            with contextlib.ExitStack() as alive:  # every part computes before any is written back
                for buf in [whole, *parts] if whole is not None else parts:
                    alive.enter_context(buf)
                compute(parts)
        return _per_iteration(launches, end_to_end)
    return factory


def _raw_gpus(all_devices: bool, steady: bool) -> Callable[[Env], Callable[[], float]]:
    def factory(env: Env) -> Callable[[], float]:
        n, fmas, launches = _gpus_shape(env)
        devs = [d._native for d in (_devices(env) if all_devices else [env.device])]
        host, chunk = filled(n), n // len(devs)
        lanes = []
        for k, dev in enumerate(devs):
            ctx = cl.Context([dev])
            kernel = cl.Kernel(_program(ctx, COMPUTE_SOURCE), "bench_compute")
            kernel.set_scalar_arg_dtypes([None, np.uint32])
            view = host[k * chunk:(k + 1) * chunk]
            buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, view.nbytes)
            lanes.append((cl.CommandQueue(ctx), kernel, buf, view))

        def body() -> None:
            if not steady:
                for queue, _, buf, view in lanes:
                    cl.enqueue_copy(queue, buf, view, is_blocking=False)
            for _ in range(launches):
                for queue, kernel, buf, view in lanes:
                    kernel(queue, (view.size,), None, buf, fmas)
                    queue.flush()
            done = [cl.enqueue_copy(q, view, buf, is_blocking=False) for q, _, buf, view in lanes] \
                if not steady else [cl.enqueue_marker(q) for q, *_ in lanes]
            for q, *_ in lanes:
                q.flush()
            for event in done:
                event.wait()
        if steady:
            for queue, _, buf, view in lanes:
                cl.enqueue_copy(queue, buf, view)
        return _per_iteration(launches, body)
    return factory


def _gpus(steady: bool) -> Benchmark:
    how = "steady state (each part stays on its device)" if steady else "end to end (up, compute, back)"
    return Benchmark(
        f"apps_gpus_{'steady' if steady else 'e2e'}",
        f"a compute-bound kernel split over every device of the platform (at most four), {how}; per launch "
        "round (2^25 floats, 20,000 multiply-adds each on GPUs)", "ms per launch round", "raw pyopencl", {
            "raw pyopencl": _raw_gpus(False, steady),
            "raw pyopencl, all devices": _raw_gpus(True, steady),
            "sycl_ocl": _sycl_gpus(_one_device, False, steady),
            "sycl_ocl default context": _sycl_gpus(_default_context, True, steady),
            "sycl_ocl one context": _sycl_gpus(_one_context, True, steady),
            "sycl_ocl context per device": _sycl_gpus(_context_each, True, steady),
        }, target="two GPUs: default context <= 0.625 end to end (1.6x), all <= 0.53 steady (issue 31)",
        max_rounds=5,
    )


BENCHMARKS.append(_gpus(steady=True))
BENCHMARKS.append(_gpus(steady=False))

