"""Category command_graph (the oneAPI extension ``sycl_ext_oneapi_graph``): CG-01 .. CG-23.

The CTS has no command-graph tests, so these ids are sycl_ocl's own (``SCENARIOS.md`` cites
the sections of the extension's specification each one checks). A finalized graph replays in
one of two ways (docs/graphs.md): as a native command buffer where the device offers a
``cl_khr_command_buffer`` revision sycl_ocl records, or as prepared kernels everywhere. Every
replay scenario runs once per way (the ``path`` fixture): the native rows skip, saying why,
where the device has no usable command buffers, and each row checks which way its graph took.
"""

from __future__ import annotations

import gc
import itertools
import threading
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from typing import Any

import numpy as np
import pyopencl as cl
import pytest

import sycl_ocl as sycl
from conformance.support import Gate, aligned_elements, needs, needs_usm_kind, other_devices, raises, status
from sycl_ocl import _command_buffer as cbuf
from sycl_ocl.scheduler.graph import native_command_buffers
from sycl_ocl.usm import alloc

exp = sycl.ext.oneapi.experimental

STEP = sycl.specialization_id("CTS_GRAPH_STEP", np.uint32, 1)
AXPB, ADD, GROUP_SUM, WINDOW, GRID, SPEC_ADD = sycl.register_kernel_source(
    """
    __kernel void cts_graph_axpb(__global uint *a, uint m, uint b) {
        size_t i = get_global_id(0);
        a[i] = a[i] * m + b;
    }
    __kernel void cts_graph_add(__global uint *dst, __global const uint *src) {
        size_t i = get_global_id(0);
        dst[i] += src[i];
    }
    /* Each work-group sums its elements through local memory (a tree of barriers). */
    __kernel void cts_graph_group_sum(__global const uint *in, __global uint *sums, __local uint *tmp) {
        size_t l = get_local_id(0), n = get_local_size(0);
        tmp[l] = in[get_global_id(0)];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (size_t stride = n / 2; stride > 0; stride /= 2) {
            if (l < stride) tmp[l] += tmp[l + stride];
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (l == 0) sums[get_group_id(0)] = tmp[0];
    }
    __kernel void cts_graph_window(__global uint *w, uint k) {
        size_t i = get_global_id(0);
        w[i] += k * 1000u + (uint)i;
    }
    /* Over sycl.range(rows, cols): get_global_id(0) is the column (docs/kernels.md). */
    __kernel void cts_graph_grid(__global uint *a) {
        size_t col = get_global_id(0), row = get_global_id(1);
        a[row * get_global_size(0) + col] += (uint)(row * 100 + col);
    }
    __kernel void cts_graph_spec_add(__global uint *a) { a[get_global_id(0)] += CTS_GRAPH_STEP; }
    """
)

N = 64  # elements of the buffers and allocations
U32 = np.uint32


def launch_axpb(h: sycl.handler, acc: sycl.accessor, m: int, b: int, required: bool = False) -> None:
    """Launch ``a = a * m + b`` over the elements of ``acc`` (a placeholder: ``required``)."""
    if required:
        h.require(acc)
    h.parallel_for(acc.get_range(), AXPB, acc, U32(m), U32(b))


def axpb(buf: sycl.buffer, m: int, b: int) -> Callable[[sycl.handler], None]:
    """A command group computing ``a = a * m + b`` over ``buf``."""
    return lambda h: launch_axpb(h, sycl.accessor(buf, h), m, b)


def add_into(dst: sycl.buffer, src: sycl.buffer) -> Callable[[sycl.handler], None]:
    """A command group computing ``dst += src``."""
    return lambda h: h.parallel_for(N, ADD, sycl.accessor(dst, h), sycl.accessor(src, h, sycl.read_only))


def after(events: Any, cgf: Callable[[sycl.handler], Any]) -> Callable[[sycl.handler], None]:
    """The command group ``cgf`` depending on ``events`` (handler.depends_on)."""

    def run(h: sycl.handler) -> None:
        h.depends_on(events)
        cgf(h)

    return run


def model_axpb(values: np.ndarray, m: int, b: int) -> np.ndarray:
    """What ``cts_graph_axpb`` computes, modulo 2**32 as the device does."""
    return (values.astype(np.uint64) * m + b).astype(U32)


def recorded(q: sycl.queue, *cgfs: Callable[[sycl.handler], Any]) -> exp.command_graph:
    """A modifiable graph holding the command groups, recorded on ``q``."""
    g = exp.command_graph(q)
    g.begin_recording(q)
    for cgf in cgfs:
        q.submit(cgf)
    g.end_recording()
    return g


def read(buf: sycl.buffer) -> np.ndarray:
    """A copy of a buffer's contents, through a host accessor."""
    with sycl.host_accessor(buf, sycl.read_only) as view:
        return np.array(view)


# --- the two ways a graph replays -----------------------------------------------------------


def command_buffer_problem(dev: sycl.device) -> str:
    """Why graphs on ``dev`` cannot replay as native command buffers; "" when they can."""
    native = sycl.get_native(dev)
    if cbuf.supported(native):
        return ""
    name = cbuf.EXTENSION
    if name not in native.extensions.split():
        return f"the device lacks {name}: graphs replay prepared kernels"
    try:
        v = next(e.version for e in native.get_info(cl.device_info.EXTENSIONS_WITH_VERSION) if e.name == name)
    except (cl.Error, StopIteration):
        return f"the device offers {name} but not its revision (OpenCL 1.2): graphs replay prepared kernels"
    revision = (v >> 22, (v >> 12) & 0x3FF, v & 0xFFF)
    if revision not in cbuf.KNOWN_REVISIONS:
        return (f"the device offers {name} revision {'.'.join(map(str, revision))}; sycl_ocl records the "
                f"revisions {cbuf.KNOWN_REVISIONS_TEXT} only: graphs replay prepared kernels")
    return (f"the device offers {name} {'.'.join(map(str, revision))} but requires queue properties or "
            "lacks capabilities sycl_ocl needs: graphs replay prepared kernels")


@pytest.fixture(params=["native", "prepared"])
def path(request: pytest.FixtureRequest, device: sycl.device) -> Iterator[str]:
    """How graphs finalized in the test replay: native command buffers, or prepared kernels."""
    native = request.param == "native"
    problem = command_buffer_problem(device)
    if native and problem:
        pytest.skip(problem)
    with native_command_buffers(native):
        yield request.param


def expect_path(exe: exp.command_graph, path: str) -> None:
    """The executable graph replays the way the test asked for (docs/graphs.md)."""
    assert exe.state is exp.graph_state.executable
    assert exe._replay is not None and exe._replay.native == (path == "native"), (
        f"asked for {path}, got native={exe._replay.native if exe._replay else None}")


# --- construction, recording --------------------------------------------------------------------


def test_CG_01_construction(queue: sycl.queue) -> None:
    """A graph from a context and a device, or from a queue, with properties: modifiable, empty."""
    ctx, dev = queue.get_context(), queue.get_device()
    graphs = [
        exp.command_graph(ctx, dev),
        exp.command_graph(queue),
        exp.command_graph(queue, [exp.property.graph.no_cycle_check()]),  # type: ignore[arg-type]
        exp.command_graph(ctx, dev, prop_list=[exp.property.graph.assume_buffer_outlives_graph(),
                                               exp.property.graph.enable_profiling()]),
    ]
    for g in graphs:
        assert g.state is exp.graph_state.modifiable
        assert g.empty() and g.get_nodes() == [] and g.get_root_nodes() == []
    assert graphs[2].has_property(exp.property.graph.no_cycle_check)
    assert not graphs[1].has_property(exp.property.graph.no_cycle_check)
    assert graphs[3].has_property(exp.property.graph.enable_profiling)
    with raises(sycl.errc.invalid):
        exp.command_graph(ctx)  # a context needs its device
    with raises(sycl.errc.invalid):
        exp.command_graph(dev)  # type: ignore[arg-type]


def test_CG_01_device_outside_the_context_is_refused(device: sycl.device) -> None:
    """command_graph(ctx, dev) for a device that ctx does not hold raises errc.invalid."""
    others = [d for d in sycl.device.get_devices() if d != device]
    if not others:
        pytest.skip("no other OpenCL device is visible, so no context lacks the device under test")
    with raises(sycl.errc.invalid):
        exp.command_graph(sycl.context(others[0]), device)


def test_CG_02_queue_states(device: sycl.device) -> None:
    """begin_recording puts queues in the recording state; their submissions become nodes that do
    not run; end_recording (all, one, a list) returns them to executing."""
    q1, q2 = sycl.queue(device), sycl.queue(device)
    data, filled = np.zeros(N, U32), np.zeros(N, U32)
    with sycl.buffer(data) as buf, sycl.buffer(filled) as filled_buf:
        g = exp.command_graph(q1)
        assert q1.ext_oneapi_get_state() is exp.queue_state.executing
        g.begin_recording([q1, q2])
        for q in (q1, q2):
            assert q.ext_oneapi_get_state() is exp.queue_state.recording
            assert q.ext_oneapi_get_graph() is g
        q1.submit(axpb(buf, 1, 1))
        q2.submit(axpb(buf, 1, 2))
        q2.fill(sycl.accessor(filled_buf, None, sycl.write_only), U32(7))  # a queue shortcut
        assert len(g.get_nodes()) == 3
        np.testing.assert_array_equal(read(buf), 0)  # recorded commands have not run
        np.testing.assert_array_equal(read(filled_buf), 0)
        g.end_recording(q1)
        assert q1.ext_oneapi_get_state() is exp.queue_state.executing
        assert q2.ext_oneapi_get_state() is exp.queue_state.recording
        g.end_recording(q1)  # a queue that does not record: nothing happens
        g.end_recording([q2])
        assert q2.ext_oneapi_get_state() is exp.queue_state.executing
        with raises(sycl.errc.invalid):
            q1.ext_oneapi_get_graph()
        g.end_recording()  # nothing records: nothing happens
        q1.submit(axpb(buf, 1, 5)).wait()  # executing again: runs at once
        q2.wait()
        np.testing.assert_array_equal(read(buf), 5)  # the recorded commands never ran
        g.begin_recording(q1)  # a graph may record again
        q1.submit(axpb(buf, 1, 3))
        g.end_recording()
        assert len(g.get_nodes()) == 4
        q1.ext_oneapi_graph(g.finalize()).wait()
    np.testing.assert_array_equal(data, 5 + 1 + 2 + 3)
    np.testing.assert_array_equal(filled, 7)


def test_CG_03_recording_refusals(device: sycl.device) -> None:
    """A queue recording already (to this or another graph), or of another context, cannot begin
    recording; end_recording of a queue recording to another graph, and explicit building while
    recording, raise errc.invalid; nothing changes."""
    q, spare = sycl.queue(device), sycl.queue(device)
    g, other = exp.command_graph(q), exp.command_graph(q)
    g.begin_recording(q)
    with raises(sycl.errc.invalid):
        g.begin_recording(q)
    with raises(sycl.errc.invalid):
        other.begin_recording(q)  # recording to another graph
    with raises(sycl.errc.invalid):
        other.begin_recording([spare, q])
    assert spare.ext_oneapi_get_state() is exp.queue_state.executing  # all or nothing
    with raises(sycl.errc.invalid):
        other.end_recording(q)
    with raises(sycl.errc.invalid):
        other.end_recording([q])
    assert q.ext_oneapi_get_graph() is g
    with raises(sycl.errc.invalid):
        g.add()
    with raises(sycl.errc.invalid):
        g.add(lambda h: None)
    g.end_recording()
    a, b = g.add(), g.add()
    g.begin_recording(q)
    with raises(sycl.errc.invalid):
        g.make_edge(a, b)
    g.end_recording()
    with raises(sycl.errc.invalid):
        g.begin_recording(sycl.queue(sycl.context(device), device))  # another context
    assert b.get_predecessors() == [] and len(g.get_nodes()) == 2


def test_CG_04_transitive_recording(device: sycl.device) -> None:
    """A submission to an executing queue that depends on a recorded event starts recording that
    queue to the same graph, with an edge; end_recording() ends it too."""
    q1, q2 = sycl.queue(device), sycl.queue(device)
    data, other_data = np.full(N, 1, U32), np.full(N, 1, U32)
    with sycl.buffer(data) as buf, sycl.buffer(other_data) as other_buf:
        g = exp.command_graph(q1)
        g.begin_recording(q1)
        first = q1.submit(axpb(buf, 2, 0))

        def second(h: sycl.handler) -> None:
            h.depends_on(first)
            h.parallel_for(N, AXPB, sycl.accessor(other_buf, h), U32(3), U32(0))  # no data in common

        q2.submit(second)
        assert q2.ext_oneapi_get_state() is exp.queue_state.recording
        assert q2.ext_oneapi_get_graph() is g
        q2.submit(axpb(other_buf, 1, 1))  # q2 records from now on, without a recorded event
        g.end_recording()
        assert q2.ext_oneapi_get_state() is exp.queue_state.executing
        n1, n2, n3 = g.get_nodes()
        assert n2.get_predecessors() == [n1] and n3.get_predecessors() == [n2]
        np.testing.assert_array_equal(read(other_buf), 1)
        q1.ext_oneapi_graph(g.finalize()).wait()
    np.testing.assert_array_equal(data, 2)
    np.testing.assert_array_equal(other_data, 4)


def test_CG_05_recorded_events_and_waits(queue: sycl.queue) -> None:
    """Events of recorded submissions serve as dependencies inside their graph only: waiting,
    status, profiling, and use after recording raise errc.invalid, as do waiting on a recording
    queue and depending on an eager event, or another graph's, while recording."""
    with sycl.buffer(np.zeros(N, U32)) as buf:
        eager = queue.submit(axpb(buf, 1, 1))
        g, other = exp.command_graph(queue), exp.command_graph(queue)
        elsewhere = sycl.queue(queue.get_context(), queue.get_device())
        other.begin_recording(elsewhere)
        foreign = elsewhere.submit(axpb(buf, 1, 1))
        g.begin_recording(queue)
        rec = queue.submit(axpb(buf, 1, 1))
        for misuse in (
            rec.wait, rec.wait_and_throw, lambda: sycl.event.wait([rec]),
            lambda: rec.get_info(sycl.info.event.command_execution_status),
            lambda: rec.get_profiling_info(sycl.info.event_profiling.command_end),
            queue.wait, queue.wait_and_throw,
            lambda: queue.submit(after(eager, axpb(buf, 1, 1))),
            lambda: queue.fill(sycl.accessor(buf, None, sycl.write_only), U32(1), depends_on=eager),
            lambda: queue.submit(after(foreign, axpb(buf, 1, 1))),  # recorded to another graph
        ):
            with raises(sycl.errc.invalid):
                misuse()
        queue.submit(after(rec, axpb(buf, 1, 1)))  # a recorded event: an edge
        g.end_recording()
        other.end_recording()
        with raises(sycl.errc.invalid):  # after recording
            queue.submit(after(rec, axpb(buf, 1, 1)))
        assert len(g.get_nodes()) == 2
        queue.wait()
        np.testing.assert_array_equal(read(buf), 1)  # only the eager command ran


def test_CG_06_recorded_edges(device: sycl.device) -> None:
    """Recorded edges come from conflicting accessors (not from two reads), from depends_on on
    recorded events, and from the order of an in-order queue; disjoint work is a root."""
    q = sycl.queue(device)
    in_order = sycl.queue(device, prop_list=[sycl.property.queue.in_order()])
    a, b, c = np.full(N, 1, U32), np.full(N, 1, U32), np.full(N, 1, U32)
    with sycl.buffer(a) as abuf, sycl.buffer(b) as bbuf, sycl.buffer(c) as cbuf_:
        g = exp.command_graph(q)
        g.begin_recording([q, in_order])
        write_a = q.submit(axpb(abuf, 3, 0))  # a = 3
        read_a1 = q.submit(add_into(bbuf, abuf))  # b = 4 (reads a)
        read_a2 = q.submit(add_into(cbuf_, abuf))  # c = 4 (reads a; no edge with read_a1)
        write_a2 = q.submit(axpb(abuf, 2, 0))  # a = 6, after both reads
        lone = q.submit(axpb(cbuf_, 1, 0))  # conflicts with read_a2 only (c)
        joined = q.submit(after(write_a2, lambda h: None))  # an empty node, by event
        placeholder = sycl.accessor(cbuf_, None)
        bound = q.submit(lambda h: launch_axpb(h, placeholder, 1, 1, required=True))
        io_first = in_order.submit(axpb(bbuf, 1, 1))  # b = 5
        io_second = in_order.submit(lambda h: None)  # nothing in common: ordered by the queue
        g.end_recording()
        node = exp.node.get_node_from_event
        assert node(write_a).get_predecessors() == []
        assert node(read_a1).get_predecessors() == [node(write_a)]
        assert node(read_a2).get_predecessors() == [node(write_a)]
        assert {id(n) for n in node(write_a2).get_predecessors()} >= {id(node(read_a1)), id(node(read_a2))}
        assert node(lone).get_predecessors() == [node(read_a2)]
        assert node(joined).get_predecessors() == [node(write_a2)]
        assert node(bound).get_predecessors() == [node(lone)]  # a placeholder, once required
        assert node(io_first).get_predecessors() == [node(read_a1)]
        assert node(io_second).get_predecessors() == [node(io_first)]
        assert node(write_a).get_successors() == [node(read_a1), node(read_a2), node(write_a2)]
        assert g.get_root_nodes() == [node(write_a)]
        q.ext_oneapi_graph(g.finalize()).wait()
    assert (a[0], b[0], c[0]) == (6, 5, 5)


def test_CG_07_explicit_nodes(queue: sycl.queue, path: str) -> None:
    """add(cgf) and add() (an empty node), with dep=, property.node.depends_on,
    depends_on_all_leaves, accessor edges and handler.depends_on on a recorded event."""
    a, b = np.full(N, 1, U32), np.full(N, 2, U32)
    with sycl.buffer(a) as abuf, sycl.buffer(b) as bbuf:
        g = exp.command_graph(queue, prop_list=[exp.property.graph.assume_buffer_outlives_graph()])
        g.begin_recording(queue)
        rec = queue.submit(axpb(bbuf, 1, 1))  # b = 3
        g.end_recording()
        start = g.add()
        scale = g.add(axpb(abuf, 5, 0), dep=start)  # a = 5
        bump = g.add(after(rec, axpb(abuf, 1, 1)), dep=[start])  # a = 6, after scale
        join = g.add(add_into(abuf, bbuf), prop_list=[exp.property.node.depends_on(start, bump)])  # a = 9
        end = g.add(prop_list=[exp.property.node.depends_on_all_leaves()])
        assert [n.get_type() for n in g.get_nodes()] == [exp.node_type.kernel, exp.node_type.empty,
                                                           exp.node_type.kernel, exp.node_type.kernel,
                                                           exp.node_type.kernel, exp.node_type.empty]
        rec_node = exp.node.get_node_from_event(rec)
        assert g.get_root_nodes() == [rec_node, start]
        assert scale.get_predecessors() == [start]
        assert set(map(id, bump.get_predecessors())) == {id(start), id(rec_node), id(scale)}
        assert set(map(id, join.get_predecessors())) == {id(start), id(bump), id(rec_node)}
        assert end.get_predecessors() == [join] and end.get_successors() == []
        assert start.get_successors() == [scale, bump, join]
        exe = g.finalize()
        expect_path(exe, path)
        queue.ext_oneapi_graph(exe).wait()
    np.testing.assert_array_equal(a, 9)
    np.testing.assert_array_equal(b, 3)


def test_CG_08_make_edge_and_cycles(queue: sycl.queue) -> None:
    """make_edge adds one edge (once); an edge to itself, to another graph's node, or closing a
    cycle raises errc.invalid and leaves the graph as it was."""
    g, other = exp.command_graph(queue), exp.command_graph(queue)
    a, b, c, foreign = g.add(), g.add(), g.add(), other.add()
    g.make_edge(a, b)
    g.make_edge(b, c)
    g.make_edge(a, b)  # again: still one edge
    assert b.get_predecessors() == [a] and a.get_successors() == [b]
    for src, dest in ((a, a), (a, foreign), (foreign, a), (c, a), (b, a)):
        with raises(sycl.errc.invalid):
            g.make_edge(src, dest)
    assert [n.get_predecessors() for n in (a, b, c)] == [[], [a], [b]]
    assert [n.get_successors() for n in (a, b, c)] == [[b], [c], []]
    assert g.get_root_nodes() == [a] and foreign.get_predecessors() == []
    queue.ext_oneapi_graph(g.finalize()).wait()


def test_CG_08_no_cycle_check_leaves_cycles_to_the_user(queue: sycl.queue) -> None:
    """With property.graph.no_cycle_check make_edge does not look for cycles; finalize refuses a
    graph that has one (errc.invalid, sycl_ocl: the extension leaves it undefined)."""
    g = exp.command_graph(queue, prop_list=[exp.property.graph.no_cycle_check()])
    a, b = g.add(), g.add()
    g.make_edge(a, b)
    g.make_edge(b, a)
    assert a.get_predecessors() == [b] and g.get_root_nodes() == []
    with raises(sycl.errc.invalid):
        g.finalize()


def test_CG_09_node_queries(queue: sycl.queue) -> None:
    """node_type of recorded kernels, copies, fills and empty command groups; get_node_from_event
    gives the node of a recorded event (the same object get_nodes holds) and raises errc.invalid
    for an event of an eager command."""
    src, dst = np.arange(N, dtype=U32), np.zeros(N, U32)
    with sycl.buffer(src) as sbuf, sycl.buffer(dst) as dbuf:
        eager = queue.submit(axpb(sbuf, 1, 0))
        g = exp.command_graph(queue)
        g.begin_recording(queue)
        events = [
            queue.submit(lambda h: h.copy(sycl.accessor(sbuf, h, sycl.read_only),
                                          sycl.accessor(dbuf, h, sycl.write_only))),
            queue.submit(axpb(dbuf, 2, 0)),
            queue.submit(lambda h: h.single_task(AXPB, sycl.accessor(sbuf, h), U32(1), U32(1))),
            queue.fill(sycl.accessor(sbuf, None, sycl.write_only), U32(9)),
            queue.submit(lambda h: None),
        ]
        g.end_recording()
        nodes = g.get_nodes()
        assert [n.get_type() for n in nodes] == [exp.node_type.memcpy, exp.node_type.kernel,
                                                 exp.node_type.kernel, exp.node_type.memfill,
                                                 exp.node_type.empty]
        for ev, n in zip(events, nodes, strict=True):
            assert exp.node.get_node_from_event(ev) is n and exp.node.get_node_from_event(ev) == n
        for n in nodes:
            for pred in n.get_predecessors():
                assert n in pred.get_successors()
        with raises(sycl.errc.invalid):
            exp.node.get_node_from_event(eager)
        with raises(sycl.errc.invalid):
            exp.node.get_node_from_event(sycl.event())
        queue.ext_oneapi_graph(g.finalize()).wait()
    np.testing.assert_array_equal(dst, np.arange(N) * 2)
    assert src[0] == 9 and src[-1] == 9


# --- finalize and replay ------------------------------------------------------------------------


def test_CG_10_finalize(queue: sycl.queue, path: str) -> None:
    """finalize returns an executable graph and leaves the modifiable one usable: more nodes and
    another finalize make a second, independent executable graph; an empty graph replays as a
    no-op; members of the other state raise errc.invalid; updatable is not supported."""
    data = np.zeros(N, U32)
    with sycl.buffer(data) as buf:
        g = recorded(queue, axpb(buf, 1, 1))
        first = g.finalize()
        expect_path(first, path)
        assert g.state is exp.graph_state.modifiable and len(g.get_nodes()) == 1
        g.add(axpb(buf, 1, 10))
        second = g.finalize()
        expect_path(second, path)
        again = g.finalize()  # finalizing twice: two executable graphs of the same nodes
        for exe in (first, second, first, again):
            queue.ext_oneapi_graph(exe)
        assert read(buf)[0] == 1 + 11 + 1 + 11
        for misuse in (first.add, lambda: first.begin_recording(queue), first.end_recording,
                       first.finalize, first.get_nodes, lambda: queue.ext_oneapi_graph(g)):
            with raises(sycl.errc.invalid):
                misuse()
        with raises(sycl.errc.feature_not_supported):
            g.finalize(prop_list=[exp.property.graph.updatable()])
        empty = exp.command_graph(queue).finalize()
        ev = queue.ext_oneapi_graph(empty)
        ev.wait()
        assert status(ev) is sycl.info.event_command_status.complete
        queue.ext_oneapi_graph(g.finalize()).wait()  # still usable after the refusals
    assert data[0] == 24 + 11


def test_CG_11_replay_on_queues_of_the_graph(device: sycl.device, path: str) -> None:
    """A graph replays on the queue that recorded it and on any queue of its context and device
    (in order or not, with depends_on, through handler.ext_oneapi_graph); a queue of another
    context is refused with errc.invalid."""
    ctx = sycl.context(device)
    q = sycl.queue(ctx, device)
    queues = [q, sycl.queue(ctx, device), sycl.queue(ctx, device, prop_list=[sycl.property.queue.in_order()])]
    data = np.zeros(N, U32)
    with sycl.buffer(data) as buf:
        exe = recorded(q, axpb(buf, 1, 1)).finalize()
        expect_path(exe, path)
        last: Any = None
        for other in queues:
            last = other.ext_oneapi_graph(exe, depends_on=last)
            last = other.ext_oneapi_graph(exe, depends_on=[last])
            last = other.submit(after(last, lambda h: h.ext_oneapi_graph(exe)))
        last.wait()
        assert read(buf)[0] == 9
        stranger = sycl.queue(sycl.context(device), device)
        with raises(sycl.errc.invalid):
            stranger.ext_oneapi_graph(exe)
        with raises(sycl.errc.invalid):
            stranger.submit(lambda h: h.ext_oneapi_graph(exe))
    np.testing.assert_array_equal(data, 9)


def test_CG_11_replay_on_another_device_is_refused(device: sycl.device) -> None:
    """A graph of one device of a two-device context cannot record or replay on the other."""
    others = other_devices(device)
    if not others:
        pytest.skip("the platform has one device, so no context holds another one (PoCL runs with "
                    'POCL_DEVICES="pthread pthread" for this)')
    ctx = sycl.context([device, others[0]])
    g = exp.command_graph(ctx, device)
    elsewhere = sycl.queue(ctx, others[0])
    with raises(sycl.errc.invalid):
        g.begin_recording(elsewhere)
    with sycl.buffer(np.zeros(N, U32)) as buf:
        g.add(axpb(buf, 1, 1))
        exe = g.finalize()
        with raises(sycl.errc.invalid):
            elsewhere.ext_oneapi_graph(exe)
        with raises(sycl.errc.invalid):
            elsewhere.submit(lambda h: h.ext_oneapi_graph(exe))
        sycl.queue(ctx, device).ext_oneapi_graph(exe).wait()
        assert read(buf)[0] == 1


def _device_ints(q: sycl.queue) -> sycl.usm_ptr:
    """N device ints, where the device has device USM (after checking the refusal elsewhere)."""
    needs_usm_kind(q, alloc.device)
    p = sycl.malloc_device(count=N, dtype=U32, q=q)
    assert p is not None
    return p


def _axpb_replay(q: sycl.queue, p: sycl.usm_ptr, path: str) -> exp.command_graph:
    """A finalized graph of one node, p = 3 * p + 1, replayed by ``path``."""
    exe = recorded(q, lambda h: h.parallel_for(N, AXPB, p, U32(3), U32(1))).finalize()
    expect_path(exe, path)
    return exe


def _gated_fill(q: sycl.queue, gate: Gate, buf: sycl.buffer, value: int) -> sycl.event:
    """A host task that writes ``value`` into ``buf`` once the gate opens."""

    def cgf(h: sycl.handler) -> None:
        acc = sycl.accessor(buf, h, sycl.write_only, target=sycl.target.host_task)
        h.host_task(gate.task(lambda: np.asarray(acc).fill(value)))

    return q.submit(cgf)


def test_CG_12_replays_ordered_with_eager_work(device: sycl.device, path: str) -> None:
    """Replays take their place among eager command groups on the same buffers: after a gated host
    task writing the buffer, before the kernels submitted after them, on any queue."""
    q, other = sycl.queue(device), sycl.queue(device)
    data, side = np.zeros(N, U32), np.zeros(N, U32)
    with sycl.buffer(data) as buf, sycl.buffer(side) as side_buf:
        exe = recorded(q, axpb(buf, 3, 0), add_into(side_buf, buf)).finalize()
        expect_path(exe, path)
        gate = Gate()
        _gated_fill(q, gate, buf, 5)  # holds everything below until the gate opens
        q.ext_oneapi_graph(exe)  # buf = 15, side = 15
        other.submit(axpb(buf, 1, 1))  # buf = 16
        other.ext_oneapi_graph(exe)  # buf = 48, side = 63
        done = q.submit(add_into(side_buf, buf))  # side = 111
        assert gate.started.wait(60), "the gated host task never started"
        gate.open()
        done.wait()
        assert (read(buf)[0], read(side_buf)[0]) == (48, 111)


def test_CG_12_in_order_queue_replays_in_order(device: sycl.device, path: str) -> None:
    """On an in-order queue a replay runs after the commands submitted before it and before those
    submitted after it, with no event or buffer to order them (USM)."""
    q = sycl.queue(device, prop_list=[sycl.property.queue.in_order()])
    p = _device_ints(q)
    out = np.zeros(N, U32)
    try:
        exe = _axpb_replay(q, p, path)
        gate = Gate()
        gate.submit(q)
        q.fill(p, U32(5), N)
        q.ext_oneapi_graph(exe)  # 16
        q.parallel_for(N, AXPB, p, U32(1), U32(100))  # 116
        q.ext_oneapi_graph(exe)  # 349
        q.memcpy(out, p, N * 4)
        gate.open()
        q.wait()
        np.testing.assert_array_equal(out, 349)
    finally:
        sycl.free(p, q)


def test_CG_13_buffers_between_replays(device: sycl.device, path: str) -> None:
    """Host accessors between replays see each replay's results; host writes and another
    context's kernels between replays are seen by the next replay; the buffer writes back."""
    q = sycl.queue(device)
    foreign = sycl.queue(sycl.context(device), device)
    data = np.arange(N, dtype=U32)
    expected = data.copy()
    with sycl.buffer(data) as buf:
        exe = recorded(q, axpb(buf, 2, 1)).finalize()
        expect_path(exe, path)
        for step in range(3):
            q.ext_oneapi_graph(exe)
            expected = model_axpb(expected, 2, 1)
            with sycl.host_accessor(buf) as view:
                np.testing.assert_array_equal(view, expected)
                np.asarray(view)[:] += step  # the host writes between replays
            expected = expected + U32(step)
            foreign.submit(axpb(buf, 1, 7))  # another context writes between replays
            expected = model_axpb(expected, 1, 7)
        q.ext_oneapi_graph(exe)
        expected = model_axpb(expected, 2, 1)
    np.testing.assert_array_equal(data, expected)  # written back at destruction


def test_CG_14_repeated_replays(device: sycl.device, path: str) -> None:
    """N replays submitted without waiting, from one thread and from four, on several queues of
    the graph's context, give exactly N applications of the graph."""
    ctx = sycl.context(device)
    queues = [sycl.queue(ctx, device) for _ in range(4)]
    data = np.zeros(N, U32)
    with sycl.buffer(data) as buf:
        exe = recorded(queues[0], axpb(buf, 3, 1)).finalize()  # order matters: x -> 3x + 1
        expect_path(exe, path)
        for _ in range(20):
            queues[0].ext_oneapi_graph(exe)
        threads = [threading.Thread(target=lambda q=q: [q.ext_oneapi_graph(exe) for _ in range(5)])
                   for q in queues]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    expected = np.zeros(N, U32)
    for _ in range(40):
        expected = model_axpb(expected, 3, 1)
    np.testing.assert_array_equal(data, expected)


# --- USM ------------------------------------------------------------------------------------------


def test_CG_15_usm_nodes(queue: sycl.queue, path: str) -> None:
    """Recorded and explicit USM nodes (memcpy from and to host arrays, memset, fill, kernels
    through usm_ptr) replay where the device has USM; elsewhere allocating is refused."""
    p, r = _device_ints(queue), _device_ints(queue)
    src, out = np.arange(N, dtype=U32), np.zeros(N, U32)
    try:
        g = exp.command_graph(queue)
        g.begin_recording(queue)
        copied = queue.memcpy(p, src, N * 4)
        zeroed = queue.memset(r, 0, N * 4)
        filled = queue.fill(r, U32(2), N // 2, depends_on=zeroed)
        kernel = queue.parallel_for(N, ADD, p, r, depends_on=[copied, filled])
        g.end_recording()
        back = g.add(lambda h: h.memcpy(out, p, N * 4), dep=exp.node.get_node_from_event(kernel))
        assert [n.get_type() for n in g.get_nodes()] == [
            exp.node_type.memcpy, exp.node_type.memset, exp.node_type.memfill, exp.node_type.kernel,
            exp.node_type.memcpy]
        assert back.get_predecessors() == [exp.node.get_node_from_event(kernel)]
        exe = g.finalize()
        assert exe._replay is not None and not exe._replay.native  # USM copies: prepared commands
        for step in range(3):
            src[:] = np.arange(N) + step  # the host array is read at each replay
            queue.ext_oneapi_graph(exe).wait()
            np.testing.assert_array_equal(out, np.arange(N) + step + np.r_[[2] * (N // 2), [0] * (N // 2)])
        kernels_only = recorded(queue, lambda h: h.parallel_for(N, AXPB, p, U32(2), U32(0))).finalize()
        expect_path(kernels_only, path)  # kernels on usm_ptr: in a command buffer where possible
        queue.ext_oneapi_graph(kernels_only).wait()
        queue.memcpy(out, p, N * 4).wait()
        np.testing.assert_array_equal(out, (np.arange(N) + 2 + np.r_[[2] * (N // 2), [0] * (N // 2)]) * 2)
    finally:
        sycl.free(p, queue)
        sycl.free(r, queue)


def test_CG_15_usm_prefetch_and_advice_nodes(queue: sycl.queue) -> None:
    """prefetch and mem_advise record as nodes of their types on shared allocations."""
    needs_usm_kind(queue, alloc.shared)
    p = sycl.malloc_shared(count=N, dtype=U32, q=queue)
    assert p is not None
    try:
        g = recorded(queue, lambda h: h.prefetch(p, N * 4), lambda h: h.mem_advise(p, N * 4, 0))
        assert [n.get_type() for n in g.get_nodes()] == [exp.node_type.prefetch, exp.node_type.memadvise]
        queue.ext_oneapi_graph(g.finalize()).wait()
    finally:
        sycl.free(p, queue)


def test_CG_15_usm_replays_one_at_a_time(device: sycl.device, path: str) -> None:
    """Replays of a USM graph on two queues run one at a time, and after their depends_on events
    (the runtime sees no buffer to order them by)."""
    ctx = sycl.context(device)
    q, other = sycl.queue(ctx, device), sycl.queue(ctx, device)
    p = _device_ints(q)
    out = np.zeros(N, U32)
    try:
        exe = _axpb_replay(q, p, path)
        gate = Gate()
        held = gate.submit(q)
        written = q.fill(p, U32(5), N, depends_on=held)
        last = q.ext_oneapi_graph(exe, depends_on=written)
        for i in range(1, 7):
            last = (other if i % 2 else q).ext_oneapi_graph(exe)  # ordered by the one-at-a-time rule
        done = q.memcpy(out, p, N * 4, depends_on=[last])
        gate.open()
        done.wait()
        other.wait()
        expected = np.full(N, 5, U32)
        for _ in range(7):
            expected = model_axpb(expected, 3, 1)
        np.testing.assert_array_equal(out, expected)
    finally:
        sycl.free(p, q)


# --- the two replay paths, refusals, lifetime -----------------------------------------------------


ROWS, COLS = 4, 16  # the 2-D range of CG-16


def _mixed_graph(q: sycl.queue, abuf: sycl.buffer, cbuf_: sycl.buffer, grid: sycl.buffer) -> Any:
    """A copy, a kernel, a kernel on a window no sub-buffer can hold, a fill, and a 2-D nd_range
    kernel on a sub-buffer (``grid``), finalized."""
    return recorded(
        q,
        lambda h: h.copy(sycl.accessor(abuf, h, sycl.read_only), sycl.accessor(cbuf_, h, sycl.write_only)),
        axpb(cbuf_, 3, 1),
        lambda h: launch_axpb(h, sycl.accessor(cbuf_, h, sycl.read_write, sycl.range(5), sycl.id(3)), 1, 100),
        lambda h: h.fill(sycl.accessor(abuf, h, sycl.write_only, sycl.range(8), sycl.id(8)), U32(7)),
        lambda h: h.parallel_for(sycl.nd_range(sycl.range(ROWS, COLS), sycl.range(2, 4)), GRID,
                                 sycl.accessor(grid, h)),
    ).finalize()


def test_CG_16_replay_paths(device: sycl.device) -> None:
    """The same graph (a copy, a fill, kernels, a window no sub-buffer can hold, a 2-D nd_range on a
    sub-buffer) replays as a native command buffer where the device offers one sycl_ocl records,
    as prepared kernels otherwise and with SYCL_OCL_GRAPH_NATIVE=0, with identical results."""
    q = sycl.queue(device)
    start = aligned_elements(device)  # the sub-buffer's first element
    results = []
    for native in (True, False):
        a, c, grid = np.arange(N, dtype=U32), np.zeros(N, U32), np.zeros(2 * start + ROWS * COLS, U32)
        with sycl.buffer(a) as abuf, sycl.buffer(c) as cbuf_, sycl.buffer(grid) as gbuf:
            with native_command_buffers(native):
                exe = _mixed_graph(q, abuf, cbuf_, sycl.buffer(gbuf, sycl.id(start), sycl.range(ROWS * COLS)))
            assert exe._replay is not None
            assert exe._replay.native == (native and not command_buffer_problem(device))
            for _ in range(2):
                q.ext_oneapi_graph(exe)
        results.append((a, c, grid))
    expected_a = np.arange(N, dtype=U32)
    expected_a[8:16] = 7
    expected_c = model_axpb(expected_a, 3, 1)  # the second replay copies what the first filled
    expected_c[3:8] += 100
    expected_grid = np.zeros_like(results[0][2])
    row, col = np.mgrid[0:ROWS, 0:COLS]
    expected_grid[start:start + ROWS * COLS] = 2 * (row * 100 + col).ravel()
    for a, c, grid in results:
        np.testing.assert_array_equal(c, expected_c)
        np.testing.assert_array_equal(a, expected_a)
        np.testing.assert_array_equal(grid, expected_grid)


def test_CG_17_refused_commands(queue: sycl.queue) -> None:
    """Host tasks (with or without an interop_handle), copies done on the host (a strided array,
    update_host) and sub-graphs are refused in a graph with errc.feature_not_supported, when
    recorded and when added; after them, and after a command-group function that raises, the
    graph and the recording are unchanged and stay usable. (A copy between an accessor and a
    contiguous array is a memcpy node, as in DPC++.)"""
    host = np.zeros(2 * N, U32)[::2]
    with sycl.buffer(np.zeros(N, U32)) as buf:
        inner = recorded(queue, axpb(buf, 1, 1)).finalize()
        refused: list[Callable[[sycl.handler], Any]] = [
            lambda h: h.host_task(lambda: None),
            lambda h: h.host_task(lambda ih: None),
            lambda h: h.copy(sycl.accessor(buf, h, sycl.read_only), host),
            lambda h: h.copy(host, sycl.accessor(buf, h, sycl.write_only)),
            lambda h: h.update_host(sycl.accessor(buf, h, sycl.read_only)),
            lambda h: h.ext_oneapi_graph(inner),
        ]
        g = exp.command_graph(queue)
        for cgf in refused:
            with raises(sycl.errc.feature_not_supported):
                g.add(cgf)
        g.begin_recording(queue)
        for cgf in refused:
            with raises(sycl.errc.feature_not_supported):
                queue.submit(cgf)
        with raises(sycl.errc.feature_not_supported):
            queue.ext_oneapi_graph(inner)
        with pytest.raises(ZeroDivisionError):  # the command-group function itself fails
            queue.submit(lambda h: (sycl.accessor(buf, h), 1 // 0))
        assert queue.ext_oneapi_get_state() is exp.queue_state.recording and g.empty()
        queue.submit(axpb(buf, 1, 2))
        g.end_recording()
        queue.ext_oneapi_graph(g.finalize())
        assert read(buf)[0] == 2


def test_CG_17_replay_after_its_buffer_is_destroyed(queue: sycl.queue) -> None:
    """A graph whose buffer was destroyed refuses to replay with errc.invalid."""
    with sycl.buffer(np.zeros(N, U32)) as buf:
        exe = recorded(queue, axpb(buf, 1, 1)).finalize()
        queue.ext_oneapi_graph(exe).wait()
    with raises(sycl.errc.invalid):
        queue.ext_oneapi_graph(exe)


def test_CG_18_destroying_the_graph_ends_recording(queue: sycl.queue) -> None:
    """When the modifiable graph goes away its queues stop recording (the extension's exception
    safety); an executable graph outlives the graph it came from."""
    data = np.zeros(N, U32)
    with sycl.buffer(data) as buf:
        g = exp.command_graph(queue)
        g.begin_recording(queue)
        queue.submit(axpb(buf, 1, 1))
        g.end_recording()
        exe = g.finalize()
        g.begin_recording(queue)
        del g
        gc.collect()
        assert queue.ext_oneapi_get_state() is exp.queue_state.executing
        queue.submit(axpb(buf, 1, 10)).wait()  # runs at once again
        queue.ext_oneapi_graph(exe).wait()
        queue.wait()
    np.testing.assert_array_equal(data, 11)


# --- kernels that exercise the driver -------------------------------------------------------------

CHAIN = 1000


def test_CG_19_chain_of_1000_nodes(queue: sycl.queue, path: str) -> None:
    """A chain of 1,000 kernel nodes, each with arguments of its own, replayed twice, matches numpy."""
    data = np.arange(N, dtype=U32)
    expected = data.copy()
    with sycl.buffer(data) as buf:
        g = recorded(queue, *(axpb(buf, 1 + k % 3, k) for k in range(CHAIN)))
        nodes = g.get_nodes()
        assert len(nodes) == CHAIN and g.get_root_nodes() == [nodes[0]]
        assert all(n.get_predecessors() == [prev] for prev, n in itertools.pairwise(nodes))
        exe = g.finalize()
        expect_path(exe, path)
        for _ in range(2):
            queue.ext_oneapi_graph(exe)
            for k in range(CHAIN):
                expected = model_axpb(expected, 1 + k % 3, k)
        np.testing.assert_array_equal(read(buf), expected)
    np.testing.assert_array_equal(data, expected)


INDEPENDENT = 256


def window(buf: sycl.buffer, k: int) -> Callable[[sycl.handler], None]:
    """A command group adding ``k * 1000 + i`` to element ``i`` of ``buf``."""
    return lambda h: h.parallel_for(N, WINDOW, sycl.accessor(buf, h), U32(k))


def test_CG_20_many_independent_nodes(queue: sycl.queue, path: str) -> None:
    """256 kernel nodes on buffers of their own have no edges; a node after all leaves joins them;
    replayed twice, every buffer is right."""
    datas = [np.zeros(N, U32) for _ in range(INDEPENDENT)]
    with ExitStack() as stack:
        bufs = [stack.enter_context(sycl.buffer(d)) for d in datas]
        g = exp.command_graph(queue)
        for k, buf in enumerate(bufs):
            g.add(window(buf, k))
        join = g.add(prop_list=[exp.property.node.depends_on_all_leaves()])
        assert len(g.get_root_nodes()) == INDEPENDENT and len(join.get_predecessors()) == INDEPENDENT
        exe = g.finalize()
        expect_path(exe, path)
        queue.ext_oneapi_graph(exe)
        queue.ext_oneapi_graph(exe)
    for k, data in enumerate(datas):
        np.testing.assert_array_equal(data, 2 * (np.arange(N, dtype=U32) + U32(k * 1000)))


def test_CG_21_local_memory_and_barriers(queue: sycl.queue, path: str) -> None:
    """A graph of work-group reductions through local memory and barriers, fed by a kernel that
    changes the input, replayed three times, matches numpy."""
    dev = queue.get_device()
    group = min(64, dev.get_info(sycl.info.device.max_work_group_size))
    group = 1 << (group.bit_length() - 1)  # a power of two for the tree
    groups = 16
    values = np.arange(group * groups, dtype=U32)
    sums = np.zeros(groups, U32)
    with sycl.buffer(values) as vbuf, sycl.buffer(sums) as sbuf:
        exe = recorded(
            queue,
            lambda h: h.parallel_for(group * groups, AXPB, sycl.accessor(vbuf, h), U32(1), U32(1)),
            lambda h: h.parallel_for(
                sycl.nd_range(sycl.range(group * groups), sycl.range(group)), GROUP_SUM,
                sycl.accessor(vbuf, h, sycl.read_only), sycl.accessor(sbuf, h, sycl.write_only),
                sycl.local_accessor(U32, sycl.range(group), h)),
        ).finalize()
        expect_path(exe, path)
        for step in range(1, 4):
            queue.ext_oneapi_graph(exe)
            inputs = np.arange(group * groups, dtype=U32) + step
            expected = inputs.reshape(groups, group).sum(axis=1, dtype=U32)
            np.testing.assert_array_equal(read(sbuf), expected)


# --- threads and events of replays ----------------------------------------------------------------


def test_CG_22_recording_from_threads(device: sycl.device) -> None:
    """Two threads record to one graph through their own queues; every node is kept, in order per queue."""
    queues = [sycl.queue(device), sycl.queue(device)]
    datas = [np.zeros(N, U32) for _ in queues]
    with sycl.buffer(datas[0]) as b0, sycl.buffer(datas[1]) as b1:
        g = exp.command_graph(queues[0])
        g.begin_recording(queues)

        def work(q: sycl.queue, buf: sycl.buffer) -> None:
            for k in range(25):
                q.submit(axpb(buf, 2, k))

        threads = [threading.Thread(target=work, args=pair) for pair in zip(queues, (b0, b1), strict=True)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        g.end_recording()
        assert len(g.get_nodes()) == 50 and len(g.get_root_nodes()) == 2
        queues[0].ext_oneapi_graph(g.finalize()).wait()
    expected = np.zeros(N, U32)
    for k in range(25):
        expected = model_axpb(expected, 2, k)
    for data in datas:
        np.testing.assert_array_equal(data, expected)


def test_CG_23_replay_event(device: sycl.device, path: str) -> None:
    """A replay's event completes when its nodes have; on a profiling queue its timestamps are
    ordered (graph finalized with property.graph.enable_profiling)."""
    needs(device, sycl.aspect.queue_profiling)
    q = sycl.queue(device, prop_list=[sycl.property.queue.enable_profiling()])
    data = np.zeros(N, U32)
    with sycl.buffer(data) as buf:
        g = exp.command_graph(q, prop_list=[exp.property.graph.enable_profiling()])
        g.begin_recording(q)
        q.submit(axpb(buf, 1, 1))
        q.submit(axpb(buf, 1, 1))
        g.end_recording()
        exe = g.finalize()
        expect_path(exe, path)
        ev = q.ext_oneapi_graph(exe)
        ev.wait()
        assert status(ev) is sycl.info.event_command_status.complete
        stamps = [ev.get_profiling_info(getattr(sycl.info.event_profiling, f))
                  for f in ("command_submit", "command_start", "command_end")]
        assert stamps[0] <= stamps[1] <= stamps[2], stamps
        assert read(buf)[0] == 2


def test_CG_24_nodes_keep_their_kernel_configuration(queue: sycl.queue, path: str) -> None:
    """Kernel nodes keep what their command groups chose: two nodes of one kernel with different
    specialization constants, one with the default, and one through use_kernel_bundle."""
    bundle = sycl.get_kernel_bundle(sycl.bundle_state.executable, queue.get_context(), [queue.get_device()])

    def spec_add(buf: sycl.buffer, step: int | None) -> Callable[[sycl.handler], None]:
        def cgf(h: sycl.handler) -> None:
            if step is None:
                h.use_kernel_bundle(bundle)
            else:
                h.set_specialization_constant(STEP, step)
            h.parallel_for(N, SPEC_ADD, sycl.accessor(buf, h))

        return cgf

    data = np.zeros(N, U32)
    with sycl.buffer(data) as buf:
        exe = recorded(queue, spec_add(buf, 5), spec_add(buf, 7), spec_add(buf, None)).finalize()
        expect_path(exe, path)
        queue.ext_oneapi_graph(exe)
        queue.ext_oneapi_graph(exe)
    np.testing.assert_array_equal(data, 2 * (5 + 7 + 1))
