"""examples/mpi_jacobi.py's raw twin: the same Jacobi iteration and halo exchange in raw
PyOpenCL and mpi4py, as someone who knows OpenCL writes it (issue 31).

One in-order queue per rank; sub-buffers of the boundary and inner rows made once; each
iteration enqueues the two boundary-row kernels, non-blocking reads of the two rows behind
them, and the inner kernel, flushes, waits for the two reads only, exchanges the rows with
two ``Sendrecv`` while the inner kernel runs, and writes the halos back non-blocking (the
in-order queue orders them before the next iteration's kernels; the next iteration's reads
come after them, so waiting for those also means the host halo rows are free again).

Same arguments and JSON line as the example (``--rows``, ``--cols``, ``--iterations``,
``--check``), run the same way: ``mpiexec -n 2 python bench/mpi_jacobi_raw.py``.

Variants, for finding where an exchange's time goes (docs/performance.md, "What the exchange
costs"): ``--pinned`` keeps the four host rows in pinned memory (mapped
``CL_MEM_ALLOC_HOST_PTR`` buffers); ``--two-queues`` enqueues the inner rows on a queue of their
own, ordered against the boundary rows by events (the boundary kernels wait for the last inner
kernel, the inner kernel for the last boundary kernel: the only dependencies between them),
so the inner kernel does not queue behind the transfers; ``--ahead`` (with ``--two-queues``)
enqueues the next step's inner kernel right behind this step's boundary kernels, before the
exchange, so that the device always has an inner kernel queued while the host waits and
exchanges; ``--no-exchange`` runs the ranks side by side without exchanging (what running
several GPUs at once costs by itself); ``--profile`` adds to the JSON line, per rank, the host
loop's phases (enqueue, wait for the rows, MPI, the halo writes) and, from profiling events,
the inner kernel's duration and the device's idle time between consecutive inner kernels
(microseconds per iteration; median and mean).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import re
import time
from typing import Any

import numpy as np
import pyopencl as cl
from mpi4py import MPI

SOURCE = """
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void jacobi_rows(__global const double *u, __global double *dst, int cols, int first_row) {
    int j = get_global_id(0) + 1, r = get_global_id(1), i = first_row + r;
    dst[r * cols + j] = 0.25 * (u[(i - 1) * cols + j] + u[(i + 1) * cols + j]
                                + u[i * cols + j - 1] + u[i * cols + j + 1]);
}
"""
NOTHING = np.empty(0)


def initial(first_row: int, rows: int, cols: int) -> np.ndarray:
    """As examples/mpi_jacobi.py: rows ``first_row..`` of the global start grid."""
    i = np.arange(first_row, first_row + rows, dtype=np.float64)[:, None]
    j = np.arange(cols, dtype=np.float64)[None, :]
    return np.sin(0.1 * i) * np.cos(0.07 * j) + (i == 0)


def rank_device(local_rank: int) -> tuple[cl.Device, int]:
    """Round robin over the GPUs of the first platform that has any, else over its CPUs; the
    platforms whose "platform / device" names match ``SYCL_OCL_DEVICE`` (a regex) only, where set."""
    pattern = re.compile(os.environ.get("SYCL_OCL_DEVICE", ""), re.IGNORECASE)
    for kind in (cl.device_type.GPU, cl.device_type.CPU):
        for platform in cl.get_platforms():
            try:
                found = [d for d in platform.get_devices(kind)
                         if pattern.search(f"{platform.name} / {d.name}")]
            except cl.Error:
                continue
            if found:
                return found[local_rank % len(found)], local_rank % len(found)
    raise SystemExit("no OpenCL device")


class Slab:
    """A slab buffer and, made once, its sub-buffers: (sub-buffer, first row, rows) of the top
    row, the bottom row and the inner rows."""

    def __init__(self, ctx: cl.Context, queue: cl.CommandQueue, values: np.ndarray) -> None:
        rows, cols = values.shape[0] - 2, values.shape[1]
        self.buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, values.nbytes)
        cl.enqueue_copy(queue, self.buf, values)
        row = cols * 8
        self.parts = [(self.buf.get_sub_region(row * first, row * count), first, count)
                      for first, count in ((1, 1), (rows, 1), (2, rows - 2))]
        self.row, self.rows = row, rows


class Exchange:
    """One rank's side of the exchange: its neighbours, its queues, its four host rows
    and, with ``--profile``, the host loop's phase times and the inner kernels' events."""

    def __init__(self, args: argparse.Namespace, comm: Any, ctx: cl.Context) -> None:
        rank, size = comm.Get_rank(), comm.Get_size()
        alone = args.no_exchange
        self.comm, self.args = comm, args
        self.up = rank - 1 if rank > 0 and not alone else MPI.PROC_NULL
        self.down = rank + 1 if rank < size - 1 and not alone else MPI.PROC_NULL
        props = cl.command_queue_properties.PROFILING_ENABLE if args.profile else 0
        self.queue = cl.CommandQueue(ctx, properties=props)
        self.compute = cl.CommandQueue(ctx, properties=props) if args.two_queues else self.queue
        self.rows = [self.pinned_row(ctx, args.cols) if args.pinned else np.empty(args.cols)
                     for _ in range(4)]
        # the last boundary kernel, and the inner kernels of the last step and (--ahead) the next
        self.last_boundary: cl.Event | None = None
        self.previous_inner: cl.Event | None = None
        self.current_inner: cl.Event | None = None
        self.phases = dict.fromkeys(("enqueue", "wait", "mpi", "write"), 0.0)
        self.inner: list[cl.Event] = []

    def pinned_row(self, ctx: cl.Context, cols: int) -> np.ndarray:
        """A row of pinned host memory: a ``CL_MEM_ALLOC_HOST_PTR`` buffer, mapped for good."""
        pinned = cl.Buffer(ctx, cl.mem_flags.ALLOC_HOST_PTR | cl.mem_flags.READ_WRITE, cols * 8)
        flags = cl.map_flags.READ | cl.map_flags.WRITE
        row: np.ndarray = cl.enqueue_map_buffer(self.queue, pinned, flags, 0, (cols,), np.float64)[0]
        return row

    def finish(self) -> None:
        self.queue.finish()
        self.compute.finish()

    def reset(self) -> None:
        """Forget the warm-up's phase times and events."""
        self.phases = dict.fromkeys(self.phases, 0.0)
        self.inner.clear()

    def profile(self, iterations: int) -> dict[str, float]:
        """Microseconds per iteration: the phases, the inner kernel and the device's idle time
        between consecutive inner kernels."""
        spans = [(e.profile.start, e.profile.end) for e in self.inner]
        gaps = [(later[0] - earlier[1]) / 1e3 for earlier, later in itertools.pairwise(spans)]
        return {**{k: v / iterations * 1e6 for k, v in self.phases.items()},
                "inner_median": float(np.median([(end - begin) / 1e3 for begin, end in spans])),
                "idle_median": float(np.median(gaps)), "idle_mean": float(np.mean(gaps))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=64)
    parser.add_argument("--cols", type=int, default=256)
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--check", action=argparse.BooleanOptionalAction, default=True)
    for variant in ("pinned", "two-queues", "ahead", "no-exchange", "profile"):
        parser.add_argument(f"--{variant}", action="store_true")
    args = parser.parse_args()
    if args.ahead and not args.two_queues:
        parser.error("--ahead enqueues the next inner kernel before this step's transfers: add --two-queues")
    if args.no_exchange and args.check:
        parser.error("--no-exchange computes each slab alone: add --no-check")
    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    dev, index = rank_device(comm.Split_type(MPI.COMM_TYPE_SHARED).Get_rank())
    ctx = cl.Context([dev])
    ex = Exchange(args, comm, ctx)
    queue, up, down = ex.queue, ex.up, ex.down
    kernel = cl.Kernel(cl.Program(ctx, SOURCE).build(), "jacobi_rows")
    kernel.set_scalar_arg_dtypes([None, None, np.int32, np.int32])
    rows, cols = args.rows, args.cols
    start = initial(rank * rows, rows + 2, cols)
    slabs = [Slab(ctx, queue, start), Slab(ctx, queue, start)]
    top, bottom, halo_top, halo_bottom = ex.rows
    clock = time.perf_counter

    def inner(src: Slab, dst: Slab, after: cl.Event | None) -> cl.Event:
        """Enqueue the update of ``dst``'s inner rows from ``src``, after ``after`` (two queues)."""
        (inner_sub, first, count) = dst.parts[2]
        wait_for = [after] if args.two_queues and after is not None else None
        event = kernel(ex.compute, (cols - 2, count), None, src.buf, inner_sub, cols, first,
                       wait_for=wait_for)
        if args.profile:
            ex.inner.append(event)
        return event

    def step(src: Slab, dst: Slab, ahead: bool = False) -> None:
        (top_sub, *top_at), (bottom_sub, *bottom_at), _ = dst.parts
        reads: list[Any] = []
        began = clock()
        previous_boundary = ex.last_boundary
        after_inner = [ex.previous_inner] if args.two_queues and ex.previous_inner is not None else None
        boundary = ((top_sub, top_at, top, up), (bottom_sub, bottom_at, bottom, down))
        for sub, (first, count), host, peer in boundary:
            ex.last_boundary = kernel(queue, (cols - 2, count), None, src.buf, sub, cols, first,
                                      wait_for=after_inner)
            if peer != MPI.PROC_NULL:
                at = dst.row * first
                reads.append(cl.enqueue_copy(queue, host, dst.buf, src_offset=at, is_blocking=False))
        if ex.current_inner is None:  # not enqueued ahead by the step before
            ex.current_inner = inner(src, dst, previous_boundary)
        following = inner(dst, src, ex.last_boundary) if ahead else None  # the next step's inner rows
        ex.previous_inner, ex.current_inner = ex.current_inner, following
        queue.flush()
        ex.compute.flush()
        enqueued = clock()
        cl.wait_for_events(reads) if reads else None
        waited = clock()
        comm.Sendrecv(top if up != MPI.PROC_NULL else NOTHING, up, 0,
                      halo_bottom if down != MPI.PROC_NULL else NOTHING, down, 0)
        comm.Sendrecv(bottom if down != MPI.PROC_NULL else NOTHING, down, 0,
                      halo_top if up != MPI.PROC_NULL else NOTHING, up, 0)
        exchanged = clock()
        if up != MPI.PROC_NULL:
            cl.enqueue_copy(queue, dst.buf, halo_top, dst_offset=0, is_blocking=False)
        if down != MPI.PROC_NULL:
            at = dst.row * (dst.rows + 1)
            cl.enqueue_copy(queue, dst.buf, halo_bottom, dst_offset=at, is_blocking=False)
        if args.profile:
            times = (enqueued - began, waited - enqueued, exchanged - waited, clock() - exchanged)
            for phase, seconds in zip(ex.phases, times, strict=True):
                ex.phases[phase] += seconds

    src, dst = slabs
    step(src, dst)  # warm-up
    src, dst = dst, src
    ex.finish()
    ex.reset()
    comm.Barrier()
    began = time.perf_counter()
    for i in range(args.iterations):
        step(src, dst, ahead=args.ahead and i < args.iterations - 1)
        src, dst = dst, src
    ex.finish()
    comm.Barrier()
    seconds = time.perf_counter() - began
    mine = np.empty((rows + 2, cols))
    cl.enqueue_copy(queue, mine, src.buf)
    result = comm.gather(mine[1:-1], root=0)
    seconds = comm.reduce(seconds, op=MPI.MAX, root=0)
    profiles = comm.gather(ex.profile(args.iterations) if args.profile else None, root=0)
    if rank:
        return
    checked = "skipped"
    if args.check:
        u = initial(0, size * rows + 2, cols)
        for _ in range(args.iterations + 1):
            v = u.copy()
            v[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
            u = v
        np.testing.assert_allclose(np.concatenate(result), u[1:-1], rtol=1e-12, atol=1e-12)
        checked = "ok"
    variant = {name: getattr(args, name) for name in ("pinned", "two_queues", "ahead", "no_exchange")}
    print(json.dumps({
        "ranks": size, "grid_per_rank": [rows, cols], "iterations": args.iterations, "seconds": seconds,
        "per_iteration_s": seconds / args.iterations, "check": checked, "device": dev.name, "raw": True,
        "device_index_rank0": index, "variant": variant,
        **({"profile_us": profiles} if args.profile else {}),
    }))


if __name__ == "__main__":
    main()
