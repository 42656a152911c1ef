"""Tracing (sycl_ocl.tools, docs/tracing.md): the DAG in DOT with the reason of each edge, the
Chrome trace, the timeline picture, and ``python -m sycl_ocl trace`` on a script."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pyopencl as cl
import pytest
from kernel_support import ROOT

import sycl_ocl as sycl
from sycl_ocl import tools
from sycl_ocl.scheduler import trace as recorder
from sycl_ocl.tools.model import Trace, command_name, memory_name

N = 64

sycl.register_kernel_source("""
__kernel void trace_copy(__global const int *src, __global int *dst) {
    size_t i = get_global_id(0);
    dst[i] = src[i];
}
__kernel void trace_set(__global int *dst, int value) { dst[get_global_id(0)] = value; }
""")


@pytest.fixture
def tracing() -> Iterator[None]:
    """A recording that ends with the test, whatever happens."""
    tools.start_tracing()
    yield
    recorder.stop()


def _edges(trace: Trace) -> set[tuple[str, str, str, str]]:
    """Each edge as (earlier command, later command, reason, buffer or '')."""
    names = {op.serial: command_name(op) for op in trace.ops}
    return {
        (names[e.before], names[e.after], e.reason, memory_name(e.memory) if e.memory is not None else "")
        for e in trace.edges
    }


def _run_small_program(device: sycl.device) -> Trace:
    """A host task gating two kernels on buffer a, a depends_on, an in-order queue and a host
    accessor held while a kernel reads its buffer; nothing completes before its successors are
    submitted, so every edge enters the DAG."""
    gate = threading.Event()
    a, b, c = (np.zeros(N, np.int32) for _ in range(3))
    q = sycl.queue(device)
    ordered = sycl.queue(device, prop_list=[sycl.property.queue.in_order()])
    with sycl.buffer(a) as ba, sycl.buffer(b) as bb, sycl.buffer(c) as bc:

        def load(h: sycl.handler) -> None:
            acc = sycl.accessor(ba, h, sycl.write_only)

            def load_a() -> None:
                gate.wait(30)
                np.asarray(acc).fill(3)

            h.host_task(load_a)

        def after_set() -> None:
            pass

        def after_ordered() -> None:
            pass

        q.submit(load)
        q.submit(lambda h: h.parallel_for(N, "trace_copy", sycl.accessor(ba, h, sycl.read_only),
                                          sycl.accessor(bb, h, sycl.write_only)))
        overwrite = q.submit(
            lambda h: h.parallel_for(N, "trace_set", sycl.accessor(ba, h, sycl.write_only), 7))
        q.submit(lambda h: (h.depends_on(overwrite), h.host_task(after_set)))
        ordered.submit(lambda h: h.parallel_for(N, "trace_set", sycl.accessor(bc, h, sycl.write_only), 1))
        ordered.submit(lambda h: h.host_task(after_ordered))
        gate.set()
        q.wait()
        ordered.wait()
        with sycl.host_accessor(bb, sycl.read_only):
            q.submit(lambda h: h.parallel_for(N, "trace_copy", sycl.accessor(bb, h, sycl.read_only),
                                              sycl.accessor(bc, h, sycl.write_only)))
        q.wait()
    assert (b == 3).all() and (a == 7).all() and (c == 3).all()
    return tools.stop_tracing()


def test_the_dag_has_every_command_and_the_reason_of_each_edge(tracing: None, device: sycl.device) -> None:
    trace = _run_small_program(device)
    names = [command_name(op) for op in trace.ops]
    for expected in ("host task load_a", "kernel trace_copy", "kernel trace_set", "host task after_set",
                     "host task after_ordered", "host accessor"):
        assert expected in names, names
    edges = _edges(trace)
    a_buffer = next(buf for before, after, reason, buf in edges
                    if (before, after, reason) == ("host task load_a", "kernel trace_copy", "RAW"))
    b_buffer = next(buf for before, after, _, buf in edges
                    if (before, after) == ("kernel trace_copy", "host accessor"))
    assert a_buffer and b_buffer and a_buffer != b_buffer, edges
    for edge in (
        ("kernel trace_copy", "kernel trace_set", "WAR", a_buffer),
        ("host task load_a", "kernel trace_set", "WAW", a_buffer),
        ("kernel trace_set", "host task after_set", "depends_on", ""),
        ("kernel trace_set", "host task after_ordered", "in-order queue", ""),
        ("host accessor", "kernel trace_copy", "host accessor", b_buffer),
    ):
        assert edge in edges, (edge, edges)
    dot = tools.to_dot(trace)
    assert dot.startswith("digraph sycl_ocl {") and dot.rstrip().endswith("}")
    assert dot.count(" -> ") == len(trace.edges)
    for op in trace.ops:
        assert f"n{op.serial} [label=\"#{op.serial} {command_name(op)}" in dot
    assert 'label="RAW buffer' in dot and 'label="depends_on"' in dot
    # A node names its queue and device; a kernel that copied the host's data says how much.
    kernel = next(op for op in trace.ops if command_name(op) == "kernel trace_copy")
    assert kernel.lane is not None and kernel.lane.device in dot
    assert f"h2d {N * 4} B" in dot


def test_a_repeated_command_group_is_traced_in_full(device: sycl.device) -> None:
    """A command group launched like the ones before it (docs/scheduler.md rule S20) is planned
    and recorded like any other while a trace records."""
    q = sycl.queue(device)
    with sycl.buffer(np.zeros(N, np.int32)) as b:
        def setter(h: sycl.handler) -> None:
            h.parallel_for(N, "trace_set", sycl.accessor(b, h, sycl.write_only), 5)

        for _ in range(3):
            q.submit(setter)
        tools.start_tracing()
        try:
            for _ in range(2):
                q.submit(setter)
            q.wait()
        finally:
            trace = tools.stop_tracing()
    assert [command_name(op) for op in trace.ops] == ["kernel trace_set"] * 2
    assert {(before, after, reason) for before, after, reason, _ in _edges(trace)} == {  # as full planning
        ("kernel trace_set", "kernel trace_set", "WAW"), ("kernel trace_set", "kernel trace_set", "RAW")}


def test_the_chrome_trace_is_valid_json_ordered_by_time(tracing: None, device: sycl.device) -> None:
    trace = _run_small_program(device)
    data = json.loads(tools.to_chrome_trace_json(trace))
    events = data["traceEvents"]
    meta = [e for e in events if e["ph"] == "M"]
    timed = [e for e in events if e["ph"] != "M"]
    assert events[:len(meta)] == meta, "metadata comes first"
    assert [e["ts"] for e in timed] == sorted(e["ts"] for e in timed)
    complete = [e for e in timed if e["ph"] == "X"]
    assert all(e["dur"] >= 0 and isinstance(e["pid"], int) and isinstance(e["tid"], int) for e in complete)
    names = {e["name"] for e in complete}
    assert "host task load_a" in names and "host accessor" in names
    if device.has(sycl.aspect.queue_profiling):
        assert "kernel trace_copy" in names, names
        assert any(e["cat"] == "transfer" for e in complete)
    flows = [e for e in timed if e["ph"] in "sf"]
    starts = sorted(e["id"] for e in flows if e["ph"] == "s")
    assert starts and starts == sorted(e["id"] for e in flows if e["ph"] == "f")
    threads = {e["args"]["name"] for e in meta if e["name"] == "thread_name"}
    assert {"queue 1 (out of order)", "queue 2 (in order)"} <= threads


def test_the_timeline_is_a_picture(tracing: None, device: sycl.device, tmp_path: Path) -> None:
    trace = _run_small_program(device)
    written = trace.save(str(tmp_path / "run"))
    assert written == [str(tmp_path / f"run.{ext}") for ext in ("dot", "json", "png")]
    assert (tmp_path / "run.png").read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    tools.save_timeline(trace, str(tmp_path / "run.svg"))
    assert b"<svg" in (tmp_path / "run.svg").read_bytes()[:2000]
    assert "host" in trace.lane_names() and trace.lane_names()[0] == "queue 1"


def test_a_traced_queue_profiles_but_keeps_the_spec_rule(device: sycl.device) -> None:
    assert recorder.RECORDER is None
    plain = sycl.queue(device)
    assert not sycl.get_native(plain).properties & cl.command_queue_properties.PROFILING_ENABLE
    tools.start_tracing()
    try:
        traced = sycl.queue(device)
    finally:
        tools.stop_tracing()
    if device.has(sycl.aspect.queue_profiling):
        assert sycl.get_native(traced).properties & cl.command_queue_properties.PROFILING_ENABLE
    ev = traced.submit(lambda h: h.single_task("trace_set", cl.Buffer(
        sycl.get_native(traced.get_context()), cl.mem_flags.READ_WRITE, 4), 1))
    ev.wait()
    with pytest.raises(sycl.exception) as info:  # §4.6.6.2: only with enable_profiling
        ev.get_profiling_info(sycl.info.event_profiling.command_end)
    assert info.value.code() == sycl.errc.invalid


def test_no_recording_no_trace() -> None:
    assert recorder.RECORDER is None
    for call in (tools.current_trace, tools.stop_tracing):
        with pytest.raises(sycl.exception) as info:
            call()
        assert info.value.code() == sycl.errc.invalid and "start_tracing" in str(info.value)
    with pytest.raises(sycl.exception):
        tools.start_tracing(0)


def test_the_ring_keeps_the_most_recent_commands(device: sycl.device) -> None:
    tools.start_tracing(capacity=3)
    try:
        q = sycl.queue(device)
        for value in range(5):
            q.submit(lambda h, v=value: h.single_task("trace_set", cl.Buffer(
                sycl.get_native(q.get_context()), cl.mem_flags.READ_WRITE, 4), v))
        q.wait()
        seen = tools.current_trace()
    finally:
        trace = tools.stop_tracing()
    assert [op.serial for op in trace.ops] == [3, 4, 5] == [op.serial for op in seen.ops]


def test_queue_shortcut_launches_are_traced(device: sycl.device) -> None:
    """A kernel launched through the queue shortcut on USM pointers (the fast path, which makes
    no action object) is a traced command like any other, also after untraced launches of it."""
    if not device.has(sycl.aspect.usm_device_allocations):
        pytest.skip(f"{device!r} has no USM (no OpenCL SVM): the buffer forms are traced above")
    q = sycl.queue(device, prop_list=[sycl.property.queue.in_order()])
    p = sycl.malloc_device(count=N, dtype=np.int32, q=q)
    q.parallel_for(N, "trace_set", p, 1).wait()  # untraced: the fast path remembers the launch
    tools.start_tracing()
    try:
        q.parallel_for(N, "trace_set", p, 1)
        q.single_task("trace_set", p, 2)
        q.wait()
    finally:
        trace = tools.stop_tracing()
    assert [command_name(op) for op in trace.ops] == ["kernel trace_set"] * 2
    assert ("kernel trace_set", "kernel trace_set", "in-order queue", "") in _edges(trace)
    sycl.free(p, q)


SCRIPT = """
import sys
import numpy as np
import sycl_ocl as sycl

sycl.register_kernel_source("__kernel void cli_twice(__global float *x) { x[get_global_id(0)] *= 2; }")
data = np.ones(64, np.float32)
with sycl.buffer(data) as buf:
    sycl.queue().submit(lambda h: h.parallel_for(64, "cli_twice", sycl.accessor(buf, h)))
assert data[0] == 2
print("argv", sys.argv[1:], __name__)
sys.exit(int(sys.argv[1]))
"""


def _trace_cli(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "sycl_ocl", "trace", *args], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=240)


def test_the_trace_command_runs_a_script_and_writes_three_files(tmp_path: Path) -> None:
    script = tmp_path / "twice.py"
    script.write_text(SCRIPT)
    done = _trace_cli(["--out", "pictures", str(script), "3"], tmp_path)
    assert done.returncode == 3, done.stderr  # the script's exit status
    assert "argv ['3'] __main__" in done.stdout
    for ext in ("dot", "json", "png"):
        assert (tmp_path / "pictures" / f"twice.{ext}").stat().st_size > 0
    assert "kernel cli_twice" in (tmp_path / "pictures" / "twice.dot").read_text()
    assert "wrote" in done.stderr
    done = _trace_cli([str(script), "0"], tmp_path)  # no --out: here
    assert done.returncode == 0, done.stderr
    written = sorted(p.name for p in tmp_path.glob("twice.*"))
    assert written == ["twice.dot", "twice.json", "twice.png", "twice.py"]
