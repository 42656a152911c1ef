"""Failures: a failure reports itself once, to the right place, and never costs data that was
already computed (docs/reliability.md, docs/scheduler.md rules S10, S21, S22).

Faults are real OpenCL refusals where the device gives one (a work-group size above the
device's maximum) and otherwise injected at the PyOpenCL boundary (``sycl_ocl._native.inject``):
the n-th call of a kind fails with a real OpenCL status, raised by PyOpenCL's own error type.
Ordering uses gates (a host task waiting on a ``threading.Event``), never sleeps.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import numpy as np
import pytest

import sycl_ocl as sycl
from sycl_ocl import _native

from kernel_support import child_json
from sycl_ocl.scheduler.pool import POOL

sycl.register_kernel_source(
    """
    __kernel void fault_inc(__global int* a) { a[get_global_id(0)] += 1; }
    """
)
N = 64


def recording(device: sycl.device) -> tuple[sycl.queue, list[sycl.exception]]:
    """A queue whose asynchronous errors land in the returned list."""
    seen: list[sycl.exception] = []
    return sycl.queue(device, async_handler=seen.extend), seen


def inc(buf: sycl.buffer, depends_on: sycl.event | None = None,
        local: int | None = None) -> Callable[[sycl.handler], None]:
    """A command group adding 1 to every element (an nd_range of work-groups of ``local``)."""

    def cgf(h: sycl.handler) -> None:
        if depends_on is not None:
            h.depends_on(depends_on)
        acc = sycl.accessor(buf, h)
        if local is None:
            h.parallel_for(buf.size(), "fault_inc", acc)
        else:
            h.parallel_for(sycl.nd_range(sycl.range(local), sycl.range(local)), "fault_inc", acc)

    return cgf


def gated(gate: threading.Event) -> Callable[[sycl.handler], None]:
    """A host task that waits for ``gate``: what follows it waits in the DAG."""
    return lambda h: h.host_task(lambda: gate.wait(30))


def too_large(device: sycl.device) -> int:
    """A work-group size above the device's maximum (the kernel's enqueue is refused)."""
    return int(device.get_info(sycl.info.device.max_work_group_size)) * 2


def test_a_deferred_kernel_refused_at_enqueue_keeps_the_earlier_result(device: sycl.device) -> None:
    """Kernel A runs; kernel B, deferred behind a host task, is refused at enqueue (work-group
    size above the device's): B's error is reported once, and A's result reaches the host
    accessor and the write-back."""
    q, seen = recording(device)
    data = np.zeros(too_large(device), dtype=np.int32)
    gate = threading.Event()
    with sycl.buffer(data) as buf:
        q.submit(inc(buf))
        held = q.submit(gated(gate))
        refused = q.submit(inc(buf, held, local=data.size))
        gate.set()
        refused.wait()
        with sycl.host_accessor(buf, sycl.read_only) as acc:
            assert np.asarray(acc).tolist() == [1] * data.size
    assert data.tolist() == [1] * data.size
    q.wait_and_throw()
    assert [e.code() for e in seen] == [sycl.errc.nd_range]


def test_a_refused_kernel_read_by_a_host_accessor_planned_before_the_refusal(device: sycl.device) -> None:
    """The host accessor is planned while the refused kernel still waits: it reads what the
    kernel before it computed."""
    q, seen = recording(device)
    data = np.zeros(too_large(device), dtype=np.int32)
    gate = threading.Event()
    with sycl.buffer(data) as buf:
        q.submit(inc(buf))
        held = q.submit(gated(gate))
        q.submit(inc(buf, held, local=data.size))
        threading.Timer(0.2, gate.set).start()  # opens while the host accessor waits
        with sycl.host_accessor(buf, sycl.read_only) as acc:
            assert np.asarray(acc).tolist() == [1] * data.size
    q.wait_and_throw()
    assert [e.code() for e in seen] == [sycl.errc.nd_range]


def test_an_interop_task_raising_before_touching_its_memory_keeps_the_kernels_result(
        device: sycl.device) -> None:
    """An interop host task raises before touching its read_write accessor: the error is
    reported once, and the earlier kernel's result reaches the array."""
    q, seen = recording(device)
    data = np.zeros(N, dtype=np.int32)

    def body(ih: sycl.interop_handle) -> None:
        raise ValueError("gave up before touching the memory")

    with sycl.buffer(data) as buf:
        q.submit(inc(buf))
        q.submit(lambda h: (sycl.accessor(buf, h, sycl.read_write), h.host_task(body)))
    assert data.tolist() == [1] * N
    q.wait_and_throw()
    assert [e.code() for e in seen] == [sycl.errc.runtime]
    assert isinstance(seen[0].__cause__, ValueError)


@pytest.mark.parametrize("mode", [sycl.read_only, sycl.read_write], ids=["read_only", "read_write"])
def test_a_failed_host_accessor_read_back_leaves_the_host_copy_stale(device: sycl.device, mode: object) -> None:
    """The host accessor's read-back fails (injected CL_OUT_OF_RESOURCES): it raises, the host
    copy is not taken for current, so the next host accessor reads the kernel's result again,
    and the device's bytes survive a failed read_write accessor."""
    q = sycl.queue(device)
    data = np.zeros(N, dtype=np.int32)
    with sycl.buffer(data) as buf:
        q.submit(inc(buf)).wait()
        with _native.inject("read", 1), pytest.raises(sycl.exception) as failed:
            sycl.host_accessor(buf, mode)
        assert failed.value.code() is sycl.errc.memory_allocation
        assert "CL_OUT_OF_RESOURCES" in failed.value.what()
        with sycl.host_accessor(buf, sycl.read_only) as acc:
            assert np.asarray(acc).tolist() == [1] * N
    assert data.tolist() == [1] * N


def test_a_host_task_without_a_thread_keeps_the_kernels_results_around_it() -> None:
    """No thread can run a read_write host task (injected thread-start failure, in a fresh
    interpreter: no pool thread runs yet): it fails with errc.runtime, once, and the kernels
    before and after it keep their results."""
    result = child_json("""
        import json
        import numpy as np
        import sycl_ocl as sycl
        from sycl_ocl import _native
        from tests.conftest import preferred_device

        sycl.register_kernel_source("__kernel void inc(__global int* a) { a[get_global_id(0)] += 1; }")

        def inc(buf, after=None):
            def cgf(h):
                if after is not None:
                    h.depends_on(after)
                h.parallel_for(buf.size(), "inc", sycl.accessor(buf, h))
            return cgf

        seen = []
        q = sycl.queue(preferred_device(), async_handler=seen.extend)
        data = np.zeros(64, dtype=np.int32)
        ran = []
        with sycl.buffer(data) as buf:
            q.submit(inc(buf)).wait()
            with _native.inject("thread", 1):
                task = q.submit(lambda h: (sycl.accessor(buf, h, sycl.read_write),
                                           h.host_task(lambda: ran.append(1))))
                task.wait()
            q.submit(inc(buf, task)).wait()
        q.wait_and_throw()
        print(json.dumps([data.tolist(), ran, [e.code().name for e in seen]]))
    """)
    assert result == [[2] * 64, [], ["runtime"]]


# --- the host thread pool (rule S21) ---------------------------------------------------------


def test_host_tasks_behind_a_gate_hold_at_most_the_pool_of_threads(queue: sycl.queue) -> None:
    """1,000 host tasks behind a gate start no thread until it opens, then all run on at most
    the pool's threads."""
    gate = threading.Event()
    before = threading.active_count()
    first = queue.submit(gated(gate))
    done: list[int] = []
    tasks = [queue.submit(lambda h: (h.depends_on(first), h.host_task(lambda: done.append(1))))
             for _ in range(1000)]
    held = max(threading.active_count() - before for _ in range(300) if not gate.wait(0.001))
    gate.set()
    for task in tasks:
        task.wait()
    assert held <= POOL.size + 1  # the gate's task may have started its thread
    assert threading.active_count() - before <= POOL.size
    assert len(done) == 1000


def test_host_tasks_waiting_for_each_others_events_on_a_pool_of_one(device: sycl.device) -> None:
    """A pool of one thread: each host task waits for the event of the one submitted after it
    (the last one waits for nothing); all complete, none starves the pool."""
    size = POOL.size
    POOL.size = 1
    try:
        q = sycl.queue(device)
        events: list[sycl.event] = []
        submitted = threading.Event()
        order: list[int] = []

        def body(i: int) -> None:
            submitted.wait(30)
            if i + 1 < len(events):
                events[i + 1].wait()
            order.append(i)

        for i in range(6):
            events.append(q.submit(lambda h, i=i: h.host_task(lambda: body(i))))
        submitted.set()
        for ev in events:
            ev.wait()
        assert order == [5, 4, 3, 2, 1, 0]
    finally:
        POOL.size = size
