"""Host ops: host tasks, host-side copies, host accessors and staging reads (§4.10, §4.7.4;
docs/scheduler.md rules S11, S16).

A host op waits in the DAG until its dependencies allow it, then runs on a thread of the host
pool (rule S24): it reads back what it needs from the devices with blocking copies (so no host
transfer is ever gated on a user event), runs its body, then lets the deferred device ops that
waited on it go. One that fails before changing anything is undone (rule S25).

A host task with native access (``NativeTask``, §4.10.2) instead has its memory brought to its
lane's context: it waits for its dependencies, enqueues its transfers to the device, runs its
body, then enqueues a marker on the lane's queue, which becomes its OpenCL event: later
commands wait for the native work through wait lists, as for any device command.
"""

from __future__ import annotations

from contextlib import nullcontext, suppress
from typing import TYPE_CHECKING, Any

from .._exception import errc, exception
from .._native import cl, translate
from . import trace
from .actions import HostTask, NativeScope, NativeTask
from .issue import enqueue_moves
from .memory_object import HOST
from .op import END, RUNNING, START, Op, new_op
from .progress import drain, run_host
from .refusal import UNDO, current, keep_bytes, undo
from .runtime import RUNTIME

# Host bytes a read behind its producers saves first (``prepare``): beyond, a wait costs less
# than the copy.
SAVED_BYTES_MAX = 1 << 20

if TYPE_CHECKING:
    from collections.abc import Sequence

    from .._async_errors import AsyncErrors
    from .memory_object import MemoryObject, Snapshot
    from .op import Move


def transfer_op(
    async_errors: AsyncErrors | None = None, staging: bool = False, what: str = "host accessor"
) -> Op:
    """A host op whose whole work is its transfers to the host: a host accessor's or a buffer's
    write-back (run by their caller, which gets its errors; ``what`` names it in traces), or a
    read-back on the way to another context (``staging``, reporting to ``async_errors``)."""
    op = new_op(None, HOST, True, async_errors)
    op.work = HostTask(None, staging, what)
    return op


def start(op: Op, saved: Sequence[tuple[MemoryObject, Snapshot]] = ()) -> None:
    """Run the host op on a host thread once its dependencies allow it (under the lock).
    ``saved``: what its planning changed, undone if it fails before it changed anything
    (rule S25)."""
    if saved:
        UNDO[op] = saved
    run_host(op, _run_native if type(op.work) is NativeTask else _run, _no_thread)


def _no_thread(op: Op, error: BaseException) -> None:
    """No thread can run ``op``: it fails undone (rule S25)."""
    with RUNTIME:
        undo(op)
    op.fail(exception(errc.runtime, f"no thread could run a host command: {error}"))
    drain()


def _run(op: Op) -> None:
    try:
        prepare(op)
        op.stamp(START)
        body = op.work.fn
        if body is not None:
            RUNNING.op = op
            try:
                body()
            finally:
                RUNNING.op = None
                del body  # its accessors hold their buffers: they end with the op (rule S29)
    except BaseException as error:
        op.stamp(END)
        op.fail(_failure(error))
    else:
        op.stamp(END)
        op.finish()
    drain()


def _failure(error: BaseException) -> BaseException:
    """The asynchronous error of a host op that raised ``error``: itself when it is a
    ``sycl.exception``, else (the user's task raised) ``errc.runtime`` caused by it."""
    if isinstance(error, exception):
        return error
    failure = exception(errc.runtime, f"a host task raised {error!r}")
    failure.__cause__ = error  # keeps the original and its traceback (docs/scheduler.md rule S10)
    return failure


def _run_native(op: Op) -> None:
    """Run a host task with native access (docs/scheduler.md rule S16).

    On Oclgrind, which is not thread safe, the transfers, the body and the marker run under
    the context's serial lock (``ContextRecord.serial``).
    """
    lane = op.lane
    assert lane is not None
    wait_for_dependencies(op)
    keep: list[Any] = []
    failure: BaseException | None = None
    marker: cl.Event | None = None
    moved = False
    with lane.serial or nullcontext():
        try:
            if op.moves:
                with RUNTIME:  # enqueues (and their counters) under the lock, as everywhere
                    enqueue_moves(op, lane, None, keep)
                cl.wait_for_events([ev for ev in keep if isinstance(ev, cl.Event)])
            moved = True
            with RUNTIME:
                UNDO.pop(op, None)
            op.stamp(START)
            RUNNING.op = op
            try:
                op.work.fn(NativeScope(lane))
            except BaseException as error:
                failure = _failure(error)
            finally:
                RUNNING.op = None
            op.stamp(END)
            marker = cl.enqueue_marker(lane.cl_queue)  # after the native work: the op's event
            lane.cl_queue.flush()
        except cl.Error as error:
            failure = failure or translate(error, "running a host task with native access")
        if failure is not None:  # what was enqueued still ends before the dependents run
            with suppress(cl.Error):
                if marker is not None:
                    marker.wait()
                else:
                    lane.cl_queue.finish()
    if failure is None:
        with RUNTIME:
            op.host = False  # from now on a command of the lane's OpenCL queue (rule S16)
            op.issued(marker, keep)
    else:
        with RUNTIME:  # its memory holds what the body left; failed transfers changed nothing
            keep_bytes(op) if moved else undo(op)
        op.fail(failure)
    drain()


def wait_for_dependencies(op: Op) -> None:
    """Block until every dependency of ``op`` completed.

    A failed dependency does not stop the op: it runs and reports its own errors
    (docs/scheduler.md rule S10).
    """
    for dep in op.deps:
        with suppress(exception):  # a failed interop event: it ended, all this op waits for
            dep.wait()
    recorder = trace.RECORDER
    if recorder is not None:
        recorder.started(op)


def prepare(op: Op) -> None:
    """Wait for the dependencies, then read the needed bytes back into the host copies
    (docs/scheduler.md rule S11), but for the bytes of a command that failed (rule S10).

    Where every dependency is a device command of one in-order OpenCL queue, in the context
    the bytes come from, and the host bytes they replace are few (``SAVED_BYTES_MAX``), the
    blocking reads go on that queue, behind them: one round trip to the driver instead of a
    wait and then a read on the transfer queue. The replaced host bytes are saved first and
    put back where the command that produced the bytes read turns out to have failed. If a
    read fails there (a failed command fails what follows it on some drivers), the op waits
    and reads as anywhere else. If the reads fail, the op's planning is undone (rule S25).
    """
    try:
        _read(op)
    except BaseException:  # nothing was done: the host copy is no more current than before
        with RUNTIME: undo(op)  # noqa: E701  # one line (rule S26)
        raise
    with RUNTIME: UNDO.pop(op, None)  # noqa: E701  # one line (rule S26)
    if trace.RECORDER is not None:
        trace.RECORDER.moved(op)


def _read(op: Op) -> None:
    staging = op.work.staging
    queue = _behind(op)
    done = 0 if queue is None else _read_behind(op, queue, staging)
    if queue is None or done < len(op.moves):
        wait_for_dependencies(op)
        for move in op.moves[done:]:
            memory, alloc = move[0], move[1]
            for lo, hi in current(move, alloc.loc, True):
                read_back(memory, alloc, lo, hi, staging, _holder_queue(move))
    elif trace.RECORDER is not None:
        trace.RECORDER.started(op)


def _read_behind(op: Op, queue: cl.CommandQueue, staging: bool) -> int:
    """Read ``op``'s moves back on ``queue``, behind its dependencies, the host bytes they
    replace saved and put back where their producer failed; returns how many were read (all,
    unless a read failed)."""
    moves = op.moves
    saved = [None if producer is None else memory.host_copy()[lo:hi].copy()
             for memory, _, lo, hi, producer in moves]
    done = 0
    with suppress(exception):
        for memory, alloc, lo, hi, _ in moves:
            read_back(memory, alloc, lo, hi, staging, queue)
            done += 1
    for move, old in zip(moves[:done], saved, strict=False):
        memory, alloc, lo, hi, producer = move
        # Complete by now (the queue is in order): polled, a failure shows.
        if producer is not None and producer.poll() and producer.failed:
            host = memory.host_copy()
            read = host[lo:hi].copy()
            host[lo:hi] = old  # but the bytes it left there where it was undone (rule S25)
            for a, b in current(move, alloc.loc, True):
                host[a:b] = read[a - lo:b - lo]
    return done


def _behind(op: Op) -> cl.CommandQueue | None:
    """The in-order OpenCL queue that every dependency of ``op`` is enqueued on, if ``op``
    reads bytes back from its context only and replaces at most ``SAVED_BYTES_MAX`` host
    bytes that a pending command produces; None otherwise."""
    if not op.deps or not op.moves:
        return None
    lane = None
    for dep in op.deps:
        if type(dep) is not Op or dep.host or dep.event is None:
            return None
        if lane is not None and dep.lane is not lane:
            return None
        lane = dep.lane
    if lane is None or not lane.ordered:
        return None
    saved = 0
    for _, alloc, lo, hi, producer in op.moves:
        if alloc.context is not lane.context:
            return None
        if producer is not None:
            saved += hi - lo
    return lane.cl_queue if saved <= SAVED_BYTES_MAX else None


def _holder_queue(move: Move) -> cl.CommandQueue | None:
    """The queue to read ``move`` back on, once its producer completed: the producer's own
    in-order queue where that is of another device of the allocation's context than its
    transfer queue's (a driver moves a ``cl_mem`` between the GPUs of one context to read it
    on the other GPU, slowly: issue 31); None (the transfer queue) otherwise."""
    producer, alloc = move[4], move[1]
    if producer is None or producer.host or producer.lane is None:
        return None
    lane = producer.lane
    if lane.context is not alloc.context or not lane.ordered or lane.cl_queue.device == alloc.context.device:
        return None
    return lane.cl_queue


def read_back(memory: MemoryObject, alloc: Any, lo: int, hi: int, staging: bool = False,
              queue: cl.CommandQueue | None = None) -> None:
    """Blocking copy of bytes ``[lo, hi)`` from ``alloc`` into the memory object's host copy,
    on ``queue`` (default: the context's transfer queue)."""
    host = memory.host_copy()
    serial = alloc.context.serial
    target = alloc.context.transfer_queue() if queue is None else queue
    try:
        if serial is not None:
            with serial:
                _copy_back(alloc, host, lo, hi, target)
        else:
            _copy_back(alloc, host, lo, hi, target)
    except cl.Error as error:
        raise translate(error, f"reading {hi - lo} bytes back to the host") from error
    counters = memory.counters
    counters.d2h_bytes += hi - lo
    counters.d2h_copies += 1
    if staging:
        counters.staged_bytes += hi - lo


def _copy_back(alloc: Any, host: Any, lo: int, hi: int, queue: cl.CommandQueue) -> None:
    alloc.download(queue, host, lo, hi)
