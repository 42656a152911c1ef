"""Explicit copies between accessors and numpy arrays (SYCL 2020 §4.9.4.3), and launches that
cycle over sub-buffers (issue 31).

A copy of a contiguous range to or from a C-contiguous array of its type is one non-blocking
OpenCL transfer behind the kernels before it: these tests check its ordering against kernels,
host accessors and later copies, the bytes it moves (transfer counters), the lengths it
copies (the accessor's range from the start of a longer array), and the cases that still go
through the host (a strided array, another element type).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import sycl_ocl as sycl

sycl.register_kernel_source("""
__kernel void xc_add(__global int* a, int w) { a[get_global_id(0)] += w; }
__kernel void xc_acc(__global int* a, __global const int* b) { a[get_global_id(0)] += b[get_global_id(0)]; }
__kernel void xc_rows(__global const int* src, __global int* dst, int cols, int first_row) {
    int j = get_global_id(0), r = get_global_id(1);
    dst[r * cols + j] = src[(first_row + r) * cols + j] + 1;
}
""")
N = 64


def _add(q: sycl.queue, buf: sycl.buffer, w: int, rng: sycl.range | None = None,
         off: sycl.id | None = None) -> sycl.event:
    def cgf(h: sycl.handler) -> None:
        acc = sycl.accessor(buf, h, sycl.read_write, rng, off) if rng is not None else sycl.accessor(buf, h)
        h.parallel_for(acc.size(), "xc_add", acc, np.int32(w))
    return q.submit(cgf)


def test_a_copy_to_the_host_reads_behind_the_kernels_before_it(queue: sycl.queue) -> None:
    out = np.full(N, -1, np.int32)
    with sycl.buffer(np.zeros(N, np.int32)) as buf:
        for w in (1, 2, 4):
            _add(queue, buf, w)
        ev = queue.copy(sycl.accessor(buf, sycl.read_only), out)
        _add(queue, buf, 8)  # after the copy: not in ``out``
        ev.wait()
        assert out.tolist() == [7] * N
        with sycl.host_accessor(buf, sycl.read_only) as acc:
            assert np.asarray(acc).tolist() == [15] * N


def test_a_copy_from_the_host_lands_before_the_kernels_after_it(queue: sycl.queue) -> None:
    src = np.arange(N, dtype=np.int32)
    with sycl.buffer(sycl.range(N), np.int32) as buf:
        queue.submit(lambda h: h.copy(src, sycl.accessor(buf, h, sycl.write_only)))
        _add(queue, buf, 100)
        with sycl.host_accessor(buf, sycl.read_only) as acc:
            assert np.asarray(acc).tolist() == (src + 100).tolist()
        queue.copy(src * 2, sycl.accessor(buf, sycl.write_only))  # a temporary: kept until done
        with sycl.host_accessor(buf, sycl.read_only) as acc:
            assert np.asarray(acc).tolist() == (src * 2).tolist()


def test_a_copy_waits_for_a_host_accessor_and_a_host_accessor_for_the_copy(queue: sycl.queue) -> None:
    out = np.zeros(N, np.int32)
    with sycl.buffer(np.zeros(N, np.int32)) as buf:
        acc = sycl.host_accessor(buf)
        np.asarray(acc)[:] = 5
        to_host = queue.copy(sycl.accessor(buf, sycl.read_only), out)  # waits for the release
        from_host = queue.copy(np.full(N, 9, np.int32), sycl.accessor(buf, sycl.write_only))
        assert to_host.get_info(sycl.info.event.command_execution_status) != \
            sycl.info.event_command_status.complete
        acc.release()
        from_host.wait()
        assert out.tolist() == [5] * N
        with sycl.host_accessor(buf, sycl.read_only) as view:
            assert np.asarray(view).tolist() == [9] * N


def test_ranged_copies_take_the_accessors_range_from_the_start_of_a_longer_array(queue: sycl.queue) -> None:
    """Issue 35 item 5: an array longer than the accessor's range gives (or takes) its first
    elements; a shorter array into an accessor fills the start of its range."""
    data = np.zeros(N, np.int32)
    long_src = np.arange(100, 100 + N, dtype=np.int32)
    long_out = np.full(N, -1, np.int32)
    with sycl.buffer(data) as buf:
        queue.submit(lambda h: h.copy(long_src,
                                      sycl.accessor(buf, h, sycl.write_only, sycl.range(8), sycl.id(4))))
        queue.submit(lambda h: h.copy(np.array([7, 7], np.int32),
                                      sycl.accessor(buf, h, sycl.write_only, sycl.range(4), sycl.id(20))))
        queue.submit(lambda h: h.copy(sycl.accessor(buf, h, sycl.read_only, sycl.range(8), sycl.id(2)),
                                      long_out)).wait()
    expect = np.zeros(N, np.int32)
    expect[4:12] = long_src[:8]
    expect[20:22] = 7
    assert data.tolist() == expect.tolist()
    assert long_out[:8].tolist() == expect[2:10].tolist() and (long_out[8:] == -1).all()


def test_a_two_dimensional_range_copies_its_rows(queue: sycl.queue) -> None:
    grid = np.arange(8 * 16, dtype=np.int32).reshape(8, 16)
    rows = np.zeros((2, 16), np.int32)
    with sycl.buffer(grid) as buf:
        queue.submit(lambda h: h.copy(sycl.accessor(buf, h, sycl.read_only, sycl.range(2, 16), sycl.id(3, 0)),
                                      rows)).wait()
        assert rows.tolist() == grid[3:5].tolist()
        corner = np.zeros((2, 2), np.int32)  # not contiguous in the buffer: through the host
        queue.submit(lambda h: h.copy(sycl.accessor(buf, h, sycl.read_only, sycl.range(2, 2), sycl.id(1, 1)),
                                      corner)).wait()
        assert corner.tolist() == grid[1:3, 1:3].tolist()


def test_a_strided_array_or_another_type_goes_through_the_host(queue: sycl.queue) -> None:
    wide = np.zeros(2 * N, np.int32)
    floats = np.zeros(N, np.float64)
    with sycl.buffer(np.arange(N, dtype=np.int32)) as buf:
        queue.copy(sycl.accessor(buf, sycl.read_only), wide[::2]).wait()
        queue.copy(sycl.accessor(buf, sycl.read_only), floats).wait()
        queue.copy(np.arange(2 * N, dtype=np.int32)[::2], sycl.accessor(buf, sycl.write_only)).wait()
        with sycl.host_accessor(buf, sycl.read_only) as acc:
            assert np.asarray(acc).tolist() == list(range(0, 2 * N, 2))
    assert wide[::2].tolist() == list(range(N)) and floats.tolist() == list(range(N))


def test_copies_move_their_bytes_once(queue: sycl.queue) -> None:
    """Transfer counters: a copy to the host behind a kernel reads its range once; a copy from
    the host into a whole range writes it once (no copy-in of the old contents)."""
    out = np.zeros(8, np.int32)
    with sycl.buffer(sycl.range(N), np.int32) as buf:
        queue.copy(np.ones(N, np.int32), sycl.accessor(buf, sycl.write_only))
        _add(queue, buf, 1)
        queue.copy(sycl.accessor(buf, sycl.read_only, sycl.range(8), sycl.id(8)), out).wait()
        counters = buf.transfer_counters()
        assert (counters.h2d_bytes, counters.h2d_copies) == (4 * N, 1)
        assert (counters.d2h_bytes, counters.d2h_copies) == (32, 1)
        assert out.tolist() == [2] * 8


def test_a_copy_done_on_the_host_in_a_command_graph_is_refused(queue: sycl.queue) -> None:
    """A copy of a strided array runs on the host, which no replay does; a contiguous one is a
    memcpy node (test_graph.py)."""
    exp = sycl.ext.oneapi.experimental
    g = exp.command_graph(queue)
    strided = np.ones(2 * N, np.int32)[::2]
    with sycl.buffer(sycl.range(N), np.int32) as buf:
        g.begin_recording(queue)
        try:
            with pytest.raises(sycl.exception) as info:
                queue.copy(strided, sycl.accessor(buf, sycl.write_only))
            queue.copy(np.ones(N, np.int32), sycl.accessor(buf, sycl.write_only))
        finally:
            g.end_recording()
    assert info.value.code() == sycl.errc.feature_not_supported
    assert [n.get_type() for n in g.get_nodes()] == [exp.node_type.memcpy]


def test_a_placeholder_with_its_mode_first_keeps_its_range_and_offset() -> None:
    """``accessor(buf, sycl.read_only, range[, offset])`` took the whole buffer (its range was
    dropped)."""
    buf = sycl.buffer(np.zeros(N, np.float32))
    acc = sycl.accessor(buf, sycl.read_only, sycl.range(16), sycl.id(4))
    assert acc.is_placeholder() and acc.size() == 16 and acc.get_offset() == sycl.id(4)
    assert sycl.accessor(buf, sycl.write_only, sycl.range(8), [sycl.property.no_init()]).size() == 8


def _shapes_kept(acc: sycl.accessor, kernel: str) -> int:
    """How many launch shapes of ``kernel`` the window of ``acc`` keeps (the plan cache of
    launches, docs/scheduler.md "Fast paths")."""
    shape, count = acc._win.shapes.get(kernel), 0  # type: ignore[attr-defined]
    while shape is not None:
        count, shape = count + 1, shape.earlier
    return count


def test_launches_over_sub_buffers_in_turn_keep_their_shapes(queue: sycl.queue) -> None:
    """Three launches of one kernel with one first accessor over three sub-buffers, repeated
    (a Jacobi slab): each keeps its launch shape, so the next round takes it as it is; and the
    results are those of the launches."""
    rows, cols = 6, 128
    grid = np.arange(rows * cols, dtype=np.int32).reshape(rows, cols)
    out = np.zeros_like(grid)
    align = queue.get_device().get_info(sycl.info.device.mem_base_addr_align) // 8
    if cols * 4 % align:
        pytest.skip(f"a row of {cols * 4} bytes is not a multiple of the sub-buffer alignment ({align})")
    with sycl.buffer(grid) as src, sycl.buffer(out) as dst:
        assert _jacobi_rounds(queue, src, dst, rows, cols) == 3
    assert out.tolist() == (grid + 1).tolist()


def _jacobi_rounds(q: sycl.queue, src: sycl.buffer, dst: sycl.buffer, rows: int, cols: int) -> int:
    """Three rounds of launches on three sub-buffers of ``dst`` (which end with it, so that
    ``dst`` writes back); the shapes then kept."""
    parts = [(sycl.buffer(dst, sycl.id(first, 0), sycl.range(count, cols)), first)
             for first, count in ((0, 1), (rows - 1, 1), (1, rows - 2))]
    seen: list[sycl.accessor] = []
    for _ in range(3):
        for part, first in parts:
            def cgf(h: sycl.handler, part: sycl.buffer = part, first: int = first) -> None:
                acc = sycl.accessor(src, h, sycl.read_only)
                seen.append(acc)
                h.parallel_for(part.get_range(), "xc_rows", acc, sycl.accessor(part, h, sycl.write_only),
                               cols, first)
            q.submit(cgf)
    return _shapes_kept(seen[-1], "xc_rows")


def test_copies_are_traced_as_transfers(device: sycl.device) -> None:
    """docs/tracing.md: a copy between an accessor and an array is a node of its own kind."""
    from sycl_ocl import tools
    from sycl_ocl.tools.model import command_name

    q = sycl.queue(device)
    out = np.zeros(N, np.int32)
    tools.start_tracing()
    try:
        with sycl.buffer(sycl.range(N), np.int32) as buf:
            q.copy(np.ones(N, np.int32), sycl.accessor(buf, sycl.write_only))
            q.copy(sycl.accessor(buf, sycl.read_only), out).wait()
    finally:
        trace = tools.stop_tracing()
    names = [command_name(op) for op in trace.ops]
    assert "copy from host" in names and "copy to host" in names, names
    assert {op.nbytes for op in trace.ops if command_name(op).startswith("copy ")} == {4 * N}


def test_the_queue_shortcuts_take_placeholders_and_return_events(queue: sycl.queue) -> None:
    """§4.6.5.2: ``q.fill``, ``q.copy`` and ``q.update_host`` of placeholder accessors, each
    returning the command's event."""
    data = np.zeros(N, np.int32)
    out = np.zeros(8, np.int32)
    with sycl.buffer(data) as buf:
        filled = queue.fill(sycl.accessor(buf, sycl.write_only, sycl.range(16), sycl.id(8)), 3)
        _add(queue, buf, 1, sycl.range(8), sycl.id(8))
        copied = queue.copy(sycl.accessor(buf, sycl.read_only, sycl.range(8), sycl.id(4)), out)
        updated = queue.update_host(sycl.accessor(buf, sycl.read_only))
        for ev in (filled, copied, updated):
            assert isinstance(ev, sycl.event)
        updated.wait()
        copied.wait()
        assert data[8:16].tolist() == [4] * 8 and data[16:24].tolist() == [3] * 8
        assert out.tolist() == [0] * 4 + [4] * 4


# --- repeated copies: copy shapes (docs/scheduler.md rule S32) ---------------------------------

ROW = 1024  # ints a row: 4 KiB, so a row's sub-buffer starts on any device's mem_base_addr_align

def _halo(rows: int = 4) -> tuple[sycl.buffer, list[sycl.accessor], list[sycl.accessor]]:
    """A ``rows`` x ROW buffer of zeros, read-only and write-only placeholders of each row (of
    one-row sub-buffers, as examples/mpi_jacobi.py makes them)."""
    buf = sycl.buffer(np.zeros((rows, ROW), np.int32))
    parts = [sycl.buffer(buf, sycl.id(r, 0), sycl.range(1, ROW)) for r in range(rows)]
    return (buf, [sycl.accessor(p, sycl.read_only) for p in parts],
            [sycl.accessor(p, sycl.write_only, [sycl.property.no_init()]) for p in parts])


def _add_all(q: sycl.queue, buf: sycl.buffer, w: int) -> None:
    q.submit(lambda h: h.parallel_for(buf.size(), "xc_add", sycl.accessor(buf, h), np.int32(w)))


def test_repeated_copies_keep_their_order_against_kernels_and_host_accessors(queue: sycl.queue) -> None:
    """A halo exchange repeated (its copies replay from the third round): each copy to the
    host holds what the kernels before it wrote and none after; each copy from the host lands
    before the kernels after it; host accessors between them see every command before."""
    buf, reads, writes = _halo()
    total = 0
    for step in range(1, 9):
        _add_all(queue, buf, step)
        total += step
        sent = np.full(ROW, -1, np.int32)
        ev = queue.copy(reads[step % 2 + 1], sent)  # rows 1 and 2 in turn
        queue.copy(np.full(ROW, 1000 * step, np.int32), writes[0])
        queue.submit(lambda h, sent=sent: h.copy(  # the handler's form, a ranged accessor
            sycl.accessor(buf, h, sycl.read_only, sycl.range(1, ROW), sycl.id(3, 0)), sent))
        _add_all(queue, buf, 1)  # after both copies: in neither
        ev.wait()
        queue.wait()
        assert sent.tolist() == [total] * ROW  # the last copy into ``sent``: row 3
        total += 1
        if step % 3 == 0:
            with sycl.host_accessor(buf) as acc:
                rows = np.asarray(acc)
                assert rows[0].tolist() == [1000 * step + 1] * ROW
                assert rows[1:].tolist() == [[total] * ROW] * 3
                rows[1] += 5  # a host write the next copies of row 1 read
            out = np.zeros(ROW, np.int32)
            queue.copy(reads[1], out).wait()
            assert out.tolist() == [total + 5] * ROW
            queue.copy(np.full(ROW, total, np.int32), writes[1])  # row 1 as it was
            _add_all(queue, buf, 0)
            queue.copy(reads[1], out).wait()
            assert out.tolist() == [total] * ROW


def test_copies_and_kernels_on_two_queues_keep_their_order_across_them(queue: sycl.queue) -> None:
    """examples/mpi_jacobi.py ``--two-queues`` between ranks: a copy into a row on one queue
    overwrites the row a kernel of the other queue read, that kernel reads what the copy
    wrote, and a copy to the host on the first queue reads what the kernel wrote; repeated, the
    copies' and the kernel's plans replay with their edges across the queues, in the OpenCL
    wait lists (rules S7, S17, S20, S32). Each copy to the host sees every row added before it."""
    other = sycl.queue(queue.get_context(), queue.get_device())
    outs = [np.full(N, -1, np.int32) for _ in range(12)]
    with sycl.buffer(np.zeros(N, np.int32)) as row, sycl.buffer(np.zeros(N, np.int32)) as total:
        recv = sycl.accessor(row, sycl.write_only, [sycl.property.no_init()])
        send = sycl.accessor(total, sycl.read_only)
        for k, out in enumerate(outs):
            queue.copy(np.full(N, k + 1, np.int32), recv)
            other.submit(lambda h: h.parallel_for(N, "xc_acc", sycl.accessor(total, h),
                                                   sycl.accessor(row, h, sycl.read_only)))
            queue.copy(send, out)
        queue.wait()
    assert [list(out) for out in outs] == [[(k + 1) * (k + 2) // 2] * N for k in range(12)]


def test_a_repeated_copy_with_another_array_takes_the_full_checks(queue: sycl.queue) -> None:
    """Once a copy replays, an array of another size, type or layout is checked as the first
    copy was: too short raises ``errc.invalid``, another type or a strided destination goes
    through the host, a longer source gives its start; a placeholder not required raises
    ``errc.accessor`` in a command group."""
    buf, reads, writes = _halo(2)
    out = np.zeros(ROW, np.int32)
    for _ in range(4):
        _add_all(queue, buf, 1)
        queue.copy(reads[1], out)
        queue.copy(np.full(ROW, 7, np.int32), writes[0])
    queue.wait()
    with pytest.raises(sycl.exception) as raised:
        queue.copy(reads[1], np.zeros(ROW - 1, np.int32))
    assert raised.value.code() == sycl.errc.invalid
    def short(h: sycl.handler) -> None:
        h.require(reads[1])
        h.copy(reads[1], np.zeros(ROW - 1, np.int32))
    with pytest.raises(sycl.exception) as raised:
        queue.submit(short)
    assert raised.value.code() == sycl.errc.invalid
    with pytest.raises(sycl.exception) as raised:  # a placeholder not required: not the group's
        queue.submit(lambda h: h.copy(reads[1], out))
    assert raised.value.code() == sycl.errc.accessor
    wide = np.zeros(ROW, np.float64)
    queue.copy(reads[1], wide).wait()
    assert wide.tolist() == [4.0] * ROW
    strided = np.zeros(2 * ROW, np.int32)
    queue.copy(reads[1], strided[::2]).wait()
    assert strided[::2].tolist() == [4] * ROW
    queue.copy(np.arange(2 * ROW, dtype=np.int32), writes[0]).wait()  # its first ROW elements
    queue.copy(np.arange(ROW, dtype=np.int16), writes[1]).wait()  # converted on the host
    with sycl.host_accessor(buf, sycl.read_only) as acc:
        assert np.asarray(acc).tolist() == [list(range(ROW)), list(range(ROW))]


def test_repeated_copies_count_their_transfers_exactly(queue: sycl.queue) -> None:
    """Transfer counters: each copy of a replayed shape counts its bytes once, as the first."""
    buf, reads, writes = _halo(2)
    out, row = np.zeros(ROW, np.int32), np.ones(ROW, np.int32)
    _add_all(queue, buf, 1)  # the buffer's upload: one h2d copy
    queue.wait()
    before = buf.transfer_counters()
    for _ in range(10):
        _add_all(queue, buf, 1)
        queue.copy(reads[1], out)
        queue.copy(row, writes[0])
    queue.wait()
    after = buf.transfer_counters()
    assert (after.d2h_copies - before.d2h_copies, after.d2h_bytes - before.d2h_bytes) == (10, 10 * 4 * ROW)
    assert (after.h2d_copies - before.h2d_copies, after.h2d_bytes - before.h2d_bytes) == (10, 10 * 4 * ROW)
    assert out.tolist() == [11] * ROW


def test_a_replayed_copy_refused_at_its_enqueue_raises_and_changes_nothing(queue: sycl.queue) -> None:
    """A copy that replays (its transfer enqueued at once, rule S32) refused by the driver
    raises from the call as a copy planned in full does, counts nothing, and the next copies run as before."""
    from sycl_ocl import _native

    buf, reads, _ = _halo(2)
    out = np.zeros(ROW, np.int32)
    for _ in range(4):
        _add_all(queue, buf, 1)
        queue.copy(reads[1], out)
    queue.wait()
    counted = buf.transfer_counters().d2h_copies
    _add_all(queue, buf, 1)
    with _native.inject("read", 1) as faults, pytest.raises(sycl.exception) as raised:
        queue.copy(reads[1], out)
    assert faults.failed == "_enqueue_read_buffer"  # the replay's own call: the path was taken
    assert raised.value.code() == sycl.errc.memory_allocation  # CL_OUT_OF_RESOURCES, as in full
    assert buf.transfer_counters().d2h_copies == counted
    queue.copy(reads[1], out).wait()
    assert out.tolist() == [5] * ROW
    with sycl.host_accessor(buf, sycl.read_only) as acc:
        assert np.asarray(acc)[1].tolist() == [5] * ROW


def _records(memory: object, ops: dict[int, int]) -> tuple[Any, Any]:
    """A memory object's frontier and validity, each producer named by its position among the
    program's commands (``ops``: by id), or -1 for one complete now (full planning drops
    those; a replay keeps them where its plan kept them: docs/scheduler.md "Fast paths")."""
    from sycl_ocl.scheduler import RUNTIME
    from sycl_ocl.scheduler.op import DONE

    def name(op: object) -> int:
        return -1 if op is None or op.state == DONE else ops.get(id(op), -2)  # type: ignore[attr-defined]

    with RUNTIME:  # a consistent view: no op completes meanwhile
        frontier = [(lo, hi, kind, name(op)) for op, lo, hi, kind in memory.frontier  # type: ignore[attr-defined]
                    if op.state != DONE]
        valid = {loc: [(a, b, name(p)) for a, b, p in pieces]
                 for loc, pieces in memory.valid.items()}  # type: ignore[attr-defined]
    return frontier, valid


def _exchange_records(device: sycl.device) -> list[Any]:
    """The records of the halo buffer after each command of three exchanges."""
    q = sycl.queue(device, prop_list=[sycl.property.queue.in_order()])
    buf, reads, writes = _halo(3)
    memory = reads[0]._win.req.memory  # the buffer's and its sub-buffers' memory object
    ops: dict[int, int] = {}
    seen = []
    out, row = np.zeros(ROW, np.int32), np.full(ROW, 9, np.int32)
    steps = [lambda: _add_all_event(q, buf, 1), lambda: q.copy(reads[1], out), lambda: q.copy(row, writes[0]),
             lambda: q.submit(lambda h: h.copy(
                 sycl.accessor(buf, h, sycl.read_only, sycl.range(1, ROW), sycl.id(2, 0)), out))]
    for _ in range(4):
        for step in steps:
            ev = step()
            ops[id(ev._cmd)] = len(ops)
            ev.wait()  # each complete: which is done when would differ between the runs
            seen.append(_records(memory, ops))
    q.wait()
    with sycl.host_accessor(buf, sycl.read_only) as acc:
        seen.append(np.asarray(acc).tolist())
    return seen


def _add_all_event(q: sycl.queue, buf: sycl.buffer, w: int) -> sycl.event:
    return q.submit(lambda h: h.parallel_for(buf.size(), "xc_add", sycl.accessor(buf, h), np.int32(w)))


def test_replayed_copies_leave_the_records_full_planning_leaves(device: sycl.device) -> None:
    """Differential (docs/scheduler.md "Fast paths"): the same exchanges with their copies
    replayed and planned in full (a trace recording turns every fast path off) leave the same
    validity after each command (each waited for: the frontier's completed entries, which a
    replay keeps and full planning drops, are left out) and the same bytes."""
    from sycl_ocl import tools

    replayed = _exchange_records(device)
    tools.start_tracing()
    try:
        full = _exchange_records(device)
    finally:
        tools.stop_tracing()
    assert replayed == full


# --- handler.copy of ranged accessors made in the command group (rule S32) -----------------------

def _row_copies(q: sycl.queue, buf: sycl.buffer, sent: np.ndarray, halo: np.ndarray) -> None:
    """A halo exchange's copies as command groups: row 1 to the host, a host row into row 0,
    through ranged accessors made in each group (after the first, of windows the buffer kept)."""
    row = sycl.range(1, ROW)
    q.submit(lambda h: h.copy(sycl.accessor(buf, h, sycl.read_only, row, sycl.id(1, 0)), sent))
    q.submit(lambda h: h.copy(halo, sycl.accessor(buf, h, sycl.write_only, row, sycl.id(0, 0))))


def test_repeated_handler_copies_keep_their_order_and_count_their_bytes_exactly(queue: sycl.queue) -> None:
    """``h.copy`` of ranged accessors made in the command group, repeated (the accessors take
    the windows their buffer kept, the copies replay): each copy to the host holds what the
    kernels before it wrote and none after, each copy from the host lands before the kernels
    after it, a ranged host accessor between them sees every command before; each copy counts
    its bytes once (a host accessor reads its window's span back)."""
    buf = sycl.buffer(np.zeros((2, ROW), np.int32))
    _add_all(queue, buf, 1)
    queue.wait()
    before = buf.transfer_counters()
    total = 1
    for step in range(1, 11):
        _add_all(queue, buf, step)
        total += step
        sent, halo = np.full(ROW, -1, np.int32), np.full(ROW, 100 * step, np.int32)
        _row_copies(queue, buf, sent, halo)
        _add_all(queue, buf, 1)  # after both copies: in neither
        total += 1
        if step % 3 == 0:
            with sycl.host_accessor(buf, sycl.read_only, sycl.range(2, 8)) as acc:
                assert np.asarray(acc).tolist() == [[100 * step + 1] * 8, [total] * 8]
        queue.wait()
        assert sent.tolist() == [total - 1] * ROW
    after = buf.transfer_counters()
    read = (10 * ROW + 3 * (ROW + 8)) * 4  # the rows, and the span of each 2 x 8 window
    assert (after.d2h_copies - before.d2h_copies, after.d2h_bytes - before.d2h_bytes) == (13, read)
    assert (after.h2d_copies - before.h2d_copies, after.h2d_bytes - before.h2d_bytes) == (10, 10 * 4 * ROW)


def test_a_ranged_accessor_of_a_kept_window_joins_holding_nothing(queue: sycl.queue) -> None:
    """A ranged device accessor made in a command group again takes the window its buffer
    kept, as a whole-buffer one does, and holds nothing (docs/scheduler.md rules S29, S32): a
    buffer whose last reference goes in the command-group function still lives until its
    command completes, then writes back."""
    data = np.zeros((2, ROW), np.int32)
    bufs = [sycl.buffer(data)]  # the buffer's one reference
    row, off = sycl.range(1, ROW), sycl.id(1, 0)
    joined: list[Any] = []

    def group(h: sycl.handler, source: Any) -> None:
        acc = sycl.accessor(source(), h, sycl.write_only, row, off)
        joined.append((acc._win, h._owning is None))
        h.copy(np.full(ROW, len(joined), np.int32), acc)
    for _ in range(2):
        queue.submit(lambda h: group(h, lambda: bufs[0]))
    (first, held_none), (again, holds_none) = joined
    assert again is first and not held_none and holds_none  # the first accessor took the full way
    queue.submit(lambda h: group(h, bufs.pop))  # its last reference goes as the accessor is made
    assert joined[2][0] is first and not bufs
    queue.wait()  # the command kept the buffer: it wrote back when it completed
    assert data[1].tolist() == [3] * ROW and data[0].tolist() == [0] * ROW
