"""The DAG scheduler (SYCL 2020 §3.7.1, §3.8.1, §4.7.4; docs/scheduler.md): ordering by data
dependencies across queues, devices, contexts and platforms, host accessors that block and hold
back later users, in-order queues, cleanup and asynchronous errors. Ordering uses gates (host
tasks waiting on a threading.Event), never sleeps."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pyopencl as cl
import pytest
from kernel_support import aligned_ints, run_child

import sycl_ocl as sycl
from sycl_ocl.info import event_command_status as status

sycl.register_kernel_source(
    """
    __kernel void ts_inc(__global int* a) { a[get_global_id(0)] += 1; }
    __kernel void ts_add(__global int* a, __global const int* b) {
        a[get_global_id(0)] += b[get_global_id(0)];
    }
    __kernel void ts_sub(__global int* a, __global const int* b) {
        a[get_global_id(0)] -= b[get_global_id(0)];
    }
    __kernel void ts_set(__global int* a, int v) { a[get_global_id(0)] = v; }
    __kernel void ts_sum(__global int* c, __global const int* a, __global const int* b, int s) {
        size_t i = get_global_id(0); c[i] = a[i] + s * b[i]; }
    __kernel void ts_add_value(__global int* a, int v) { a[get_global_id(0)] += v; }
    __kernel void ts_rows(__global const int* u, __global int* dst, int cols, int first_row) {
        int j = get_global_id(0), r = get_global_id(1), i = first_row + r;
        dst[r * cols + j] = (u[(i - 1) * cols + j] + 3 * u[(i + 1) * cols + j] + j) & 0xFFFF;
    }
    """
)

DONE = status.complete


def _state(ev: sycl.event) -> status:
    return ev.get_info(sycl.info.event.command_execution_status)


def _inc(q: sycl.queue, buf: sycl.buffer) -> sycl.event:
    return q.submit(lambda h: h.parallel_for(buf.size(), "ts_inc", sycl.accessor(buf, h)))


def _read_on_host(q: sycl.queue, buf: sycl.buffer) -> sycl.event:
    def cgf(h: sycl.handler) -> None:
        sycl.accessor(buf, h, sycl.read_only)
        h.host_task(lambda: None)

    return q.submit(cgf)


def _gated(q: sycl.queue, buf: sycl.buffer, gate: threading.Event, mode: object,
           body: object = None) -> sycl.event:
    """A host task on ``buf`` that waits for ``gate``, then runs ``body(view)``."""
    def cgf(h: sycl.handler) -> None:
        acc = sycl.accessor(buf, h, mode)

        def task() -> None:
            gate.wait()
            if body is not None:
                body(np.asarray(acc))  # type: ignore[operator]

        h.host_task(task)

    return q.submit(cgf)


def _oclgrind() -> sycl.device | None:
    for plat in sycl.platform.get_platforms():
        if "Oclgrind" in plat.get_info(sycl.info.platform.name):
            return plat.get_devices()[0]
    return None


@pytest.fixture
def gate() -> Iterator[threading.Event]:
    g = threading.Event()
    yield g
    g.set()  # never leave a host task hanging


# --- edges from data dependencies ------------------------------------------------------------


def test_read_after_write_across_queues(device: sycl.device, gate: threading.Event) -> None:
    ctx = sycl.context(device)
    q1, q2 = sycl.queue(ctx, device), sycl.queue(ctx, device)
    a = np.zeros(8, dtype=np.int32)
    with sycl.buffer(a) as b:
        _gated(q1, b, gate, sycl.write_only, lambda v: v.__setitem__(Ellipsis, 7))
        after = _inc(q2, b)
        assert _state(after) != DONE
        gate.set()
        after.wait()
    assert (a == 8).all()


def test_write_after_read_waits_for_the_reader(queue: sycl.queue, gate: threading.Event) -> None:
    seen: list[np.ndarray] = []
    with sycl.buffer(np.zeros(4, dtype=np.int32)) as b:
        reader = _gated(queue, b, gate, sycl.read_only, lambda v: seen.append(v.copy()))
        writer = _inc(queue, b)
        assert _state(writer) != DONE
        gate.set()
        writer.wait()
        assert _state(reader) == DONE
    assert (seen[0] == 0).all()


def test_reads_do_not_wait_for_each_other(queue: sycl.queue, gate: threading.Event) -> None:
    with sycl.buffer(np.zeros(4, dtype=np.int32)) as b:
        first = _gated(queue, b, gate, sycl.read_only)
        second = _read_on_host(queue, b)
        second.wait()  # would hang if reads were serialized
        assert _state(first) != DONE
        gate.set()


def test_disjoint_sub_buffers_run_concurrently(queue: sycl.queue, gate: threading.Event) -> None:
    k = aligned_ints(queue.get_device())
    a = np.zeros(2 * k, dtype=np.int32)
    with sycl.buffer(a) as parent:
        low = sycl.buffer(parent, sycl.id(0), sycl.range(k))
        high = sycl.buffer(parent, sycl.id(k), sycl.range(k))
        held = _gated(queue, low, gate, sycl.write_only, lambda v: v.__setitem__(Ellipsis, 5))
        _inc(queue, high).wait()  # independent of the gated writer (§3.8.1 Table 5)
        whole = _inc(queue, parent)  # overlaps both: waits
        assert _state(held) != DONE and _state(whole) != DONE
        gate.set()
        whole.wait()
        del low, high
    assert (a[:k] == 6).all() and (a[k:] == 2).all()


def test_in_order_queue_chains_unrelated_groups(device: sycl.device, gate: threading.Event) -> None:
    q = sycl.queue(device, prop_list=[sycl.property.queue.in_order()])
    b1, b2 = sycl.buffer(sycl.range(4), np.int32), sycl.buffer(sycl.range(4), np.int32)
    held = _gated(q, b1, gate, sycl.write_only)
    later = q.submit(lambda h: h.fill(sycl.accessor(b2, h), 1))
    assert _state(later) != DONE  # behind the gated host task although b2 is free
    gate.set()
    later.wait()
    assert _state(held) == DONE


# --- host accessors (§4.7.4; docs/scheduler.md rules S4, S8) -----------------------------------


def test_host_accessor_holds_back_later_users_only(queue: sycl.queue) -> None:
    a = np.zeros(4, dtype=np.int32)
    other = np.zeros(4, dtype=np.int32)
    with sycl.buffer(a) as b, sycl.buffer(other) as c:
        with sycl.host_accessor(b) as h:
            blocked = _inc(queue, b)  # returns at once
            reader = _read_on_host(queue, b)
            _inc(queue, c).wait()  # another buffer flows on the same queue (§3.8.1 Table 6)
            assert _state(blocked) != DONE and _state(reader) != DONE  # readers too
            np.asarray(h)[:] = 10
        blocked.wait()
    assert (a == 11).all() and (other == 1).all()


def test_host_accessor_waits_for_a_writer_on_another_queue(
    device: sycl.device, gate: threading.Event
) -> None:
    q = sycl.queue(device)
    with sycl.buffer(np.zeros(4, dtype=np.int32)) as b:
        _gated(q, b, gate, sycl.write_only, lambda v: v.__setitem__(Ellipsis, 3))
        seen: list[np.ndarray] = []

        def read() -> None:
            with sycl.host_accessor(b, sycl.read_only) as h:
                seen.append(np.asarray(h).copy())

        t = threading.Thread(target=read)
        t.start()
        t.join(timeout=0.3)
        assert t.is_alive() and not seen
        gate.set()
        t.join()
    assert (seen[0] == 3).all()


def test_two_read_host_accessors_and_an_unrelated_wait(queue: sycl.queue) -> None:
    with (
        sycl.buffer(np.arange(4, dtype=np.int32)) as b,
        sycl.buffer(sycl.range(4), np.int32) as c,
        sycl.host_accessor(b, sycl.read_only) as h1,
        sycl.host_accessor(b, sycl.read_only) as h2,
    ):
        queue.submit(lambda h: h.fill(sycl.accessor(c, h), 1))
        queue.wait()  # no deadlock with the holds live
        assert (np.asarray(h1) == np.asarray(h2)).all()


def test_wait_on_a_deferred_command_from_another_thread(queue: sycl.queue) -> None:
    a = np.zeros(4, dtype=np.int32)
    with sycl.buffer(a) as b:
        h = sycl.host_accessor(b)
        ev = _inc(queue, b)
        waiter = threading.Thread(target=ev.wait)
        waiter.start()
        waiter.join(timeout=0.2)
        assert waiter.is_alive()
        h.release()
        waiter.join()
        assert _state(ev) == DONE
    assert (a == 1).all()


# --- several devices, contexts and platforms ---------------------------------------------------


def test_two_devices_of_one_context_share_one_allocation(device_pair: list[sycl.device]) -> None:
    ctx = sycl.context(device_pair)
    q1, q2 = sycl.queue(ctx, device_pair[0]), sycl.queue(ctx, device_pair[1])
    a = np.zeros(32, dtype=np.int32)
    with sycl.buffer(a) as b:
        for i in range(10):
            _inc(q1 if i % 2 else q2, b)
        counters = b.transfer_counters()
        assert counters.h2d_bytes == 128 and counters.staged_bytes == 0
        assert len(sycl.get_native(b)) == 1
    assert (a == 10).all()


def _contexts() -> list[sycl.queue]:
    from conftest import pocl_devices

    queues = []
    devs = pocl_devices()
    if devs:
        queues += [sycl.queue(sycl.context(devs[0]), devs[0]), sycl.queue(sycl.context(devs[0]), devs[0])]
    grind = _oclgrind()
    if grind is not None:
        queues.append(sycl.queue(sycl.context(grind), grind))
    if len(queues) < 3:
        pytest.skip("needs PoCL and Oclgrind (two platforms) installed")
    return queues


def test_writes_move_between_contexts_and_platforms() -> None:
    queues = _contexts()
    a = np.zeros(16, dtype=np.int32)
    with sycl.buffer(a) as b:
        for i in range(6):
            _inc(queues[i % 3], b)
    counters = b.transfer_counters()
    assert counters.staged_bytes == 5 * 64  # each switch reads back once
    assert counters.d2h_bytes == 6 * 64  # the five switches and the final write-back
    assert (a == 6).all()


def test_read_only_use_in_two_contexts_copies_once_each() -> None:
    queues = _contexts()
    x = np.arange(16, dtype=np.int32)
    outs = [np.zeros(16, dtype=np.int32) for _ in range(6)]
    with sycl.buffer(x) as bx:
        for i, out in enumerate(outs):
            with sycl.buffer(out) as bo:
                q = queues[i % 3]
                q.submit(lambda h, bo=bo: h.parallel_for(
                    16, "ts_add", sycl.accessor(bo, h), sycl.accessor(bx, h, sycl.read_only)))
        counters = bx.transfer_counters()
        assert counters.h2d_copies == 3 and counters.d2h_bytes == 0  # no ping-pong
    for out in outs:
        assert (out == x).all()


def test_cross_context_dependency_waits_without_blocking_submit(gate: threading.Event) -> None:
    queues = _contexts()
    a = np.zeros(8, dtype=np.int32)
    with sycl.buffer(a) as b:
        _gated(queues[0], b, gate, sycl.write_only, lambda v: v.__setitem__(Ellipsis, 2))
        _inc(queues[1], b)
        last = _inc(queues[2], b)
        assert _state(last) != DONE
        gate.set()
        last.wait()
    assert (a == 4).all()


# --- cleanup and errors ------------------------------------------------------------------------


def test_frontier_and_lane_stay_bounded(queue: sycl.queue) -> None:
    with sycl.buffer(np.arange(8, dtype=np.int32)) as b:
        others = [sycl.queue(queue.get_context(), queue.get_device()) for _ in range(3)]
        for i in range(300):
            (others[i % 3] if i % 2 else queue).submit(
                lambda h: h.host_task(lambda: None) if sycl.accessor(b, h, sycl.read_only) else None)
        for q in [queue, *others]:
            q.wait()
        _inc(queue, b).wait()
        assert len(b._root.frontier) <= 2
        assert len(queue._lane.ops) <= 2


# --- the plan cache and shapes (docs/scheduler.md rules S17, S20) ------------------------------


def test_repeated_reads_wait_for_a_host_task_writing_the_buffer(
    queue: sycl.queue, gate: threading.Event
) -> None:
    """The second of two identical reads is not replayed while the first waits for the host task:
    it waits for the host task itself, although it writes into another buffer than the first."""
    src, first, second = np.zeros(4, np.int32), np.zeros(4, np.int32), np.zeros(4, np.int32)
    with sycl.buffer(src) as s, sycl.buffer(first) as f, sycl.buffer(second) as t:
        _gated(queue, s, gate, sycl.write_only, lambda view: view.__setitem__(Ellipsis, 7))
        for dst in (f, t):
            queue.submit(lambda h, dst=dst: h.parallel_for(
                4, "ts_add", sycl.accessor(dst, h), sycl.accessor(s, h, sycl.read_only)))
        gate.set()
    assert list(first) == list(second) == [7] * 4


def test_repeated_command_group_sees_host_and_other_queue_writes(queue: sycl.queue) -> None:
    """A repeated command group between host accessors and another context's writes: each
    change moves the epoch on, so the next submit plans in full and moves the data."""
    other = sycl.queue(sycl.context(queue.get_device()), queue.get_device())
    data = np.zeros(4, np.int32)
    with sycl.buffer(data) as b:
        for _ in range(3):
            _inc(queue, b)
        with sycl.host_accessor(b) as view:
            assert list(np.asarray(view)) == [3] * 4
            np.asarray(view)[:] = 10
        for _ in range(2):
            _inc(queue, b)
        _inc(other, b)
        for _ in range(2):
            _inc(queue, b)
        target = np.zeros(4, np.int32)
        b.set_final_data(target)
        _inc(queue, b)
    assert list(target) == [16] * 4


def _sub(q: sycl.queue, first: sycl.buffer, second: sycl.buffer, rng: object,
         swap: bool = False) -> sycl.event:
    """``x -= y`` over ``rng``, the accessors made in the order (first, second); ``swap``: passed
    the other way round."""
    def cgf(h: sycl.handler) -> None:
        x, y = sycl.accessor(first, h), sycl.accessor(second, h)
        h.parallel_for(rng, "ts_sub", *((y, x) if swap else (x, y)))

    return q.submit(cgf)


def test_a_known_shape_follows_its_arguments_and_sizes(queue: sycl.queue) -> None:
    """A command group launched like an earlier one on the same buffers takes the launch checked
    then (rule S20) only when its arguments and sizes are the same."""
    a, b = np.full(8, 100, np.int32), np.arange(8, dtype=np.int32)
    model_a, model_b = a.copy(), b.copy()
    launches: list[tuple[object, bool, slice]] = [
        *[(8, False, slice(0, 8))] * 3,
        (8, True, slice(0, 8)),  # b -= a: the same accessors, passed the other way
        (4, False, slice(0, 4)),
        *[(sycl.nd_range(sycl.range(8), sycl.range(4)), False, slice(0, 8))] * 2,
        (sycl.nd_range(sycl.range(8), sycl.range(2)), False, slice(0, 8)),
        *[(sycl.nd_range(sycl.range(4), sycl.range(2), sycl.id(4)), False, slice(4, 8))] * 2,
        (8, False, slice(0, 8)),
    ]
    with sycl.buffer(a) as ba, sycl.buffer(b) as bb:
        for rng, swap, span in launches:
            _sub(queue, ba, bb, rng, swap)
            if swap:
                model_b[span] -= model_a[span]
            else:
                model_a[span] -= model_b[span]
    assert list(a) == list(model_a) and list(b) == list(model_b)


def test_a_known_shape_waits_for_its_launches_held_in_the_dag(
    queue: sycl.queue, gate: threading.Event
) -> None:
    data = np.zeros(4, np.int32)
    with sycl.buffer(data) as b:
        _gated(queue, b, gate, sycl.write_only, lambda view: view.__setitem__(Ellipsis, 7))
        launches = [_inc(queue, b) for _ in range(4)]
        assert all(_state(ev) != DONE for ev in launches)
        gate.set()
    assert list(data) == [11] * 4


def test_two_kernels_alternating_on_the_same_accessors(queue: sycl.queue, gate: threading.Event) -> None:
    """Each launch replays the plans the other kernel's launch left (rule S20), but not while
    that one waits in the DAG for a host task writing the buffer it reads."""
    a, b = np.arange(8, dtype=np.int32), np.zeros(8, np.int32)
    kernels = ["ts_add", "ts_sub", "ts_add", "ts_add", "ts_sub", "ts_add"]

    def launch(kernel: str) -> None:
        queue.submit(lambda h: h.parallel_for(
            8, kernel, sycl.accessor(ba, h), sycl.accessor(bb, h, sycl.read_only)))

    with sycl.buffer(a) as ba, sycl.buffer(b) as bb:
        for kernel in kernels:
            launch(kernel)
        _gated(queue, bb, gate, sycl.write_only, lambda view: view.__setitem__(Ellipsis, 5))
        for kernel in kernels:
            launch(kernel)
        gate.set()
    assert list(a) == list(np.arange(8) + 2 * 5)


@pytest.mark.parametrize("cycle", [((0, 1), (1, 0)), ((0, 1), (1, 2), (2, 0))], ids=["ping_pong", "three"])
def test_command_groups_in_a_cycle_replay_their_plans(queue: sycl.queue, cycle: tuple[tuple[int, int], ...],
                                                      ) -> None:
    """``a -= b`` then ``b -= a`` (a ping-pong, as in Jacobi), or a cycle of three command
    groups over three buffers, held behind a user event: from the third round on, every
    launch takes a known shape's fast path (rule S20: no action of its own), replaying the
    plans that followed the layouts the others left (rule S17); the results are numpy's."""
    arrays = [np.arange(16, dtype=np.int32) * (k + 1) for k in range(3)]
    model = [a.copy() for a in arrays]
    ctx = queue.get_context()
    gate = cl.UserEvent(sycl.get_native(ctx))
    with sycl.buffer(arrays[0]) as b0, sycl.buffer(arrays[1]) as b1, sycl.buffer(arrays[2]) as b2:
        bufs = [b0, b1, b2]
        queue.submit(lambda h: h.depends_on(sycl.make_event(gate, ctx)))
        fast = []
        for _ in range(6):
            for x, y in cycle:
                ev = queue.submit(lambda h, x=bufs[x], y=bufs[y]: h.parallel_for(
                    16, "ts_sub", sycl.accessor(x, h), sycl.accessor(y, h, sycl.read_only)))
                fast.append(ev._cmd.work is None)  # type: ignore[attr-defined]
                model[x] -= model[y]
        gate.set_status(cl.command_execution_status.COMPLETE)
    rounds = len(cycle)
    assert not any(fast[:2 * rounds]) and all(fast[2 * rounds:])
    for got, want in zip(arrays, model, strict=True):
        assert list(got) == list(want)


@pytest.mark.parametrize("output", ["whole", "no_init", "window"])
def test_a_command_group_of_three_accessors_replays_its_plans(queue: sycl.queue, output: str) -> None:
    """``c = a + s * b`` (the STREAM triad) over three buffers, repeated behind a user event,
    its output accessor over the whole buffer, with ``no_init``, or over a window (the inputs'
    windows alike; at 1 KiB, aligned for a sub-buffer on any device): the buffer keeps each
    kind of accessor's window, so from the third round every launch takes the known shape's
    fast path and replays the three plans (rules S17, S20); the results are numpy's."""
    a, b = np.arange(512, dtype=np.int32), np.arange(512, dtype=np.int32) * 3
    c = np.full(512, -1, np.int32)
    window = {"range": 256, "offset": 256} if output == "window" else {}
    props = {"prop_list": [sycl.property.no_init()]} if output == "no_init" else {}
    ctx = queue.get_context()
    gate = cl.UserEvent(sycl.get_native(ctx))
    with sycl.buffer(a) as ba, sycl.buffer(b) as bb, sycl.buffer(c) as bc:
        def triad(h: sycl.handler) -> None:
            h.parallel_for(256 if window else 512, "ts_sum", sycl.accessor(
                bc, h, sycl.write_only, window.get("range"), window.get("offset"), **props),
                sycl.accessor(ba, h, sycl.read_only, window.get("range"), window.get("offset")),
                sycl.accessor(bb, h, sycl.read_only, window.get("range"), window.get("offset")), 2)
        queue.submit(lambda h: h.depends_on(sycl.make_event(gate, ctx)))
        fast = [queue.submit(triad)._cmd.work is None for _ in range(6)]  # type: ignore[attr-defined]
        gate.set_status(cl.command_execution_status.COMPLETE)
    assert fast == [False, False, True, True, True, True]
    want = np.full(512, -1, np.int32)
    part = slice(256, None) if window else slice(None)
    want[part] = (a + 2 * b)[part]
    assert list(c) == list(want)


def test_two_queues_launching_one_kernel_over_one_buffer_each_keep_their_shape(queue: sycl.queue) -> None:
    """Two queues of one context add a shared buffer (its read-only accessor made first: the
    shapes are kept on its window) into buffers of their own, in turn: each queue keeps its
    own shape of the kernel, and once the shared buffer's copy in is done, each launch from
    the third round on takes the fast path (reads of another queue are waited for by no one)."""
    ctx = queue.get_context()
    other = sycl.queue(ctx, queue.get_device())
    shared, own = np.arange(16, dtype=np.int32), [np.zeros(16, np.int32), np.full(16, 5, np.int32)]
    gate = cl.UserEvent(sycl.get_native(ctx))

    def add(q: sycl.queue, dst: sycl.buffer, src: sycl.buffer) -> sycl.event:
        def cgf(h: sycl.handler) -> None:
            y = sycl.accessor(src, h, sycl.read_only)
            h.parallel_for(16, "ts_add", sycl.accessor(dst, h), y)
        return q.submit(cgf)

    with sycl.buffer(shared) as bs, sycl.buffer(own[0]) as b0, sycl.buffer(own[1]) as b1:
        add(queue, b0, bs).wait()
        for q in (queue, other):
            q.submit(lambda h: h.depends_on(sycl.make_event(gate, ctx)))
        fast = []
        for _ in range(5):
            for q, b in ((queue, b0), (other, b1)):
                fast.append(add(q, b, bs)._cmd.work is None)  # type: ignore[attr-defined]
        gate.set_status(cl.command_execution_status.COMPLETE)
    assert all(fast[4:])
    assert list(own[0]) == list(shared * 6) and list(own[1]) == list(shared * 5 + 5)


SLAB_ROWS, SLAB_COLS = 8, 1024  # a row of 4 KiB: its sub-buffers start on any device's mem_base_addr_align


def _rows_step(u: np.ndarray) -> np.ndarray:
    """``ts_rows`` over rows 1..SLAB_ROWS of a slab, its halo rows kept."""
    out = u.copy()
    j = np.arange(SLAB_COLS)
    out[1:-1] = (u[:-2] + 3 * u[2:] + j) & 0xFFFF
    return out


def test_a_slab_on_two_queues_replays_with_wait_lists_across_them(queue: sycl.queue) -> None:
    """examples/mpi_jacobi.py ``--two-queues``: each step writes the boundary rows of one slab
    on one queue and its inner rows on another queue of the context, all reading the other
    slab, the slabs swapped each step; so every launch waits for one of the other queue (it
    reads the rows that one wrote, or overwrites rows that one read). Then
    the launches take the fast path from the fifth step (rule S20; each slab's layouts are known
    from the third, each plan kept from the fourth), their plans replayed with the edges across
    (rule S17), in the OpenCL wait lists (rule S7): held behind a user event, each fast
    launch records an edge to a command of the other queue; the result is numpy's."""
    ctx, dev = queue.get_context(), queue.get_device()
    other = sycl.queue(ctx, dev)
    start = np.arange((SLAB_ROWS + 2) * SLAB_COLS, dtype=np.int32).reshape(SLAB_ROWS + 2, SLAB_COLS) % 97
    oclgrind = "Oclgrind" in dev.get_platform().get_info(sycl.info.platform.name)
    gate = None if oclgrind else cl.UserEvent(sycl.get_native(ctx))  # Oclgrind's flush would wait for it
    with sycl.buffer(start.copy()) as w0, sycl.buffer(start.copy()) as w1:
        wholes = [w0, w1]
        parts = [[(sycl.buffer(w, sycl.id(first, 0), sycl.range(rows, SLAB_COLS)), first, q)
                  for first, rows, q in ((1, 1, queue), (SLAB_ROWS, 1, queue), (2, SLAB_ROWS - 2, other))]
                 for w in wholes]
        if gate is not None:
            for q in (queue, other):
                q.submit(lambda h: h.depends_on(sycl.make_event(gate, ctx)))
        launches = []
        for k in range(8):
            src, dst = wholes[k % 2], parts[1 - k % 2]
            for part, first, q in dst:
                def cgf(h: sycl.handler, src: sycl.buffer = src, part: sycl.buffer = part,
                        first: int = first) -> None:
                    h.parallel_for(sycl.range(part.get_range()[0], SLAB_COLS), "ts_rows",
                                   sycl.accessor(src, h, sycl.read_only),
                                   sycl.accessor(part, h, sycl.write_only), SLAB_COLS, first)
                launches.append((q, q.submit(cgf)._cmd))  # type: ignore[attr-defined]
        if gate is not None:
            fast = [op.work is None for _, op in launches]
            crossing = [any(dep.lane is not op.lane for dep in op.deps) for _, op in launches]
            gate.set_status(cl.command_execution_status.COMPLETE)
            assert all(fast[12:]) and all(crossing[2:]), (fast, crossing)
        results = []
        for w in wholes:
            with sycl.host_accessor(w, sycl.read_only) as view:  # the sub-buffers live on: no write-back yet
                results.append(np.array(view))
    steps = [start]
    for _ in range(8):
        steps.append(_rows_step(steps[-1]))
    assert (results[0] == steps[8]).all() and (results[1] == steps[7]).all()


def test_a_known_shape_launches_with_the_scalars_of_each_command_group(queue: sycl.queue) -> None:
    """A known shape's launch runs on a ``cl_kernel`` of its own whose arguments stay set, but
    only while its scalars are the ones set there (rule S20); other launches of the kernel do
    not change them."""
    values = [1, 1, 1, 2, 2, 1, 300, 300, 1, 7]
    data, other = np.zeros(4, np.int32), np.zeros(4, np.int32)
    with sycl.buffer(data) as b, sycl.buffer(other) as c:
        for value in values:
            queue.submit(lambda h, v=value: h.parallel_for(4, "ts_add_value", sycl.accessor(b, h), v))
            queue.submit(lambda h: h.parallel_for(  # the kernel's own cl_kernel, ranged: no shape
                2, "ts_add_value", sycl.accessor(c, h, access_range=sycl.range(2)), 1000))
    assert list(data) == [sum(values)] * 4
    assert list(other) == [1000 * len(values)] * 2 + [0] * 2


def test_a_scalar_changed_in_place_reaches_the_next_launch(queue: sycl.queue) -> None:
    """A numpy array passed by value may change in place between two command groups: each
    launch passes the value it holds then (no shape reuses the argument set before)."""
    data = np.zeros(4, np.int32)
    value = np.array(0, dtype=np.int32)
    with sycl.buffer(data) as b:
        for v in (1, 2, 2, 5):
            value[...] = v
            queue.submit(lambda h: h.parallel_for(4, "ts_add_value", sycl.accessor(b, h), value))
    assert list(data) == [10] * 4


def test_a_known_shape_of_a_single_task(queue: sycl.queue) -> None:
    data = np.zeros(4, np.int32)
    with sycl.buffer(data) as b:
        for value in (1, 2, 2, 3, 3):
            queue.submit(lambda h, v=value: h.single_task("ts_add_value", sycl.accessor(b, h), v))
        queue.submit(lambda h: h.parallel_for(1, "ts_add_value", sycl.accessor(b, h), 100))  # the same launch
    assert list(data) == [111, 0, 0, 0]


def test_a_known_shape_still_checks_its_accessors_and_scalars(queue: sycl.queue) -> None:
    kept: list[sycl.accessor] = []
    data = np.zeros(4, np.int32)
    with sycl.buffer(data) as b:
        for value in (1, 2):
            queue.submit(lambda h, v=value: kept.append(acc := sycl.accessor(b, h))
                         or h.parallel_for(4, "ts_set", acc, v))
        with pytest.raises(sycl.exception) as info:  # refused at the enqueue of a known shape
            queue.submit(lambda h: h.parallel_for(4, "ts_set", sycl.accessor(b, h), 2**40))
        assert info.value.code() == sycl.errc.kernel_argument
        with pytest.raises(sycl.exception) as info:  # an accessor of another command group
            queue.submit(lambda h: (sycl.accessor(b, h), h.parallel_for(4, "ts_set", kept[0], 3)))
        assert info.value.code() == sycl.errc.accessor
        with pytest.raises(sycl.exception) as info:  # not a kernel (unhashable)
            queue.submit(lambda h: h.parallel_for(4, ["ts_set"], sycl.accessor(b, h), 3))
        assert info.value.code() == sycl.errc.invalid
        with pytest.raises(sycl.exception) as info:  # a float for an int parameter
            queue.submit(lambda h: h.parallel_for(4, "ts_set", sycl.accessor(b, h), 2.5))
        assert info.value.code() == sycl.errc.kernel_argument
        with pytest.raises(sycl.exception) as info:  # float elements for int*, of the same memory object
            queue.submit(lambda h: h.parallel_for(4, "ts_set", b.reinterpret(np.float32).get_access(h), 3))
        assert info.value.code() == sycl.errc.kernel_argument
        queue.submit(lambda h: h.parallel_for(4, "ts_set", sycl.accessor(b, h), 5))
    assert list(data) == [5] * 4


def test_a_known_shape_waits_for_a_host_task_before_it_on_an_in_order_queue(
    device: sycl.device, gate: threading.Event
) -> None:
    q = sycl.queue(device, prop_list=[sycl.property.queue.in_order()])
    data = np.zeros(4, np.int32)
    with sycl.buffer(data) as b:
        _inc(q, b).wait()
        _inc(q, b).wait()
        host = q.submit(lambda h: h.host_task(gate.wait))
        last = _inc(q, b)
        assert host in last.get_wait_list()
        assert _state(last) != DONE
        gate.set()
        last.wait()
    assert list(data) == [3] * 4


def test_a_known_shape_with_an_accessor_made_after_its_launch_requires_it(queue: sycl.queue) -> None:
    """The accessor made after ``parallel_for`` is part of the command group too: its buffer is
    written on the device, so reading it on the host copies it back."""
    a, c = np.zeros(4, np.int32), np.zeros(4, np.int32)
    with sycl.buffer(a) as ba, sycl.buffer(c) as bc:
        _inc(queue, ba)
        _inc(queue, ba)
        queue.submit(lambda h: (h.parallel_for(4, "ts_inc", sycl.accessor(ba, h)), sycl.accessor(bc, h)))
        with sycl.host_accessor(bc, sycl.read_only):
            pass
        assert bc.transfer_counters().d2h_copies == 1
    assert list(a) == [3] * 4


def test_a_repeated_command_group_whose_accessors_are_not_its_arguments_one_each(queue: sycl.queue) -> None:
    """Such a launch has no shape (rule S20): it is checked and planned in full each time, so an
    accessor passed twice and an accessor the kernel does not take are both honoured."""
    a, c = np.ones(4, np.int32), np.zeros(4, np.int32)
    with sycl.buffer(a) as ba, sycl.buffer(c) as bc:
        for _ in range(3):
            queue.submit(lambda h: h.parallel_for(4, "ts_add", *[sycl.accessor(ba, h)] * 2))  # a += a
        for value in range(3):
            with sycl.host_accessor(bc) as view:
                np.asarray(view)[:] = value
            queue.submit(lambda h: (sycl.accessor(bc, h, sycl.read_only),
                                    h.parallel_for(4, "ts_inc", sycl.accessor(ba, h))))
        assert bc.transfer_counters().h2d_copies == 3  # each group required bc on the device
    assert list(a) == [11] * 4


def test_a_known_shape_recorded_into_a_graph(queue: sycl.queue) -> None:
    data = np.zeros(4, np.int32)
    with sycl.buffer(data) as b:
        _inc(queue, b)
        _inc(queue, b)
        graph = sycl.ext.oneapi.experimental.command_graph(queue.get_context(), queue.get_device())
        graph.begin_recording(queue)
        _inc(queue, b)
        graph.end_recording()
        exe = graph.finalize()
        for _ in range(3):
            queue.ext_oneapi_graph(exe)
        _inc(queue, b)
    assert list(data) == [6] * 4


def test_failed_command_errors_are_delivered_once(device: sycl.device) -> None:
    caught: list[list[sycl.exception]] = []
    q = sycl.queue(device, async_handler=lambda errs: caught.append(list(errs)))
    with sycl.buffer(np.zeros(4, dtype=np.int32)) as b:
        def failing(h: sycl.handler) -> None:
            sycl.accessor(b, h)

            def boom() -> None:
                raise ValueError("host task failure")

            h.host_task(boom)

        q.submit(failing)
        dependent = _inc(q, b)
        q.wait()
        dependent.wait()
        q.throw_asynchronous()
        q.throw_asynchronous()
    assert len(caught) == 1
    messages = [str(e) for e in caught[0]]
    assert any("host task failure" in m for m in messages)
    assert all(e.code() == sycl.errc.runtime for e in caught[0])


def test_zero_range_kernel_releases_its_dependents(queue: sycl.queue) -> None:
    a = np.zeros(4, dtype=np.int32)
    with sycl.buffer(a) as b:
        empty = queue.submit(lambda h: h.parallel_for(0, "ts_inc", sycl.accessor(b, h)))
        after = _inc(queue, b)
        after.wait()
        assert _state(empty) == DONE
    assert (a == 1).all()


def test_empty_command_group_completes(queue: sycl.queue) -> None:
    with sycl.buffer(np.zeros(4, dtype=np.int32)) as b:
        ev = queue.submit(lambda h: sycl.accessor(b, h, sycl.read_only))
        ev.wait()
        assert _state(ev) == DONE


# --- issue 10: spec overlap, failures that do not cancel, the interpreter's exit -----------------


def test_ranged_accessors_on_disjoint_windows_of_one_buffer_are_ordered(
    queue: sycl.queue, gate: threading.Event
) -> None:
    """§3.8.1: two accessors of one buffer overlap unless both are on non-overlapping
    sub-buffers (docs/scheduler.md rule S2), so ranged accessors on disjoint windows are ordered."""
    a = np.zeros(8, dtype=np.int32)
    with sycl.buffer(a) as b:
        def low(h: sycl.handler) -> None:
            acc = sycl.accessor(b, h, sycl.write_only, sycl.range(4))
            h.host_task(lambda: (gate.wait(), np.asarray(acc).__setitem__(Ellipsis, 5)))

        held = queue.submit(low)
        high = queue.submit(lambda h: h.parallel_for(
            4, "ts_inc", sycl.accessor(b, h, sycl.read_write, sycl.range(4), sycl.id(4))))
        waits_for, state = high.get_wait_list(), _state(high)
        gate.set()  # before asserting: the buffer's destruction waits for the gated task
        high.wait()
    assert held in waits_for and state != DONE
    assert a.tolist() == [5, 5, 5, 5, 1, 1, 1, 1]


def test_commands_that_depend_on_a_failed_host_task_still_run(device: sycl.device) -> None:
    """§4.13.1, docs/scheduler.md rule S10: a failed host task cancels nothing; each command
    that depends on it runs and reports only its own errors (as the CTS's event tests expect)."""
    caught: list[sycl.exception] = []
    q = sycl.queue(device, async_handler=caught.extend)
    a = np.zeros(4, dtype=np.int32)
    ran = threading.Event()
    with sycl.buffer(a) as b:
        def failing(h: sycl.handler) -> None:
            sycl.accessor(b, h)

            def boom() -> None:
                raise ValueError("the first host task fails")

            h.host_task(boom)

        def reader(h: sycl.handler) -> None:
            sycl.accessor(b, h, sycl.read_only)
            h.host_task(ran.set)

        failed = q.submit(failing)
        kernel = _inc(q, b)
        after = q.submit(reader)
        assert failed in kernel.get_wait_list()
        sycl.event.wait([kernel, after])
        q.throw_asynchronous()
    assert ran.is_set()
    assert a.tolist() == [1, 1, 1, 1]
    assert [str(e.__cause__) for e in caught] == ["the first host task fails"]


def test_work_in_flight_at_interpreter_exit_completes(device: sycl.device, tmp_path: Path) -> None:
    """docs/scheduler.md rule S14: a program that ends without waiting still runs its commands
    (as DPC++ waits at shutdown), and no driver abort follows. The copy and the second host task
    become ready only during the exit, when Python 3.12 starts no thread."""
    out = tmp_path / "done.txt"
    platform_name = device.get_platform().get_info(sycl.info.platform.name)
    name = device.get_info(sycl.info.device.name)
    done = run_child(f"""
        import time
        import numpy as np
        import sycl_ocl as sycl

        def mine(d):
            names = (d.get_platform().get_info(sycl.info.platform.name), d.get_info(sycl.info.device.name))
            return 1 if names == ({platform_name!r}, {name!r}) else -1

        q = sycl.queue(sycl.device(mine))
        buf, copied = sycl.buffer(sycl.range(4), np.int32), sycl.buffer(sycl.range(4), np.int32)

        def slow(h):
            acc = sycl.accessor(buf, h, sycl.write_only)

            def task():
                time.sleep(0.5)  # still running when the script ends
                np.asarray(acc)[:] = 7

            h.host_task(task)

        def report(h):
            acc = sycl.accessor(copied, h, sycl.read_only)
            h.host_task(lambda: open({str(out)!r}, "w").write(str(np.asarray(acc).tolist())))

        q.submit(slow)
        q.submit(lambda h: h.copy(sycl.accessor(buf, h, sycl.read_only),
                                  sycl.accessor(copied, h, sycl.write_only)))
        q.submit(report)
    """)
    assert done.returncode == 0 and "terminate called" not in done.stderr, done.stderr
    assert "Exception ignored" not in done.stderr, done.stderr
    assert out.exists() and out.read_text() == "[7, 7, 7, 7]"


def test_an_open_host_accessor_at_exit_lets_the_work_behind_it_run(device: sycl.device,
                                                                   tmp_path: Path) -> None:
    """docs/scheduler.md rule S14: a host accessor still open when the program ends is ended
    first (C++ destroys it when the program ends), then the work behind it runs and is waited
    for like any other. It stalled the exit 10 s, logged the work abandoned, then ran it."""
    out, ended = tmp_path / "done.txt", tmp_path / "ended.txt"
    platform_name = device.get_platform().get_info(sycl.info.platform.name)
    done = run_child(f"""
        import time
        import numpy as np
        import sycl_ocl as sycl

        sycl.register_kernel_source("__kernel void ex_inc(__global int* a) {{ a[get_global_id(0)] += 1; }}")
        dev = next(d for d in sycl.device.get_devices()
                   if d.get_platform().get_info(sycl.info.platform.name) == {platform_name!r})
        q = sycl.queue(dev)
        buf = sycl.buffer(np.zeros(4, np.int32))
        acc = sycl.host_accessor(buf)  # never released: open when the script ends

        def report(h):
            seen = sycl.accessor(buf, h, sycl.read_only)
            h.host_task(lambda: open({str(out)!r}, "w").write(str(np.asarray(seen).tolist())))

        q.submit(lambda h: h.parallel_for(4, "ex_inc", sycl.accessor(buf, h)))
        q.submit(report)
        open({str(ended)!r}, "w").write(repr(time.time()))
    """, timeout=120)
    exit_s = time.time() - float(ended.read_text())
    assert done.returncode == 0, done.stderr
    assert "abandoned" not in done.stderr and "Exception ignored" not in done.stderr, done.stderr
    assert out.read_text() == "[1, 1, 1, 1]"
    assert exit_s < 5, f"the exit took {exit_s:.1f} s"


def test_a_host_task_that_never_ends_does_not_hang_the_exit() -> None:
    """docs/scheduler.md rule S14: the exit gives up on work that completes nothing for 10 s, and
    says so; here a host task that never returns becomes ready only during the exit (Python 3.12
    then runs it on the progress thread, no thread being startable)."""
    done = run_child("""
        import threading, time
        import sycl_ocl as sycl

        q = sycl.queue()
        first = q.submit(lambda h: h.host_task(lambda: time.sleep(0.3)))
        q.submit(lambda h: (h.depends_on(first), h.host_task(threading.Event().wait)))  # never set
    """, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "were still waiting at interpreter exit" in done.stderr, done.stderr


def _drain_seconds(q: sycl.queue, n: int) -> float:
    """Seconds for ``n`` host tasks queued behind a gate, each after the one before (they
    share a buffer), to drain once the gate opens; checks that each ran once, in order."""
    buf = sycl.buffer(np.zeros(1, np.int32))
    gate, order = threading.Event(), []

    def task(i: int) -> Callable[[sycl.handler], None]:
        def cgf(h: sycl.handler) -> None:
            acc = sycl.accessor(buf, h, sycl.read_write, target=sycl.target.host_task)
            h.host_task(lambda: (order.append(i), np.asarray(acc).__iadd__(1)))
        return cgf

    q.submit(lambda h: (sycl.accessor(buf, h, target=sycl.target.host_task),
                        h.host_task(lambda: gate.wait(60))))
    for i in range(n):
        q.submit(task(i))
    start = time.perf_counter()
    gate.set()
    q.wait()
    seconds = time.perf_counter() - start
    assert order == list(range(n))
    with sycl.host_accessor(buf, sycl.read_only) as acc:
        assert int(np.asarray(acc)[0]) == n
    return seconds


def test_a_backlog_of_host_tasks_drains_in_linear_time(queue: sycl.queue) -> None:
    """The dispatcher looked at every waiting host task each time one completed: 10,000 took
    12.7 s to drain, 2,000 0.4 s (docs/reliability.md, "Host threads"). Five times the tasks
    must take about five times as long, not twenty-five."""
    _drain_seconds(queue, 200)  # warm: the pool's threads, the code paths
    small, large = _drain_seconds(queue, 2000), _drain_seconds(queue, 10000)
    print(f"drained 2,000 host tasks in {small:.3f} s, 10,000 in {large:.3f} s")
    assert large < 12 * small + 0.2 and large < 5, (small, large)


def _deferred_drain_seconds(device: sycl.device, n: int) -> float:
    """Seconds for ``n`` kernels on an in-order queue, each deferred behind a host task (which
    follows the kernel before it), all behind a gate, to drain once the gate opens."""
    q = sycl.queue(device, prop_list=[sycl.property.queue.in_order()])
    data = np.zeros(4, np.int32)
    bufs = [sycl.buffer(data)]
    gate = threading.Event()
    q.submit(lambda h: h.host_task(lambda: gate.wait(60)))
    for _ in range(n):
        q.submit(lambda h: h.host_task(lambda: None))
        q.submit(lambda h: h.parallel_for(4, "ts_inc", sycl.accessor(bufs[0], h)))
    start = time.perf_counter()
    gate.set()
    q.wait()
    seconds = time.perf_counter() - start
    bufs.clear()
    assert data.tolist() == [n] * 4
    return seconds


def test_a_backlog_of_deferred_kernels_drains_in_linear_time(device: sycl.device) -> None:
    """Each pass of the scheduler looked at every deferred kernel: 4,000 kernels, each behind a
    host task, took 2.0 s to drain, 1,000 0.14 s (docs/reliability.md, "Host threads"); now
    each is parked on the latch of what holds it back (``progress.Deferred``). Five times the
    kernels must take about five times as long, not twenty-five."""
    _deferred_drain_seconds(device, 100)  # warm: the kernel built, the pool's threads
    small, large = _deferred_drain_seconds(device, 1000), _deferred_drain_seconds(device, 5000)
    print(f"drained 1,000 deferred kernels in {small:.3f} s, 5,000 in {large:.3f} s")
    assert large < 12 * small + 0.2, (small, large)
