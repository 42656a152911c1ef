"""A 2-D Jacobi solver over MPI ranks: one device per rank, halo rows exchanged between ranks.

Run: ``mpiexec -n 2 python examples/mpi_jacobi.py`` (``pip install "sycl_ocl[mpi]"`` gives
mpi4py and an MPI); one process alone is one rank. On a node with several GPUs each rank
takes the GPU of its node-local rank; on PoCL (``POCL_DEVICES="pthread pthread"``) each rank
takes one CPU device. docs/scaling.md explains the choices.

Teaches: giving each rank its own device and a context holding only that device
(``rank_device``); domain decomposition into row slabs with a halo row on each side; cutting
a slab into sub-buffers so that the boundary rows and the inner rows are separate launches;
a halo exchange at raw speed (docs/scaling.md): the boundary rows go to host arrays through
explicit copies (``q.copy(accessor, array)``, SYCL 2020 §4.9.4.3), non-blocking transfers
behind their kernels, while the inner rows update; the host waits only for those two
events, exchanges the rows with mpi4py, and copies the halos back without waiting, ahead of
the next iteration's kernels; and checking the result against numpy on the whole grid.
``--two-queues`` submits the inner rows to a second queue of the same device and context, so
that the inner kernel never queues behind the row transfers (the runtime orders the two
queues' commands by the buffers they touch, through OpenCL wait lists: rule S7 of docs/scheduler.md);
``--host-accessors`` runs the exchange through host accessors instead (simpler, slower: each
one is a blocking round trip of its own); ``--graphs`` records each iteration's commands once,
as three command graphs (docs/graphs.md), and replays them: the fastest form where launches
are short, as the Python cost of seven submits an iteration becomes that of three replays.

The last line rank 0 prints is JSON: ranks, grids, iterations, seconds, seconds per
iteration and halo bytes per iteration (all ranks), for weak-scaling measurements
(``--rows``/``--cols`` set the work per rank; ``--no-check`` skips numpy for large grids).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import time
from collections.abc import Iterator
from typing import Any

import numpy as np

import sycl_ocl as sycl

try:
    from mpi4py import MPI
except ImportError:
    raise SystemExit("mpi_jacobi.py needs mpi4py and an MPI library: pip install 'sycl_ocl[mpi]'") from None

sycl.register_kernel_source("""
/* Rows first_row.. of u into dst (which starts at row first_row); columns 1..cols-2. */
__kernel void jacobi_rows(__global const double *u, __global double *dst, int cols, int first_row) {
    int j = get_global_id(0) + 1, r = get_global_id(1), i = first_row + r;
    dst[r * cols + j] = 0.25 * (u[(i - 1) * cols + j] + u[(i + 1) * cols + j]
                                + u[i * cols + j - 1] + u[i * cols + j + 1]);
}
""")

NOTHING = np.empty(0)  # what a rank sends to or receives from MPI.PROC_NULL


def initial(first_row: int, rows: int, cols: int) -> np.ndarray:
    """Rows ``first_row..first_row+rows-1`` of the global start grid (its edges stay fixed)."""
    i = np.arange(first_row, first_row + rows, dtype=np.float64)[:, None]
    j = np.arange(cols, dtype=np.float64)[None, :]
    return np.sin(0.1 * i) * np.cos(0.07 * j) + (i == 0)


def rank_device(local_rank: int) -> tuple[sycl.device, int]:
    """The device of the node-local rank and its index: round robin over the devices of the
    default device's platform and type (a node's GPUs; PoCL's CPU devices on a CPU node)."""
    first = sycl.device()  # the default selector, which SYCL_OCL_DEVICE restricts
    kind = sycl.info.device.device_type
    peers = [d for d in first.get_platform().get_devices() if d.get_info(kind) == first.get_info(kind)]
    index = local_rank % len(peers)
    return peers[index], index


class Slab:
    """A rank's ``rows`` rows plus a halo row above and below, in one buffer cut into
    sub-buffers: the halos, the two boundary rows the neighbours need, and the inner rows;
    and placeholder accessors of the four rows the exchange copies, made once."""

    def __init__(self, values: np.ndarray) -> None:
        rows, cols = values.shape[0] - 2, values.shape[1]
        self.whole = sycl.buffer(sycl.range(rows + 2, cols), np.float64)
        with sycl.host_accessor(self.whole, sycl.write_only, prop_list=[sycl.property.no_init()]) as acc:
            np.asarray(acc)[...] = values

        def part(first: int, count: int) -> sycl.buffer:
            return sycl.buffer(self.whole, sycl.id(first, 0), sycl.range(count, cols))

        self.halo_top, self.top, self.inner = part(0, 1), part(1, 1), part(2, rows - 2)
        self.bottom, self.halo_bottom = part(rows, 1), part(rows + 1, 1)

        def row(buf: sycl.buffer, mode: Any) -> sycl.accessor:
            return sycl.accessor(buf, mode, [sycl.property.no_init()] if mode is sycl.write_only else [])
        self.send_top, self.send_bottom = row(self.top, sycl.read_only), row(self.bottom, sycl.read_only)
        self.recv_top = row(self.halo_top, sycl.write_only)
        self.recv_bottom = row(self.halo_bottom, sycl.write_only)


class Rows:
    """The host rows of one rank's exchange: the two it sends and the two it receives."""

    def __init__(self, cols: int) -> None:
        self.top, self.bottom, self.halo_top, self.halo_bottom = (np.empty(cols) for _ in range(4))
        self.written: list[sycl.event] = []  # the copies of the halos into the device, in flight


def update(q: sycl.queue, src: Slab, dst: sycl.buffer, first_row: int) -> None:
    """Submit the update of the rows of ``dst`` (a sub-buffer of a slab from ``first_row``)."""
    rows, cols = dst.get_range()
    q.submit(lambda h: h.parallel_for(
        sycl.range(rows, cols - 2), "jacobi_rows",
        sycl.accessor(src.whole, h, sycl.read_only), sycl.accessor(dst, h, sycl.write_only), cols, first_row,
    ))


def step(q: sycl.queue, comm: Any, src: Slab, dst: Slab, up: int, down: int, host: Rows,
         inner_q: sycl.queue | None = None) -> None:
    """One Jacobi iteration from ``src`` into ``dst``: the boundary rows, their copies to the
    host, then the inner rows (on ``inner_q`` where given) while the host exchanges the
    boundary rows with the neighbours (two Sendrecv shifts, up then down) and copies the halos
    it received back.

    Nothing here waits for the device but the two row copies: the inner kernel and the halo
    copies run behind the call, ordered by the buffers they touch (§3.8.1), on one queue or
    across two."""
    rows = dst.whole.get_range()[0] - 2
    update(q, src, dst.top, 1)
    update(q, src, dst.bottom, rows)
    sends = ((dst.send_top, host.top, up), (dst.send_bottom, host.bottom, down))
    sent = [q.copy(acc, row) for acc, row, peer in sends if peer != MPI.PROC_NULL]
    update(inner_q or q, src, dst.inner, 2)  # runs while the rows travel
    sycl.event.wait([*sent, *host.written])  # the rows are on the host; the last halos left it
    comm.Sendrecv(host.top if up != MPI.PROC_NULL else NOTHING, up, 0,
                  host.halo_bottom if down != MPI.PROC_NULL else NOTHING, down, 0)
    comm.Sendrecv(host.bottom if down != MPI.PROC_NULL else NOTHING, down, 0,
                  host.halo_top if up != MPI.PROC_NULL else NOTHING, up, 0)
    receives = ((host.halo_top, dst.recv_top, up), (host.halo_bottom, dst.recv_bottom, down))
    host.written = [q.copy(row, acc) for row, acc, peer in receives if peer != MPI.PROC_NULL]


class Recorded:
    """One iteration from ``src`` into ``dst`` as three command graphs, recorded once: the
    boundary rows and their copies to the host (``send``), the inner rows (``inner``), and the
    halos' copies back (``receive``; None without a neighbour). The same commands as ``step``:
    a graph holds copies between accessors and numpy arrays (docs/graphs.md)."""

    def __init__(self, q: sycl.queue, src: Slab, dst: Slab, up: int, down: int, host: Rows) -> None:
        rows = dst.whole.get_range()[0] - 2

        def send() -> None:
            update(q, src, dst.top, 1)
            update(q, src, dst.bottom, rows)
            for acc, row, peer in ((dst.send_top, host.top, up), (dst.send_bottom, host.bottom, down)):
                if peer != MPI.PROC_NULL:
                    q.copy(acc, row)

        def receive() -> None:
            halos = ((host.halo_top, dst.recv_top, up), (host.halo_bottom, dst.recv_bottom, down))
            for row, acc, peer in halos:
                if peer != MPI.PROC_NULL:
                    q.copy(row, acc)
        self.send = record(q, send)
        self.inner = record(q, lambda: update(q, src, dst.inner, 2))
        self.receive = record(q, receive) if (up, down) != (MPI.PROC_NULL, MPI.PROC_NULL) else None


def record(q: sycl.queue, commands: Any) -> Any:
    """The commands ``commands()`` submits to ``q``, recorded and finalized: nothing runs."""
    graph = sycl.ext.oneapi.experimental.command_graph(q)
    graph.begin_recording(q)
    try:
        commands()
    finally:
        graph.end_recording()
    return graph.finalize()


def step_graphs(q: sycl.queue, comm: Any, graphs: Recorded, up: int, down: int, host: Rows) -> None:
    """``step`` as three replays: the boundary rows and their copies to the host, then the
    inner rows while the host waits for the rows and exchanges them, then the halos back."""
    sent = q.ext_oneapi_graph(graphs.send)
    q.ext_oneapi_graph(graphs.inner)  # runs while the rows travel
    sycl.event.wait([sent, *host.written] if graphs.receive is not None else [])  # alone: no rows to wait for
    comm.Sendrecv(host.top if up != MPI.PROC_NULL else NOTHING, up, 0,
                  host.halo_bottom if down != MPI.PROC_NULL else NOTHING, down, 0)
    comm.Sendrecv(host.bottom if down != MPI.PROC_NULL else NOTHING, down, 0,
                  host.halo_top if up != MPI.PROC_NULL else NOTHING, up, 0)
    host.written = [q.ext_oneapi_graph(graphs.receive)] if graphs.receive is not None else []


@contextlib.contextmanager
def host_rows(buf: sycl.buffer, peer: int, mode: Any) -> Iterator[Any]:
    """A host accessor of ``buf`` for an exchange with ``peer``; nothing for MPI.PROC_NULL."""
    if peer == MPI.PROC_NULL:
        yield NOTHING
        return
    props = [sycl.property.no_init()] if mode is sycl.write_only else []
    with sycl.host_accessor(buf, mode, prop_list=props) as acc:
        yield acc


def step_host_accessors(q: sycl.queue, comm: Any, src: Slab, dst: Slab, up: int, down: int) -> None:
    """``step`` through host accessors: mpi4py reads and writes the buffer's host memory
    through DLPack, without a copy of its own, but each accessor waits on the host for the
    transfer it needs."""
    rows = dst.whole.get_range()[0] - 2
    update(q, src, dst.top, 1)
    update(q, src, dst.bottom, rows)
    with host_rows(dst.top, up, sycl.read_only) as top, host_rows(dst.bottom, down, sycl.read_only) as bottom:
        update(q, src, dst.inner, 2)  # the boundary rows are on the host: the inner rows update meanwhile
        with host_rows(dst.halo_bottom, down, sycl.write_only) as halo_bottom, \
                host_rows(dst.halo_top, up, sycl.write_only) as halo_top:
            comm.Sendrecv(top, up, 0, halo_bottom, down, 0)
            comm.Sendrecv(bottom, down, 0, halo_top, up, 0)


def reference(rows: int, cols: int, steps: int) -> np.ndarray:
    """The global grid after ``steps`` Jacobi iterations, in numpy."""
    u = initial(0, rows + 2, cols)
    for _ in range(steps):
        v = u.copy()
        v[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
        u = v
    return u[1:-1]


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=64, help="rows per rank (at least 3; default 64)")
    parser.add_argument("--cols", type=int, default=256,
                        help="columns; a row must meet the device's sub-buffer alignment (default 256)")
    parser.add_argument("--iterations", type=int, default=20, help="timed iterations (default 20)")
    parser.add_argument("--check", action=argparse.BooleanOptionalAction, default=True,
                        help="compare with numpy on rank 0 (default: yes)")
    parser.add_argument("--host-accessors", action="store_true",
                        help="exchange through host accessors instead of explicit copies")
    parser.add_argument("--graphs", action="store_true",
                        help="record each iteration as command graphs once and replay them")
    parser.add_argument("--two-queues", action="store_true",
                        help="explicit copies, the inner rows on a second queue of the device")
    args = parser.parse_args()
    if args.host_accessors + args.graphs + args.two_queues > 1:
        parser.error("--host-accessors, --graphs and --two-queues are ways of one exchange: choose one")
    if args.rows < 3 or args.cols < 3 or args.iterations < 1:
        parser.error("--rows and --cols must be at least 3, --iterations at least 1")
    return args


def main() -> None:
    args = parse_args()
    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    dev, dev_index = rank_device(comm.Split_type(MPI.COMM_TYPE_SHARED).Get_rank())
    align = dev.get_info(sycl.info.device.mem_base_addr_align) // 8
    if args.cols * 8 % align:
        raise SystemExit(f"--cols {args.cols}: a row of {args.cols * 8} bytes is not a multiple of the "
                         f"device's sub-buffer alignment ({align} bytes); use a multiple of {align // 8}")
    q = sycl.queue(sycl.context(dev), dev)  # the rank's context holds only its device
    inner_q = sycl.queue(q.get_context(), dev) if args.two_queues else None
    rows, cols = args.rows, args.cols
    up = rank - 1 if rank > 0 else MPI.PROC_NULL
    down = rank + 1 if rank < size - 1 else MPI.PROC_NULL
    start = initial(rank * rows, rows + 2, cols)
    src, dst = Slab(start), Slab(start)

    host = Rows(cols)
    pairs = ((src, dst), (dst, src)) if args.graphs else ()
    recorded = {id(d): Recorded(q, s, d, up, down, host) for s, d in pairs}  # by destination

    def one_step(src: Slab, dst: Slab) -> None:
        if args.host_accessors:
            step_host_accessors(q, comm, src, dst, up, down)
        elif args.graphs:
            step_graphs(q, comm, recorded[id(dst)], up, down, host)
        else:
            step(q, comm, src, dst, up, down, host, inner_q)

    one_step(src, dst)  # warm-up: builds the kernel
    src, dst = dst, src
    q.wait()
    inner_q.wait() if inner_q is not None else None
    comm.Barrier()
    began = time.perf_counter()
    for _ in range(args.iterations):
        one_step(src, dst)
        src, dst = dst, src
    q.wait()
    inner_q.wait() if inner_q is not None else None
    comm.Barrier()
    seconds = time.perf_counter() - began

    with sycl.host_accessor(src.whole, sycl.read_only) as acc:
        mine = np.array(np.asarray(acc)[1:-1])
    result = comm.gather(mine, root=0)
    seconds = comm.reduce(seconds, op=MPI.MAX, root=0)
    devices = comm.gather(f"{MPI.Get_processor_name()}:{dev_index}", root=0)
    if rank:
        return
    checked = "skipped"
    if args.check:
        np.testing.assert_allclose(np.concatenate(result), reference(size * rows, cols, args.iterations + 1),
                                   rtol=1e-12, atol=1e-12)
        checked = "ok"
    name = dev.get_info(sycl.info.device.name)
    print(f"Jacobi on {size} rank(s), {rows}x{cols} each, device of rank 0: {name}; numpy check: {checked}")
    print(json.dumps({
        "ranks": size, "grid_per_rank": [rows, cols], "grid": [size * rows, cols],
        "iterations": args.iterations, "seconds": seconds, "per_iteration_s": seconds / args.iterations,
        "halo_bytes_per_iteration": 2 * (size - 1) * cols * 8,
        "exchange": ("host accessors" if args.host_accessors else "graphs" if args.graphs
                     else "copies, two queues" if args.two_queues else "copies"),
        "check": checked, "device": name, "rank_devices": devices,
    }))


if __name__ == "__main__":
    main()
