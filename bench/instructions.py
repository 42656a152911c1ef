"""Instructions per command, counted by valgrind's callgrind: figures a loaded machine cannot
blur, for comparing two versions of the submit path, and each against raw PyOpenCL.

Each scenario is a loop of one kind of command on PoCL, held: the queue waits on a user event
while the loop runs, so no kernel executes and only the submitting thread works. The loop runs
``SMALL`` and ``LARGE`` times in two child processes under callgrind; the difference of their
main-thread instruction counts, divided by the difference of the counts, is the cost of one
command (PoCL's worker threads and the scheduler's threads are left out). Graph scenarios
replay a chain of ``CHAIN`` kernels and divide by the kernels.

Scenarios (``raw_*`` are the PyOpenCL baselines of the same loop):

- ``raw_buffers``: ``set_args(a, b)`` + ``enqueue_nd_range_kernel`` on two ``cl.Buffer``;
- ``held_submit``: ``q.submit`` of the same two-accessor ``parallel_for``, repeated (after the
  first, the plan cache replays its plan);
- ``alternating_submit``: two command groups in turn, ``a += b`` and ``b += a`` (a ping-pong):
  each memory object alternates between two layouts, whose plans replay from the third round;
- ``raw_svm``: ``set_args`` of two SVM pointers + enqueue;
- ``usm_shortcut``: ``q.parallel_for(n, kernel, p, q)`` with two USM pointers;
- ``raw_triad``: ``set_args(a, b, c, s)`` + enqueue of the STREAM triad;
- ``triad_submit``: ``q.submit`` of the triad over three buffers, its output accessor
  ``no_init`` (the buffer keeps that kind's window, so the plans replay as for two);
- ``reduction_submit``: ``q.submit`` of a sum into a one-element buffer (``sycl.reduction``
  with ``initialize_to_identity``, built in the command group as a user writes it) over a
  read-only accessor, repeated (bench/reduction.py's loop);
- ``raw_chain``: the chain's kernel, ``set_args(buf, s)`` + enqueue;
- ``eager_chain``: the chain's command group submitted eagerly (one accessor and a scalar);
- ``raw_jacobi`` / ``jacobi_submit``: bench/apps.py's Jacobi step, three launches of a 2-D
  kernel on sub-buffers of a slab (the boundary rows, then the inner rows), its slabs swapped
  each step; raw: ``set_args`` + enqueue on sub-buffers made once;
- ``two_queue_jacobi``: ``jacobi_submit`` with the inner rows on a second queue of the same
  context (examples/mpi_jacobi.py ``--two-queues``): every launch waits for one of the other
  queue (rule S7);
- ``raw_checked`` / ``checked_submit``: bench/apps.py's pipeline with a check, per window: ten
  kernels on one buffer, then 16 floats read by the host (a host accessor; raw: a blocking
  read), the queue not held (the check waits for the kernels);
- ``graph_replay`` / ``graph_replay_fallback``: a recorded chain replayed, as a native command
  buffer / as prepared kernels (``SYCL_OCL_GRAPH_NATIVE=0``);
- ``raw_halo``: a halo exchange's commands on a 2-D buffer of ``HALO_ROWS`` x ``N`` floats: the
  chain's kernel over it, a non-blocking ``enqueue_copy`` of row 1 into a host row and one of
  a host row into row 0; counted per exchange (three commands). Not held: PoCL blocks a
  transfer queued behind a user event, so the loop runs free (the main thread's count leaves
  its waits out);
- ``halo_copies``: the same through sycl_ocl as examples/mpi_jacobi.py writes it: the kernel,
  ``q.copy`` of placeholder accessors of two one-row sub-buffers;
- ``halo_handler_copies``: the copies as ``q.submit`` of ``h.copy`` with ranged accessors.

Run: ``python bench/instructions.py [--scenario NAME ...] [CHECKOUT ...]``: each CHECKOUT is a
directory holding a ``sycl_ocl`` package (``git archive <commit> sycl_ocl kernels_cl | tar -x -C
DIR``); none: the installed sycl_ocl. A scenario the checkout cannot run prints its error.
"""

from __future__ import annotations

import argparse
import gc
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

SMALL, LARGE = 200, 2200
CHAIN = 1000  # kernels per recorded chain
REPLAYS = (2, 12)  # replays counted by the graph scenarios
N = 64
HALO_ROWS = 8
HALO_COUNTS = (100, 600)  # fewer exchanges: each read waits for the kernel before it, under valgrind
SOURCE = """
__kernel void bench_add(__global float* a, __global const float* b)
{ size_t i = get_global_id(0); a[i] += b[i]; }
__kernel void bench_halve_add(__global float* a, float s)
{ size_t i = get_global_id(0); a[i] = a[i] * 0.5f + s; }
__kernel void bench_triad(__global float* a, __global const float* b, __global const float* c, float s)
{ size_t i = get_global_id(0); a[i] = b[i] + s * c[i]; }
"""
REDUCTION_SOURCE = """
__kernel void bench_sum(SYCL_REDUCER(float, sum), __global const float *x)
{ SYCL_COMBINE(sum, x[get_global_id(0)]); }
"""


def _pocl() -> tuple[Any, Any, Any]:
    """(sycl_ocl, pyopencl, the first PoCL device)."""
    os.environ.setdefault("POCL_DEVICES", "pthread")
    import pyopencl as cl

    import sycl_ocl as sycl

    sycl.register_kernel_source(SOURCE)
    dev = next(p for p in sycl.platform.get_platforms()
               if "Portable" in p.get_info(sycl.info.platform.name)).get_devices()[0]
    return sycl, cl, dev


def _held(cl: Any, gate: Any, count: int, body: Callable[[], Any], finish: Callable[[], Any]) -> None:
    """``count`` calls of ``body`` while the queue waits on ``gate``; then open it and ``finish``.

    The loop starts from a full collection, so that the garbage collector's counters do not
    carry the setup's allocations into it: otherwise whether one more collection of an older
    generation falls inside the longer run depends on what the setup left (a module more or
    less), which moved the figure per command by about 1,200 instructions."""
    gc.collect()
    for _ in range(count):
        body()
    gate.set_status(cl.command_execution_status.COMPLETE)
    finish()


def _raw_free(cl: Any, dev: Any, name: str, dtypes: list[Any]) -> tuple[Any, Any, Any]:
    """(context, queue, kernel) of raw PyOpenCL."""
    ctx = cl.Context([dev._native])
    queue = cl.CommandQueue(ctx)
    kernel = cl.Kernel(cl.Program(ctx, SOURCE).build(), name)
    kernel.set_scalar_arg_dtypes(dtypes)
    return ctx, queue, kernel


def _raw_queue(cl: Any, dev: Any, name: str, dtypes: list[Any]) -> tuple[Any, Any, Any, Any]:
    """(context, queue, kernel, gate) of raw PyOpenCL, the queue held behind a marker."""
    ctx, queue, kernel = _raw_free(cl, dev, name, dtypes)
    gate = cl.UserEvent(ctx)
    cl.enqueue_marker(queue, wait_for=[gate])
    return ctx, queue, kernel, gate


def _held_raw(count: int, svm: bool) -> None:
    import numpy as np

    _, cl, dev = _pocl()
    ctx, queue, kernel, gate = _raw_queue(cl, dev, "bench_add", [None, None])
    if svm:
        a, b = (cl.SVM(cl.svm_empty(ctx, cl.svm_mem_flags.READ_WRITE, N, np.float32)) for _ in range(2))
    else:
        a, b = (cl.Buffer(ctx, cl.mem_flags.READ_WRITE, N * 4) for _ in range(2))

    def body() -> None:
        kernel.set_args(a, b)
        cl.enqueue_nd_range_kernel(queue, kernel, (N,), None)
    _held(cl, gate, count, body, queue.finish)


def _raw_chain(count: int) -> None:
    import numpy as np

    _, cl, dev = _pocl()
    ctx, queue, kernel, gate = _raw_queue(cl, dev, "bench_halve_add", [None, np.float32])
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, N * 4)
    step = np.float32(1)

    def body() -> None:
        kernel.set_args(buf, step)
        cl.enqueue_nd_range_kernel(queue, kernel, (N,), None)
    _held(cl, gate, count, body, queue.finish)


def _gate(sycl: Any, cl: Any, q: Any) -> Any:
    """A user event that every later command of ``q`` waits for (a marker on its OpenCL queue)."""
    gate = cl.UserEvent(sycl.get_native(q.get_context()))
    q.submit(lambda h: h.depends_on(sycl.make_event(gate, q.get_context())))
    return gate


def _held_sycl(count: int, groups: int) -> None:
    import numpy as np

    sycl, cl, dev = _pocl()
    q = sycl.queue(dev)
    a, b = sycl.buffer(np.zeros(N, np.float32)), sycl.buffer(np.ones(N, np.float32))

    def add(x: Any, y: Any) -> Callable[[Any], None]:
        return lambda h: h.parallel_for(N, "bench_add", sycl.accessor(x, h),
                                        sycl.accessor(y, h, sycl.read_only))

    cgfs = [add(a, b), add(b, a)][:groups]
    for cgf in cgfs:
        q.submit(cgf).wait()
    submitted = iter(range(count))
    _held(cl, _gate(sycl, cl, q), count, lambda: q.submit(cgfs[next(submitted) % groups]), q.wait)


def _raw_triad(count: int) -> None:
    import numpy as np

    _, cl, dev = _pocl()
    ctx, queue, kernel, gate = _raw_queue(cl, dev, "bench_triad", [None, None, None, np.float32])
    a, b, c = (cl.Buffer(ctx, cl.mem_flags.READ_WRITE, N * 4) for _ in range(3))
    scale = np.float32(3)

    def body() -> None:
        kernel.set_args(a, b, c, scale)
        cl.enqueue_nd_range_kernel(queue, kernel, (N,), None)
    _held(cl, gate, count, body, queue.finish)


def _triad_submit(count: int) -> None:
    import numpy as np

    sycl, cl, dev = _pocl()
    q = sycl.queue(dev)
    a, b, c = (sycl.buffer(np.ones(N, np.float32)) for _ in range(3))
    no_init = [sycl.property.no_init()]

    def cgf(h: Any) -> None:
        h.parallel_for(N, "bench_triad", sycl.accessor(a, h, sycl.write_only, prop_list=no_init),
                       sycl.accessor(b, h, sycl.read_only), sycl.accessor(c, h, sycl.read_only), 3.0)
    q.submit(cgf).wait()
    _held(cl, _gate(sycl, cl, q), count, lambda: q.submit(cgf), q.wait)


def _reduction_submit(count: int) -> None:
    import numpy as np

    sycl, cl, dev = _pocl()
    sycl.register_kernel_source(REDUCTION_SOURCE)
    q = sycl.queue(dev)
    x, total = sycl.buffer(np.ones(N, np.float32)), sycl.buffer(np.zeros(1, np.float32))
    init = [sycl.property.reduction.initialize_to_identity()]

    def cgf(h: Any) -> None:
        h.parallel_for(N, sycl.reduction(total, h, sycl.plus(), prop_list=init), "bench_sum",
                       sycl.accessor(x, h, sycl.read_only))
    for _ in range(3):  # the plans replay from the third round (docs/scheduler.md rule S17)
        q.submit(cgf).wait()
    _held(cl, _gate(sycl, cl, q), count, lambda: q.submit(cgf), q.wait)


def _usm_shortcut(count: int) -> None:
    import numpy as np

    sycl, cl, dev = _pocl()
    q = sycl.queue(dev)
    pa, pb = (sycl.malloc_device(count=N, dtype=np.float32, q=q) for _ in range(2))
    q.parallel_for(N, "bench_add", pa, pb).wait()
    _held(cl, _gate(sycl, cl, q), count, lambda: q.parallel_for(N, "bench_add", pa, pb), q.wait)


def _chain_group(sycl: Any, buf: Any) -> Callable[[Any], None]:
    return lambda h: h.parallel_for(N, "bench_halve_add", sycl.accessor(buf, h), 1.0)


def _eager_chain(count: int) -> None:
    import numpy as np

    sycl, cl, dev = _pocl()
    q = sycl.queue(dev)
    buf = sycl.buffer(np.zeros(N, np.float32))
    cgf = _chain_group(sycl, buf)
    q.submit(cgf).wait()
    _held(cl, _gate(sycl, cl, q), count, lambda: q.submit(cgf), q.wait)


def _graph_replay(replays: int, native: bool) -> None:
    import numpy as np

    sycl, cl, dev = _pocl()
    from sycl_ocl.scheduler.graph import native_command_buffers  # a checkout with graphs

    q = sycl.queue(dev)
    buf = sycl.buffer(np.zeros(N, np.float32))
    g = sycl.ext.oneapi.experimental.command_graph(q.get_context(), dev)
    g.begin_recording(q)
    cgf = _chain_group(sycl, buf)
    for _ in range(CHAIN):
        q.submit(cgf)
    g.end_recording()
    with native_command_buffers(native):
        exe = g.finalize()
    q.ext_oneapi_graph(exe).wait()
    _held(cl, _gate(sycl, cl, q), replays, lambda: q.ext_oneapi_graph(exe), q.wait)


JACOBI_ROWS, JACOBI_COLS = 16, 64
JACOBI_SOURCE = """
__kernel void app_jacobi_rows(__global const float *u, __global float *dst, int cols, int first_row) {
    int j = get_global_id(0) + 1, r = get_global_id(1), i = first_row + r;
    dst[r * cols + j] = 0.25f * (u[(i - 1) * cols + j] + u[(i + 1) * cols + j]
                                 + u[i * cols + j - 1] + u[i * cols + j + 1]);
}
"""
JACOBI_PARTS = ((1, 1), (JACOBI_ROWS, 1), (2, JACOBI_ROWS - 2))  # (first row, rows)


def _raw_jacobi(steps: int) -> None:
    import numpy as np

    _, cl, dev = _pocl()
    ctx = cl.Context([dev._native])
    queue = cl.CommandQueue(ctx)
    kernel = cl.Kernel(cl.Program(ctx, JACOBI_SOURCE).build(), "app_jacobi_rows")
    kernel.set_scalar_arg_dtypes([None, None, np.int32, np.int32])
    gate = cl.UserEvent(ctx)
    cl.enqueue_marker(queue, wait_for=[gate])
    row = JACOBI_COLS * 4
    slabs = [cl.Buffer(ctx, cl.mem_flags.READ_WRITE, row * (JACOBI_ROWS + 2)) for _ in range(2)]
    parts = [[(s.get_sub_region(row * first, row * rows), first, rows) for first, rows in JACOBI_PARTS]
             for s in slabs]
    swaps = iter(range(steps))

    def body() -> None:
        src = next(swaps) % 2
        for sub, first, rows in parts[1 - src]:
            kernel.set_args(slabs[src], sub, JACOBI_COLS, first)
            cl.enqueue_nd_range_kernel(queue, kernel, (JACOBI_COLS - 2, rows), None)
    _held(cl, gate, steps, body, queue.finish)


def _jacobi_submit(steps: int) -> None:
    import numpy as np

    sycl, cl, dev = _pocl()
    sycl.register_kernel_source(JACOBI_SOURCE)
    q = sycl.queue(dev)
    wholes = [sycl.buffer(np.zeros((JACOBI_ROWS + 2, JACOBI_COLS), np.float32)) for _ in range(2)]
    parts = [[(sycl.buffer(w, sycl.id(first, 0), sycl.range(rows, JACOBI_COLS)), first)
              for first, rows in JACOBI_PARTS] for w in wholes]

    def launch(src: Any, dst: Any, first: int) -> None:
        rows, cols = dst.get_range()
        q.submit(lambda h: h.parallel_for(
            sycl.range(rows, cols - 2), "app_jacobi_rows", sycl.accessor(src, h, sycl.read_only),
            sycl.accessor(dst, h, sycl.write_only), cols, first))

    def step(src: int) -> None:
        for part, first in parts[1 - src]:
            launch(wholes[src], part, first)
    for src in (0, 1, 0, 1):  # the shapes are kept and the plans replay from here
        step(src)
    q.wait()
    swaps = iter(range(steps))
    _held(cl, _gate(sycl, cl, q), steps, lambda: step(next(swaps) % 2), q.wait)


def _two_queue_jacobi(steps: int) -> None:
    import numpy as np

    sycl, cl, dev = _pocl()
    sycl.register_kernel_source(JACOBI_SOURCE)
    q = sycl.queue(dev)
    inner_q = sycl.queue(q.get_context(), dev)
    wholes = [sycl.buffer(np.zeros((JACOBI_ROWS + 2, JACOBI_COLS), np.float32)) for _ in range(2)]
    parts = [[(sycl.buffer(w, sycl.id(first, 0), sycl.range(rows, JACOBI_COLS)), first, queue)
              for (first, rows), queue in zip(JACOBI_PARTS, (q, q, inner_q), strict=True)] for w in wholes]

    def launch(queue: Any, src: Any, dst: Any, first: int) -> None:
        rows, cols = dst.get_range()
        queue.submit(lambda h: h.parallel_for(
            sycl.range(rows, cols - 2), "app_jacobi_rows", sycl.accessor(src, h, sycl.read_only),
            sycl.accessor(dst, h, sycl.write_only), cols, first))

    def step(src: int) -> None:
        for part, first, queue in parts[1 - src]:
            launch(queue, wholes[src], part, first)
    for src in (0, 1, 0, 1):  # the shapes are kept and the plans replay from here
        step(src)
    q.wait()
    inner_q.wait()
    gate = _gate(sycl, cl, q)
    inner_q.submit(lambda h: h.depends_on(sycl.make_event(gate, q.get_context())))
    swaps = iter(range(steps))
    _held(cl, gate, steps, lambda: step(next(swaps) % 2), lambda: (q.wait(), inner_q.wait()))


CHECK_WINDOW = 10  # kernels between two checks


def _raw_checked(windows: int) -> None:
    import numpy as np

    _, cl, dev = _pocl()
    ctx, queue, kernel = _raw_free(cl, dev, "bench_halve_add", [None, np.float32])
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, N * 4)
    check, step = np.empty(16, np.float32), np.float32(1)

    def body() -> None:
        for _ in range(CHECK_WINDOW):
            kernel.set_args(buf, step)
            cl.enqueue_nd_range_kernel(queue, kernel, (N,), None)
        cl.enqueue_copy(queue, check, buf)
    gc.collect()
    for _ in range(windows):
        body()


def _checked_submit(windows: int) -> None:
    import numpy as np

    sycl, _, dev = _pocl()
    q = sycl.queue(dev)
    buf = sycl.buffer(np.zeros(N, np.float32))
    cgf = _chain_group(sycl, buf)
    check = np.empty(16, np.float32)

    def body() -> None:
        for _ in range(CHECK_WINDOW):
            q.submit(cgf)
        with sycl.host_accessor(buf, sycl.read_only, sycl.range(16)) as acc:
            check[:] = acc
    for _ in range(3):
        body()
    gc.collect()
    for _ in range(windows):
        body()
    q.wait()


def _free(count: int, body: Callable[[], Any], finish: Callable[[], Any]) -> None:
    """``count`` calls of ``body``, then ``finish`` (``_held`` without the gate)."""
    gc.collect()
    for _ in range(count):
        body()
    finish()


def _raw_halo(count: int) -> None:
    import numpy as np

    _, cl, dev = _pocl()
    ctx, queue, kernel = _raw_free(cl, dev, "bench_halve_add", [None, np.float32])
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, HALO_ROWS * N * 4)
    sent, halo, step = np.zeros(N, np.float32), np.ones(N, np.float32), np.float32(1)

    def body() -> None:
        kernel.set_args(buf, step)
        cl.enqueue_nd_range_kernel(queue, kernel, (HALO_ROWS * N,), None)
        cl.enqueue_copy(queue, sent, buf, src_offset=N * 4, is_blocking=False)
        cl.enqueue_copy(queue, buf, halo, dst_offset=0, is_blocking=False)
    body()
    queue.finish()
    _free(count, body, queue.finish)


def _halo_copies(count: int, handler: bool) -> None:
    import numpy as np

    sycl, _, dev = _pocl()
    q = sycl.queue(dev)
    buf = sycl.buffer(np.zeros((HALO_ROWS, N), np.float32))
    sent, halo, row = np.zeros(N, np.float32), np.ones(N, np.float32), sycl.range(1, N)
    send = sycl.accessor(sycl.buffer(buf, sycl.id(1, 0), row), sycl.read_only)
    recv = sycl.accessor(sycl.buffer(buf, sycl.id(0, 0), row), sycl.write_only, [sycl.property.no_init()])
    cgf = _chain_group(sycl, buf)

    def copies() -> None:
        q.submit(cgf)
        q.copy(send, sent)
        q.copy(halo, recv)

    def group_copies() -> None:
        q.submit(cgf)
        q.submit(lambda h: h.copy(sycl.accessor(buf, h, sycl.read_only, row, sycl.id(1, 0)), sent))
        q.submit(lambda h: h.copy(halo, sycl.accessor(buf, h, sycl.write_only, row, sycl.id(0, 0))))
    body = group_copies if handler else copies
    for _ in range(3):  # the plans replay from the third round (docs/scheduler.md rule S17)
        body()
    q.wait()
    _free(count, body, q.wait)


# name -> (the loop, its two counts, the commands per count unit)
SCENARIOS: dict[str, tuple[Callable[[int], None], tuple[int, int], int]] = {
    "raw_buffers": (lambda n: _held_raw(n, svm=False), (SMALL, LARGE), 1),
    "held_submit": (lambda n: _held_sycl(n, groups=1), (SMALL, LARGE), 1),
    "alternating_submit": (lambda n: _held_sycl(n, groups=2), (SMALL, LARGE), 1),
    "raw_svm": (lambda n: _held_raw(n, svm=True), (SMALL, LARGE), 1),
    "usm_shortcut": (_usm_shortcut, (SMALL, LARGE), 1),
    "raw_triad": (_raw_triad, (SMALL, LARGE), 1),
    "triad_submit": (_triad_submit, (SMALL, LARGE), 1),
    "reduction_submit": (_reduction_submit, (SMALL, LARGE), 1),
    "raw_chain": (_raw_chain, (SMALL, LARGE), 1),
    "eager_chain": (_eager_chain, (SMALL, LARGE), 1),
    "raw_jacobi": (_raw_jacobi, (SMALL, LARGE), len(JACOBI_PARTS)),
    "jacobi_submit": (_jacobi_submit, (SMALL, LARGE), len(JACOBI_PARTS)),
    "two_queue_jacobi": (_two_queue_jacobi, (SMALL, LARGE), len(JACOBI_PARTS)),
    "raw_checked": (_raw_checked, (SMALL // 10, LARGE // 10), 1),
    "checked_submit": (_checked_submit, (SMALL // 10, LARGE // 10), 1),
    "graph_replay": (lambda n: _graph_replay(n, native=True), REPLAYS, CHAIN),
    "graph_replay_fallback": (lambda n: _graph_replay(n, native=False), REPLAYS, CHAIN),
    "raw_halo": (_raw_halo, HALO_COUNTS, 1),
    "halo_copies": (lambda n: _halo_copies(n, handler=False), HALO_COUNTS, 1),
    "halo_handler_copies": (lambda n: _halo_copies(n, handler=True), HALO_COUNTS, 1),
}


def main_thread_instructions(scenario: str, count: int, checkout: str | None) -> int:
    """The instructions callgrind counts on the main thread of one run of ``scenario``."""
    env = dict(os.environ, PYTHONHASHSEED="0")  # the same dict layouts in every run
    if checkout:
        env["PYTHONPATH"] = checkout
    with tempfile.TemporaryDirectory() as out:
        done = subprocess.run(
            ["valgrind", "--tool=callgrind", "--separate-threads=yes",
             f"--callgrind-out-file={out}/cg.%p", sys.executable, __file__, "--child", scenario, str(count)],
            env=env, capture_output=True, text=True,
        )
        if "scenario done" not in done.stdout:  # the driver may crash at exit under valgrind: ignored
            errors = [line for line in done.stderr.splitlines() if not line.startswith("==")]
            raise RuntimeError(errors[-1] if errors else f"exit status {done.returncode}")
        (main,) = Path(out).glob("cg.*-01")
        found = re.search(r"^summary: (\d+)", main.read_text(), re.MULTILINE)
        assert found, f"no summary in {main}"
        return int(found.group(1))


def per_command(scenario: str, checkout: str | None) -> float:
    """Instructions per command of ``scenario`` (per kernel for the graph replays)."""
    _, (small, large), unit = SCENARIOS[scenario]
    # A first run fills the drivers' and sycl_ocl's build caches, so both counted runs hit them
    # (under valgrind: PoCL sees another CPU there, with caches of its own).
    main_thread_instructions(scenario, small, checkout)
    low = main_thread_instructions(scenario, small, checkout)
    high = main_thread_instructions(scenario, large, checkout)
    return (high - low) / ((large - small) * unit)


def main() -> None:
    if sys.argv[1:2] == ["--child"]:
        SCENARIOS[sys.argv[2]][0](int(sys.argv[3]))
        print("scenario done", flush=True)
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenario", action="append", choices=list(SCENARIOS), help="default: all")
    parser.add_argument("checkouts", nargs="*", help="directories holding a sycl_ocl package")
    args = parser.parse_args()
    for checkout in args.checkouts or [None]:
        for scenario in args.scenario or list(SCENARIOS):
            try:
                figure = f"{per_command(scenario, checkout):,.0f}"
            except RuntimeError as error:
                figure = f"cannot run: {error}"
            print(f"{checkout or 'installed sycl_ocl'} {scenario}: {figure}", flush=True)


if __name__ == "__main__":
    main()
