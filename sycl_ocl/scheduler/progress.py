"""Issuing device ops: at once when their dependencies allow it, else later from the DAG.

A device op can be enqueued when every dependency is complete or is an enqueued OpenCL
command of the same context (passed in the wait list; same-queue ones are implied by the
in-order queue). Otherwise (a deferred or host op, or another context's command still
running) it waits in ``_deferred``: it is never put behind a user event (D07). Deferred ops
are issued in submission order by ``drain``, called when a host op completes, a host
accessor is released, and from a progress thread woken by OpenCL completion callbacks and
host waits (D27).
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pyopencl as cl

from .._async_errors import log
from ..exception import errc, exception
from .op import DEFERRED, DONE, Op
from .state import LOCK

if TYPE_CHECKING:
    from .lane import Lane

BLOCKED: Any = object()

_deferred: list[Op] = []
_watched: set[int] = set()
_wake = threading.Event()
_thread: threading.Thread | None = None
_start_lock = threading.Lock()
_spawns: deque[tuple[Callable[..., Any], tuple[Any, ...], str, Callable[[BaseException], Any]]] = deque()


def wait_list(op: Op) -> Any:
    """The OpenCL events ``op`` must wait for, None for none, or ``BLOCKED``."""
    lane: Lane = op.lane  # type: ignore[assignment]
    ctx = lane.ctx
    events: list[cl.Event] | None = None
    ev: Any  # an issued op's event, or a foreign command's
    for dep in op.deps:
        if type(dep) is Op:
            state = dep.state
            if state == DONE:
                continue
            if state == DEFERRED or dep.host:
                return BLOCKED
            ev = dep.event
            if dep.lane is lane:
                if lane.ordered:
                    continue  # the OpenCL queue orders it
            elif dep.ctx != ctx:
                if dep.poll():
                    continue
                dep.lane.flush()  # type: ignore[union-attr]  # some drivers (Oclgrind) run only flushed work
                _watch(ev)
                return BLOCKED
            else:
                dep.lane.flush()  # type: ignore[union-attr]  # another queue's event: flush before waiting on it
        else:
            ev = dep.cl_event()
            if ev is None:
                continue
            if ev.context.int_ptr != ctx:
                if ev.command_execution_status == cl.command_execution_status.COMPLETE:
                    continue
                _watch(ev)
                return BLOCKED
        if events is None:
            events = [ev]
        else:
            events.append(ev)
    return events


def _watch(ev: cl.Event) -> None:
    key = ev.int_ptr
    if key not in _watched:
        _watched.add(key)
        ev.set_callback(cl.command_execution_status.COMPLETE, lambda status: _fired(key))


def _fired(key: int) -> None:
    # Runs on a driver thread: no blocking OpenCL calls, no scheduler lock; wake the thread.
    _watched.discard(key)
    _wake.set()


def defer(op: Op) -> None:
    """Keep ``op`` in the DAG until its dependencies allow enqueueing it (under the lock)."""
    if op.flag is None:
        op.flag = threading.Event()
    _deferred.append(op)
    ensure_running()


def spawn(
    target: Callable[..., Any], args: tuple[Any, ...], name: str,
    failed: Callable[[BaseException], Any],
) -> None:
    """Run ``target(*args)`` on a new thread, started by the progress thread; ``failed(error)``
    instead when no thread can be started.

    Starting a thread waits until it runs, and a garbage collection there may run a buffer's
    finalizer, which takes the scheduler lock: a thread started under the lock could
    deadlock with its starter. Spawning never waits, so it is safe anywhere.
    """
    _spawns.append((target, args, name, failed))
    ensure_running()
    _wake.set()


def ensure_running() -> None:
    """Start the progress thread (first called when a queue is made, outside the lock)."""
    global _thread
    if _thread is None:
        with _start_lock:
            if _thread is None:
                thread = threading.Thread(target=_progress, name="sycl_ocl-progress", daemon=True)
                thread.start()
                _thread = thread


def kick() -> None:
    """Ask the progress thread to try the deferred ops again."""
    _wake.set()


def drain() -> None:
    """Issue every deferred op whose dependencies now allow it, in submission order."""
    if not _deferred:
        return
    from .issue import issue

    with LOCK:
        still = []
        for op in _deferred:
            if op.state != DEFERRED:
                continue
            failed = _failed_dep(op)
            if failed:
                op.fail(exception(errc.runtime, "not run: a command it depends on failed"))
                continue
            events = wait_list(op)
            if events is BLOCKED:
                still.append(op)
                continue
            try:
                issue(op, events)
            except exception as error:
                op.fail(error)
        _deferred[:] = still


def _failed_dep(op: Op) -> bool:
    return any(type(d) is Op and d.failed for d in op.deps)


def _progress() -> None:
    while True:
        _wake.wait()
        _wake.clear()
        while _spawns:
            _start(*_spawns.popleft())  # in a function: this loop keeps no reference to its args
        try:
            drain()
        except Exception:  # the progress thread outlives any one failure; drain retries later
            log.exception("sycl_ocl: issuing deferred commands failed")


def _start(
    target: Callable[..., Any], args: tuple[Any, ...], name: str,
    failed: Callable[[BaseException], Any],
) -> None:
    try:
        threading.Thread(target=target, args=args, name=name, daemon=True).start()
    except RuntimeError as error:  # "can't start new thread": fail the work instead of hanging
        failed(error)
