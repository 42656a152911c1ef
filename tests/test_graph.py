"""Command graphs: the oneAPI ``sycl_ext_oneapi_graph`` extension (``docs/graphs.md``).

Every replay test runs on each device under test twice: with the native command buffer where
the device has one (PoCL 3.1: ``cl_khr_command_buffer`` 0.9.0; Intel's CPU runtime 2026.2:
1.0.0), and with prepared kernels
(``SYCL_OCL_GRAPH_NATIVE=0``; Oclgrind has no command buffers, so it runs prepared kernels
either way). Randomized programs with recorded sections are in ``test_randomized.py``.
"""

from __future__ import annotations

import gc
import threading
from pathlib import Path

import numpy as np
import pyopencl as cl
import pytest
from conftest import DEVICES
from kernel_support import child_json, intel_cpu_runtime_env, replay_kernels

import sycl_ocl as sycl
from sycl_ocl import _command_buffer as cbuf
from sycl_ocl.scheduler.graph import NATIVE_ENV

exp = sycl.ext.oneapi.experimental

sycl.register_kernel_source(
    replay_kernels("g_")
    + """
    __kernel void g_scale_into(__global float* dst, __global const float* src, float f) {
        size_t i = get_global_id(0);
        dst[i] = src[i] * f;
    }
    """
)

N = 64


@pytest.fixture(params=["native", "prepared"])
def native(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> bool:
    """Whether finalize may record a native command buffer (``SYCL_OCL_GRAPH_NATIVE``)."""
    monkeypatch.setenv(NATIVE_ENV, "1" if request.param == "native" else "0")
    return request.param == "native"


def _expect_native(exe: exp.command_graph, dev: sycl.device, native: bool) -> None:
    assert exe._replay is not None
    assert exe._replay.native == (native and cbuf.supported(sycl.get_native(dev)))


def _halve_add(buf: sycl.buffer, s: float) -> object:
    return lambda h: h.parallel_for(N, "g_halve_add", sycl.accessor(buf, h), s)


def _add(dst: sycl.buffer, src: sycl.buffer) -> object:
    return lambda h: h.parallel_for(N, "g_add", sycl.accessor(dst, h), sycl.accessor(src, h, sycl.read_only))


def _model_halve_add(values: np.ndarray, s: float) -> np.ndarray:
    return (values * np.float32(0.5) + np.float32(s)).astype(np.float32)


def _recorded(q: sycl.queue, *cgfs: object) -> exp.command_graph:
    """The command groups recorded on ``q``, finalized."""
    g = exp.command_graph(q)
    g.begin_recording(q)
    for cgf in cgfs:
        q.submit(cgf)
    g.end_recording()
    return g.finalize()


# --- recording and replaying -----------------------------------------------------------------


def test_recorded_chain_replayed(queue: sycl.queue, native: bool) -> None:
    a = np.arange(N, dtype=np.float32)
    b = np.ones(N, np.float32)
    expected = a.copy()
    with sycl.buffer(a) as abuf, sycl.buffer(b) as bbuf:
        g = exp.command_graph(queue.get_context(), queue.get_device())
        g.begin_recording(queue)
        assert queue.ext_oneapi_get_state() is exp.queue_state.recording
        assert queue.ext_oneapi_get_graph() is g
        first = queue.submit(_halve_add(abuf, 1.0))
        second = queue.submit(_add(abuf, bbuf))
        g.end_recording()
        assert queue.ext_oneapi_get_state() is exp.queue_state.executing
        nodes = g.get_nodes()
        assert [n.get_type() for n in nodes] == [exp.node_type.kernel] * 2
        assert exp.node.get_node_from_event(second).get_predecessors() == [nodes[0]]
        assert exp.node.get_node_from_event(first) is nodes[0] and g.get_root_nodes() == [nodes[0]]
        exe = g.finalize()
        assert exe.state is exp.graph_state.executable and g.state is exp.graph_state.modifiable
        _expect_native(exe, queue.get_device(), native)
        events = [queue.ext_oneapi_graph(exe) for _ in range(3)]
        for _ in range(3):
            expected = _model_halve_add(expected, 1.0) + b
        sycl.event.wait(events)
        with sycl.host_accessor(abuf, sycl.read_only) as view:
            np.testing.assert_allclose(np.asarray(view), expected)
    np.testing.assert_allclose(a, expected)  # written back as usual


def test_replay_is_ordered_with_eager_work_on_the_same_buffers(queue: sycl.queue, native: bool) -> None:
    """Eager commands before and after a replay, held back by a user event: the DAG orders the
    replay after the first and before the second through the buffer alone."""
    data = np.zeros(N, np.float32)
    with sycl.buffer(data) as buf:
        exe = _recorded(queue, _halve_add(buf, 4.0))
        gate = cl.UserEvent(sycl.get_native(queue.get_context()))
        gated = sycl.make_event(gate, queue.get_context())

        def before(h: sycl.handler) -> None:
            h.depends_on(gated)
            h.parallel_for(N, "g_halve_add", sycl.accessor(buf, h), 2.0)

        queue.submit(before)
        replay = queue.ext_oneapi_graph(exe)
        after = queue.submit(_halve_add(buf, 8.0))
        status = replay.get_info(sycl.info.event.command_execution_status)
        assert status != sycl.info.event_command_status.complete  # held back behind `before`
        gate.set_status(cl.command_execution_status.COMPLETE)
        after.wait()
        expected = np.zeros(N, np.float32)
        for s in (2.0, 4.0, 8.0):
            expected = _model_halve_add(expected, s)
        with sycl.host_accessor(buf, sycl.read_only) as view:
            np.testing.assert_allclose(np.asarray(view), expected)
        with sycl.host_accessor(buf) as view:  # the host writes between replays: moved in again
            np.asarray(view)[:] = 10
        queue.ext_oneapi_graph(exe)
        with sycl.host_accessor(buf, sycl.read_only) as view:
            np.testing.assert_allclose(np.asarray(view), _model_halve_add(np.full(N, 10, np.float32), 4.0))


def test_replays_on_two_queues_run_one_at_a_time(queue: sycl.queue, native: bool) -> None:
    """A graph of USM commands only: its replays are still ordered (one instance at a time)."""
    dev = queue.get_device()
    if not dev.has(sycl.aspect.usm_device_allocations):
        pytest.skip(f"{dev!r} has no USM (no OpenCL SVM): the buffer form is tested above")
    other = sycl.queue(queue.get_context(), dev)
    p = sycl.malloc_device(count=N, dtype=np.float32, q=queue)
    queue.memset(p, 0, N * 4).wait()
    g = exp.command_graph(queue)
    g.begin_recording(queue)
    queue.parallel_for(N, "g_halve_add", p, 1.0)
    g.end_recording()
    exe = g.finalize()
    for i in range(6):
        (queue if i % 2 else other).ext_oneapi_graph(exe)
    queue.wait()
    other.wait()
    out = np.empty(N, np.float32)
    queue.memcpy(out, p, N * 4).wait()
    expected = np.zeros(N, np.float32)
    for _ in range(6):
        expected = _model_halve_add(expected, 1.0)
    np.testing.assert_allclose(out, expected)
    sycl.free(p, queue)


def test_usm_nodes_ordered_by_edges(queue: sycl.queue, native: bool) -> None:
    dev = queue.get_device()
    if not dev.has(sycl.aspect.usm_device_allocations):
        pytest.skip(f"{dev!r} has no USM (no OpenCL SVM)")
    src = np.arange(N, dtype=np.float32)
    out = np.empty(N, np.float32)
    p, r = (sycl.malloc_device(count=N, dtype=np.float32, q=queue) for _ in range(2))
    g = exp.command_graph(queue)
    g.begin_recording(queue)
    copied = queue.memcpy(p, src, N * 4)
    filled = queue.fill(r, np.float32(1), N)
    scaled = queue.parallel_for(N, "g_add", p, r, depends_on=[copied, filled])
    queue.memcpy(out, p, N * 4, depends_on=scaled)
    g.end_recording()
    types = [n.get_type() for n in g.get_nodes()]
    assert types == [exp.node_type.memcpy, exp.node_type.memfill, exp.node_type.kernel, exp.node_type.memcpy]
    exe = g.finalize()
    assert exe._replay is not None and not exe._replay.native  # USM copies: prepared commands
    queue.ext_oneapi_graph(exe).wait()
    np.testing.assert_allclose(out, src + 1)
    sycl.free(p, queue)
    sycl.free(r, queue)


def test_in_order_queue_records_a_chain(device: sycl.device, native: bool) -> None:
    q = sycl.queue(device, prop_list=[sycl.property.queue.in_order()])
    a, b = np.zeros(N, np.float32), np.arange(N, dtype=np.float32)
    with sycl.buffer(a) as abuf, sycl.buffer(b) as bbuf:
        g = exp.command_graph(q)
        g.begin_recording(q)
        q.submit(_halve_add(abuf, 1.0))
        q.submit(_halve_add(bbuf, 2.0))  # no data in common: ordered by the in-order queue
        g.end_recording()
        first, second = g.get_nodes()
        assert second.get_predecessors() == [first] and first.get_successors() == [second]
        q.ext_oneapi_graph(g.finalize()).wait()
    np.testing.assert_allclose(a, np.ones(N))
    np.testing.assert_allclose(b, _model_halve_add(np.arange(N, dtype=np.float32), 2.0))


def test_copy_fill_local_memory_and_sub_buffers(queue: sycl.queue, native: bool) -> None:
    """Buffer copies and fills, a kernel with local memory over an nd_range, and a sub-buffer
    window that no sub-buffer can hold (misaligned: it runs on a scratch copy)."""
    a = np.arange(N, dtype=np.float32)
    c = np.zeros(N, np.float32)
    with sycl.buffer(a) as abuf, sycl.buffer(c) as cbuf_:
        g = exp.command_graph(queue)
        g.begin_recording(queue)
        queue.submit(lambda h: h.copy(sycl.accessor(abuf, h, sycl.read_only),
                                      sycl.accessor(cbuf_, h, sycl.write_only)))
        queue.submit(lambda h: h.parallel_for(
            sycl.nd_range(sycl.range(N), sycl.range(16)), "g_reverse_groups", sycl.accessor(cbuf_, h),
            sycl.local_accessor(np.float32, sycl.range(16), h)))
        queue.submit(lambda h: h.parallel_for(
            5, "g_halve_add", sycl.accessor(cbuf_, h, sycl.read_write, sycl.range(5), sycl.id(3)), 100.0))
        queue.fill(sycl.accessor(abuf, None, sycl.write_only), np.float32(7))
        g.end_recording()
        assert [n.get_type() for n in g.get_nodes()] == [
            exp.node_type.memcpy, exp.node_type.kernel, exp.node_type.kernel, exp.node_type.memfill]
        exe = g.finalize()
        _expect_native(exe, queue.get_device(), native)
        queue.ext_oneapi_graph(exe).wait()
    expected = np.arange(N, dtype=np.float32).reshape(-1, 16)[:, ::-1].ravel().copy()
    expected[3:8] = _model_halve_add(expected[3:8], 100.0)
    np.testing.assert_allclose(c, expected)
    np.testing.assert_allclose(a, np.full(N, 7))


def test_explicit_graph(queue: sycl.queue, native: bool) -> None:
    a, b = np.zeros(N, np.float32), np.ones(N, np.float32)
    with sycl.buffer(a) as abuf, sycl.buffer(b) as bbuf:
        g = exp.command_graph(queue.get_context(), queue.get_device(),
                              prop_list=[exp.property.graph.assume_buffer_outlives_graph()])
        scale = g.add(lambda h: h.parallel_for(N, "g_halve_add", sycl.accessor(bbuf, h), 3.0))
        start = g.add()
        add = g.add(_add(abuf, bbuf), dep=start)  # after `scale` too: it reads what scale writes
        end = g.add(prop_list=[exp.property.node.depends_on_all_leaves()])
        assert start.get_type() is exp.node_type.empty and add.get_predecessors() == [start, scale]
        assert end.get_predecessors() == [add] and not g.empty()
        with pytest.raises(sycl.exception, match="cycle") as info:
            g.make_edge(end, scale)
        assert info.value.code() == sycl.errc.invalid
        exe = g.finalize()
        queue.ext_oneapi_graph(exe)
        queue.submit(lambda h: h.ext_oneapi_graph(exe)).wait()  # the handler form
    np.testing.assert_allclose(b, np.full(N, 4.75))  # (1 * .5 + 3) * .5 + 3
    np.testing.assert_allclose(a, np.full(N, 3.5 + 4.75))


def test_transitive_recording(device: sycl.device) -> None:
    q1, q2 = sycl.queue(device), sycl.queue(device)
    data = np.zeros(N, np.float32)
    with sycl.buffer(data) as buf:
        g = exp.command_graph(q1)
        g.begin_recording(q1)
        first = q1.submit(_halve_add(buf, 1.0))

        def second(h: sycl.handler) -> None:
            h.depends_on(first)
            h.parallel_for(N, "g_halve_add", sycl.accessor(buf, h), 2.0)

        q2.submit(second)  # q2 records too, from now on
        assert q2.ext_oneapi_get_state() is exp.queue_state.recording
        g.end_recording()
        assert q2.ext_oneapi_get_state() is exp.queue_state.executing
        assert len(g.get_nodes()) == 2
        q1.ext_oneapi_graph(g.finalize()).wait()
    np.testing.assert_allclose(data, np.full(N, 2.5))


def test_copies_between_accessors_and_host_arrays_replay(device: sycl.device, native: bool) -> None:
    """``handler.copy`` between an accessor and a numpy array is a memcpy node: each replay
    copies the array in as it is then, and the window out into the array; nothing runs while
    recording. No command buffer holds host memory: such a graph replays its prepared
    commands."""
    queue = sycl.queue(sycl.context(device), device)
    given, result = np.zeros(N, np.float32), np.full(N, -1, np.float32)
    with sycl.buffer(np.zeros(N, np.float32)) as buf:
        g = exp.command_graph(queue)
        g.begin_recording(queue)
        queue.submit(lambda h: h.copy(given, sycl.accessor(buf, h, sycl.write_only)))
        queue.submit(_halve_add(buf, 1.0))
        queue.submit(lambda h: h.copy(sycl.accessor(buf, h, sycl.read_only), result))
        g.end_recording()
        assert [n.get_type() for n in g.get_nodes()] == [exp.node_type.memcpy, exp.node_type.kernel,
                                                         exp.node_type.memcpy]
        assert [len(n.get_predecessors()) for n in g.get_nodes()] == [0, 1, 1]
        exe = g.finalize()
        assert exe._replay is not None and not exe._replay.native
        np.testing.assert_array_equal(result, -1)
        for k in range(1, 4):
            given[:] = np.arange(N) * k  # read at the replay
            queue.ext_oneapi_graph(exe).wait()
            np.testing.assert_allclose(result, np.arange(N) * k * 0.5 + 1)
        with sycl.host_accessor(buf, sycl.read_only) as acc:  # the buffer took the last replay's
            np.testing.assert_allclose(acc, result)


def test_memcpy_nodes_keep_their_order_against_eager_kernels_and_host_accessors(device: sycl.device) -> None:
    """Replays of a graph of two memcpy nodes (a host array into elements 0-7, elements 8-15
    into another) between eager kernels on two queues and host accessors, nothing waited for
    but each replay's event: each replay reads the elements as the kernels and host writes
    before it left them, and none after; its host array lands before the commands after it."""
    ctx = sycl.context(device)
    q, other = sycl.queue(ctx, device), sycl.queue(ctx, device)
    given, result = np.zeros(8, np.float32), np.zeros(8, np.float32)
    model = np.arange(N, dtype=np.float32)
    with sycl.buffer(model.copy()) as buf:
        exe = _recorded(
            q, lambda h: h.copy(given, sycl.accessor(buf, h, sycl.write_only, sycl.range(8))),
            lambda h: h.copy(sycl.accessor(buf, h, sycl.read_only, sycl.range(8), sycl.id(8)), result))
        for k in range(1, 7):
            eager = q if k % 2 else other
            eager.submit(_halve_add(buf, float(k)))
            model = _model_halve_add(model, float(k))
            given[:] = 10 * k  # the last replay completed: the array is the program's again
            replayed = q.ext_oneapi_graph(exe)
            model[:8] = given
            expected = model[8:16].copy()
            other.submit(_halve_add(buf, 100.0))  # after the replay: in neither copy
            model = _model_halve_add(model, 100.0)
            if k % 3 == 0:
                with sycl.host_accessor(buf) as acc:
                    np.testing.assert_array_equal(acc, model)
                    np.asarray(acc)[8:16] += 1  # read by the next replay, after the next kernel
                model[8:16] += 1
            replayed.wait()
            np.testing.assert_array_equal(result, expected, err_msg=f"replay {k}")
        with sycl.host_accessor(buf, sycl.read_only) as acc:
            np.testing.assert_array_equal(acc, model)


def test_a_replay_keeps_the_bytes_between_the_windows_it_writes(device: sycl.device, native: bool) -> None:
    """A graph writing two windows of one buffer (sub-buffers at its ends) requires the bytes
    from the first window to the last (rule S18): what the host writes between them in between
    replays stays, the ends are updated by each replay."""
    queue = sycl.queue(sycl.context(device), device)
    align = device.get_info(sycl.info.device.mem_base_addr_align) // 8 // 4  # floats
    n = 4 * max(align, 16)
    data = np.zeros(n, np.float32)
    with sycl.buffer(data) as buf:
        ends = [sycl.buffer(buf, sycl.id(k), sycl.range(n // 4)) for k in (0, 3 * n // 4)]
        g = exp.command_graph(queue)
        g.begin_recording(queue)
        for end in ends:
            queue.submit(lambda h, end=end: h.parallel_for(n // 4, "g_halve_add", sycl.accessor(end, h), 1.0))
        g.end_recording()
        exe = g.finalize()
        for value in (3.0, 5.0):
            with sycl.host_accessor(buf) as acc:
                np.asarray(acc)[n // 4:3 * n // 4] = value
            queue.ext_oneapi_graph(exe)
        with sycl.host_accessor(buf, sycl.read_only) as acc:
            got = np.array(acc)
    np.testing.assert_array_equal(got[n // 4:3 * n // 4], 5.0)
    np.testing.assert_array_equal(got[:n // 4], 1.5)  # 0 -> 1 -> 1.5
    np.testing.assert_array_equal(got[3 * n // 4:], 1.5)


def test_replay_after_host_accessor_and_other_queue(device: sycl.device) -> None:
    """The replay moves what eager work left elsewhere: host writes, another context's writes."""
    other_ctx = sycl.queue(sycl.context(device), device)
    q = sycl.queue(device)
    data = np.ones(N, np.float32)
    with sycl.buffer(data) as buf:
        exe = _recorded(q, _halve_add(buf, 1.0))
        q.ext_oneapi_graph(exe)
        other_ctx.submit(_halve_add(buf, 10.0))
        q.ext_oneapi_graph(exe)
    expected = _model_halve_add(_model_halve_add(_model_halve_add(np.ones(N, np.float32), 1.0), 10.0), 1.0)
    np.testing.assert_allclose(data, expected)


# --- misuse ----------------------------------------------------------------------------------


def _invalid(code: sycl.errc = sycl.errc.invalid) -> object:
    class Raises:
        def __enter__(self) -> None:
            self.ctx = pytest.raises(sycl.exception)
            self.info = self.ctx.__enter__()

        def __exit__(self, *exc: object) -> bool:
            handled = self.ctx.__exit__(*exc)
            assert self.info.value.code() == code, self.info.value
            return bool(handled)
    return Raises()


def test_recording_misuse(queue: sycl.queue) -> None:
    dev = queue.get_device()
    g, other = exp.command_graph(queue), exp.command_graph(queue)
    with sycl.buffer(np.zeros(N, np.float32)) as buf:
        eager = queue.submit(_halve_add(buf, 1.0))
        g.begin_recording(queue)
        with _invalid():
            g.begin_recording(queue)  # recording already
        with _invalid():
            other.begin_recording(queue)
        with _invalid():
            other.end_recording(queue)  # recording to another graph
        with _invalid():
            g.add()  # explicit nodes while recording
        recorded = queue.submit(_halve_add(buf, 1.0))
        with _invalid():
            recorded.wait()
        with _invalid():
            recorded.get_info(sycl.info.event.command_execution_status)
        with _invalid():
            queue.wait()
        with _invalid():
            queue.submit(lambda h: (h.depends_on(eager), h.parallel_for(N, "g_halve_add",
                                                                         sycl.accessor(buf, h), 1.0)))
        with _invalid(sycl.errc.feature_not_supported):
            queue.submit(lambda h: h.host_task(lambda: None))
        with _invalid(sycl.errc.feature_not_supported):
            queue.submit(lambda h: h.host_task(lambda ih: None))  # with native access
        with _invalid(sycl.errc.feature_not_supported):  # strided: a copy done on the host
            strided = np.zeros(2 * N, np.float32)[::2]
            queue.submit(lambda h: h.copy(sycl.accessor(buf, h, sycl.read_only), strided))
        g.end_recording()
        with _invalid():  # an event of a recorded command, outside its recording
            queue.submit(lambda h: (h.depends_on(recorded), h.parallel_for(N, "g_halve_add",
                                                                            sycl.accessor(buf, h), 1.0)))
        a, b = g.add(), other.add()
        with _invalid():
            g.make_edge(a, a)
        with _invalid():
            g.make_edge(a, b)
        with _invalid():
            queue.ext_oneapi_graph(g)  # modifiable
        with _invalid(sycl.errc.feature_not_supported):
            g.finalize(prop_list=[exp.property.graph.updatable()])
        exe = g.finalize()
        with _invalid():
            exe.add()
        with _invalid():
            exp.command_graph(sycl.context(dev), dev).begin_recording(queue)  # another context
        other_queue = sycl.queue(sycl.context(dev), dev)
        with _invalid():
            other_queue.ext_oneapi_graph(exe)
        g2 = exp.command_graph(queue)
        g2.begin_recording(queue)
        with _invalid(sycl.errc.feature_not_supported):
            queue.ext_oneapi_graph(exe)  # a sub-graph
        g2.end_recording()
    with _invalid():
        queue.ext_oneapi_graph(exe)  # its buffer was destroyed
    with _invalid():
        exp.node.get_node_from_event(eager)
    with _invalid():
        queue.ext_oneapi_get_graph()


def test_no_cycle_check_then_finalize_refuses_the_cycle(queue: sycl.queue) -> None:
    g = exp.command_graph(queue, prop_list=[exp.property.graph.no_cycle_check()])
    a, b = g.add(), g.add()
    g.make_edge(a, b)
    g.make_edge(b, a)
    with _invalid():
        g.finalize()


def test_graph_of_another_device_is_refused(device_pair: list[sycl.device]) -> None:
    ctx = sycl.context(device_pair)
    g = exp.command_graph(ctx, device_pair[0])
    q1 = sycl.queue(ctx, device_pair[1])
    with _invalid():
        g.begin_recording(q1)
    exe = g.finalize()
    with _invalid():
        q1.ext_oneapi_graph(exe)
    with _invalid():
        exp.command_graph(sycl.context(device_pair[0]), device_pair[1])  # a device not in the context


def test_bad_kernel_argument_fails_when_added(queue: sycl.queue, native: bool) -> None:
    """A value that does not fit its parameter is refused when the node is added (its command
    group is checked as at submit); the graph stays usable and finalizes without it."""
    with sycl.buffer(np.zeros(N, np.float32)) as buf:
        g = exp.command_graph(queue)
        with _invalid(sycl.errc.kernel_argument):
            g.add(lambda h: h.parallel_for(N, "g_scale_into", sycl.accessor(buf, h, sycl.write_only),
                                           sycl.accessor(buf, h, sycl.read_only), "not a float"))
        assert g.get_nodes() == []
        queue.ext_oneapi_graph(g.finalize()).wait()


def test_destroying_the_graph_ends_recording(queue: sycl.queue) -> None:
    g = exp.command_graph(queue)
    g.begin_recording(queue)
    del g
    gc.collect()
    assert queue.ext_oneapi_get_state() is exp.queue_state.executing
    queue.wait()


def test_recording_from_threads(device: sycl.device) -> None:
    """Two threads record to one graph through their own queues; every node is kept."""
    queues = [sycl.queue(device), sycl.queue(device)]
    g = exp.command_graph(queues[0])
    g.begin_recording(queues)
    datas = [np.zeros(N, np.float32) for _ in range(2)]
    with sycl.buffer(datas[0]) as b0, sycl.buffer(datas[1]) as b1:
        workers = [threading.Thread(target=lambda q=q, b=b: [q.submit(_halve_add(b, 2.0)) for _ in range(20)])
                   for q, b in zip(queues, (b0, b1), strict=True)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        g.end_recording()
        assert len(g.get_nodes()) == 40
        queues[0].ext_oneapi_graph(g.finalize()).wait()
    expected = np.zeros(N, np.float32)
    for _ in range(20):
        expected = _model_halve_add(expected, 2.0)
    for data in datas:
        np.testing.assert_allclose(data, expected)


def test_devices_under_test_have_a_graph_path() -> None:
    """Sanity of the parametrization: PoCL records natively, Oclgrind does not."""
    for dev in DEVICES:
        name = dev.get_platform().get_info(sycl.info.platform.name)
        if "Portable" in name:
            assert cbuf.supported(sycl.get_native(dev))
        if "Oclgrind" in name:
            assert not cbuf.supported(sycl.get_native(dev))
        if "Intel(R) OpenCL" in name and cbuf.EXTENSION in sycl.get_native(dev).extensions.split():
            assert cbuf.supported(sycl.get_native(dev))  # revision 1.0.0 (CPU runtime 2026.2)


@pytest.mark.parametrize("setting", [None, "1", "0"], ids=["unset", "1", "0"])
def test_native_setting_and_default(queue: sycl.queue, setting: str | None,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """``SYCL_OCL_GRAPH_NATIVE``: unset, command buffers where usable except on PoCL 3.1 and 5.0,
    whose command buffers replay slower than prepared kernels (docs/performance.md); ``1``: wherever
    usable; ``0``: never. Replays give the same result either way."""
    if setting is None:
        monkeypatch.delenv(NATIVE_ENV, raising=False)
    else:
        monkeypatch.setenv(NATIVE_ENV, setting)
    a = np.arange(N, dtype=np.float32)
    with sycl.buffer(a) as buf:
        exe = _recorded(queue, _halve_add(buf, 1.0), _halve_add(buf, 2.0))
        sycl.event.wait([queue.ext_oneapi_graph(exe) for _ in range(2)])
    dev = sycl.get_native(queue.get_device())
    pocl = "Portable Computing Language" in dev.platform.name
    slower = pocl and dev.driver_version.startswith(("3.1", "5.0"))
    usable = cbuf.supported(dev)
    assert exe._replay is not None
    assert exe._replay.native == {None: usable and not slower, "1": usable, "0": False}[setting]
    expected = np.arange(N, dtype=np.float32)
    for _ in range(2):
        expected = _model_halve_add(_model_halve_add(expected, 1.0), 2.0)
    np.testing.assert_allclose(a, expected)


def test_native_replay_on_revision_1_0_0(tmp_path: Path) -> None:
    """A graph on Intel's CPU runtime (``cl_khr_command_buffer`` 1.0.0) replays natively."""
    env = intel_cpu_runtime_env(tmp_path)
    if env is None:
        pytest.skip("needs Intel's CPU OpenCL runtime in this environment (pip install intel-opencl-rt)")
    outcome = child_json(f"""
        import json, numpy as np, sycl_ocl as sycl
        exp = sycl.ext.oneapi.experimental
        sycl.register_kernel_source(
            "__kernel void g_halve_add(__global float* a, float s) "
            "{{ size_t i = get_global_id(0); a[i] = a[i] * 0.5f + s; }}")
        q = sycl.queue(sycl.device(sycl.cpu_selector_v))
        a = np.arange({N}, dtype=np.float32)
        with sycl.buffer(a) as buf:
            g = exp.command_graph(q)
            g.begin_recording(q)
            for i in range(100):
                q.submit(lambda h, i=i: h.parallel_for({N}, "g_halve_add", sycl.accessor(buf, h), float(i)))
            g.end_recording()
            exe = g.finalize()
            sycl.event.wait([q.ext_oneapi_graph(exe) for _ in range(2)])
        print(json.dumps({{"native": exe._replay.native, "values": a.tolist()}}))
    """, env)
    expected = np.arange(N, dtype=np.float32)
    for _ in range(2):
        for i in range(100):
            expected = _model_halve_add(expected, i)
    assert outcome["native"]
    np.testing.assert_allclose(outcome["values"], expected)
