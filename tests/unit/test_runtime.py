"""The runtime object, lanes, issuing decisions and error stores, without a device
(docs/scheduler.md rules S7-S10, S12, S14, S15)."""

from __future__ import annotations

import gc
import logging
import threading

import pyopencl as cl
import pytest
from scheduler_fakes import FakeContext, FakeEvent, FakeLane, device_op, host_op

import sycl_ocl as sycl
from sycl_ocl._async_errors import AsyncErrors
from sycl_ocl.scheduler import command_group, lifetime, progress
from sycl_ocl.scheduler.command import complete
from sycl_ocl.scheduler.lane import TRIM_EVERY, Lane
from sycl_ocl.scheduler.op import DONE, Op, add_edge, add_move, depend, new_op
from sycl_ocl.scheduler.progress import BLOCKED, wait_list
from sycl_ocl.scheduler.runtime import RUNTIME, Runtime

# --- the lock and the scheduler's threads (rule S12) -------------------------------------------


def test_the_lock_knows_its_owner_through_nesting() -> None:
    runtime = Runtime()
    assert not runtime.held()
    with runtime:
        with runtime:
            assert runtime.held()
        assert runtime.held()
        seen_elsewhere: list[bool] = []
        other = threading.Thread(target=lambda: seen_elsewhere.append(runtime.held()))
        other.start()
        other.join()
        assert seen_elsewhere == [False]
    assert not runtime.held()


def test_the_scheduler_threads_carry_a_mark() -> None:
    runtime = Runtime()
    seen: list[bool] = []
    mark = lambda: seen.append(runtime.on_own_thread())  # noqa: E731
    thread = threading.Thread(target=runtime.run_thread, args=(mark, ()))
    thread.start()
    thread.join()
    assert seen == [True] and not runtime.on_own_thread()


def test_finalizers_during_a_collection_run_when_it_ends_or_on_the_progress_thread() -> None:
    # A collection may run finalizers inside a lock of the standard library that their work
    # takes (an Event's condition): during one, they only queue their work (rule S19). Its end
    # runs the work on the collecting thread where that holds no lock the work may take, else
    # the progress thread runs it (rule S21).
    progress.start()
    ran: list[tuple[str, bool]] = []
    done = threading.Event()

    def work() -> None:
        ran.append((threading.current_thread().name, collecting[0]))
        done.set()

    class Garbage:
        def __init__(self) -> None:
            self.me = self

        def __del__(self) -> None:
            lifetime.finalize(work, "a test finalizer")

    collecting = [True]
    Garbage()
    gc.collect()
    collecting[0] = False
    here = threading.current_thread().name
    assert ran == [(here, True)]  # before gc.collect() returned, on this thread
    done.clear()
    Garbage()
    with RUNTIME:  # under the scheduler lock: not here
        gc.collect()
    assert done.wait(10) and ran[-1][0] == "sycl_ocl-progress"
    done.clear()
    Garbage()
    exec("__import__('gc').collect()", {"__name__": "threading"})  # as inside an Event's lock
    assert done.wait(10) and ran[-1][0] == "sycl_ocl-progress"
    lifetime.finalize(work, "a test finalizer")  # outside a collection: at once, on this thread
    assert ran[-1][0] == here


def test_reported_errors_are_remembered_until_delivered() -> None:
    runtime = Runtime()
    store = AsyncErrors(None)
    runtime.report(store, sycl.exception(sycl.errc.runtime, "late"))
    assert store.pending() and store in runtime.undelivered


def test_shutdown_logs_what_nobody_received(caplog: pytest.LogCaptureFixture) -> None:
    runtime = Runtime()
    store = AsyncErrors(None)
    runtime.report(store, sycl.exception(sycl.errc.runtime, "never waited for"))
    with caplog.at_level(logging.ERROR, logger="sycl_ocl"):
        runtime.shutdown()  # no lane: nothing in flight to wait for
    assert "never waited for" in caplog.text and not store.pending()


# --- error stores (rule S10, S14) -------------------------------------------------------------


def test_a_store_delivers_once_to_its_handler_then_the_contexts() -> None:
    received: list[list[sycl.exception]] = []
    context_store = AsyncErrors(lambda errors: received.append(list(errors)))
    queue_store = AsyncErrors(None, fallback=context_store)
    queue_store.report(sycl.exception(sycl.errc.runtime, "a"))
    context_store.report(sycl.exception(sycl.errc.runtime, "b"))
    queue_store.deliver()
    queue_store.deliver()
    assert [[e.what() for e in batch] for batch in received] == [["a", "b"]]


def test_a_store_without_handler_raises_the_first_error() -> None:
    store = AsyncErrors(None)
    store.report(sycl.exception(sycl.errc.kernel, "first"))
    with pytest.raises(sycl.exception, match="first"):
        store.deliver()
    store.deliver()  # delivered once


def test_a_collected_store_logs_its_errors(caplog: pytest.LogCaptureFixture) -> None:
    store = AsyncErrors(None)
    cause = ValueError("the original")
    error = sycl.exception(sycl.errc.runtime, "wrapped")
    error.__cause__ = cause
    store.report(error)
    with caplog.at_level(logging.ERROR, logger="sycl_ocl"):
        del store
        gc.collect()
    assert "never delivered: [runtime] wrapped" in caplog.text and "ValueError: the original" in caplog.text


# --- issuing decisions (rules S7, S8) ----------------------------------------------------------


def test_a_device_op_waits_in_the_dag_behind_deferred_and_host_work() -> None:
    lane = FakeLane(1)
    for blocker in (device_op(lane), host_op()):
        op = device_op(lane)
        add_edge(op, blocker)
        assert wait_list(op) is BLOCKED


def test_completed_and_same_queue_dependencies_need_no_wait_list() -> None:
    lane = FakeLane(1)
    done, queued = device_op(lane), device_op(lane, issued=True)
    done.state = DONE
    op = device_op(lane)
    for dep in (done, queued, complete()):
        add_edge(op, dep)
    assert wait_list(op) is None


def test_another_queue_of_the_context_is_flushed_and_waited_for() -> None:
    mine, other = FakeLane(1), FakeLane(1)
    queued = device_op(other, issued=True)
    op = device_op(mine)
    add_edge(op, queued)
    assert wait_list(op) == [queued.event] and other.flushed == 1


def test_another_contexts_command_is_watched_until_it_completes() -> None:
    other = FakeLane(2)
    dep = device_op(other, issued=True)
    op = device_op(FakeLane(1))
    add_edge(op, dep)
    assert wait_list(op) is BLOCKED and other.flushed == 1
    dep.event.complete()  # type: ignore[union-attr]  # its callback wakes the progress thread
    assert dep.event.int_ptr not in RUNTIME.watched  # type: ignore[union-attr]
    assert wait_list(op) is None


def test_a_command_that_completes_as_its_queue_is_flushed_is_not_waited_for() -> None:
    """Oclgrind runs a queue's work when it is flushed: the event is complete before its
    callback is registered, and the callback never comes."""
    event = FakeEvent(0xC0FFEE)
    dep = device_op(FakeLane(2, on_flush=event.complete), issued=True)
    dep.event = event  # type: ignore[assignment]
    op = device_op(FakeLane(1))
    add_edge(op, dep)
    assert wait_list(op) is None and event.int_ptr not in RUNTIME.watched


def test_an_out_of_order_queue_waits_for_its_own_commands() -> None:
    lane = FakeLane(1, ordered=False)
    queued, op = device_op(lane, issued=True), device_op(lane)
    add_edge(op, queued)
    assert wait_list(op) == [queued.event]


# --- lanes (rule S15) ---------------------------------------------------------------------------


class _Queue:
    properties = 0  # in order


class _NotesTheLock:
    """A device action that notes, as it is enqueued, whether its thread holds the lock."""

    def __init__(self) -> None:
        self.held: list[bool] = []

    def enqueue(self, lane: Lane, wait_for: object, keep: list[object]) -> None:
        self.held.append(RUNTIME.held())


def test_a_submit_holds_the_lock_as_its_owner() -> None:
    """A finalizer that runs inside a submit asks ``held`` whether it may block (rule S13)."""
    lane = Lane(_Queue(), FakeContext(1), AsyncErrors(None), True, False)  # type: ignore[arg-type]
    action = _NotesTheLock()
    op = command_group.submit(lane, action, (), ())  # type: ignore[arg-type]
    assert action.held == [True] and op.state == DONE and not RUNTIME.held()


def test_a_native_task_is_a_host_op_until_its_marker_then_a_device_command() -> None:
    """Rule S16: before its marker exists, commands depending on a host task with native access
    wait in the DAG (an edge even on its own in-order queue); afterwards they wait on the
    marker like on any enqueued command of the context."""
    lane, other = FakeLane(1), FakeLane(1)
    task = new_op(lane, lane.ctx, True, None)  # type: ignore[arg-type]
    before, elsewhere = device_op(lane), device_op(other)
    depend(before, task)
    depend(elsewhere, task)
    assert before.deps == [task] and wait_list(before) is BLOCKED and wait_list(elsewhere) is BLOCKED
    task.host = False
    task.issued(FakeEvent(), [])  # type: ignore[arg-type]  # what hostops._run_native does
    after = device_op(lane)
    depend(after, task)
    assert after.deps == []  # implied by the in-order queue now
    assert wait_list(before) is None and wait_list(elsewhere) == [task.event]


def test_a_lane_drops_completed_ops_as_it_goes() -> None:
    lane = Lane(_Queue(), FakeContext(1), AsyncErrors(None), False, False)  # type: ignore[arg-type]
    ops = []
    for _ in range(5 * TRIM_EVERY):
        op = device_op(lane)
        lane.add(op)
        ops.append(op)
        op.finish()
        assert len(lane.ops) <= TRIM_EVERY
    assert lane.last is ops[-1] and lane.unfinished() == []


def test_unfinished_ops_stay_on_the_lane() -> None:
    lane = Lane(_Queue(), FakeContext(1), AsyncErrors(None), True, False)  # type: ignore[arg-type]
    waiting = device_op(lane)
    lane.add(waiting)
    for _ in range(2 * TRIM_EVERY):
        op = device_op(lane)
        lane.add(op)
        op.finish()
    assert lane.unfinished() == [waiting] and lane.ops[0] is waiting and lane.ordered


def test_waiting_for_a_lane_finishes_an_op_as_op_finish_does() -> None:
    """``Lane.wait_all`` finishes an op complete on the device in place, a copy of
    ``Op.finish``: both leave the same op (keep-alives dropped, its flag set)."""
    lane = Lane(_Queue(), FakeContext(1), AsyncErrors(None), True, False)  # type: ignore[arg-type]
    op, twin = device_op(lane, issued=True), device_op(lane, issued=True)
    for each in (op, twin):
        each.keep, each.work, each.flag = [object()], object(), threading.Event()
        add_move(each, (None, None, 0, 4))  # type: ignore[arg-type]
    op.event.command_execution_status = 0  # type: ignore[union-attr]  # complete
    lane.add(op)
    lane.wait_all()
    twin.finish()
    fields = [name for name in Op.__slots__ if name not in ("__weakref__", "event", "flag")]
    assert [getattr(op, name) for name in fields] == [getattr(twin, name) for name in fields]
    assert op.flag is not None and op.flag.is_set() and op.state == DONE


def test_waiting_for_a_lane_finishes_every_op_and_reports_the_failed_one() -> None:
    """``Lane.wait_all``: ops complete on the device are finished in place, one that failed
    (a negative status) is reported once to the queue's store, one still running is waited
    for; the lane is left empty."""
    errors = AsyncErrors(None)
    lane = Lane(_Queue(), FakeContext(1), errors, True, False)  # type: ignore[arg-type]
    ops = [device_op(lane, issued=True) for _ in range(4)]
    for op in ops:
        op.async_errors = errors
        lane.add(op)
    statuses = [0, -5, 1, 0]  # complete, failed, running (completes when waited for), complete
    for op, status in zip(ops, statuses, strict=True):
        op.event.command_execution_status = status  # type: ignore[union-attr]
    ops[2].event.wait = ops[2].event.complete  # type: ignore[union-attr]
    lane.wait_all()
    assert [op.state for op in ops] == [DONE] * 4 and [op.failed for op in ops] == [False, True, False, False]
    assert not lane.ops and all(op.keep is None for op in ops)
    with pytest.raises(sycl.exception, match="OpenCL status -5"):
        errors.deliver()


class _RefusingEvent(FakeEvent):
    """An event whose status query fails, as NVIDIA's do after a kernel fault."""

    def get_info(self, param: int) -> int:
        raise cl.RuntimeError("clGetEventInfo failed: <unknown error -9999>")


def test_a_failed_status_query_is_reported_with_its_error() -> None:
    """After a kernel fault NVIDIA's driver fails every status query of the context: the op
    fails once, with the driver's error in the message (docs/devices/README.md)."""
    errors = AsyncErrors(None)
    lane = Lane(_Queue(), FakeContext(1), errors, True, False)  # type: ignore[arg-type]
    op = device_op(lane)
    op.async_errors = errors
    op.issued(_RefusingEvent(), None)  # type: ignore[arg-type]
    assert op.poll() and op.state == DONE and op.failed
    with pytest.raises(sycl.exception, match=r"status query failed: "
                       r"clGetEventInfo failed: <unknown error -9999>"):
        errors.deliver()


# --- the host clock on a device's profiling clock (docs/scheduler.md, "Profiling") ---------------


def test_a_stamp_takes_the_clock_offset_of_its_own_time() -> None:
    """The offset drifts steadily (an NVIDIA H100's clock lost 15.6 us a second): a stamp takes
    the offset on the line through the first and the latest measurement, before, between or
    after them; with one measurement, that one."""
    from sycl_ocl.scheduler.context_record import offset_at

    drift = ((1_000, 5_000_000), (1_001_000, 4_999_000))  # 1 us lost in 1 ms
    assert offset_at(drift, 1_001_000) == 4_999_000
    assert offset_at(drift, 501_000) == 4_999_500
    assert offset_at(drift, 1_000) == 5_000_000
    assert offset_at(drift, 2_001_000) == 4_998_000
    assert offset_at(((7, 123),), 10**12) == 123
