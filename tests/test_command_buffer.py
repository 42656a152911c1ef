"""Native command buffers (``cl_khr_command_buffer`` through ctypes, ``sycl_ocl._command_buffer``).

The layer under command graphs: record kernels, copies, fills and barriers with sync points,
finalize, replay as one enqueue that returns a ``pyopencl.Event``. PoCL 3.1 implements the
extension (revision 0.9.0); Oclgrind does not.
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import numpy as np
import pyopencl as cl
import pytest
from conftest import DEVICES
from kernel_support import child_json, intel_cpu_runtime_env, platform_devices, replay_kernels

import sycl_ocl as sycl
from sycl_ocl import _command_buffer as cbuf
from sycl_ocl._native import status_exception

SRC = replay_kernels() + """
__kernel void __attribute__((reqd_work_group_size(4, 1, 1))) fixed(__global float* a) { a[0] = 1; }
"""
N = 64
OUT_OF_ORDER = cl.command_queue_properties.OUT_OF_ORDER_EXEC_MODE_ENABLE


@pytest.fixture(scope="module")
def pocl() -> cl.Device:
    """The first device under test with command buffers: PoCL here (SYCL_OCL_TEST picks others)."""
    natives = [sycl.get_native(d) for d in DEVICES]
    usable = [d for d in natives if cbuf.supported(d)]
    if not usable:
        pytest.skip("needs a device with cl_khr_command_buffer (PoCL here); none is under test")
    return usable[0]


@pytest.fixture(scope="module")
def ctx(pocl: cl.Device) -> cl.Context:
    return cl.Context([pocl])


@pytest.fixture(scope="module")
def program(ctx: cl.Context) -> cl.Program:
    return cl.Program(ctx, SRC).build()


@pytest.fixture(params=[0, OUT_OF_ORDER], ids=["in_order", "out_of_order"])
def queue(request: pytest.FixtureRequest, ctx: cl.Context) -> cl.CommandQueue:
    return cl.CommandQueue(ctx, properties=request.param)


def _buffer(ctx: cl.Context, values: np.ndarray) -> cl.Buffer:
    return cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=values)


def _read(queue: cl.CommandQueue, buf: cl.Buffer, wait_for: list[cl.Event] | None = None) -> np.ndarray:
    out = np.empty(buf.size // 4, np.float32)
    cl.enqueue_copy(queue, out, buf, wait_for=wait_for)
    return out


def _chain(program: cl.Program, queue: cl.CommandQueue, buf: cl.Buffer, length: int) -> cbuf.CommandBuffer:
    """``length`` dependent halve_add kernels, each with its own scalar."""
    commands, point = cbuf.CommandBuffer(queue), None
    for i in range(length):
        step = cl.Kernel(program, "halve_add")
        point = commands.record_kernel(step, (buf, np.float32(i)), (N,), after=[point] if point else ())
    commands.finalize()
    return commands


def _chain_model(values: np.ndarray, length: int, replays: int) -> np.ndarray:
    for _ in range(replays):
        for i in range(length):
            values = values * np.float32(0.5) + np.float32(i)
    return values


def test_support_reports_a_known_revision(pocl: cl.Device) -> None:
    found = cbuf.support(pocl)
    assert found is not None and found.revision in cbuf.KNOWN_REVISIONS


def test_oclgrind_has_no_command_buffers() -> None:
    oclgrind = platform_devices("Oclgrind")
    if not oclgrind:
        pytest.skip("needs Oclgrind, the driver here without cl_khr_command_buffer")
    assert not cbuf.supported(sycl.get_native(oclgrind[0]))
    with pytest.raises(sycl.exception, match="no usable cl_khr_command_buffer") as info:
        cbuf.CommandBuffer(cl.CommandQueue(cl.Context([sycl.get_native(oclgrind[0])])))
    assert info.value.code() == sycl.errc.feature_not_supported


def test_chain_of_100_kernels_replayed_3_times(program: cl.Program, queue: cl.CommandQueue) -> None:
    start = np.arange(N, dtype=np.float32)
    buf = _buffer(queue.context, start)
    commands = _chain(program, queue, buf, 100)
    runs = [commands.enqueue()]
    for _ in range(2):  # an out-of-order queue orders replays only through their events
        runs.append(commands.enqueue(wait_for=[runs[-1]]))
    np.testing.assert_array_equal(_read(queue, buf, [runs[-1]]), _chain_model(start, 100, 3))


def test_a_kernel_is_recorded_once_with_its_arguments(program: cl.Program, queue: cl.CommandQueue) -> None:
    """PoCL 3.1 reads a recorded kernel's arguments when the command buffer runs: a recorded
    kernel is the command buffer's, and recording it again is refused."""
    buf, other = (_buffer(queue.context, np.zeros(N, np.float32)) for _ in range(2))
    commands, step = cbuf.CommandBuffer(queue), cl.Kernel(program, "halve_add")
    commands.record_kernel(step, (buf, np.float32(2)), (N,))
    with pytest.raises(sycl.exception, match="recorded already") as info:
        commands.record_kernel(step, (other, np.float32(100)), (N,))
    assert info.value.code() == sycl.errc.invalid
    commands.finalize()
    run = commands.enqueue()
    np.testing.assert_array_equal(_read(queue, buf, [run]), np.full(N, 2, np.float32))
    np.testing.assert_array_equal(_read(queue, other), np.zeros(N, np.float32))


def test_copy_fill_and_barrier(program: cl.Program, queue: cl.CommandQueue) -> None:
    ctx = queue.context
    a, b = _buffer(ctx, np.zeros(N, np.float32)), _buffer(ctx, np.arange(N, dtype=np.float32))
    commands = cbuf.CommandBuffer(queue)
    filled = commands.record_fill(a, np.float32(3), N * 4)
    half = commands.record_copy(b, a, N * 2, src_offset=0, dst_offset=N * 2, after=[filled])
    fence = commands.record_barrier(after=[half])
    commands.record_kernel(cl.Kernel(program, "add"), (a, b), (N,), after=[fence])
    commands.finalize()
    run = commands.enqueue()
    expected = np.concatenate([np.full(N // 2, 3, np.float32), np.arange(N // 2, dtype=np.float32)])
    np.testing.assert_array_equal(_read(queue, a, [run]), expected + np.arange(N, dtype=np.float32))


def test_local_memory_argument(program: cl.Program, queue: cl.CommandQueue) -> None:
    start = np.arange(N, dtype=np.float32)
    buf, commands = _buffer(queue.context, start), cbuf.CommandBuffer(queue)
    commands.record_kernel(cl.Kernel(program, "reverse_groups"), (buf, cl.LocalMemory(16 * 4)), (N,), (16,))
    commands.finalize()
    expected = start.reshape(-1, 16)[:, ::-1].ravel()
    np.testing.assert_array_equal(_read(queue, buf, [commands.enqueue()]), expected)


def test_replay_on_another_compatible_queue(program: cl.Program, ctx: cl.Context) -> None:
    """A command buffer recorded for one queue runs on another of the same device and properties
    (the extension's compatible queue): its run is ordered with that queue's commands."""
    recording, other = cl.CommandQueue(ctx), cl.CommandQueue(ctx)
    buf = _buffer(ctx, np.zeros(N, np.float32))
    commands = _chain(program, recording, buf, 3)
    gate = cl.UserEvent(ctx)
    cl.enqueue_marker(other, wait_for=[gate])
    run = commands.enqueue(queue=other)
    assert run.command_queue.int_ptr == other.int_ptr
    assert run.command_execution_status != cl.command_execution_status.COMPLETE  # behind the marker
    assert not commands.busy()  # PoCL offers simultaneous use
    gate.set_status(cl.command_execution_status.COMPLETE)
    np.testing.assert_array_equal(_read(other, buf, [run]), _chain_model(np.zeros(N, np.float32), 3, 1))


def test_enqueue_waits_on_a_user_event(program: cl.Program, queue: cl.CommandQueue) -> None:
    buf = _buffer(queue.context, np.zeros(N, np.float32))
    commands = _chain(program, queue, buf, 3)
    gate = cl.UserEvent(queue.context)
    run = commands.enqueue(wait_for=[gate])
    assert run.command_execution_status != cl.command_execution_status.COMPLETE
    gate.set_status(cl.command_execution_status.COMPLETE)
    np.testing.assert_array_equal(_read(queue, buf, [run]), _chain_model(np.zeros(N, np.float32), 3, 1))


def test_other_queues_depend_on_a_replay(program: cl.Program, ctx: cl.Context) -> None:
    recording, other = cl.CommandQueue(ctx), cl.CommandQueue(ctx, properties=OUT_OF_ORDER)
    buf = _buffer(ctx, np.zeros(N, np.float32))
    commands = _chain(program, recording, buf, 5)
    gate = cl.UserEvent(ctx)
    run = commands.enqueue(wait_for=[gate])
    reader = threading.Timer(0.05, gate.set_status, (cl.command_execution_status.COMPLETE,))
    reader.start()
    np.testing.assert_array_equal(_read(other, buf, [run]), _chain_model(np.zeros(N, np.float32), 5, 1))
    reader.join()


def test_empty_range_records_a_barrier(program: cl.Program, queue: cl.CommandQueue) -> None:
    buf = _buffer(queue.context, np.zeros(N, np.float32))
    commands, step = cbuf.CommandBuffer(queue), cl.Kernel(program, "halve_add")
    point = commands.record_kernel(step, (buf, np.float32(1)), (0,))
    commands.record_kernel(step, (buf, np.float32(1)), (N,), after=[point])
    commands.finalize()
    np.testing.assert_array_equal(_read(queue, buf, [commands.enqueue()]), np.ones(N, np.float32))


def test_replays_from_several_threads(program: cl.Program, ctx: cl.Context) -> None:
    queue = cl.CommandQueue(ctx)
    buf, ones = _buffer(ctx, np.zeros(N, np.float32)), _buffer(ctx, np.ones(N, np.float32))
    commands = cbuf.CommandBuffer(queue)
    commands.record_kernel(cl.Kernel(program, "add"), (buf, ones), (N,))
    commands.finalize()
    workers = [threading.Thread(target=lambda: [commands.enqueue() for _ in range(10)]) for _ in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    queue.finish()
    np.testing.assert_array_equal(_read(queue, buf), np.full(N, 40, np.float32))


def test_release_frees_what_was_recorded(program: cl.Program, queue: cl.CommandQueue) -> None:
    buf = _buffer(queue.context, np.zeros(N, np.float32))
    python_refs, cl_refs = sys.getrefcount(buf), buf.reference_count
    commands = _chain(program, queue, buf, 10)
    # PoCL's command buffer retains the memory objects its kernels use, Intel's does not
    assert sys.getrefcount(buf) > python_refs and buf.reference_count >= cl_refs
    commands.enqueue().wait()
    commands.release()
    commands.release()  # idempotent
    assert (sys.getrefcount(buf), buf.reference_count) == (python_refs, cl_refs)


def test_release_while_running_keeps_the_objects_alive(program: cl.Program, queue: cl.CommandQueue) -> None:
    buf = _buffer(queue.context, np.zeros(N, np.float32))
    commands = _chain(program, queue, buf, 4)
    gate = cl.UserEvent(queue.context)
    run = commands.enqueue(wait_for=[gate])
    del commands  # garbage: the handle goes, the run keeps what it uses
    gate.set_status(cl.command_execution_status.COMPLETE)
    np.testing.assert_array_equal(_read(queue, buf, [run]), _chain_model(np.zeros(N, np.float32), 4, 1))


def test_misuse_raises(program: cl.Program, queue: cl.CommandQueue) -> None:
    buf, step = _buffer(queue.context, np.zeros(N, np.float32)), cl.Kernel(program, "halve_add")
    commands = cbuf.CommandBuffer(queue)
    with pytest.raises(sycl.exception, match="not finalized") as info:
        commands.enqueue()
    assert info.value.code() == sycl.errc.invalid
    with pytest.raises(sycl.exception, match="bad arguments") as info:
        commands.record_kernel(step, (buf,), (N,))
    assert info.value.code() == sycl.errc.kernel_argument
    with pytest.raises(sycl.exception, match="CL_INVALID_VALUE") as info:
        commands.record_copy(buf, buf, N * 8)  # past the end: the driver's own check
    assert info.value.code() == sycl.errc.invalid
    commands.finalize()
    with pytest.raises(sycl.exception, match="finalized") as info:
        commands.record_kernel(step, (buf, np.float32(1)), (N,))
    assert info.value.code() == sycl.errc.invalid
    with pytest.raises(sycl.exception, match="finalized"):
        commands.finalize()
    commands.release()
    with pytest.raises(sycl.exception, match="released"):
        commands.enqueue()


def test_failed_recordings_do_not_reach_the_driver(pocl: cl.Device) -> None:
    """PoCL 3.1 crashes when recording a kernel fails in the driver: each case is checked first.

    Runs in a child process, so that a regression is a failed test rather than a lost run.
    """
    outcome = child_json(f"""
        import json, numpy as np, pyopencl as cl, sycl_ocl as sycl
        from sycl_ocl import _command_buffer as cbuf
        dev = [d for p in cl.get_platforms() for d in p.get_devices() if d.name == {pocl.name!r}]
        ctx = cl.Context(dev[:1])
        program = cl.Program(ctx, {SRC!r}).build()  # Intel's runtime cannot retain a released program
        step, fixed = cl.Kernel(program, "halve_add"), cl.Kernel(program, "fixed")
        other_ctx = cl.Context(dev[:1])
        other = cl.Kernel(cl.Program(other_ctx, {SRC!r}).build(), "halve_add")
        buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, {N * 4})
        commands = cbuf.CommandBuffer(cl.CommandQueue(ctx))
        args = (buf, np.float32(1))
        cases = {{
            "sync point": (step, args, ({N},), None, [77]),
            "local size": (step, args, ({N},), (5,), ()),
            "too large": (step, args, ({N},), ({N * 4096},), ()),
            "dimensions": (step, args, ({N}, 1), (4,), ()),
            "required size": (fixed, (buf,), ({N},), None, ()),
            "context": (other, args, ({N},), None, ()),
        }}
        codes = {{}}
        for name, (kernel, kernel_args, size, local, after) in cases.items():
            try:
                commands.record_kernel(kernel, kernel_args, size, local, after=after)
                codes[name] = "recorded"
            except sycl.exception as error:
                codes[name] = error.code().name
        print(json.dumps(codes))
    """)
    assert outcome == {
        "sync point": "invalid", "local size": "nd_range", "too large": "nd_range", "dimensions": "nd_range",
        "required size": "nd_range", "context": "invalid",
    }


def test_revision_1_0_0_records_and_replays(tmp_path: Path) -> None:
    """Intel's CPU runtime 2026.2 offers the final revision 1.0.0: a chain records and replays."""
    env = intel_cpu_runtime_env(tmp_path)
    if env is None:
        pytest.skip("needs Intel's CPU OpenCL runtime in this environment (pip install intel-opencl-rt)")
    outcome = child_json(f"""
        import json, numpy as np, pyopencl as cl
        from sycl_ocl import _command_buffer as cbuf
        dev = cl.get_platforms()[0].get_devices()[0]
        ctx = cl.Context([dev])
        program = cl.Program(ctx, {SRC!r}).build()
        start = np.arange({N}, dtype=np.float32)
        buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=start)
        queue = cl.CommandQueue(ctx)
        commands, point = cbuf.CommandBuffer(queue), None
        for i in range(10):
            step = cl.Kernel(program, "halve_add")
            point = commands.record_kernel(step, (buf, np.float32(i)), ({N},), after=[point] if point else ())
        commands.record_fill(buf, np.float32(1), 4, after=[point])
        commands.finalize()
        commands.enqueue()
        run = commands.enqueue()
        out = np.empty_like(start)
        cl.enqueue_copy(queue, out, buf, wait_for=[run])
        print(json.dumps({{"revision": cbuf.support(dev).revision, "values": out.tolist()}}))
    """, env)
    expected = _chain_model(np.arange(N, dtype=np.float32), 10, 1)
    expected[0] = 1
    expected = _chain_model(expected, 10, 1)
    expected[0] = 1
    assert outcome == {"revision": [1, 0, 0], "values": expected.tolist()}


def test_extension_status_codes_have_names() -> None:
    error = status_exception(-1138, "enqueueing a command buffer")
    assert "CL_INVALID_COMMAND_BUFFER_KHR" in error.what() and error.code() == sycl.errc.invalid
    assert "CL_INVALID_SYNC_POINT_WAIT_LIST_KHR" in status_exception(-1139, "recording").what()


def test_queue_requirements() -> None:
    """Which queues a device's command buffers accept, by revision (pure logic)."""
    props = cl.command_queue_properties
    old = cbuf.Support((0, 9, 0), capabilities=0, required_queue_properties=0,
                       supported_queue_properties=None)
    assert old.queue_problem(0) == ""
    assert "out-of-order" in old.queue_problem(props.OUT_OF_ORDER_EXEC_MODE_ENABLE)
    assert not old.simultaneous_use
    new = cbuf.Support((0, 9, 8), 0, props.PROFILING_ENABLE, props.OUT_OF_ORDER_EXEC_MODE_ENABLE)
    assert "needs" in new.queue_problem(0)
    assert new.queue_problem(props.PROFILING_ENABLE | props.OUT_OF_ORDER_EXEC_MODE_ENABLE) == ""
    assert new.simultaneous_use
